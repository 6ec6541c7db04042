"""The Estimate and Fit pages: a model (catalog name, Hugging Face id, Ollama tag) and a job →
memory per GPU as a stacked bar with its band, speed on a card; or every card that holds it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from gpuwise.errors import UserError
from gpuwise.i18n import Lang, t
from gpuwise.service.requests import EstimateRequest, FitRequest
from gpuwise.web.forms import build, in_lang
from gpuwise.web.html import Markup, el, join
from gpuwise.web.layout import document, error_box, field, form, request_lang, select, text_input

if TYPE_CHECKING:
    from gpuwise.estimate.report_model import EstimateReport

router = APIRouter(include_in_schema=False)
MODES = ("inference", "full", "lora", "qlora", "freeze")
JOB_FIELDS = (
    ("model", "qwen2.5:7b"),
    ("quant", "q4_k_m"),
    ("context", "8192"),
    ("batch", "1"),
    ("gpus", "1"),
)


def job_form(page: str, v: dict[str, str], extra: list[tuple[str, str]]) -> Markup:
    """The model-and-job form (GET: the answer has an address to share)."""
    modes = [(m, t(f"web.mode_{m}")) for m in MODES]
    boxes = [
        field(t(f"web.f_{n}"), text_input(n, v.get(n), hint)) for n, hint in (*JOB_FIELDS, *extra)
    ]
    return form(
        "get",
        f"/{page}",
        {"class": "grid"},
        boxes[0],
        field(t("web.f_mode"), select("mode", v.get("mode", "inference"), modes)),
        *boxes[1:],
        el("button", {"type": "submit"}, t(f"web.{page}_submit")),
    )


def _gb(n: int | float | None) -> str:
    """Bytes in GiB, as the CLI's tables show them."""
    return "—" if n is None else f"{n / 2**30:.2f} GiB"


def _speed(speed: dict[str, Any] | None) -> Markup:
    if not speed:
        return el("p", {"class": "note"}, t("web.no_speed"))
    rows = []
    bands = speed.get("band") or {}
    for key in ("decode_tokens_per_s", "prefill_tokens_per_s", "time_to_first_token_s"):
        value = speed.get(key)
        if isinstance(value, int | float):
            text = f"{value:,.2f}"
            if key in bands:  # p10–p90 of the held-out residuals (speed_band.toml)
                low, high = bands[key]
                text += f" ({low:,.2f}–{high:,.2f})"
            rows.append(
                el(
                    "tr",
                    {},
                    el("th", {}, t(f"web.{key}")),
                    el("td", {"class": "num"}, text),
                )
            )
    if speed.get("bound"):
        rows.append(el("tr", {}, el("th", {}, t("web.bound")), el("td", {}, speed["bound"])))
    return el("table", {"class": "kv"}, *rows)


def estimate_view(report: EstimateReport) -> Markup:
    """Memory breakdown (bar and table), the band, fit on the card, speed, notes."""
    from gpuwise.web.svg import memory_bar

    mem, gpu = report.memory, report.gpu
    capacity = gpu.usable_bytes if gpu else None
    verdict = None
    if gpu:
        key = "web.fits" if report.fits else "web.does_not_fit"
        verdict = el(
            "p",
            {"class": "verdict"},
            t(key, gpu=gpu.name, headroom=_gb(report.headroom_bytes)),
        )
    band = t("web.band", low=_gb(mem.low_bytes), high=_gb(mem.high_bytes))
    notes = [el("li", {}, t(n.key, **n.params)) for n in report.notes]
    return join(
        el(
            "h2",
            {},
            t(
                "web.memory_title",
                model=report.model.name,
                size=_gb(mem.device_total_bytes),
            ),
        ),
        el("p", {}, band),
        verdict,
        memory_bar(mem.breakdown, capacity),
        el("h2", {}, t("web.speed_title")),
        _speed(report.speed),
        el("ul", {"class": "notes"}, *notes) if notes else None,
    )


def fit_view(data: dict[str, Any]) -> Markup:
    """Every card × count that holds the job, as a table."""
    head = el(
        "tr",
        {},
        *(
            el("th", {}, t(f"web.col_{c}"))
            for c in ("gpu", "count", "memory", "headroom", "max_context")
        ),
    )
    rows = [
        el(
            "tr",
            {},
            el("td", {}, f["name"]),
            el("td", {"class": "num"}, f["count"]),
            el("td", {"class": "num"}, _gb(f["device_total_bytes"])),
            el("td", {"class": "num"}, _gb(f["headroom_bytes"])),
            el("td", {"class": "num"}, f"{f['max_context']:,}" if f.get("max_context") else "—"),
        )
        for f in data["fits"]
    ]
    if not rows:
        return el("p", {"class": "note"}, t("web.nothing_fits"))
    return join(
        el("h2", {}, t("web.fit_title", n=len(rows), model=data["model"])),
        el("table", {}, el("thead", {}, head), el("tbody", {}, *rows)),
    )


def _render(page: str, v: dict[str, str], lang: Lang) -> tuple[str, int]:
    from gpuwise.service.calls import run_estimate, run_fit

    extra = [("gpu", "rtx-4090")] if page == "estimate" else [("vendor", "nvidia")]
    body, error, status = join(), None, 200
    if v.get("model"):
        try:
            if page == "estimate":
                body = estimate_view(run_estimate(build(EstimateRequest, v)))
            else:
                body = fit_view(run_fit(build(FitRequest, v)))
        except UserError as exc:
            error, status = exc.render(), 400
    title = t(f"web.nav_{page}")
    intro = el("p", {}, t(f"web.{page}_intro"))
    return document(
        page, lang, title, intro, error_box(error), job_form(page, v, extra), body
    ), status


@router.get("/estimate", response_class=HTMLResponse)
async def estimate_page(request: Request) -> HTMLResponse:
    lang = request_lang(request)
    text, status = await run_in_threadpool(
        in_lang, lang, _render, "estimate", dict(request.query_params), lang
    )
    return HTMLResponse(text, status_code=status)


@router.get("/fit", response_class=HTMLResponse)
async def fit_page(request: Request) -> HTMLResponse:
    lang = request_lang(request)
    text, status = await run_in_threadpool(
        in_lang, lang, _render, "fit", dict(request.query_params), lang
    )
    return HTMLResponse(text, status_code=status)
