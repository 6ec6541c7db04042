"""`record --tokens-from`: engines' metrics pages parsed, counters accumulated over a run.

Pages are recorded real ones (tests/fixtures/engine-metrics, cited in tests/fixtures/README.md),
served by a real loopback HTTP server while a real child process is recorded.
"""

from __future__ import annotations

import itertools
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuwise.monitor.recorder import Recorder, TokenWatch
from gpuwise.monitor.report import run_summary
from gpuwise.monitor.sample_nvidia import NvidiaSource
from gpuwise.monitor.sampler import Sampler
from gpuwise.monitor.store import RunStore
from gpuwise.monitor.tokens import TokenTotals, advance, token_rates
from gpuwise.probe.engine_metrics import metrics_url, parse_metrics, scrape
from tests.monitor.fake_nvml import fake_generation
from tests.probe.ollama_server import serve

PAGES = Path(__file__).resolve().parent.parent / "fixtures" / "engine-metrics"


def page(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


def test_vllm_page() -> None:
    c = parse_metrics(page("vllm-aicr-h100.txt"))
    assert c is not None and c.engine == "vllm"
    assert (c.prompt_tokens, c.generated_tokens, c.running) == (80, 500, 0)
    # 490 inter-token intervals (500 tokens of 10 requests, minus each first) in 0.864 s
    assert (c.decode_tokens, c.decode_seconds) == (490, pytest.approx(0.864))
    assert c.prefill_timer == "ttft"  # no request_prefill_time family in this page


def test_llamacpp_page_agrees_with_its_own_gauges() -> None:
    c = parse_metrics(page("llamacpp-ik695.txt"))
    assert c is not None and c.engine == "llama.cpp" and c.prefill_timer == "prompt"
    assert c.decode_tokens is not None and c.decode_seconds is not None
    assert c.prefill_tokens is not None and c.prefill_seconds is not None
    # the server's own averages on the same page: 0.978764 and 2.37151 tokens/s
    assert c.decode_tokens / c.decode_seconds == pytest.approx(0.978764, rel=1e-5)
    assert c.prefill_tokens / c.prefill_seconds == pytest.approx(2.37151, rel=1e-5)


def test_sglang_page() -> None:
    c = parse_metrics(page("sglang-docs.txt"))
    assert c is not None and c.engine == "sglang" and c.running == 162
    assert c.generated_tokens == 7_557_572 and c.decode_tokens == 7_400_757
    assert c.prefill_timer == "ttft"  # SGLang's first-token time includes queueing


def test_not_an_engine_page() -> None:
    assert parse_metrics("up 1\nprocess_cpu_seconds_total 3\n") is None
    with pytest.raises(ValueError):
        parse_metrics("<html>not found</html>")


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("127.0.0.1:8000", "http://127.0.0.1:8000/metrics"),
        ("http://localhost:30000/", "http://localhost:30000/metrics"),
        ("https://gpu-box:8443/engine/metrics", "https://gpu-box:8443/engine/metrics"),
    ],
)
def test_metrics_url(given: str, url: str) -> None:
    assert metrics_url(given) == url


@pytest.mark.parametrize("bad", ["ftp://host/metrics", "http://", "http://h:99999/metrics"])
def test_metrics_url_refuses(bad: str) -> None:
    with pytest.raises(ValueError):
        metrics_url(bad)


def test_increase_counts_restarts_like_prometheus() -> None:
    tot = TokenTotals(url="u")
    for t, gen in ((0.0, 1000.0), (5.0, 1300.0), (10.0, 40.0), (15.0, 100.0)):
        advance(tot, {"engine": "vllm", "generated_tokens": gen, "running": 1}, t)
    # baseline 1000; +300; restart: +40; +60
    assert tot.increases["generated_tokens"] == 400
    rates = token_rates(tot.as_dict())
    assert rates["generated_tokens_per_s"] == pytest.approx(400 / 15)
    assert rates["one_at_a_time"] is True


def _growing_page() -> Callable[[], tuple[int, bytes, float]]:
    """A vLLM metrics page whose counters grow by one request's worth per read."""
    reads = itertools.count()

    def page() -> tuple[int, bytes, float]:
        n = next(reads)
        body = (
            f'vllm:prompt_tokens_total{{engine="0",model_name="m"}} {512 * n}\n'
            f'vllm:generation_tokens_total{{engine="0",model_name="m"}} {128 * n}\n'
            f'vllm:inter_token_latency_seconds_sum{{engine="0",model_name="m"}} {127 * n * 0.02}\n'
            f'vllm:inter_token_latency_seconds_count{{engine="0",model_name="m"}} {127 * n}\n'
            'vllm:num_requests_running{engine="0",model_name="m"} 1\n'
        )
        return 200, body.encode(), 0.0

    return page


@pytest.fixture
def engine() -> Iterator[str]:
    with serve({"/metrics": _growing_page()}) as base:
        yield f"{base}/metrics"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_scrape_failures_are_typed(engine: str) -> None:
    assert scrape(engine).status == "found"
    assert scrape(engine.replace("/metrics", "/nope")).reason == "http_error"
    assert scrape(f"http://127.0.0.1:{_closed_port()}/metrics", 1.0).status == "missing"


def test_record_keeps_the_runs_tokens(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_generation("590", monkeypatch)
    store = RunStore(tmp_path / "runs.sqlite")
    watch = TokenWatch(engine, every_s=0.1, timeout_s=1.0)
    rec = Recorder(store, Sampler([NvidiaSource()]), 0.1, watch)
    result = rec.record([sys.executable, "-c", "import time; time.sleep(0.8)"], "client")
    assert result.exit_code == 0
    tokens = run_summary(store, result.run_id)["tokens"]
    reads = tokens["readings"]
    assert reads >= 3 and tokens["failures"] == 0
    # the first read is the baseline: every later read added one request's tokens
    assert tokens["generated_tokens"] == 128 * (reads - 1)
    assert tokens["prompt_tokens"] == 512 * (reads - 1)
    assert tokens["decode_tokens_per_s_per_sequence"] == pytest.approx(50.0)  # 1 / 20 ms
    assert tokens["one_at_a_time"] and tokens["engine"] == "vllm"
    assert tokens["decode_error_pct"] is None  # recorded without an estimate


def test_record_without_the_engine_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_generation("590", monkeypatch)
    store = RunStore(tmp_path / "runs.sqlite")
    watch = TokenWatch(f"http://127.0.0.1:{_closed_port()}/metrics", every_s=0.1, timeout_s=0.5)
    rec = Recorder(store, Sampler([NvidiaSource()]), 0.1, watch)
    result = rec.record([sys.executable, "-c", "import time; time.sleep(0.3)"], "client")
    tokens = run_summary(store, result.run_id)["tokens"]
    assert tokens["readings"] == 0 and tokens["failures"] >= 1 and tokens["last_problem"]
    from gpuwise.render.monitor import tokens_lines

    assert "none read" in tokens_lines(tokens)[0]


def test_cli_refuses_a_bad_url(cli: object) -> None:
    res = cli("record", "--tokens-from", "ftp://host/metrics", "--", "true")  # type: ignore[operator]
    assert res.code == 2 and "--tokens-from" in res.err and "Traceback" not in res.err
