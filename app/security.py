"""The server's defences against hostile clients, in one place.

- `PasswordChecker`: argon2 checks run in a small, low-priority thread pool off the event loop,
  with exponential backoff per user name and per client address (each try booked in the
  database before its check, so parallel guesses and every app process share one queue), and a
  log line per failure.
- `Sessions`: sign-in sessions, in the database so that every app process shares them, that
  end after an idle time and a maximum age, or when the user signs out.
- `OwnedFiles`: downloadable files (CSV exports, batch results) that only their owner may fetch.
- `Uploads`: Gradio's folder of uploads, which are never served back and are deleted once used.
- `Guard`: the ASGI middleware that applies all of the above to every request, plus the
  Host/Origin checks of single-user mode (against DNS rebinding).
- `FairSlots`: fair turns per user at something scarce (the model, glucose imports).

The app signs people in itself (app.signin: its /login sets the `foodtag_session` cookie) and
hands the user to Gradio through Gradio's public ``auth_dependency`` hook, so no Gradio
internals tie a cookie to a user and no process keeps sign-ins in its memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from datetime import datetime
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from gradio import utils as gradio_utils
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from app.errors import Busy, check_upload_size
from db import service, signins
from db.keys import name_key
from db.tables import utcnow
from models.errors import FoodtagError

log = logging.getLogger("foodtag.security")

SESSION_COOKIE = "foodtag_session"
# Where Guard leaves the signed-in user in each request's state (scope["state"]).
_STATE_USER = "foodtag_user"
# Longest user name and password checked at all (db.arguments allows no longer ones).
_MAX_NAME = 64
_MAX_PASSWORD = 1024


class Throttle:
    """Consecutive failures per key; after `free` of them each further try waits
    base * 2**(failures - free) seconds (at most `cap`) after the previous try. The counts
    are in the database (db.signins), so every app process delays the same guesser, and each
    try is booked there before its password is checked (see `reserve`), so parallel guesses
    wait in turn. Its methods do database I/O: call them off the event loop."""

    def __init__(self, kind: str, free: int, base_s: float, cap_s: float,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.kind, self.free, self.base_s, self.cap_s = kind, free, base_s, cap_s
        self.clock = clock

    def record_key(self, key: str) -> str:
        return f"{self.kind}:{key}"

    def delay_s(self, failures: int) -> float:
        """The wait between the try after ``failures`` failures in a row and the one before."""
        return 0.0 if failures < self.free else min(self.cap_s, self.base_s * 2 ** (failures - self.free))

    def wait_s(self, key: str) -> float:
        """How long the next try for ``key`` would wait from now (booked tries included)."""
        found = signins.failures(self.record_key(key))
        if found is None:
            return 0.0
        count, last = found
        return max(0.0, self.delay_s(count) - (self.clock() - last).total_seconds())

    def reserve(self, key: str, *others: tuple[Throttle, str], max_wait_s: float
                ) -> tuple[float, int] | None:
        """Book the next try for ``key`` (and for each (throttle, key) of ``others``) as a
        failure until `succeeded`: (seconds to wait first, this key's failures with it), or
        None when the wait would be over ``max_wait_s`` (then nothing is booked)."""
        delays = {self.record_key(key): self.delay_s,
                  **{throttle.record_key(k): throttle.delay_s for throttle, k in others}}
        booked = signins.reserve_try(delays, max_wait_s=max_wait_s, now=self.clock())
        return None if booked is None else (booked[0], booked[1][self.record_key(key)])

    def failed(self, key: str, *others: tuple[Throttle, str]) -> None:
        """The booked try failed: the next delays count from now, the end of its check."""
        signins.record_failure([self.record_key(key), *(t.record_key(k) for t, k in others)],
                               now=self.clock())

    def succeeded(self, key: str) -> None:
        signins.clear_failures(self.record_key(key))


# The nice value of the password threads. One argon2 verify runs 4 lanes in 4 threads of its
# own (which inherit it), enough to fill a small server's cores during a sign-in flood.
PASSWORD_NICE = 10


def _lower_thread_priority() -> None:
    """Nice the calling thread (Linux nice values are per thread); elsewhere, leave it."""
    if sys.platform.startswith("linux"):
        thread = threading.get_native_id()
        try:
            if os.getpriority(os.PRIO_PROCESS, thread) < PASSWORD_NICE:  # a nicer server stays so
                os.setpriority(os.PRIO_PROCESS, thread, PASSWORD_NICE)
        except OSError as exc:
            log.warning("password checks keep normal CPU priority: %s", exc)


class PasswordChecker:
    """Checks passwords without stalling the server: the slow, memory-hungry argon2 verify
    runs in `workers` threads at low CPU priority, so serving keeps the cores during a flood of
    sign-ins; callers beyond `max_waiting` are refused at once."""

    def __init__(self, verify: Callable[[str, str], bool], *, workers: int, max_waiting: int = 64,
                 user_throttle: Throttle | None = None, client_throttle: Throttle | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._verify = verify
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="password-check",
                                        initializer=_lower_thread_priority)
        self._max_waiting = max_waiting
        self._waiting = 0
        # Five wrong passwords for one name, or twenty from one address (a household or an
        # office shares one), before the delays start; they double up to 30 s per try.
        self.users = user_throttle or Throttle("user", free=5, base_s=1.0, cap_s=30.0)
        self.clients = client_throttle or Throttle("client", free=20, base_s=1.0, cap_s=30.0)
        # A try that would wait longer is refused at once (and books nothing), so a burst of
        # guesses cannot queue up for later; the longest single delay fits.
        self.max_wait_s = max(self.users.cap_s, self.clients.cap_s)
        self._sleep = sleep

    async def check(self, username: str, password: str, client: str) -> bool:
        name = (username or "").strip()
        if not name or not password or len(name) > _MAX_NAME or len(password) > _MAX_PASSWORD:
            log.warning("sign-in refused from %s: empty or overlong user name or password", client)
            return False
        user_key = name_key(name)  # how the database matches names: one count per account
        # Booked before the check, so that parallel guesses cannot all read the same count.
        booked = await run_in_threadpool(self.users.reserve, user_key, (self.clients, client),
                                         max_wait_s=self.max_wait_s)
        if booked is None:
            log.warning("sign-in refused for %r from %s: too many failures in a row, the next try "
                        "would wait over %g s", name, client, self.max_wait_s)
            return False
        wait, failures = booked
        if wait:
            await self._sleep(wait)  # a sleeping coroutine costs no thread and no CPU
        if self._waiting >= self._max_waiting:
            log.warning("sign-in refused for %r from %s: too many password checks waiting", name, client)
            return False
        self._waiting += 1
        try:
            ok = await asyncio.get_running_loop().run_in_executor(self._pool, self._verify, name, password)
        finally:
            self._waiting -= 1
        if ok:
            await run_in_threadpool(self._succeeded, user_key, client)
            return True
        await run_in_threadpool(self.users.failed, user_key, (self.clients, client))
        log.warning("sign-in failed for user %r from %s (%d in a row)", name, client, failures)
        return False

    def _succeeded(self, user_key: str, client: str) -> None:
        self.users.succeeded(user_key)
        self.clients.succeeded(client)


class Sessions:
    """Sign-in sessions in the database (db.signins), shared by every app process: a cookie
    token -> user until ``idle_s`` without a request or ``max_age_s`` in all."""

    def __init__(self, idle_s: float, max_age_s: float) -> None:
        self.idle_s, self.max_age_s = idle_s, max_age_s

    def start(self, user: str) -> str:
        """A new session for ``user``; returns its token, which only the client keeps."""
        token = secrets.token_urlsafe(32)
        signins.start(user, token, max_age_s=self.max_age_s)
        return token

    def user(self, token: str) -> str | None:
        """The token's user, and the session counts as used now; None if unknown, ended or expired."""
        return signins.user_for(token, idle_s=self.idle_s)

    def end(self, token: str) -> None:
        signins.end(token)


class OwnedFiles:
    """Files named with a random marker (see `name`), and who may download them, recorded in
    the database so that any app process refuses everyone else."""

    _MARKER = re.compile(r"-([0-9a-f]{32})(?:\.[A-Za-z0-9]+)+$")

    def name(self, stem: str, suffix: str, user: str) -> str:
        """A file name (`stem-<marker>suffix`) that only `user` may download."""
        marker = secrets.token_hex(16)
        service.own_file(user, marker)
        return f"{stem}-{marker}{suffix}"

    def owner(self, path: str) -> str | None:
        """The owner of the file a URL path names, or None when it is not an owned file."""
        match = self._MARKER.search(path.rsplit("/", 1)[-1])
        return service.file_owner(match.group(1)) if match else None


class Uploads:
    """Gradio's folder (GRADIO_TEMP_DIR, else Gradio's default): every upload lies there as the
    client sent it (a photo with its EXIF, GPS position included), beside Gradio's copies of
    the files the app returns. Guard serves no upload back; the handlers delete each one once
    it is used (`discard`); `sweep` removes what is left behind."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder or gradio_utils.get_upload_folder()).resolve()
        self._listed: set[str] = set()

    def list_with(self, listed: set[str]) -> None:
        """Gradio's own list of uploads (Blocks.upload_file_set), read by its delete_cache,
        which keeps an entry for good when the file is already gone: `discard` drops it there."""
        self._listed = listed

    def holds(self, path: str) -> bool:
        """Whether ``path``, as a client names it (relative paths from the working folder, as
        Gradio reads them; links followed), lies in the folder. A path that cannot be resolved
        counts as held, so that it is refused."""
        try:
            return Path(os.path.abspath(path)).resolve().is_relative_to(self.folder)
        except (OSError, ValueError, RuntimeError):  # a NUL byte, a loop of links
            return True

    def checked(self, path: Path, limit: int, name: str) -> Path:
        """``path``, an upload of at most ``limit`` bytes (else UploadTooLarge); a FoodtagError
        that says what to do when it is no longer there (used once already, or swept)."""
        try:
            check_upload_size(path.stat().st_size, limit, name)
        except FileNotFoundError:
            raise FoodtagError(f"{name} is no longer on the server: upload it again") from None
        return path

    def read(self, path: Path, limit: int, name: str) -> bytes:
        """An upload's bytes, once `checked`."""
        try:
            return self.checked(path, limit, name).read_bytes()
        except FileNotFoundError:  # swept meanwhile
            raise FoodtagError(f"{name} is no longer on the server: upload it again") from None

    def discard(self, *paths: str | Path) -> None:
        """Delete used uploads, with the folder Gradio made for each (named by its content's
        hash) once empty. Paths outside the folder (a script's or a test's own files) stay."""
        for path in map(Path, paths):
            if not self.holds(str(path)):
                continue
            path.unlink(missing_ok=True)
            self._listed.discard(str(path))
            if path.parent.resolve() != self.folder:
                with contextlib.suppress(OSError):  # not empty: the same file uploaded again meanwhile
                    path.parent.rmdir()

    def sweep(self, max_age_s: float) -> int:
        """Delete files older than ``max_age_s``, and the folders left empty: what a stopped
        process left (Gradio deletes only its own files, and only while it runs) and what Gradio
        never deletes (gr.File leaves an empty temporary file for every event it reads). Younger
        ones may be another live process's. Returns how many files went."""
        cutoff, removed, emptied = time.time() - max_age_s, 0, set()
        for parent, folders, files in os.walk(self.folder, topdown=False):
            for name in files:
                path = Path(parent, name)
                with contextlib.suppress(OSError):  # another process swept it first
                    if path.lstat().st_ctime < cutoff:
                        path.unlink()
                        removed += 1
                        emptied.add(path.parent)
            for name in folders:
                path = Path(parent, name)
                with contextlib.suppress(OSError):  # not empty, or gone
                    if path in emptied or path.lstat().st_ctime < cutoff:
                        path.rmdir()
        return removed


def signed_in_user(request) -> str | None:
    """The user whose live session cookie a request carries, as Guard found it (None: signed
    out, or single-user mode). ``request``: a Starlette/FastAPI request."""
    return getattr(request.state, _STATE_USER, None)


class Guard:
    """ASGI middleware: single-user Host/Origin checks, sign-in sessions and per-user file
    downloads, for every route (the API and the mounted Gradio app). Gradio's file routes serve
    an owned file (OwnedFiles) only to its owner and no upload at all (see `_may_fetch`).

    In accounts mode it looks the session cookie up in the database once per request (in a
    worker thread, off the event loop) and leaves the user in the request's state, where
    `signed_in_user` (the API) and Gradio's ``auth_dependency`` (the UI) read it. A cookie
    that names no live session is removed from the request and cleared in the browser; a
    signed-out browser asking for the page is sent to the sign-in page.
    """

    def __init__(self, app, *, accounts: bool, allowed_hosts: set[str], sessions: Sessions,
                 files: OwnedFiles, uploads: Uploads) -> None:
        self.app = app
        self.accounts = accounts
        self.allowed_hosts = {h.lower() for h in allowed_hosts}
        self.sessions = sessions
        self.files = files
        self.uploads = uploads

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        client = (scope.get("client") or ("unknown",))[0]
        foreign = self._foreign_origin(scope, headers)
        if foreign:
            # No CORS grant for another origin, whatever Gradio's middleware would echo: a page
            # elsewhere (another site, port or subdomain) cannot read the user's data back.
            send = _without_cors_grants(send)
        if not self.accounts:
            refusal = self._local_refusal(scope, headers)
            if refusal:
                log.warning("refused %s %s from %s: %s", scope.get("method", "WS"), scope["path"][:80], client, refusal)
                await _refuse(scope, receive, send, 403, refusal)
                return
            await self._serve(scope, receive, send, None)
            return
        token = _cookies(headers).get(SESSION_COOKIE)
        user = await run_in_threadpool(self.sessions.user, token.value) if token is not None else None
        scope = {**scope, "state": {**scope.get("state", {}), _STATE_USER: user}}
        if token is not None and user is None:
            scope = _without_session_cookie(scope)
            send = _clearing_session_cookie(send)
        if foreign and _changes_state(scope):
            # The cookie rides along with a form or fetch from another origin (SameSite=Lax
            # stops other sites, not other ports or subdomains): refused, as in single-user mode.
            log.warning("refused %s %s from %s: cross-origin (%s)", scope.get("method", "WS"), scope["path"][:80],
                        client, foreign[:80])
            await _refuse(scope, receive, send, 403, "cross-origin requests are refused")
            return
        if scope["type"] == "http":
            if user is None and scope["path"] in _SIGNED_IN_ONLY:
                await _refuse(scope, receive, send, 401, "sign in to read the API's documentation")
                return
            if user is None and scope.get("method") == "GET" and scope["path"] == "/" \
                    and "text/html" in headers.get("accept", ""):
                # Relative, so that it also works under a path prefix of a reverse proxy.
                await RedirectResponse("login", status_code=303)(scope, receive, send)
                return
        await self._serve(scope, receive, send, user)

    async def _serve(self, scope, receive, send, user: str | None) -> None:
        """Pass the request on, unless it asks a Gradio file route for a file ``user`` may not
        fetch: then 404, as for a file that is not there."""
        target = _gradio_file(scope)
        if target is not None and not await run_in_threadpool(self._may_fetch, target, user):
            await _refuse(scope, receive, send, 404, "file not found")
            return
        await self.app(scope, receive, send)

    def _may_fetch(self, target: str, user: str | None) -> bool:
        """Whether ``user`` may fetch the file ``target`` names: a file the app made for someone
        (a CSV export, a batch result, an analysed photo's preview; OwnedFiles) only they may;
        nothing else from Gradio's folder, where every upload lies as it was sent (EXIF, GPS
        position and all), whoever sent it. Elsewhere Gradio's own rules apply."""
        owner = self.files.owner(target)
        if owner is not None:
            return not self.accounts or owner == user
        return not self.uploads.holds(target)

    def _foreign_origin(self, scope, headers: Headers) -> str | None:
        """The Origin (else the Referer) of a browser request from another origin than this
        server's own (scheme, host and port as the request reached it); None for this origin
        and for clients that send neither (scripts, gradio_client)."""
        origin = headers.get("origin") or headers.get("referer")
        if origin is None:
            return None
        hosts = _hostnames_if_same_scheme_and_port(origin, headers.get("host", ""), scope)
        return None if hosts is not None and hosts[0] == hosts[1] else origin

    def _local_refusal(self, scope, headers: Headers) -> str | None:
        """Single-user mode answers only to this machine's names: a page on another origin
        whose name resolves to 127.0.0.1 (DNS rebinding) must not reach the meal log, nor may
        a page served by another program on this machine (another port, another origin)."""
        host_header = headers.get("host", "")
        host = _hostname(host_header)
        if host not in self.allowed_hosts:
            return "this server answers only to " + ", ".join(sorted(self.allowed_hosts))
        origin = headers.get("origin")
        if _changes_state(scope) and origin is not None and not self._own_origin(origin, host_header, scope):
            return "cross-origin requests are refused"
        return None

    def _own_origin(self, origin: str, host_header: str, scope) -> bool:
        """Whether a request's Origin is one of this machine's names with this server's port."""
        hosts = _hostnames_if_same_scheme_and_port(origin, host_header, scope)
        return hosts is not None and hosts[0] in self.allowed_hosts


class FairSlots:
    """Fair turns at something scarce (the model, glucose uploads): at most ``per_user`` of one
    user's requests in flight and ``total`` of everyone's (None: no limit), a user's own slot
    taken first. Waiting is asyncio, so queued requests hold no worker thread (48 queued
    analyses used to take every thread and stall other users' quick calls), and one user's
    burst waits behind their own turns, not in front of everyone else. Past ``max_waiting`` of
    a user's requests waiting (None: no limit), the next is refused at once (Busy): a page's
    event holds one of Gradio's 40 event workers while it waits, so one user's 40 waiting
    analyses stalled every other user's page."""

    def __init__(self, per_user: int = 2, total: int | None = 4, *, max_waiting: int | None = None,
                 what: str = "requests") -> None:
        self.per_user, self.max_waiting, self.what = per_user, max_waiting, what
        self._total = contextlib.nullcontext() if total is None else asyncio.Semaphore(total)
        self._users: dict[str, tuple[asyncio.Semaphore, list[int]]] = {}  # user -> (slots, [holders and waiters])

    def count(self, user: str) -> int:
        """How many of ``user``'s requests hold or wait for a turn."""
        return self._users[user][1][0] if user in self._users else 0

    @asynccontextmanager
    async def turn(self, user: str):
        slots, users = self._users.setdefault(user, (asyncio.Semaphore(self.per_user), [0]))
        if self.max_waiting is not None and users[0] >= self.per_user + self.max_waiting:
            raise Busy(f"you already have {users[0]} {self.what} running or waiting: send another once one "
                       "has finished")
        users[0] += 1
        try:
            async with slots, self._total:
                yield
        finally:
            users[0] -= 1
            if not users[0]:  # nobody of theirs waiting: forget the user (bounded memory)
                del self._users[user]


# Signed-out readers get nothing of these in accounts mode.
_SIGNED_IN_ONLY = frozenset({"/api/docs", "/api/openapi.json"})


def _hostnames_if_same_scheme_and_port(origin: str, host_header: str, scope) -> tuple[str, str] | None:
    """(the Origin's host name, this server's as the request reached it) when the two share a
    scheme and port; None when they do not, or the Origin's port is not a number."""
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme"), scope.get("scheme", "http"))
    try:
        parts, own = urlsplit(origin), urlsplit(f"{scheme}://{host_header}")
        if parts.scheme != own.scheme or _port(parts) != _port(own):
            return None
    except ValueError:  # a port that is not a number, a broken IPv6 address
        return None
    return parts.hostname or "", own.hostname or ""


# Gradio's routes that serve a file by its path on the server (the second, its older spelling).
_FILE_ROUTES = ("/gradio_api/file=", "/gradio_api/file/")


def _gradio_file(scope) -> str | None:
    """The path (or URL) an HTTP request asks a Gradio file route for, read off the path as
    the router matches it (after the ASGI root_path); None for any other request."""
    if scope["type"] != "http":
        return None
    path, root = scope["path"], scope.get("root_path", "")
    if root and path.startswith(root + "/"):
        path = path[len(root):]
    return next((path[len(route):] for route in _FILE_ROUTES if path.startswith(route)), None)


def _changes_state(scope) -> bool:
    return scope["type"] == "websocket" or scope.get("method") not in ("GET", "HEAD", "OPTIONS")


def _without_cors_grants(send):
    """`send` that drops the response's Access-Control-Allow-* headers."""
    async def ungranted(message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [(k, v) for k, v in message.get("headers", [])
                                              if not k.lower().startswith(b"access-control-allow-")]}
        await send(message)

    return ungranted


def session_cookie(response, token: str, *, secure: bool, max_age_s: float) -> None:
    """Set the sign-in cookie: script-proof (HttpOnly), sent on same-site requests only (Lax:
    another site cannot post as the user), over https only when the app is served so."""
    response.set_cookie(SESSION_COOKIE, token, max_age=int(max_age_s), path="/", httponly=True,
                        samesite="lax", secure=secure)


def clear_session_cookie(response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")


def _clearing_session_cookie(send):
    """`send` that adds clear_session_cookie's Set-Cookie header to the response."""
    cleared = Response()
    clear_session_cookie(cleared)
    header = cleared.headers["set-cookie"]

    async def clearing(message) -> None:
        if message["type"] == "http.response.start":
            MutableHeaders(scope=message).append("set-cookie", header)
        await send(message)

    return clearing


def _hostname(netloc: str) -> str:
    netloc = netloc.strip().lower()
    if netloc.startswith("["):  # [::1]:7860
        return netloc[1:].split("]", 1)[0]
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def _port(url) -> int | None:
    """A split URL's port, the scheme's default when none is written."""
    return url.port or {"http": 80, "https": 443}.get(url.scheme)


def _cookies(headers: Headers) -> SimpleCookie:
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header carries no session
        return SimpleCookie()
    return cookie


def _without_session_cookie(scope):
    """The scope without the sign-in cookie, so that nothing downstream sees a dead session."""
    headers = [(k, v) for k, v in scope["headers"] if k != b"cookie"]
    kept = [f"{name}={morsel.coded_value}" for name, morsel in _cookies(Headers(scope=scope)).items()
            if name != SESSION_COOKIE]
    if kept:
        headers.append((b"cookie", "; ".join(kept).encode("latin-1")))
    return {**scope, "headers": headers}


async def _refuse(scope, receive, send, status: int, message: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    await JSONResponse({"error": message}, status_code=status)(scope, receive, send)


class BodyTooLarge(Exception):
    """A request body passed its size limit while streaming in."""


def limited_body(request: Request, limit: int) -> Request:
    """The same request, whose body stops with BodyTooLarge after `limit` bytes (chunked uploads
    have no Content-Length to check up front)."""
    received = 0

    async def receive():
        nonlocal received
        message = await request.receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise BodyTooLarge
        return message

    return Request(request.scope, receive)


def private_dir(path):
    """`path` created (with parents) as an owner-only folder (0700), tightened if it exists."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)
    return path


def password_workers() -> int:
    """Concurrent argon2 checks: each takes ~64 MiB and 4 threads for ~0.1-0.3 s; one per two
    cores bounds their memory, and their low priority keeps serving ahead of them."""
    return max(1, (os.cpu_count() or 2) // 2)
