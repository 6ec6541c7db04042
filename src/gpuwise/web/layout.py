"""The frame of every page (title, menu, language switch) and the request's language.

The language comes from `?lang=`, then the `gpuwise_lang` cookie the switch sets, then the
browser's Accept-Language; CNY is the Chinese default currency, USD the English one (as the
CLI's `--currency` default).
"""

from __future__ import annotations

from typing import Any

from gpuwise.i18n import LANGS, Lang, get_lang, t
from gpuwise.web.html import Child, Markup, el, join

COOKIE = "gpuwise_lang"
PAGES = ("plan", "estimate", "fit", "offers", "doctor")
CURRENCIES = ("CNY", "USD", "EUR")


def request_lang(request: Any) -> Lang:
    """The language a request asks for (see the module docstring)."""
    for value in (request.query_params.get("lang"), request.cookies.get(COOKIE)):
        if value in LANGS:
            return value  # type: ignore[no-any-return]
    accept = request.headers.get("accept-language", "").strip().lower()
    return "zh" if accept.startswith("zh") else "en"


def default_currency(lang: Lang) -> str:
    """CNY for Chinese pages, USD for English ones (the CLI's rule)."""
    return "CNY" if lang == "zh" else "USD"


def safe_next(path: str | None) -> str:
    """Where the language switch returns to: one of this server's pages, nothing else."""
    name = (path or "").strip("/")
    return f"/{name}" if name in PAGES else "/plan"


def _menu(active: str, lang: Lang) -> Markup:
    links = [
        el(
            "a",
            {"href": f"/{p}", "aria_current": "page" if p == active else None},
            t(f"web.nav_{p}"),
        )
        for p in PAGES
    ]
    other: Lang = "en" if lang == "zh" else "zh"
    switch = el(
        "a",
        {"href": f"/lang?to={other}&next=/{active}", "class": "lang", "hreflang": other},
        "English" if other == "en" else "中文",
    )
    return el("nav", {}, el("span", {"class": "brand"}, "gpuwise"), *links, switch)


def document(active: str, lang: Lang, title: str, *body: Child) -> Markup:
    """A whole page: no script, one stylesheet from this server."""
    from gpuwise import __version__

    head = el(
        "head",
        {},
        el("meta", {"charset": "utf-8"}),
        el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
        el("title", {}, f"{title} · gpuwise"),
        el("link", {"rel": "stylesheet", "href": "/static/style.css"}),
    )
    footer = el(
        "footer",
        {},
        t("web.footer", version=__version__),
        " · ",
        el("a", {"href": "/openapi.json"}, "OpenAPI"),
    )
    main = el("main", {}, el("h1", {}, title), *body)
    html_lang = "zh-CN" if lang == "zh" else "en"
    return Markup(
        "<!DOCTYPE html>\n"
        + el("html", {"lang": html_lang}, head, el("body", {}, _menu(active, lang), main, footer))
    )


def error_box(message: str | None) -> Markup:
    """The one-line error of a bad input, where the form is."""
    if not message:
        return join()
    return el("p", {"class": "error", "role": "alert"}, message)


def field(label: str, control: Markup, hint: str | None = None) -> Markup:
    """A labelled form control."""
    return el("label", {}, el("span", {}, label), control, el("small", {}, hint) if hint else None)


def text_input(name: str, value: Any, placeholder: str = "", size: int = 0) -> Markup:
    """A one-line text box (bounded like the request field it fills)."""
    return el(
        "input",
        {
            "type": "text",
            "name": name,
            "value": "" if value is None else value,
            "placeholder": placeholder or None,
            "maxlength": 200,
            "size": size or None,
        },
    )


def select(name: str, value: Any, options: list[tuple[str, str]]) -> Markup:
    """A drop-down; `options` are (value, label)."""
    return el(
        "select",
        {"name": name},
        *(
            el("option", {"value": v, "selected": str(value or "") == v}, label)
            for v, label in options
        ),
    )


def checkbox(name: str, checked: bool, label: str) -> Markup:
    """A tick box sent as `name=on`."""
    return el(
        "label",
        {"class": "check"},
        el("input", {"type": "checkbox", "name": name, "checked": bool(checked)}),
        label,
    )


def currency_select(value: str | None, lang: Lang) -> Markup:
    """CNY / USD / EUR, defaulting to the language's currency."""
    chosen = value or default_currency(lang)
    return select("currency", chosen, [(c, c) for c in CURRENCIES])


def form(method: str, action: str, attrs: dict[str, object], *children: Child) -> Markup:
    """A form that keeps the page's language: a page opened with `?lang=zh` (no cookie yet)
    must answer its own form in Chinese too. A POST keeps it in the address; a GET form's
    address is replaced by its fields, so there it travels as a hidden field."""
    lang = get_lang()
    if method == "post":
        return el("form", {"method": method, "action": f"{action}?lang={lang}", **attrs}, *children)
    kept = el("input", {"type": "hidden", "name": "lang", "value": lang})
    return el("form", {"method": method, "action": action, **attrs}, kept, *children)
