"""The glucose routes of the JSON API, each for the signed-in user only (their readings, meals
and report; no route names a user):

  POST /api/glucose/import?format=auto&tz=ZONE   body: the export file's bytes (at most
                                                 db.glucose.service.MAX_IMPORT_BYTES)
  GET  /api/glucose/report?days=14&end=YYYY-MM-DD      the consensus metrics, AGP, meals
  GET  /api/glucose/report.png?days=14&end=YYYY-MM-DD  the report on one page to bring to the
  GET  /api/glucose/report.pdf?days=14&end=YYYY-MM-DD  clinic (AGP, daily profiles, metrics)
  GET  /api/glucose/meals                        each meal's response with its curve
  GET  /api/glucose/meals/ENTRY_ID/curve.png     the curve of the meal that entry belongs to
  PUT  /api/glucose/meals/ENTRY_ID/kept          {"kept": true}: count that flagged meal in the
                                                 per-food figures (false: its flags decide)
  GET  /api/glucose/foods                        the person's response per food
  GET  /api/glucose/readings.csv                 every reading, for the diabetes team
  GET|PUT /api/glucose/zone                      {"time_zone": "Europe/London"}

Uploads: a declared Content-Length over the limit is refused before any byte is read, a body
that streams past it is cut off. A body is written to a private temporary file as it arrives
(it costs no memory, however slowly it comes), one per user at a time; once it has arrived, it
waits for one of IMPORT_SLOTS turns to be read (db.glucose reads a file a line or a chunk at a
time), so one user's slow uploads hold nothing that another user's import needs.
Values stay in mg/dL under their mg/dL names (``mean_mg_dl``, ``peak_mg_dl``...), so clients
written before the unit setting keep working; "glucose_unit" beside them (report, meals, foods)
names the unit the person reads, which the PNGs are drawn in (db.glucose.units.in_unit converts).
(No ``from __future__ import annotations``: FastAPI reads the handlers' annotations.)
"""

import asyncio
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import error, error_response
from app.glucose import chart
from app.security import BodyTooLarge, FairSlots, limited_body, private_dir
from db.glucose import service as glucose
from models.errors import FoodtagError
from models.paths import data_home

IMPORT_SLOTS = 2
_MAX_JSON_BODY = 1024


async def _call(fn, *args: Any, **kwargs: Any) -> Any:
    """fn's result, or the error response for a bad value."""
    try:
        return await run_in_threadpool(fn, *args, **kwargs)
    except FoodtagError as exc:
        return error_response(exc)


def _days(request: Request) -> int | JSONResponse:
    text = request.query_params.get("days", "14")
    if not text.isdigit() or len(text) > 4:
        return error(422, f"days must be a whole number from 1 to {glucose.MAX_REPORT_DAYS}")
    return int(text)


async def _report(request: Request, user: str) -> dict | Response:
    """The user's report over the query's ``days`` and ``end``, or the error response."""
    days = _days(request)
    if isinstance(days, Response):
        return days
    return await _call(glucose.report, user, days=days, end=request.query_params.get("end"))


async def _spool(request: Request, limit: int) -> Path:
    """The request's body, written to a new owner-only file as it arrives (BodyTooLarge past
    ``limit`` bytes; the file is removed then)."""
    descriptor, name = tempfile.mkstemp(prefix="glucose-", suffix=".upload", dir=private_dir(data_home() / "tmp"))
    path = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as out:
            async for chunk in limited_body(request, limit).stream():
                await run_in_threadpool(out.write, chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def add_routes(api: FastAPI, signed_in_user: Any) -> None:
    """Add the glucose routes to ``api``; ``signed_in_user`` is the annotated dependency that
    names the caller (app.server.SignedInUser)."""
    # A user's uploads arrive one at a time (their second waits for their first, holding
    # nothing); an arrived one waits for a turn to be read, so bodies still trickling in hold
    # no turn at all.
    uploads, turns = FairSlots(per_user=1, total=None), asyncio.Semaphore(IMPORT_SLOTS)
    limit = glucose.MAX_IMPORT_BYTES
    too_large = f"upload too large: the limit is {limit // 2**20} MB"

    async def import_export(request: Request, user: signed_in_user) -> JSONResponse:
        """The body is the export file as it is (Clarity, LibreView or plain CSV, Nightscout
        JSON or TSV)."""
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            return error(413, too_large)
        fmt = request.query_params.get("format", "auto")
        tz = request.query_params.get("tz") or None
        async with uploads.turn(user):
            try:
                path = await _spool(request, limit)
            except BodyTooLarge:
                return error(413, too_large)
            try:
                async with turns:
                    result = await _call(glucose.import_file, user, path, fmt=fmt, tz=tz)
            finally:
                path.unlink(missing_ok=True)
        return result if isinstance(result, Response) else JSONResponse(result)

    async def report(request: Request, user: signed_in_user) -> Response:
        result = await _report(request, user)
        return result if isinstance(result, Response) else JSONResponse(result)

    def page(draw, media_type: str, suffix: str):
        """A route answering the one-page report as a file: draw(report) gives its bytes."""
        async def route(request: Request, user: signed_in_user) -> Response:
            result = await _report(request, user)
            if isinstance(result, Response):
                return result
            data = await run_in_threadpool(draw, result)
            return Response(data, media_type=media_type, headers={
                "Content-Disposition": f'attachment; filename="glucose-{result["start"]}-{result["end"]}{suffix}"'})
        return route

    async def meals(user: signed_in_user) -> Response:
        result = await _call(lambda: {"glucose_unit": glucose.glucose_unit(user),
                                      "meals": glucose.meal_responses_json(user), "disclaimer": glucose.DISCLAIMER})
        return result if isinstance(result, Response) else JSONResponse(result)

    async def meal_curve_png(entry_id: int, user: signed_in_user) -> Response:
        """The curve of the meal that the user's entry ``entry_id`` belongs to."""
        result = await _call(lambda: (glucose.meal_of_entry(user, entry_id), glucose.glucose_unit(user)))
        if isinstance(result, Response):
            return result
        image = await run_in_threadpool(lambda: chart.png(chart.meal_figure(*result)))
        return Response(image, media_type="image/png")

    async def put_kept(entry_id: int, request: Request, user: signed_in_user) -> Response:
        """Keep the meal that the user's entry ``entry_id`` belongs to in the per-food figures
        although it is flagged, or not; answers the meal as /meals lists it."""
        try:
            body = json.loads(await limited_body(request, _MAX_JSON_BODY).body())
        except BodyTooLarge:
            return error(413, "request body too large")
        except ValueError:
            return error(400, 'the body must be {"kept": true} or {"kept": false}')
        if not isinstance(body, dict) or set(body) != {"kept"}:
            return error(422, 'the body must be {"kept": true} or {"kept": false}')
        result = await _call(glucose.keep_meal, user, entry_id, body["kept"])
        return result if isinstance(result, Response) else JSONResponse(result)

    async def foods(user: signed_in_user) -> Response:
        result = await _call(glucose.food_responses, user)
        return result if isinstance(result, Response) else JSONResponse(result)

    async def readings_csv(user: signed_in_user) -> Response:
        def write() -> str:
            out = io.StringIO()
            glucose.export_readings_csv(user, out)
            return out.getvalue()
        result = await _call(write)
        return result if isinstance(result, Response) else Response(
            result, media_type="text/csv", headers={"Content-Disposition": 'attachment; filename="glucose.csv"'})

    async def get_zone(user: signed_in_user) -> Response:
        result = await _call(glucose.time_zone, user)
        return result if isinstance(result, Response) else JSONResponse({"time_zone": result})

    async def put_zone(request: Request, user: signed_in_user) -> Response:
        try:
            body = json.loads(await limited_body(request, _MAX_JSON_BODY).body())
        except BodyTooLarge:
            return error(413, "request body too large")
        except ValueError:
            return error(400, 'the body must be {"time_zone": "Area/City"}')
        if not isinstance(body, dict) or set(body) != {"time_zone"}:
            return error(422, 'the body must be {"time_zone": "Area/City"}')
        result = await _call(glucose.set_time_zone, user, body["time_zone"])
        return result if isinstance(result, Response) else JSONResponse({"time_zone": result})

    api.add_api_route("/api/glucose/import", import_export, methods=["POST"], openapi_extra={
        "requestBody": {"content": {"text/csv": {"schema": {"type": "string", "format": "binary"}},
                                    "application/json": {"schema": {"type": "array"}}}}})
    api.add_api_route("/api/glucose/report", report, methods=["GET"])
    api.add_api_route("/api/glucose/report.png", page(chart.report_png, "image/png", ".png"), methods=["GET"])
    api.add_api_route("/api/glucose/report.pdf", page(chart.report_pdf, "application/pdf", ".pdf"), methods=["GET"])
    api.add_api_route("/api/glucose/meals", meals, methods=["GET"])
    api.add_api_route("/api/glucose/meals/{entry_id}/curve.png", meal_curve_png, methods=["GET"])
    api.add_api_route("/api/glucose/meals/{entry_id}/kept", put_kept, methods=["PUT"])
    api.add_api_route("/api/glucose/foods", foods, methods=["GET"])
    api.add_api_route("/api/glucose/readings.csv", readings_csv, methods=["GET"])
    api.add_api_route("/api/glucose/zone", get_zone, methods=["GET"])
    api.add_api_route("/api/glucose/zone", put_zone, methods=["PUT"])
