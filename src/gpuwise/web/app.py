"""The FastAPI application of `gpuwise serve`: the API, the pages, one stylesheet, and error
handling that answers every problem with one line (4xx), never a traceback."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from gpuwise.i18n import Lang, t, using_lang
from gpuwise.web.security import LOOPBACK_NAMES, BodyTooLarge, Guard

STYLE = Path(__file__).parent / "static" / "style.css"


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost: reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _message(key: str, headers: dict[str, str]) -> str:
    """A refusal made before routing, in the language the browser asks for."""
    lang: Lang = "zh" if headers.get("accept-language", "").lower().startswith("zh") else "en"
    return t(key, lang)


def create_app(bind_host: str = "127.0.0.1") -> FastAPI:
    """The app. Bound to loopback, only loopback Host names are answered (no DNS rebinding);
    bound elsewhere, any Host is (the operator chose to expose it)."""
    from gpuwise import __version__
    from gpuwise.web import api, pages_doctor, pages_estimate, pages_offers, pages_plan

    app = FastAPI(
        title="gpuwise",
        version=__version__,
        description="Buy or rent GPUs, which card, which cloud: the CLI's answers as JSON.",
        docs_url=None,  # Swagger UI and ReDoc load scripts from a CDN: none here
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    hosts = (*LOOPBACK_NAMES, bind_host) if is_loopback(bind_host) else None
    app.add_middleware(Guard, hosts=hosts, messages=_message)
    _handlers(app)
    app.include_router(api.router)
    for module in (pages_plan, pages_estimate, pages_offers, pages_doctor):
        app.include_router(module.router)
    style = STYLE.read_bytes()

    @app.get("/static/style.css", include_in_schema=False)
    def stylesheet() -> Response:
        return Response(style, media_type="text/css", headers={"cache-control": "max-age=3600"})

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        """Browsers ask for it on every page; an empty answer, not a 404 in the console."""
        return Response(status_code=204, headers={"cache-control": "max-age=86400"})

    return app


def _json_error(request: Request, status: int, key: str, **params: Any) -> JSONResponse:
    from gpuwise.web.layout import request_lang

    with using_lang(request_lang(request)):
        return JSONResponse({"error": t(key, **params)}, status_code=status)


def _handlers(app: FastAPI) -> None:
    """Every error is `{"error": one line}` in the request's language."""
    from gpuwise.service.problems import one_line
    from gpuwise.web.layout import request_lang

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        with using_lang(request_lang(request)):
            known = _fields_of(request)
            return JSONResponse({"error": one_line(exc.errors(), known)}, status_code=422)

    @app.exception_handler(BodyTooLarge)
    async def too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        return _json_error(request, 413, "web.too_large")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, BodyTooLarge):  # FastAPI wraps body-reading errors
            return _json_error(request, 413, "web.too_large")
        key = {404: "web.not_found", 405: "web.bad_method"}.get(exc.status_code, "web.bad_request")
        return _json_error(request, exc.status_code, key)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return _json_error(request, 500, "web.unexpected", error=error)


def _fields_of(request: Request) -> list[str]:
    """The field names of the API call a request was for (for did-you-mean)."""
    from gpuwise.service.requests import REQUESTS

    name = request.url.path.removeprefix("/api/")
    model = REQUESTS.get(name)
    return list(model.model_fields) if model else []
