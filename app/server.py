"""The HTTP server: FastAPI with GET /healthz, POST /api/analyze, the food search GET /api/foods,
the user's own foods and recipes (GET/POST /api/my/foods, POST /api/my/recipes), glucose beside
meals (/api/glucose/..., app.glucose.api), the Gradio UI at /,
and with accounts on, sign-in and sign-out (app.signin). Every /api route then needs a sign-in
(the session cookie or HTTP Basic). The server keeps no sign-in or model choice in memory that
another process would need (see app.security and app.model_catalog.DefaultFollower).

Nothing heavy happens at import or in App(): the database is migrated and the model loaded
by `App.startup()` (run before uvicorn starts, and again harmlessly by the lifespan).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from contextlib import asynccontextmanager
from typing import Annotated

import gradio as gr
import numpy as np
from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBasic, HTTPBasicCredentials
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.meals import DISCLAIMER, Analyzer, find_foods, nutrition_card
from app.auth import Identity, NotSignedIn
from app.errors import check_upload_size, error, error_response
from app.model_catalog import DefaultFollower, ModelCatalog
from app.glucose.api import add_routes as add_glucose_routes
from app.config import LOCAL_USER, AppConfig
from app.event_stream import PageStreams
from app.security import BodyTooLarge, Guard, OwnedFiles, Sessions, limited_body, private_dir
from app.signin import add_routes as add_sign_in_routes
from app.ui import GRADIO_CACHE_S, PAGE_ASSETS, AppContext, build_ui
from db import dishes, personal, photos, service, session, validate
from db.errors import InvalidValue
from db.session import get_engine, session_scope
from models.errors import FoodtagError
from models.paths import data_home, owner_only_files

log = logging.getLogger("foodtag.app")

# Room for the multipart framing and the small form fields next to the photo.
_FORM_OVERHEAD = 64 * 1024
# A sign-in lasts at most this long, however active (idle sessions end sooner).
SESSION_MAX_AGE_S = 12 * 3600
# HTTP Basic on the API; auto_error off: a sign-in cookie may stand in for it.
_basic_auth = HTTPBasic(auto_error=False, realm="foodtag")
# An own food or a recipe of 100 ingredients is a few kB; more is not a food.
_MAX_JSON_BYTES = 64 * 1024
# A recipe is nested three deep ({"ingredients": [{...}]}). json.loads recurses once per level,
# so a small body of thousands of brackets would otherwise end in a RecursionError.
MAX_JSON_DEPTH = 8


async def _signed_in_user(request: Request,
                          basic: HTTPBasicCredentials | None = Depends(_basic_auth)) -> str:
    """The caller of an /api route (sign-in cookie or HTTP Basic), checked before the route reads
    its body; NotSignedIn becomes a 401 (see App._build)."""
    return await request.app.state.identity.api_user(request, basic)


# What an /api route declares to need a signed-in user.
SignedInUser = Annotated[str, Depends(_signed_in_user)]


# Plain text: the sign-in page shows it as it is (no Markdown there).
SIGN_IN_MESSAGE = "Sign in with the user name and password your administrator made (python -m app users add NAME)."

class App:
    """The server's parts and its start-up; `fastapi` is what uvicorn serves."""

    def __init__(self, config: AppConfig) -> None:
        self.config = config
        # Health data and password hashes: every file this process creates is owner-only
        # (the database and its -wal/-shm, exported models, uploads, exports, batch results).
        owner_only_files()
        # Gradio keeps uploads and the files it serves under GRADIO_TEMP_DIR (read when the
        # Blocks is built): our private data folder, not the shared system temp folder.
        os.environ.setdefault("GRADIO_TEMP_DIR", str(private_dir(data_home() / "gradio")))
        catalog = ModelCatalog(config.models)
        self.ctx = AppContext(
            catalog=catalog,
            analyzer=Analyzer(catalog),
            identity=Identity(config.accounts, sessions=Sessions(
                idle_s=config.session_idle_minutes * 60, max_age_s=SESSION_MAX_AGE_S)),
            max_upload_bytes=config.max_upload_bytes,
            files=OwnedFiles(),
        )
        self.follower = DefaultFollower(catalog, service.default_model, config.model_poll_seconds)
        self._started = False
        self._start_lock = threading.Lock()
        self.fastapi = self._build()

    def startup(self) -> None:
        """Migrate and seed the database, remove kept-photo files a crash left without a row,
        create the local user (in the configured region), load the active model (the
        stored default, else the first --model, else the built-in one) and start following the
        stored default."""
        with self._start_lock:
            if self._started:
                return
            if self.config.db_url:
                session.configure(self.config.db_url)
            if self.config.photos_dir:
                photos.configure(self.config.photos_dir)
            session.init_db()
            if (swept := photos.sweep_orphans()):
                log.info("removed %d kept-photo files that no database row names", swept)
            if (swept := self.ctx.uploads.sweep(GRADIO_CACHE_S)):
                log.info("removed %d stale files (uploads, served copies) from Gradio's folder", swept)
            if not self.config.accounts:
                service.ensure_user(LOCAL_USER, region=self.config.region)
            elif service.account_count() == 0:
                # Sign-in is required but nobody could sign in: say how, instead of a dead login page.
                raise FoodtagError("accounts are on but no user has a password yet: "
                                   "create one with `python -m app users add NAME`")
            # The default an admin stored wins over --model, so every process serves the same one.
            info = self.ctx.catalog.start(preferred=service.default_model())
            log.info("model %s (%d classes) loaded from %s", info.name, info.classes, info.path)
            self.follower.start()
            self._started = True

    async def _sweep_uploads(self) -> None:
        """Gradio's folder swept as at start-up, every half of GRADIO_CACHE_S, while serving."""
        while True:
            await asyncio.sleep(GRADIO_CACHE_S / 2)
            await run_in_threadpool(self.ctx.uploads.sweep, GRADIO_CACHE_S)

    def shutdown(self) -> None:
        """Stop following the stored default model (run by the lifespan when the server stops)."""
        self.follower.stop()

    def _build(self) -> FastAPI:
        @asynccontextmanager
        async def lifespan(_app: FastAPI):
            await run_in_threadpool(self.startup)
            sweeping = asyncio.create_task(self._sweep_uploads())
            yield
            sweeping.cancel()
            await run_in_threadpool(self.shutdown)

        api = FastAPI(title="foodtag", lifespan=lifespan, docs_url="/api/docs", redoc_url=None,
                      openapi_url="/api/openapi.json")
        api.state.identity = self.ctx.identity  # read by _signed_in_user
        # Inside the Guard (added after it): a refused request marks no page's stream open.
        api.add_middleware(PageStreams, queue_of=lambda: self.blocks._queue)
        api.add_middleware(Guard, accounts=self.config.accounts, allowed_hosts=self.config.allowed_hosts,
                           sessions=self.ctx.identity.sessions, files=self.ctx.files, uploads=self.ctx.uploads)
        api.add_api_route("/healthz", self.healthz, methods=["GET"])
        if self.config.accounts:
            add_sign_in_routes(api, self.ctx.identity, message=SIGN_IN_MESSAGE)
        api.add_api_route(
            "/api/analyze", self.analyze, methods=["POST"],
            openapi_extra={"requestBody": {"content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["file"],
                "properties": {
                    "file": {"type": "string", "format": "binary", "description": "the meal photo"},
                    "grams": {"type": "number", "description": "portion in grams (else a serving)"},
                    "serving": {"type": "string", "description": "serving name; default serving if neither"},
                    "food": {"type": "string", "description": "use this food instead of the top prediction"},
                }}}}}},
        )

        api.add_api_route("/api/foods", self.foods, methods=["GET"])
        api.add_api_route("/api/my/foods", self.my_foods, methods=["GET"])
        api.add_api_route("/api/my/foods", self.add_my_food, methods=["POST"])
        api.add_api_route("/api/my/recipes", self.add_my_recipe, methods=["POST"])
        add_glucose_routes(api, SignedInUser)
        api.add_api_route("/api/my/dishes", self.my_dishes, methods=["GET"])
        api.add_api_route(
            "/api/my/dishes", self.add_my_dish, methods=["POST"],
            openapi_extra={"requestBody": {"content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["name", "food", "file"],
                "properties": {
                    "name": {"type": "string", "description": "the dish's name"},
                    "food": {"type": "string", "description": "the database food or your own recipe it is"},
                    "file": {"type": "array", "items": {"type": "string", "format": "binary"},
                             "description": "1 to 10 photos of the dish (repeat the field)"},
                }}}}}},
        )
        api.add_api_route("/api/my/dishes/{name}", self.remove_my_dish, methods=["DELETE"])

        @api.exception_handler(NotSignedIn)
        async def _not_signed_in(_request: Request, exc: NotSignedIn) -> JSONResponse:
            return error(401, str(exc), **{"WWW-Authenticate": 'Basic realm="foodtag"'})

        @api.exception_handler(Exception)
        async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
            log.exception("unexpected error", exc_info=exc)
            return error(500, "internal error; the server log has the details")

        self.blocks = blocks = build_ui(self.ctx)
        self.ctx.uploads.list_with(blocks.upload_file_set)
        # Inference runs one image at a time on all cores (see Analyzer), so a couple of
        # concurrent events per handler keep the page responsive without oversubscribing; the
        # events that run the model wait for their user's turn instead (AppContext.in_turn).
        blocks.queue(default_concurrency_limit=self.config.concurrency, max_size=64)
        gr.mount_gradio_app(
            api,
            blocks,
            path="/",
            # Our own sign-in (app.signin) and database sessions, handed to Gradio per request.
            auth_dependency=self.ctx.identity.gradio_user if self.config.accounts else None,
            auth_message=SIGN_IN_MESSAGE,
            max_file_size=self.config.max_upload_bytes,
            show_error=False,  # gr.Error messages still show; unexpected exceptions do not leak
            run_history=False,  # meal photos are health data: keep no copies in the browser
            footer_links=["api", "settings"],
            **PAGE_ASSETS,
        )
        return api

    # ---- routes -------------------------------------------------------------------------

    def healthz(self) -> JSONResponse:
        """Model and database status; 503 when either cannot serve."""
        info = self.ctx.catalog.active_info
        model = (
            {"ok": True, "name": info.name, "architecture": info.model_name, "version": info.version,
             "classes": info.classes}
            if info else {"ok": False, "error": "no model loaded yet"}
        )
        try:
            with session_scope(write=False) as db_session:
                db_session.execute(text("SELECT 1"))
            database = {"ok": True, "backend": get_engine().dialect.name}
        except Exception as exc:  # any failure means "not healthy"; the type is enough here
            database = {"ok": False, "error": type(exc).__name__}
        ok = model["ok"] and database["ok"]
        return JSONResponse({"status": "ok" if ok else "unavailable", "model": model, "database": database},
                            status_code=200 if ok else 503)

    async def analyze(self, request: Request, user: SignedInUser) -> JSONResponse:
        """Multipart photo (+ optional grams / serving / food) -> predictions and nutrition card."""
        limit = self.config.max_upload_bytes
        too_large = f"upload too large: the limit is {limit / 2**20:g} MB"
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit + _FORM_OVERHEAD:
            return error(413, too_large)
        try:
            form = await limited_body(request, limit + _FORM_OVERHEAD).form(max_files=1, max_fields=10)
        except BodyTooLarge:
            return error(413, too_large)
        except Exception:  # Starlette raises several types for malformed multipart bodies
            return error(400, "send the photo as multipart/form-data in a field named 'file'")
        try:
            upload = form.get("file")
            if not isinstance(upload, UploadFile):
                return error(400, "no photo: send it as multipart/form-data in a field named 'file'")
            data = await upload.read()
            name = upload.filename or "photo"
            fields = {key: _text_field(form, key) for key in ("grams", "serving", "food")}
        except FoodtagError as exc:
            return error(400, str(exc))
        finally:
            await form.close()
        try:
            check_upload_size(len(data), limit, name)
            async with self.ctx.model_slots.turn(user):  # the page's too
                result = await run_in_threadpool(self._analyze_sync, user, data, name, **fields)
        except FoodtagError as exc:
            return error_response(exc)
        return JSONResponse(result)

    async def foods(self, request: Request, user: SignedInUser) -> JSONResponse:
        """GET /api/foods?q=TEXT[&limit=N][&group=FOOD GROUP]: the food search behind the app's
        search box (the signed-in user's own, favourite and recent foods first); without q,
        their favourite and recent foods."""
        params = request.query_params
        text, group, limit_text = params.get("q", ""), params.get("group"), params.get("limit", "10")
        if not limit_text.isdigit():
            return error(422, f"limit must be a whole number from 1 to 100, got {validate.echo(limit_text)}")
        try:
            results = await run_in_threadpool(find_foods, user, text, limit=int(limit_text),
                                              group=group)
        except InvalidValue as exc:
            return error_response(exc)
        return JSONResponse({"query": text, "group": group, "results": results})

    async def _json_body(self, request: Request) -> dict | JSONResponse:
        """The JSON object body, or the error response to send."""
        try:
            raw = await limited_body(request, _MAX_JSON_BYTES).body()
        except BodyTooLarge:
            return error(413, f"request body too large: the limit is {_MAX_JSON_BYTES // 1024} kB")
        if json_depth(raw) > MAX_JSON_DEPTH:
            return error(400, f"the JSON body is nested more than {MAX_JSON_DEPTH} levels deep")
        try:
            body = json.loads(raw)
        except ValueError:
            return error(400, "the body must be a JSON object")
        if not isinstance(body, dict):
            return error(400, "the body must be a JSON object")
        return body

    async def my_foods(self, user: SignedInUser) -> JSONResponse:
        """GET /api/my/foods: the signed-in user's own foods and recipes (with ingredients)."""
        return JSONResponse({"foods": await run_in_threadpool(personal.own_foods, user)})

    async def add_my_food(self, request: Request, user: SignedInUser) -> JSONResponse:
        """POST /api/my/foods {"name", "nutrients": {kcal, carbohydrate_g, ...}, "serving_grams"?,
        "serving_name"?, "per_serving"?}: a food from a label, private to the user."""
        body = await self._json_body(request)
        if isinstance(body, JSONResponse):
            return body
        unknown = sorted(set(body) - {"name", "nutrients", "serving_grams", "serving_name",
                                      "per_serving"})
        if unknown:
            return error(422, f"unknown fields {unknown}")
        return await self._own_call(personal.create_own_food, user, body.get("name"),
                                    body.get("nutrients"), serving_grams=body.get("serving_grams"),
                                    serving_name=body.get("serving_name") or "1 serving",
                                    per_serving=body.get("per_serving") is True)

    async def add_my_recipe(self, request: Request, user: SignedInUser) -> JSONResponse:
        """POST /api/my/recipes {"name", "ingredients": [{"food", "grams"}], "servings",
        optional "cooked_grams": the dish's weight after cooking}."""
        body = await self._json_body(request)
        if isinstance(body, JSONResponse):
            return body
        items = body.get("ingredients")
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            return error(422, "ingredients must be a list of {\"food\", \"grams\"} objects")
        pairs = [(item.get("food"), item.get("grams")) for item in items]
        return await self._own_call(personal.create_recipe, user, body.get("name"), pairs,
                                    body.get("servings"), cooked_grams=body.get("cooked_grams"))

    async def _own_call(self, fn, *args, **kwargs) -> JSONResponse:
        try:
            created = await run_in_threadpool(fn, *args, **kwargs)
        except FoodtagError as exc:
            return error_response(exc)
        return JSONResponse(created, status_code=201)

    async def my_dishes(self, user: SignedInUser) -> JSONResponse:
        found = await run_in_threadpool(self.ctx.analyzer.dish_summaries, user, service.user_model(user))
        return JSONResponse([{**d, "created_at": d["created_at"].isoformat()} for d in found])

    async def add_my_dish(self, request: Request, user: SignedInUser) -> JSONResponse:
        """Multipart name, food and 1-10 photos (field 'file', repeated) -> the dish, recognised
        from the next analysis on."""
        most = dishes.MAX_PHOTOS_PER_ADD
        limit = most * self.config.max_upload_bytes
        too_large = f"upload too large: the limit is {self.config.max_upload_bytes / 2**20:g} MB a photo"
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit + _FORM_OVERHEAD:
            return error(413, too_large)
        try:
            form = await limited_body(request, limit + _FORM_OVERHEAD).form(max_files=most, max_fields=10)
        except BodyTooLarge:
            return error(413, too_large)
        except Exception:  # Starlette raises several types for malformed multipart bodies
            return error(400, f"send name, food and 1 to {most} photos as multipart/form-data (photos in fields named 'file')")
        try:
            uploads = [u for u in form.getlist("file") if isinstance(u, UploadFile)]
            photos = [(await u.read(), u.filename or "photo") for u in uploads]
            fields = {key: _text_field(form, key) for key in ("name", "food")}
        except FoodtagError as exc:
            return error(400, str(exc))
        finally:
            await form.close()
        if not 1 <= len(photos) <= most:
            return error(400, f"send 1 to {most} photos of the dish in fields named 'file'")
        try:
            for data, filename in photos:
                check_upload_size(len(data), self.config.max_upload_bytes, filename)
            async with self.ctx.model_slots.turn(user):  # the page's too
                added = await run_in_threadpool(self._add_dish_sync, user, photos, fields["name"] or "",
                                                fields["food"] or "")
        except FoodtagError as exc:
            return error_response(exc)
        return JSONResponse(added, status_code=201)

    def _add_dish_sync(self, user: str, photos: list[tuple[bytes, str]], name: str, food: str) -> dict:
        model = service.user_model(user)
        images = [self.ctx.analyzer.read(data, filename, model).image for data, filename in photos]
        return self.ctx.analyzer.add_dish(user, name, food, images, model)

    async def remove_my_dish(self, name: str, user: SignedInUser) -> JSONResponse:
        try:
            photos = await run_in_threadpool(dishes.remove_dish, user, name)
        except FoodtagError as exc:
            return error_response(exc)
        return JSONResponse({"dish": name, "photos_removed": photos})

    def _analyze_sync(self, user: str, data: bytes, name: str, *, grams: str | None, serving: str | None,
                      food: str | None) -> dict:
        """The page's rule: below the user's confidence threshold no food is chosen (food and
        card are null) until the client names one with `food`."""
        _, analysis, settings = self.ctx.analyzer.analyse_upload(user, data, name)
        chosen = food or analysis.chosen
        card = (
            nutrition_card(chosen, grams=grams, serving=serving, exchange_unit_g=settings["exchange_unit_g"],
                           user=user)
            if chosen else None
        )
        return {**analysis.to_dict(), "food": card["food"] if card else None, "card": card, "disclaimer": DISCLAIMER}


# Removed before counting brackets: escapes (a backslash and the next byte), then strings.
# Both patterns match in one linear pass (no backtracking), whatever the body holds.
_JSON_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_JSON_STRING = re.compile(rb'"[^"]*"')


def json_depth(raw: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest, counted without recursion (before
    json.loads, which recurses once per level) and off the Python loop: brackets inside
    strings do not count."""
    structure = np.frombuffer(_JSON_STRING.sub(b"", _JSON_ESCAPE.sub(b"", raw)), dtype=np.uint8)
    steps = np.isin(structure, (ord("["), ord("{"))).astype(np.int32) - np.isin(structure, (ord("]"), ord("}")))
    return int(steps.cumsum().max(initial=0))


def _text_field(form, key: str) -> str | None:
    value = form.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise FoodtagError(f"form field {key!r} must be text, not a file")
    return value.strip() or None


def serve(config: AppConfig) -> None:
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = App(config)
    print("Starting foodtag: preparing the database and the model (the first run exports the "
          "default model, about a minute)...", flush=True)
    app.startup()
    mode = "accounts (sign-in required)" if config.accounts else "single-user local mode, no sign-in"
    print(f"foodtag on http://{config.host}:{config.port}/ ({mode})", flush=True)
    uvicorn.run(app.fastapi, host=config.host, port=config.port, log_level="warning")
