"""Signing in and out (accounts mode): GET /login (the page), POST /login, POST /logout.

POST /login keeps the contract of Gradio's own sign-in route, which gradio_client and
scripts use: form fields ``username`` and ``password``; 200 ``{"success": true}`` with the
session cookie, or 400 "Incorrect credentials.". A browser's form post (it accepts HTML) is
sent on to the app instead, or back to the form with the message. The session itself lives in
the database (app.security.Sessions), so any app process accepts it and /logout ends it for all.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.auth import Identity
from app.security import BodyTooLarge, SESSION_COOKIE, clear_session_cookie, limited_body, session_cookie

# A user name (64) and a password (1024), form-encoded, fit with room to spare.
_MAX_FORM_BYTES = 8 * 1024
_REFUSED = "Incorrect credentials."

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>foodtag: sign in</title>
<style>body{{font-family:system-ui,sans-serif;max-width:22rem;margin:4rem auto;padding:0 1rem}}
label,input,button{{display:block;width:100%;box-sizing:border-box;margin:.4rem 0}}
input,button{{padding:.5rem;font-size:1rem}}.error{{color:#b00020}}</style></head>
<body><h1>foodtag</h1><p>{message}</p>{error}
<form method="post" action="login">
<label>User name<input name="username" autocomplete="username" required maxlength="64"{name}></label>
<label>Password<input name="password" type="password" autocomplete="current-password" required maxlength="1024"{focus}></label>
<button type="submit">Sign in</button></form></body></html>"""


def add_routes(api: FastAPI, identity: Identity, *, message: str) -> None:
    """Register the sign-in routes on ``api`` (before Gradio is mounted at /, so they win)."""

    def page(error: str | None = None, status: int = 200, username: str = "") -> HTMLResponse:
        """The form; after a refusal it keeps the user name typed and puts the cursor in the password."""
        shown = f'<p class="error">{html.escape(error)}</p>' if error else ""
        name = f' value="{html.escape(username[:64], quote=True)}"' if username else " autofocus"
        return HTMLResponse(_PAGE.format(message=html.escape(message), error=shown, name=name,
                                         focus=" autofocus" if username else ""), status_code=status)

    async def login_page() -> HTMLResponse:
        return page()

    async def login(request: Request) -> Response:
        browser = "text/html" in request.headers.get("accept", "")
        try:
            fields = parse_qs((await limited_body(request, _MAX_FORM_BYTES).body()).decode("utf-8"),
                              max_num_fields=4)
        except (BodyTooLarge, UnicodeDecodeError, ValueError):
            return JSONResponse({"detail": "send username and password as a form of at most 8 kB"},
                                status_code=413)
        username, password = (fields.get(key, [""])[0] for key in ("username", "password"))
        client = request.client.host if request.client else "unknown"
        token = await identity.sign_in(username, password, client)
        if token is None:
            if browser:
                return page(_REFUSED, status=400, username=username)
            return JSONResponse({"detail": _REFUSED}, status_code=400)
        response: Response = RedirectResponse("./", status_code=303) if browser else JSONResponse({"success": True})
        session_cookie(response, token, secure=request.url.scheme == "https",
                       max_age_s=identity.sessions.max_age_s)
        return response

    async def logout(request: Request) -> Response:
        await run_in_threadpool(identity.sign_out, request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse("login", status_code=303)
        clear_session_cookie(response)
        return response

    api.add_api_route("/login", login_page, methods=["GET"], include_in_schema=False)
    api.add_api_route("/login", login, methods=["POST"], include_in_schema=False)
    # POST only: a link or image on another page (a GET) must not sign the person out.
    api.add_api_route("/logout", logout, methods=["POST"], include_in_schema=False)
