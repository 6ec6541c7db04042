"""The Plan page: the scenario as a form (or pasted YAML) → the three answers, the ranked
options, the cost over time (own vs rent, break-even marked), rules and risks, downloads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from gpuwise.errors import UserError
from gpuwise.i18n import Lang, t
from gpuwise.service.plan import PERSONAS
from gpuwise.service.requests import PlanRequest
from gpuwise.web.forms import build, in_lang, parse_form
from gpuwise.web.html import Markup, el, join
from gpuwise.web.layout import (
    checkbox,
    currency_select,
    document,
    error_box,
    field,
    form,
    request_lang,
    safe_next,
    select,
    text_input,
)

if TYPE_CHECKING:
    from gpuwise.advise.report_model import PlanOption, PlanReport, RuleItem, TextItem

router = APIRouter(include_in_schema=False)
TEXT_FIELDS = (
    ("model", "Qwen/Qwen2.5-7B-Instruct"),
    ("dataset_tokens", "20M"),
    ("epochs", "3"),
    ("runs_per_month", "2"),
    ("concurrency", "8"),
    ("context", "4096"),
    ("months", "12"),
    ("hours_per_day", "8"),
    ("days_per_week", "7"),
    ("budget", "3000"),
    ("region", "cn"),
    ("max_gpus", "8"),
    ("frameworks", "pytorch, vllm"),
)


def plan_form(v: dict[str, str], lang: Lang) -> Markup:
    """The scenario form, filled with what was sent (POST: YAML may be long)."""
    personas = [("", "—"), ("example", t("web.persona_example"))] + [
        (p, t(f"web.persona_{p.replace('-', '_')}")) for p in PERSONAS
    ]
    kinds = [
        ("", "—"),
        ("train", t("web.kind_train")),
        ("serve", t("web.kind_serve")),
        ("local", t("web.kind_local")),
    ]
    modes = [("", "—"), *((m, m) for m in ("full", "lora", "qlora", "freeze"))]
    per = [("month", t("web.per_month")), ("total", t("web.per_total"))]
    boxes = [
        field(t(f"web.f_{name}"), text_input(name, v.get(name), hint)) for name, hint in TEXT_FIELDS
    ]
    return form(
        "post",
        "/plan",
        {"class": "grid"},
        field(t("web.f_persona"), select("persona", v.get("persona", "example"), personas)),
        field(t("web.f_workload"), select("workload", v.get("workload"), kinds)),
        field(t("web.f_mode"), select("mode", v.get("mode"), modes)),
        *boxes,
        field(t("web.f_budget_per"), select("budget_per", v.get("budget_per"), per)),
        field(t("web.f_currency"), currency_select(v.get("currency"), lang)),
        el(
            "fieldset",
            {},
            checkbox("allow_spot", v.get("allow_spot") == "on", t("web.f_allow_spot")),
            checkbox("data_stays", v.get("data_stays") == "on", t("web.f_data_stays")),
            checkbox("domestic", v.get("domestic") == "on", t("web.f_domestic")),
        ),
        el(
            "label",
            {"class": "wide"},
            el("span", {}, t("web.f_scenario_yaml")),
            el(
                "textarea",
                {"name": "scenario_yaml", "rows": 8, "maxlength": 100_000, "spellcheck": "false"},
                v.get("scenario_yaml", ""),
            ),
            el("small", {}, t("web.scenario_hint")),
        ),
        el("button", {"type": "submit"}, t("web.plan_submit")),
    )


def _money(value: float | None, currency: str) -> str:
    from gpuwise.advise.fired import money

    return "—" if value is None else money(value, currency)


def _banded(value: float, band: tuple[float, float] | None, spec: str) -> str:
    """'570 (306–743)': the figure with its p10–p90 error band, as the CLI's table shows it."""
    text = format(value, spec)
    return f"{text} ({format(band[0], spec)}–{format(band[1], spec)})" if band else text


def _option_name(o: PlanOption) -> str:
    """'算家云 RTX 4090 ×1 (按量)' or 'rtx-4090 ×2 (台式机)'."""
    if o.kind == "rent":
        return f"{o.provider_name} {o.instance} ({t(f'billing.{o.billing}')})"
    if o.added_gpu:  # owned cards kept, cards added (a layer split)
        return f"{o.gpu} ×{o.count} + {o.added_gpu} ×{o.added_count} ({t('plan.keep_and_buy')})"
    if o.offload_fraction:
        return f"{o.gpu} ×{o.count} + CPU ({t('plan.owned_offload')})"
    where = t("web.already_owned") if o.already_owned else t(f"platform.{o.platform}")
    return f"{o.gpu} ×{o.count} ({where})"


def options_table(report: PlanReport) -> Markup:
    """The ranked options, with each option's risks under its name."""
    cur = report.currency
    head = el(
        "tr",
        {},
        *(
            el("th", {}, t(f"web.col_{c}"))
            for c in ("rank", "option", "kind", "total", "monthly", "time", "speed", "memory")
        ),
    )
    rows = []
    for i, o in enumerate(report.options, start=1):
        risks = el("ul", {"class": "risks"}, *(el("li", {}, r.text) for r in o.risks))
        unpriced = ", ".join(t(f"cost.item.{u}") for u in o.unpriced)
        rows.append(
            el(
                "tr",
                {},
                el("td", {}, i),
                el("td", {}, el("strong", {}, _option_name(o)), risks if o.risks else None),
                el("td", {}, t(f"web.kind_{o.kind}")),
                el(
                    "td",
                    {"class": "num"},
                    _money(o.total_cost, cur),
                    el("small", {}, t("web.unpriced", items=unpriced)) if unpriced else None,
                ),
                el("td", {"class": "num"}, _money(o.monthly_cost, cur)),
                el(
                    "td",
                    {"class": "num"},
                    "—"
                    if o.time_hours is None
                    else _banded(o.time_hours, o.time_hours_band, ",.1f") + " h",
                ),
                el("td", {"class": "num"}, _banded(o.tokens_per_s, o.tokens_per_s_band, ",.0f")),
                el(
                    "td",
                    {"class": "num"},
                    f"{o.memory_per_gpu_bytes / 2**30:.1f} / "
                    f"{o.memory_capacity_bytes / 2**30:.0f} GiB",
                ),
            )
        )
    return el("table", {"class": "options"}, el("thead", {}, head), el("tbody", {}, *rows))


def _texts(title: str, items: Sequence[TextItem | RuleItem]) -> Markup:
    if not items:
        return join()
    return join(el("h2", {}, title), el("ul", {}, *(el("li", {}, i.text) for i in items)))


def chart_block(result: Any, lang: Lang) -> Markup:
    """The cost-over-time chart with a sentence saying where owning breaks even."""
    from gpuwise.advise.timeline import plan_timeline
    from gpuwise.web.svg import cost_chart

    timeline = plan_timeline(result.plan)
    if timeline is None:
        return join()
    marks = timeline.chart.break_even_months
    if timeline.chart.own and len(timeline.options) > 1:
        caption = (
            t("web.break_even", month=next(iter(marks.values())))
            if marks
            else t("web.no_break_even")
        )
    else:
        caption = t("web.one_side")
    return el(
        "figure", {"class": "chart"}, cost_chart(timeline, lang), el("figcaption", {}, caption)
    )


def _downloads(v: dict[str, str]) -> Markup:
    """Buttons that post the same inputs again for the Markdown or JSON file."""
    hidden = [
        el("input", {"type": "hidden", "name": k, "value": val})
        for k, val in v.items()
        if k != "format"
    ]
    return form(
        "post",
        "/plan/download",
        {"class": "downloads"},
        *hidden,
        el("button", {"type": "submit", "name": "format", "value": "md"}, t("web.download_md")),
        el("button", {"type": "submit", "name": "format", "value": "json"}, t("web.download_json")),
    )


def results(result: Any, v: dict[str, str], lang: Lang) -> Markup:
    """Everything the CLI prints for a plan, as HTML."""
    report: PlanReport = result.report
    answers = el("ol", {"class": "answers"}, *(el("li", {}, line) for line in report.answer_text))
    table = options_table(report) if report.options else join()
    return join(
        el("section", {"class": "answers"}, el("h2", {}, t("web.answers")), answers),
        chart_block(result, lang),
        el("h2", {}, t("web.options", n=report.options_considered)),
        table,
        _texts(t("web.rules"), report.rules),
        _texts(t("web.assumptions"), report.assumptions),
        _texts(t("web.suggestions"), report.suggestions),
        _downloads(v),
    )


def _page(lang: Lang, v: dict[str, str], body: Markup, error: str | None) -> str:
    return document(
        "plan",
        lang,
        t("web.nav_plan"),
        el("p", {}, t("web.plan_intro")),
        error_box(error),
        plan_form(v, lang),
        body,
    )


def _run(v: dict[str, str], lang: Lang) -> tuple[str, int]:
    """The page for the posted form: results, or the form with the one-line error."""
    from gpuwise.service.calls import run_plan

    try:
        result = run_plan(build(PlanRequest, v))
        return _page(lang, v, results(result, v, lang), None), 200
    except UserError as exc:
        return _page(lang, v, join(), exc.render()), 400


@router.get("/", response_class=RedirectResponse)
def home() -> RedirectResponse:
    return RedirectResponse("/plan", status_code=303)


@router.get("/lang")
def switch_lang(request: Request) -> Response:
    """Remember the language in a cookie and go back to the page."""
    from gpuwise.web.layout import COOKIE

    to = request.query_params.get("to")
    response = RedirectResponse(safe_next(request.query_params.get("next")), status_code=303)
    if to in ("en", "zh"):
        response.set_cookie(COOKIE, to, max_age=365 * 86400, samesite="strict", httponly=True)
    return response


@router.get("/plan", response_class=HTMLResponse)
def plan_page(request: Request) -> HTMLResponse:
    lang = request_lang(request)
    return HTMLResponse(in_lang(lang, _page, lang, {}, join(), None))


@router.post("/plan", response_class=HTMLResponse)
async def plan_post(request: Request) -> HTMLResponse:
    lang = request_lang(request)
    v = parse_form(await request.body())
    text, status = await run_in_threadpool(in_lang, lang, _run, v, lang)
    return HTMLResponse(text, status_code=status)


def _download(v: dict[str, str]) -> tuple[str, str, int]:
    from gpuwise.render.out import json_text
    from gpuwise.render.plan import markdown
    from gpuwise.service.calls import run_plan

    try:
        report = run_plan(build(PlanRequest, v)).report
    except UserError as exc:
        return exc.render(), "text/plain; charset=utf-8", 400
    if v.get("format") == "json":
        return json_text(report) + "\n", "application/json", 200
    return markdown(report), "text/markdown; charset=utf-8", 200


@router.post("/plan/download")
async def plan_download(request: Request) -> Response:
    """The plan as the CLI's Markdown (`--markdown`) or JSON (`--json`), as a file."""
    lang = request_lang(request)
    v = parse_form(await request.body())
    body, media, status = await run_in_threadpool(in_lang, lang, _download, v)
    ext = "json" if media == "application/json" else "md"
    headers = (
        {"content-disposition": f'attachment; filename="gpuwise-plan.{ext}"'}
        if status == 200
        else {}
    )
    return Response(body, media_type=media, status_code=status, headers=headers)
