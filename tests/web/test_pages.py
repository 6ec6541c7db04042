"""The pages: strict CSP on every response, nothing loaded from elsewhere, both languages, and
the numbers on the page are the CLI's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import WEB_EXTRA

pytest.importorskip("fastapi", reason=WEB_EXTRA)
pytest.importorskip("httpx", reason=WEB_EXTRA)

FIXTURES = Path(__file__).parents[1] / "fixtures"
EXTERNAL = re.compile(
    r"""(?:src|href|action|xlink:href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?(?:https?:)?//""",
    re.I,
)


def _checked(response: Any) -> str:
    """The page's HTML, after the checks every page must pass."""
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "unsafe" not in csp and "script-src" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    html = response.text
    assert not EXTERNAL.search(html), EXTERNAL.search(html)
    assert "<script" not in html and "<style" not in html and " style=" not in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', ""
    )
    assert "https://" not in html
    return html


def test_every_page_is_self_contained(client: Any) -> None:
    for path in ("/plan", "/estimate", "/fit", "/offers", "/doctor"):
        for lang in ("en", "zh"):
            r = client.get(f"{path}?lang={lang}")
            assert r.status_code == 200, (path, r.text[:300])
            _checked(r)
    css = client.get("/static/style.css")
    assert css.status_code == 200 and "//" not in re.sub(r"/\*.*?\*/", "", css.text, flags=re.S)


def test_plan_page_shows_the_cli_answers_and_a_chart(client: Any, cli: Any) -> None:
    r = client.post("/plan", data={"persona": "small-team", "currency": "CNY"})
    html = _checked(r)
    report = cli("plan", "--persona", "small-team", "--currency", "CNY", "--json").json()
    for line in report["answer_text"]:
        assert line.replace("—", "—") in html.replace("&#x27;", "'").replace("&quot;", '"')
    assert '<svg role="img"' in html and 'class="chart"' in html
    assert "Owning becomes cheaper than renting from month" in html or "does not catch up" in html
    assert html.count("<tr>") >= len(report["options"]) + 1
    assert len(r.content) < 300_000  # first load of a plan, chart included


def test_plan_page_in_chinese_and_the_switch(client: Any) -> None:
    switch = client.get("/lang?to=zh&next=/plan", follow_redirects=False)
    assert switch.status_code == 303 and switch.headers["location"] == "/plan"
    assert "gpuwise_lang=zh" in switch.headers["set-cookie"]
    client.cookies.set("gpuwise_lang", "zh")
    html = _checked(client.post("/plan", data={"persona": "individual"}))
    assert '<html lang="zh-CN">' in html and "结论" in html and "买卡还是租云" in html
    away = client.get("/lang?to=en&next=https://evil.example/", follow_redirects=False)
    assert away.headers["location"] == "/plan"


def test_plan_form_errors_are_one_line(client: Any) -> None:
    r = client.post("/plan", data={"model": "qwen2.5-7b", "workload": "train", "months": "-3"})
    assert r.status_code == 400
    html = _checked(r)
    assert re.search(r'<p class="error" role="alert">--months [^<]*</p>', html)


def test_plan_downloads_are_the_cli_files(client: Any, cli: Any, tmp_path: Path) -> None:
    data = {"persona": "individual"}
    md = client.post("/plan/download", data={**data, "format": "md"})
    js = client.post("/plan/download", data={**data, "format": "json"})
    assert 'filename="gpuwise-plan.md"' in md.headers["content-disposition"]
    out = tmp_path / "plan.md"
    res = cli("plan", "--persona", "individual", "--markdown", str(out), "--json")
    assert md.text == out.read_text(encoding="utf-8")
    assert js.json() == res.json()


def test_estimate_page_draws_the_breakdown(client: Any, cli: Any) -> None:
    html = _checked(client.get("/estimate?model=qwen2.5:7b&gpu=rtx-4090"))
    report = cli("estimate", "qwen2.5:7b", "--gpu", "rtx-4090", "--json").json()
    parts = [v for v in report["memory"]["breakdown"].values() if v > 0]
    assert html.count("<rect x=") == len(parts)
    assert f"{report['memory']['device_total_bytes'] / 2**30:.2f} GiB" in html
    low, high = report["speed"]["band"]["decode_tokens_per_s"]  # speed with its error band
    assert f"{report['speed']['decode_tokens_per_s']:,.2f} ({low:,.2f}–{high:,.2f})" in html
    fit = _checked(client.get("/fit?model=qwen2.5:7b&vendor=nvidia"))
    assert "RTX 4090" in fit


def test_offers_page_sorts_and_dates(client: Any) -> None:
    html = _checked(client.get("/offers?gpu=rtx-4090&sort=provider"))
    providers = re.findall(r"<tr><td>([^<]+)</td>", html)
    assert providers == sorted(providers) and providers
    assert re.search(r"\d+ days \(\d{4}-\d\d-\d\d\)|date unknown", html)
    bad = client.get("/offers?currency=XYZ")
    assert bad.status_code == 400 and "XYZ" in bad.text


def test_doctor_paste_page(client: Any) -> None:
    smi = (FIXTURES / "nvidia-smi" / "tesla-t4-515.105.01.xml").read_text(encoding="utf-8")
    html = _checked(client.post("/doctor", data={"text": smi}))
    assert "Tesla T4" in html and 'class="finding' in html
    nothing = client.post("/doctor", data={"text": "hello"})
    assert nothing.status_code == 400 and "nothing gpuwise recognises" in nothing.text
    evil = client.post("/doctor", data={"text": "<script>alert(1)</script>"})
    assert "<script>" not in evil.text
