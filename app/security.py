"""The server's defences against hostile clients, in one place.

- `PasswordChecker`: argon2 checks run in a small thread pool off the event loop, with
  exponential backoff per user name and per client address, and a log line per failure.
- `Sessions`: sign-in cookies that expire after an idle time and a maximum age.
- `OwnedFiles`: downloadable files (CSV exports, batch results) that only their owner may fetch.
- `Guard`: the ASGI middleware that applies all of the above to every request, plus the
  Host/Origin checks of single-user mode (against DNS rebinding).

Gradio signs browsers in through its public `auth=` callback and sets a cookie whose name
starts with "access-token-"; the middleware sees that cookie on the way out of /login and
on every later request, so no Gradio internals are needed to tie a cookie to a user.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Callable
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse

log = logging.getLogger("foodtag.security")

# Per request: the client's address, and the user a successful sign-in names (set by
# PasswordChecker, read by Guard when Gradio's /login answers). A dict, so that writes in
# tasks that run with a copy of this context are seen by the middleware.
_request_info: ContextVar[dict | None] = ContextVar("foodtag_request_info", default=None)

_COOKIE_PREFIX = "access-token-"
# Longest user name and password checked at all (db.checks allows no longer ones).
_MAX_NAME = 64
_MAX_PASSWORD = 1024


class Throttle:
    """Consecutive failures per key; after `free` of them each further try waits
    base * 2**(failures - free) seconds (at most `cap`) counted from the last failure."""

    def __init__(self, free: int, base_s: float, cap_s: float, max_keys: int = 10_000) -> None:
        self.free, self.base_s, self.cap_s, self.max_keys = free, base_s, cap_s, max_keys
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait_s(self, key: str) -> float:
        with self._lock:
            count, last = self._failures.get(key, (0, 0.0))
        if count < self.free:
            return 0.0
        delay = min(self.cap_s, self.base_s * 2 ** (count - self.free))
        return max(0.0, last + delay - time.monotonic())

    def failed(self, key: str) -> int:
        with self._lock:
            count = self._failures.pop(key, (0, 0.0))[0] + 1
            self._failures[key] = (count, time.monotonic())
            while len(self._failures) > self.max_keys:  # bounded memory under a spray of names
                self._failures.popitem(last=False)
            return count

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._failures.clear()


class PasswordChecker:
    """Checks passwords without stalling the server: the slow, memory-hungry argon2 verify
    runs in `workers` threads; callers beyond `max_waiting` are refused at once."""

    def __init__(self, verify: Callable[[str, str], bool], *, workers: int, max_waiting: int = 64,
                 user_throttle: Throttle | None = None, client_throttle: Throttle | None = None) -> None:
        self._verify = verify
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="password-check")
        self._max_waiting = max_waiting
        self._waiting = 0
        # Five wrong passwords for one name, or twenty from one address (a household or an
        # office shares one), before the delays start; they double up to 30 s per try.
        self.users = user_throttle or Throttle(free=5, base_s=1.0, cap_s=30.0)
        self.clients = client_throttle or Throttle(free=20, base_s=1.0, cap_s=30.0)

    async def check(self, username: str, password: str, client: str | None = None) -> bool:
        info = _request_info.get()
        client = client or (info or {}).get("client") or "unknown"
        name = (username or "").strip()
        if not name or not password or len(name) > _MAX_NAME or len(password) > _MAX_PASSWORD:
            log.warning("sign-in refused from %s: empty or overlong user name or password", client)
            return False
        user_key = name.casefold()
        wait = max(self.users.wait_s(user_key), self.clients.wait_s(client))
        if wait:
            await asyncio.sleep(wait)  # a sleeping coroutine costs no thread and no CPU
        if self._waiting >= self._max_waiting:
            log.warning("sign-in refused for %r from %s: too many password checks waiting", name, client)
            return False
        self._waiting += 1
        try:
            ok = await asyncio.get_running_loop().run_in_executor(self._pool, self._verify, name, password)
        finally:
            self._waiting -= 1
        if ok:
            self.users.succeeded(user_key)
            self.clients.succeeded(client)
            if info is not None:
                info["user"] = name
            return True
        failures = self.users.failed(user_key)
        self.clients.failed(client)
        log.warning("sign-in failed for user %r from %s (%d in a row)", name, client, failures)
        return False


@dataclass
class _Session:
    user: str
    started: float
    seen: float


class Sessions:
    """Sign-in cookie tokens -> user, until `idle_s` without a request or `max_age_s` in all.
    An expired token stays refused (Gradio itself would still accept it)."""

    def __init__(self, idle_s: float, max_age_s: float) -> None:
        self.idle_s, self.max_age_s = idle_s, max_age_s
        self._live: dict[str, _Session] = {}
        self._expired: set[str] = set()
        self._lock = threading.Lock()

    def start(self, token: str, user: str) -> None:
        now = time.monotonic()
        with self._lock:
            # Sessions nobody came back to would otherwise stay listed as live forever.
            for old in [t for t, s in self._live.items() if now - s.started > self.max_age_s]:
                del self._live[old]
                self._expired.add(old)
            self._live[token] = _Session(user, now, now)

    def user(self, token: str) -> str | None:
        """The token's user, and the session counts as used now; None if unknown or expired."""
        now = time.monotonic()
        with self._lock:
            session = self._live.get(token)
            if session is None:
                return None
            if now - session.seen > self.idle_s or now - session.started > self.max_age_s:
                del self._live[token]
                self._expired.add(token)
                log.info("session of %r expired", session.user)
                return None
            session.seen = now
            return session.user

    def is_expired(self, token: str) -> bool:
        with self._lock:
            known = token in self._expired
        return known or (token in self._live and self.user(token) is None)

    def of_request(self, headers: Headers) -> tuple[str | None, bool]:
        """(user of the live sign-in cookie the request carries, whether it carries an expired one)."""
        user, expired = None, False
        for token in _sign_in_tokens(headers):
            if self.is_expired(token):
                expired = True
            else:
                user = user or self.user(token)
        return user, expired


class OwnedFiles:
    """Files named with a random marker (see `name`), and who may download them."""

    _MARKER = re.compile(r"-([0-9a-f]{32})(?:\.[A-Za-z0-9]+)+$")

    def __init__(self) -> None:
        self._owners: dict[str, str] = {}

    def name(self, stem: str, suffix: str, user: str) -> str:
        """A file name (`stem-<marker>suffix`) that only `user` may download."""
        marker = secrets.token_hex(16)
        self._owners[marker] = user
        return f"{stem}-{marker}{suffix}"

    def owner(self, path: str) -> str | None:
        """The owner of the file a URL path names, or None when it is not an owned file."""
        match = self._MARKER.search(path.rsplit("/", 1)[-1])
        return self._owners.get(match.group(1)) if match else None


class Guard:
    """ASGI middleware: single-user Host/Origin checks, expiring sign-in sessions and
    per-user file downloads, for every route (the API and the mounted Gradio app)."""

    def __init__(self, app, *, accounts: bool, allowed_hosts: set[str], sessions: Sessions,
                 files: OwnedFiles) -> None:
        self.app = app
        self.accounts = accounts
        self.allowed_hosts = {h.lower() for h in allowed_hosts}
        self.sessions = sessions
        self.files = files

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        client = (scope.get("client") or ("unknown",))[0]
        if not self.accounts:
            refusal = self._local_refusal(scope, headers)
            if refusal:
                log.warning("refused %s %s from %s: %s", scope.get("method", "WS"), scope["path"][:80], client, refusal)
                await _refuse(scope, receive, send, 403, refusal)
                return
        token_to_info = _request_info.set({"client": client})
        try:
            user, expired = self.sessions.of_request(headers)
            stale = _sign_in_cookie_names(headers) if expired else []
            if expired:
                scope = _without_sign_in_cookies(scope)
            if self.accounts and scope["type"] == "http" and "/file=" in scope["path"]:
                owner = self.files.owner(scope["path"])
                if owner is not None and owner != user:
                    await _refuse(scope, receive, send, 404, "file not found")
                    return
            send = self._watch_sign_in(scope, send, clear_cookies=stale)
            await self.app(scope, receive, send)
        finally:
            _request_info.reset(token_to_info)

    def _local_refusal(self, scope, headers: Headers) -> str | None:
        """Single-user mode answers only to this machine's names: a page on another origin
        whose name resolves to 127.0.0.1 (DNS rebinding) must not reach the meal log."""
        host = _hostname(headers.get("host", ""))
        if host not in self.allowed_hosts:
            return "this server answers only to " + ", ".join(sorted(self.allowed_hosts))
        origin = headers.get("origin")
        unsafe = scope["type"] == "websocket" or scope.get("method") not in ("GET", "HEAD", "OPTIONS")
        if unsafe and origin is not None and _hostname(urlsplit(origin).netloc) not in self.allowed_hosts:
            return "cross-origin requests are refused"
        return None

    def _watch_sign_in(self, scope, send, *, clear_cookies: list[str]):
        """Start a session when Gradio's /login sets its cookie; clear the expired cookies named."""
        signing_in = scope["type"] == "http" and scope.get("method") == "POST" and scope["path"].rstrip("/").endswith("/login")
        if not (signing_in or clear_cookies):
            return send

        async def watched(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if signing_in and message["status"] == 200:
                    user = (_request_info.get() or {}).get("user")
                    for token in _tokens_in_set_cookie(headers):
                        if user:
                            self.sessions.start(token, user)
                for name in clear_cookies:
                    headers.append("set-cookie", f"{name}=; Max-Age=0; Path=/; HttpOnly")
            await send(message)

        return watched


def _hostname(netloc: str) -> str:
    netloc = netloc.strip().lower()
    if netloc.startswith("["):  # [::1]:7860
        return netloc[1:].split("]", 1)[0]
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def _cookies(headers: Headers) -> SimpleCookie:
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header carries no session
        return SimpleCookie()
    return cookie


def _sign_in_cookie_names(headers: Headers) -> list[str]:
    return [name for name in _cookies(headers) if name.startswith(_COOKIE_PREFIX)]


def _sign_in_tokens(headers: Headers) -> set[str]:
    return {morsel.value for name, morsel in _cookies(headers).items() if name.startswith(_COOKIE_PREFIX) and morsel.value}


def _tokens_in_set_cookie(headers: MutableHeaders) -> set[str]:
    tokens = set()
    for value in headers.getlist("set-cookie"):
        name, _, rest = value.partition("=")
        if name.strip().startswith(_COOKIE_PREFIX):
            tokens.add(rest.split(";", 1)[0].strip().strip('"'))
    return tokens - {""}


def _without_sign_in_cookies(scope):
    """The scope with expired sign-in cookies removed, so Gradio sees a signed-out browser."""
    headers = [(k, v) for k, v in scope["headers"] if k != b"cookie"]
    kept = [f"{name}={morsel.coded_value}" for name, morsel in _cookies(Headers(scope=scope)).items()
            if not name.startswith(_COOKIE_PREFIX)]
    if kept:
        headers.append((b"cookie", "; ".join(kept).encode("latin-1")))
    return {**scope, "headers": headers}


async def _refuse(scope, receive, send, status: int, message: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    await JSONResponse({"error": message}, status_code=status)(scope, receive, send)


def private_dir(path):
    """`path` created (with parents) as an owner-only folder (0700), tightened if it exists."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)
    return path


def password_workers() -> int:
    """Concurrent argon2 checks: each takes ~64 MiB and a core for ~0.1-0.3 s; half the
    cores keeps the other half for serving while sign-ins are under attack."""
    return max(1, (os.cpu_count() or 2) // 2)
