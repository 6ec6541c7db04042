"""`/api/…`: each CLI command's `--json` document, for the same input, as JSON over HTTP.

A POST of the typed request (service/requests.py) answers 200 with exactly the CLI's JSON
text, or 4xx with `{"error": "<the CLI's one-line message>"}`. `?lang=zh` (or the page's
cookie, or Accept-Language) picks the language of the texts inside.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from gpuwise.errors import UserError
from gpuwise.i18n import using_lang
from gpuwise.service.requests import (
    CostRequest,
    DoctorPasteRequest,
    EstimateRequest,
    FitRequest,
    OffersRequest,
    PlanRequest,
)
from gpuwise.web.layout import request_lang


class ErrorBody(BaseModel):
    """Every refusal: the one line the CLI prints after `error:`."""

    error: str


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "bad input (the CLI's one-line message)"},
    413: {"model": ErrorBody, "description": "request too large"},
    422: {"model": ErrorBody, "description": "the request does not fit the schema"},
}
OK: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {"schema": {"type": "object"}}}}
}
LangParam = Annotated[
    Literal["en", "zh"] | None, Query(description="language of the texts in the answer")
]

router = APIRouter(prefix="/api", tags=["api"], responses={**OK, **ERRORS})


def answer(request: Request, name: str, body: Any) -> Response:
    """Run the call in the request's language; a UserError is a 400 with its one line."""
    from gpuwise.render.out import json_text
    from gpuwise.service.calls import call

    with using_lang(request_lang(request)):
        try:
            text = json_text(call(name, body))
        except UserError as exc:
            return JSONResponse({"error": exc.render()}, status_code=400)
    return Response(text, media_type="application/json")


@router.post("/plan", summary="gpuwise plan --json")
def api_plan(body: PlanRequest, request: Request, lang: LangParam = None) -> Response:
    """Buy or rent, which card, which cloud: the three answers and the ranked options."""
    return answer(request, "plan", body)


@router.post("/estimate", summary="gpuwise estimate --json")
def api_estimate(body: EstimateRequest, request: Request, lang: LangParam = None) -> Response:
    """Memory per GPU with its breakdown; speed on `gpu`."""
    return answer(request, "estimate", body)


@router.post("/fit", summary="gpuwise fit --json")
def api_fit(body: FitRequest, request: Request, lang: LangParam = None) -> Response:
    """Every catalog GPU (×1/2/4/8) that holds the job, with its max context."""
    return answer(request, "fit", body)


@router.post("/cost", summary="gpuwise cost --json")
def api_cost(body: CostRequest, request: Request, lang: LangParam = None) -> Response:
    """Own or rent: itemised bills, break-even, the cumulative series."""
    return answer(request, "cost", body)


@router.post("/offers", summary="gpuwise offers --json")
def api_offers(body: OffersRequest, request: Request, lang: LangParam = None) -> Response:
    """Cloud offers, cheapest per GPU-hour first, every price dated."""
    return answer(request, "offers", body)


@router.post("/doctor_from_paste", summary="gpuwise doctor --from - --json")
def api_doctor(body: DoctorPasteRequest, request: Request, lang: LangParam = None) -> Response:
    """Findings from pasted nvidia-smi, collect_env, pip list, logs, tracebacks."""
    return answer(request, "doctor_from_paste", body)
