"""The Doctor page: paste nvidia-smi, collect_env, pip list, logs or a traceback from any
machine, get the findings `gpuwise doctor --from` gives (nothing is run here)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from gpuwise.errors import UserError
from gpuwise.i18n import Lang, t
from gpuwise.service.requests import PASTE_MAX_BYTES, DoctorPasteRequest
from gpuwise.web.forms import build, in_lang, parse_form
from gpuwise.web.html import Markup, el, join
from gpuwise.web.layout import document, error_box, form, request_lang

router = APIRouter(include_in_schema=False)
LEVEL_ORDER = {"error": 0, "warn": 1, "warning": 1, "info": 2, "ok": 3}


def findings_view(report: dict[str, Any]) -> Markup:
    """What was recognised, then each finding: level, title, detail, why, fix, commands."""
    blocks = el("ul", {"class": "notes"}, *(el("li", {}, b) for b in report["paste"]["blocks"]))
    items = []
    for f in sorted(report["findings"], key=lambda f: LEVEL_ORDER.get(f.get("level", ""), 9)):
        level = str(f.get("level", "info"))
        commands = [el("code", {}, c) for c in f.get("commands", [])]
        items.append(
            el(
                "article",
                {"class": f"finding {level}"},
                el(
                    "h3",
                    {},
                    el(
                        "span",
                        {"class": "level"},
                        t(f"web.level_{level}") if level in LEVEL_ORDER else level,
                    ),
                    " ",
                    f.get("title", ""),
                ),
                el("p", {}, f.get("detail", "")) if f.get("detail") else None,
                el("p", {"class": "why"}, f.get("why", "")) if f.get("why") else None,
                el("p", {"class": "fix"}, el("strong", {}, t("web.fix")), " ", f.get("fix", ""))
                if f.get("fix")
                else None,
                el("pre", {}, *(join(c, "\n") for c in commands)) if commands else None,
            )
        )
    missing = [
        el("li", {}, t(f"doctor.paste.missing.{m['fact']}"), el("pre", {}, m["command"]))
        for m in report["paste"].get("missing", [])
    ]
    return join(
        el("h2", {}, t("web.recognised")),
        blocks,
        el("h2", {}, t("web.findings", n=len(items))),
        *items,
        join(el("h2", {}, t("doctor.paste.missing_title")), el("ul", {}, *missing))
        if missing
        else None,
    )


def _page(lang: Lang, text: str, body: Markup, error: str | None) -> str:
    the_form = form(
        "post",
        "/doctor",
        {},
        el(
            "label",
            {"class": "wide"},
            el("span", {}, t("web.paste_label")),
            el(
                "textarea",
                {"name": "text", "rows": 14, "maxlength": PASTE_MAX_BYTES, "spellcheck": "false"},
                text,
            ),
        ),
        el("button", {"type": "submit"}, t("web.doctor_submit")),
    )
    return document(
        "doctor",
        lang,
        t("web.nav_doctor"),
        el("p", {}, t("web.doctor_intro")),
        error_box(error),
        the_form,
        body,
    )


def _run(v: dict[str, str], lang: Lang) -> tuple[str, int]:
    from gpuwise.service.calls import run_doctor_paste

    text = v.get("text", "")
    try:
        return _page(
            lang, text, findings_view(run_doctor_paste(build(DoctorPasteRequest, v))), None
        ), 200
    except UserError as exc:
        return _page(lang, text, join(), exc.render()), 400


@router.get("/doctor", response_class=HTMLResponse)
def doctor_page(request: Request) -> HTMLResponse:
    lang = request_lang(request)
    return HTMLResponse(in_lang(lang, _page, lang, "", join(), None))


@router.post("/doctor", response_class=HTMLResponse)
async def doctor_post(request: Request) -> HTMLResponse:
    lang = request_lang(request)
    v = parse_form(await request.body())
    text, status = await run_in_threadpool(in_lang, lang, _run, v, lang)
    return HTMLResponse(text, status_code=status)
