"""A page's event stream stays open while the page is: no event the page sends is stranded.

Gradio (6.31) sends a page its events' results on one server-sent-event stream, which the
server closes as soon as the page has no event pending. Its browser client opens a new stream
only for an event sent while it believes none is open. An event sent in the moment between
(the server has closed the stream, the page has not yet read the close) is queued and run on
the server, but its result goes to a stream nobody reads: the page waits for good. A person
meets this when a click lands as a previous event ends: Log straight after the grams box's
blur event, an upload as the page's load events end. The card never comes, or the meal is
logged while the page still spins.

Here a page's stream is kept open for as long as the page holds it: the queue's pending-event
set of that page never counts as empty, so the server never sends the close, and the client's
belief that a stream is open stays true. It closes when the page goes (the server notices the
disconnect within 10 s and cleans the page's events up, as before). Only browsers' streams are
kept (a fetch from a page carries Sec-Fetch-Mode); the Python client and the REST ``/call``
route keep Gradio's behaviour, as they read one result and leave.
"""

from __future__ import annotations

import logging
from collections import Counter
from urllib.parse import parse_qs

log = logging.getLogger(__name__)

STREAM_PATH_END = "/queue/data"
# At most this many streams are kept open at once; past it a stream closes as Gradio's do (the
# race comes back, nothing else), so that a client opening streams by the thousand holds no more.
MAX_KEPT_OPEN = 512
_warned = False


class _PendingWhileThePageIsOpen(set):
    """A page's pending event ids whose size never reads 0 to the stream's close check
    (``len(ids) == 0``), while their truth stays honest (``if not ids``: the queue's clean-up)."""

    def __len__(self) -> int:
        return set.__len__(self) + 1

    def __bool__(self) -> bool:
        return set.__len__(self) > 0


class _PendingBySession(dict):
    """The queue's session -> pending event ids, where the sets of sessions whose page holds a
    stream now are _PendingWhileThePageIsOpen (also those the queue makes anew)."""

    def __init__(self, existing: dict) -> None:
        super().__init__(existing)
        self.open_pages: Counter[str] = Counter()

    def __setitem__(self, session: str, ids) -> None:
        if session in self.open_pages and type(ids) is set:
            ids = _PendingWhileThePageIsOpen(ids)
        super().__setitem__(session, ids)

    def page_opened(self, session: str) -> bool:
        """Mark ``session``'s page open; False (nothing marked) when MAX_KEPT_OPEN are open."""
        if self.open_pages.total() >= MAX_KEPT_OPEN:
            return False
        self.open_pages[session] += 1
        if session in self:
            self[session] = set(self[session])
        return True

    def page_closed(self, session: str) -> None:
        self.open_pages[session] -= 1
        if self.open_pages[session] > 0:
            return
        del self.open_pages[session]
        if isinstance(self.get(session), _PendingWhileThePageIsOpen):
            super().__setitem__(session, set(self[session]))


def keep_page_streams_open(queue) -> _PendingBySession | None:
    """Make ``queue`` (a Gradio Blocks' ``_queue``) keep page streams open; returns the
    session table, or None (with a warning) where this Gradio keeps its queue otherwise."""
    pending = getattr(queue, "pending_event_ids_session", None)
    if isinstance(pending, _PendingBySession):
        return pending
    if type(pending) is not dict:
        global _warned
        if not _warned:
            _warned = True
            log.warning("this Gradio's queue has no pending_event_ids_session dict: page event streams close as "
                        "Gradio closes them (an event sent as one closes can stay pending)")
        return None
    queue.pending_event_ids_session = table = _PendingBySession(pending)
    return table


class PageStreams:
    """ASGI middleware: a browser's ``…/queue/data`` stream marks its session open in the
    queue's table (see keep_page_streams_open) for as long as the request lasts."""

    def __init__(self, app, *, queue_of) -> None:
        self.app = app
        self.queue_of = queue_of  # -> the Blocks' queue, read per stream (it exists once mounted)

    async def __call__(self, scope, receive, send) -> None:
        table = keep_page_streams_open(self.queue_of()) if scope["type"] == "http" and scope["path"].endswith(STREAM_PATH_END) else None
        session = _browser_session(scope) if table is not None else None
        if session is None or not table.page_opened(session):
            await self.app(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            table.page_closed(session)


def _browser_session(scope) -> str | None:
    if not any(name == b"sec-fetch-mode" for name, _ in scope.get("headers", ())):
        return None
    sessions = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("session_hash")
    return sessions[0][:128] if sessions else None
