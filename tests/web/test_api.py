"""/api/… answers what the CLI's --json prints for the same input, and refuses bad input with
the CLI's own one line (4xx, never a 500)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import BASE, WEB_EXTRA

pytest.importorskip("fastapi", reason=WEB_EXTRA)
pytest.importorskip("httpx", reason=WEB_EXTRA)

FIXTURES = Path(__file__).parents[1] / "fixtures"
JSON = {"content-type": "application/json"}


def test_plan_api_equals_cli_json(client: Any, cli: Any) -> None:
    api = client.post("/api/plan", json={"persona": "individual", "months": "18"})
    assert api.status_code == 200, api.text
    assert api.json() == cli("plan", "--persona", "individual", "--months", "18", "--json").json()


def test_estimate_api_equals_cli_json(client: Any, cli: Any) -> None:
    body = {"model": "qwen2.5:7b", "gpu": "rtx-4090", "context": "8k"}
    api = client.post("/api/estimate", json=body)
    assert api.status_code == 200, api.text
    want = cli("estimate", "qwen2.5:7b", "--gpu", "rtx-4090", "--context", "8k", "--json").json()
    assert api.json() == want


def test_fit_offers_cost_doctor_equal_cli_json(client: Any, cli: Any) -> None:
    pairs = [
        ("fit", {"model": "qwen2.5-7b", "vendor": "amd"}, "fit qwen2.5-7b --vendor amd"),
        ("offers", {"gpu": "rtx-4090", "currency": "EUR"}, "offers --gpu rtx-4090 --currency EUR"),
        (
            "cost",
            {"own": "rtx-4090", "count": 2, "months": 12},
            "cost --own rtx-4090 --count 2 --months 12",
        ),
    ]
    for name, body, args in pairs:
        api = client.post(f"/api/{name}", json=body)
        assert api.status_code == 200, (name, api.text)
        assert api.json() == cli(*args.split(), "--json").json(), name
    smi = FIXTURES / "nvidia-smi" / "tesla-t4-515.105.01.xml"
    api = client.post("/api/doctor_from_paste", json={"text": smi.read_text(encoding="utf-8")})
    want = cli("doctor", "--from", str(smi), "--json").json()
    got = api.json()
    for report in (got, want):
        report.pop("elapsed_s")
        report["paste"] = json.loads(json.dumps(report["paste"]).replace(smi.name, "paste"))
    assert api.status_code == 200 and got == want


@pytest.mark.parametrize(
    ("path", "body", "args"),
    [
        ("estimate", {"model": "qwen2.5-7b", "batch": "-1"}, "estimate qwen2.5-7b --batch -1"),
        ("plan", {"persona": "nobody"}, "plan --persona nobody"),
        (
            "plan",
            {"model": "qwen2.5-7b", "workload": "nap"},
            "plan --model qwen2.5-7b --workload nap",
        ),
        ("offers", {"currency": "XYZ"}, "offers --currency XYZ"),
        (
            "cost",
            {"own": "rtx-4090", "hours_per_day": 30},
            "cost --own rtx-4090 --hours-per-day 30",
        ),
    ],
)
def test_bad_input_is_the_cli_line(
    client: Any, cli: Any, path: str, body: dict[str, Any], args: str
) -> None:
    api = client.post(f"/api/{path}", json=body)
    res = cli(*args.split())
    assert res.code == 2
    assert api.status_code == 400
    assert api.json() == {"error": res.err.strip().removeprefix("error: ")}


def test_language_follows_the_request(client: Any) -> None:
    zh = client.post("/api/estimate?lang=zh", json={"model": "qwen2.5-7b", "batch": 0})
    en = client.post("/api/estimate", json={"model": "qwen2.5-7b", "batch": 0})
    by_header = client.post(
        "/api/estimate",
        json={"model": "qwen2.5-7b", "batch": 0},
        headers={"accept-language": "zh-CN,zh;q=0.9"},
    )
    assert "必须" in zh.json()["error"] and "must" in en.json()["error"]
    assert by_header.json() == zh.json()


def test_a_model_name_is_never_read_as_a_file(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "qwen-local"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("/etc/passwd", "./qwen-local", "../x/config.json", "model.gguf", "~/m"):
        r = client.post("/api/estimate", json={"model": name})
        assert r.status_code == 400 and "file" in r.json()["error"], (name, r.text)
    r = client.post("/api/estimate", json={"model": "qwen-local"})  # exists here, but is a name
    assert r.status_code == 400 and "unknown model" in r.json()["error"]
    bad = "workload: {kind: train, model: /etc/passwd}"
    r = client.post("/api/plan", json={"scenario_yaml": bad})
    assert r.status_code == 400 and "file" in r.json()["error"]


def test_schema_problems_are_one_line_4xx(client: Any) -> None:
    cases = [
        (client.post("/api/estimate", json={}), 422, "model"),
        (client.post("/api/estimate", json={"model": "x", "modle": "y"}), 422, "modle"),
        (
            client.post("/api/plan", content=b"{bad", headers={"content-type": "application/json"}),
            422,
            "JSON",
        ),
        (client.post("/api/plan", json={"persona": "x" * 500}), 422, "persona"),
        (client.get("/api/plan"), 405, "POST"),
        (client.get("/nowhere"), 404, "/plan"),
    ]
    for response, status, word in cases:
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert word in error and "\n" not in error


def test_yaml_bombs_and_duplicates_are_refused(client: Any) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    for text in (
        bomb,
        "workload: {kind: train}\nworkload: {kind: serve}\n",
        "!!python/object:os.system x",
    ):
        r = client.post("/api/plan", json={"scenario_yaml": text})
        assert r.status_code == 400, r.text
        assert "\n" not in r.json()["error"]


def test_limits_host_and_origin(client: Any) -> None:
    huge = client.post(
        "/api/doctor_from_paste",
        content=b"x" * (3 * 1024 * 1024 + 1),
        headers={"content-type": "application/json"},
    )
    assert huge.status_code == 413

    def chunks() -> Any:  # no Content-Length: counted as it arrives
        for _ in range(4):
            yield b" " * (1024 * 1024)

    for path in ("/api/plan", "/doctor"):
        streamed = client.post(path, content=chunks(), headers=JSON)
        assert streamed.status_code == 413, (path, streamed.text)
    paste = client.post("/api/doctor_from_paste", json={"text": "x" * (2 * 1024 * 1024 + 1)})
    assert paste.status_code == 422 and "text" in paste.json()["error"]
    rebinding = client.get("/plan", headers={"host": "attacker.example"})
    assert rebinding.status_code == 421
    cross = client.post(
        "/plan", data={"persona": "example"}, headers={"origin": "https://evil.example"}
    )
    assert cross.status_code == 403
    assert client.get("/plan", headers={"host": "localhost:8000"}).status_code == 200


def test_openapi_lists_every_call(client: Any) -> None:
    doc = client.get("/openapi.json").json()
    paths = set(doc["paths"])
    assert {
        f"/api/{n}" for n in ("plan", "estimate", "fit", "cost", "offers", "doctor_from_paste")
    } <= paths
    assert all(p.startswith("/api/") for p in paths)  # the pages are not API
    assert client.get("/docs").status_code == 404  # Swagger UI would load a CDN


def test_a_browser_posting_its_own_form_is_let_in_and_other_sites_are_not(client: Any) -> None:
    """Regression: under `Referrer-Policy: no-referrer` Chromium posted the plan form with
    `Origin: null` and the page refused its own form; the policy is now `same-origin`, and the
    browser's `Sec-Fetch-Site` refuses what `Origin` alone would not."""
    r = client.get("/plan")
    assert r.headers["referrer-policy"] == "same-origin"
    own = {"origin": BASE, "sec-fetch-site": "same-origin"}
    assert client.post("/plan", data={"persona": "example"}, headers=own).status_code == 200
    for headers in (
        {"origin": "null"},
        {"origin": BASE, "sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site"},  # another port on this host is another site's page
    ):
        assert client.post("/plan", data={"persona": "example"}, headers=headers).status_code == 403


def test_forms_keep_the_language_of_the_page(client: Any) -> None:
    """A page opened with ?lang=zh answers its own form in Chinese (no cookie set yet)."""
    plan = client.get("/plan?lang=zh").text
    assert 'action="/plan?lang=zh"' in plan
    offers = client.get("/offers?lang=zh").text
    assert 'name="lang" value="zh"' in offers
