"""A page's event stream stays open between its events (app.event_stream), so an event the
page sends as the previous one ends is answered; other clients' streams close as Gradio's do."""

from __future__ import annotations

import json
import time
import uuid

import httpx
from app_support import module_server

from app.event_stream import _PendingBySession

server = module_server("event-stream")
BROWSER = {"Sec-Fetch-Mode": "cors"}  # what a page's fetch carries


def _join(client: httpx.Client, server, session: str, headers: dict) -> str:
    fn = next(i for i, f in server.app.blocks.fns.items() if f.api_name == "default_meal")
    answer = client.post(f"{server.url}/gradio_api/queue/join", headers=headers,
                         json={"data": [], "fn_index": fn, "session_hash": session, "event_data": None,
                               "trigger_id": None})
    answer.raise_for_status()
    return answer.json()["event_id"]


def _messages(lines):
    for line in lines:
        if line.startswith("data:"):
            yield json.loads(line[5:])


def _until_completed(messages, event_id: str) -> list[str]:
    seen = []
    for message in messages:
        seen.append(message["msg"])
        if message["msg"] == "process_completed" and message.get("event_id") == event_id:
            return seen
    raise AssertionError(f"the stream ended before event {event_id} completed: {seen}")


def test_a_page_stream_stays_open_and_answers_the_next_event(server):
    session = uuid.uuid4().hex
    with httpx.Client(timeout=httpx.Timeout(30, read=12)) as client:
        first = _join(client, server, session, BROWSER)
        with client.stream("GET", f"{server.url}/gradio_api/queue/data", params={"session_hash": session},
                           headers=BROWSER) as stream:
            messages = _messages(stream.iter_lines())
            assert "close_stream" not in _until_completed(messages, first)
            # Sent once the first is done, as a click straight after an event: on the same stream.
            second = _join(client, server, session, BROWSER)
            assert "close_stream" not in _until_completed(messages, second)
            table = server.app.blocks._queue.pending_event_ids_session
            assert isinstance(table, _PendingBySession) and session in table.open_pages
    # The page gone (the server notices within 10 s), its session counts as any other again.
    deadline = time.monotonic() + 20
    while session in table.open_pages and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session not in table.open_pages


def test_a_script_stream_closes_once_its_events_are_done(server):
    session = uuid.uuid4().hex
    with httpx.Client(timeout=httpx.Timeout(30, read=12)) as client:
        event = _join(client, server, session, {})
        with client.stream("GET", f"{server.url}/gradio_api/queue/data",
                           params={"session_hash": session}) as stream:
            messages = _messages(stream.iter_lines())
            _until_completed(messages, event)
            assert [m["msg"] for m in messages] == ["close_stream"]


def test_the_pending_set_of_an_open_page_is_never_empty_to_the_close_check():
    table = _PendingBySession({"page": {"a"}, "script": {"b"}})
    table.page_opened("page")
    table["page"] -= {"a"}
    assert len(table["page"]) == 1 and not table["page"]  # close check sees 1; clean-up sees empty
    assert len(table["script"]) == 1 and table["script"]
    table["script"].remove("b")
    assert len(table["script"]) == 0
    table.page_closed("page")
    assert len(table["page"]) == 0 and type(table["page"]) is set
    assert "page" not in table.open_pages


def test_past_the_cap_a_stream_closes_as_gradios_do(monkeypatch):
    from app import event_stream

    monkeypatch.setattr(event_stream, "MAX_KEPT_OPEN", 2)
    table = _PendingBySession({})
    assert table.page_opened("a") and table.page_opened("a")
    assert not table.page_opened("b")
    assert "b" not in table.open_pages
    table.page_closed("a")
    assert table.page_opened("b")
