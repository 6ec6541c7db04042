"""End to end in a real browser: Playwright drives Debian's `chromium` (Playwright's own browser
download cannot work on these machines) against a live `gpuwise serve` on a loopback port.

What a user does: switch the language, fill the plan form, submit, read the answers and the
chart. The numbers on the page must be the CLI's for the same scenario, and the language switch
must be remembered on the next page. Screenshots go to the test's temp folder for a person to
look at. Skipped, with the reason, only where chromium or Playwright is absent.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import WEB_EXTRA

pytest.importorskip("fastapi", reason=WEB_EXTRA)
uvicorn = pytest.importorskip("uvicorn", reason=WEB_EXTRA)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install '.[dev]')"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian's chromium is absent (apt-get install chromium; make test does)",
)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """`gpuwise serve`'s app under uvicorn in a thread, on a free loopback port."""
    from gpuwise.web.app import create_app

    port = _free_port()
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the web server did not start within 30 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        # --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _submit_plan(page: Any, base_url: str, lang: str) -> None:
    page.goto(f"{base_url}/plan?lang={lang}")
    page.select_option("select[name=persona]", "small-team")
    page.select_option("select[name=currency]", "CNY")
    page.click("form button[type=submit]")
    page.wait_for_selector("svg.chart, .chart svg, svg[role=img]", timeout=30_000)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_form_in_a_browser_gives_the_cli_answers_and_draws_the_chart(
    browser: Any, base_url: str, cli: Any, tmp_path: Path, lang: str
) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console", lambda m: errors.append(m.text) if m.type == "error" else None
    )  # a CSP violation shows here
    _submit_plan(page, base_url, lang)
    text = page.inner_text("body")
    report = cli(
        "plan", "--persona", "small-team", "--currency", "CNY", "--lang", lang, "--json"
    ).json()
    assert report["answer_text"], "the CLI gave no answers to compare with"
    for line in report["answer_text"]:
        assert " ".join(line.split()) in " ".join(text.split()), line
    assert page.get_attribute("html", "lang") == ("zh-CN" if lang == "zh" else "en")
    chart = page.locator("svg[role=img]").first
    box = chart.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 100  # drawn, not hidden
    assert (
        page.locator("svg[role=img] path, svg[role=img] polyline, svg[role=img] line").count() > 2
    )
    shot = tmp_path / f"plan-{lang}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == PNG_MAGIC and shot.stat().st_size > 10_000
    assert not errors, errors
    page.close()


def test_language_switch_is_remembered_on_the_next_page(browser: Any, base_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{base_url}/offers?lang=en")
    page.click("a.lang")  # the switch to Chinese
    assert page.get_attribute("html", "lang") == "zh-CN"
    page.goto(f"{base_url}/estimate")  # no ?lang=: the cookie decides
    assert page.get_attribute("html", "lang") == "zh-CN"
    context.close()
