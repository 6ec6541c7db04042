"""Token counters of a serving engine, read from its Prometheus `/metrics` page.

`gpuwise record --tokens-from URL` reads this during a run so the run carries what the engine
did (prompt and generated tokens, time spent decoding) beside the GPU samples; `calibrate --runs`
then compares the measured decode rate with the estimate. Engines and the names they export
(sums over every label set, so data-parallel engines add up):

- vLLM (docs/design/metrics.md): ``vllm:prompt_tokens_total``, ``vllm:generation_tokens_total``,
  the per-token decode interval histogram ``vllm:inter_token_latency_seconds`` (older builds:
  ``vllm:time_per_output_token_seconds``), ``vllm:request_prefill_time_seconds`` with
  ``vllm:request_prompt_tokens``, ``vllm:num_requests_running``.
- SGLang (docs/references/production_metrics.md): ``sglang:prompt_tokens_total``,
  ``sglang:generation_tokens_total``, ``sglang:inter_token_latency_seconds`` or
  ``sglang:time_per_output_token_seconds``, ``sglang:time_to_first_token_seconds`` (includes
  queueing), ``sglang:num_running_reqs``.
- llama.cpp server with ``--metrics`` (tools/server/README.md): ``llamacpp:prompt_tokens_total``
  and ``llamacpp:prompt_seconds_total``, ``llamacpp:tokens_predicted_total`` and
  ``llamacpp:tokens_predicted_seconds_total``, ``llamacpp:requests_processing``.

Ollama has no metrics page, so its runs carry no token counts.
"""

from __future__ import annotations

import math
import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from gpuwise import net
from gpuwise.parse.result import Failed, Found, Missing, TimedOut

MAX_BYTES = 8 * 1024 * 1024
"""A metrics page is a few hundred kB at most; more is not a metrics page."""


@dataclass(frozen=True)
class EngineCounters:
    """One reading of an engine's cumulative counters (None: the engine does not export it).

    `decode_seconds` / `decode_tokens`: time between consecutive generated tokens of a request,
    summed, and how many such intervals — their ratio is the per-sequence decode rate.
    `prefill_seconds` / `prefill_tokens`: time spent on prompts and the prompt tokens it covered;
    `prefill_timer` says what that time includes ("prompt": the engine's own prompt timer,
    "prefill": scheduled-to-first-token, "ttft": arrival-to-first-token, queueing included).
    """

    engine: str
    prompt_tokens: float | None = None
    generated_tokens: float | None = None
    decode_seconds: float | None = None
    decode_tokens: float | None = None
    prefill_seconds: float | None = None
    prefill_tokens: float | None = None
    prefill_timer: str | None = None
    running: float | None = None

    def as_dict(self) -> dict[str, float | str | None]:
        """Plain JSON."""
        return asdict(self)


def _sums(text: str) -> dict[str, float]:
    """Every sample's value summed over its label sets (histogram buckets skipped)."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name.endswith("_bucket") or not math.isfinite(s.value):
                continue
            out[s.name] = out.get(s.name, 0.0) + float(s.value)
    return out


def _first(values: dict[str, float], names: Iterable[str]) -> float | None:
    return next((values[n] for n in names if n in values), None)


def _histogram(values: dict[str, float], *bases: str) -> tuple[float | None, float | None]:
    """(sum, count) of the first histogram present among `bases`."""
    for base in bases:
        if f"{base}_sum" in values and f"{base}_count" in values:
            return values[f"{base}_sum"], values[f"{base}_count"]
    return None, None


def _vllm(v: dict[str, float]) -> EngineCounters:
    dec_s, dec_n = _histogram(
        v, "vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"
    )
    pre_s, _ = _histogram(v, "vllm:request_prefill_time_seconds")
    pre_n, _ = _histogram(v, "vllm:request_prompt_tokens")
    timer = "prefill"
    if pre_s is None or pre_n is None:
        pre_s, _ = _histogram(v, "vllm:time_to_first_token_seconds")
        pre_n, timer = v.get("vllm:prompt_tokens_total"), "ttft"
    return EngineCounters(
        engine="vllm",
        prompt_tokens=v.get("vllm:prompt_tokens_total"),
        generated_tokens=v.get("vllm:generation_tokens_total"),
        decode_seconds=dec_s,
        decode_tokens=dec_n,
        prefill_seconds=pre_s,
        prefill_tokens=pre_n if pre_s is not None else None,
        prefill_timer=timer if pre_s is not None else None,
        running=v.get("vllm:num_requests_running"),
    )


def _sglang(v: dict[str, float]) -> EngineCounters:
    dec_s, dec_n = _histogram(
        v, "sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"
    )
    ttft_s, _ = _histogram(v, "sglang:time_to_first_token_seconds")
    prompt = v.get("sglang:prompt_tokens_total")
    return EngineCounters(
        engine="sglang",
        prompt_tokens=prompt,
        generated_tokens=_first(
            v, ("sglang:generation_tokens_total", "sglang:num_generation_tokens_total")
        ),
        decode_seconds=dec_s,
        decode_tokens=dec_n,
        prefill_seconds=ttft_s,
        prefill_tokens=prompt if ttft_s is not None else None,
        prefill_timer="ttft" if ttft_s is not None else None,
        running=v.get("sglang:num_running_reqs"),
    )


def _llamacpp(v: dict[str, float]) -> EngineCounters:
    generated = v.get("llamacpp:tokens_predicted_total")
    decode_s = v.get("llamacpp:tokens_predicted_seconds_total")
    prompt, prompt_s = v.get("llamacpp:prompt_tokens_total"), v.get("llamacpp:prompt_seconds_total")
    return EngineCounters(
        engine="llama.cpp",
        prompt_tokens=prompt,
        generated_tokens=generated,
        decode_seconds=decode_s,
        decode_tokens=generated if decode_s is not None else None,
        prefill_seconds=prompt_s,
        prefill_tokens=prompt if prompt_s is not None else None,
        prefill_timer="prompt" if prompt_s is not None else None,
        running=v.get("llamacpp:requests_processing"),
    )


_ENGINES = (("vllm:", _vllm), ("sglang:", _sglang), ("llamacpp:", _llamacpp))


def parse_metrics(text: str) -> EngineCounters | None:
    """The engine's counters in a Prometheus text page, or None when no known engine is in it.

    Raises ValueError when the text is not Prometheus exposition format.
    """
    values = _sums(text)
    for prefix, reader in _ENGINES:
        if any(name.startswith(prefix) for name in values):
            return reader(values)
    return None


_HOST = re.compile(r"[A-Za-z0-9._-]+|[0-9A-Fa-f:.]+(%[\w.-]+)?")
"""A host name or IPv4 address, or an IPv6 address (urlsplit drops its brackets)."""


def metrics_url(text: str) -> str:
    """The URL to read: http(s) only; a bare host:port gets ``http://`` and ``/metrics``.

    Raises ValueError naming what is wrong.
    """
    raw = text.strip()
    if "://" not in raw:
        raw = f"http://{raw}"
    parts = urllib.parse.urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(raw)
    if not _HOST.fullmatch(parts.hostname):  # 'not a url' became host "not a url"
        raise ValueError(raw)
    _ = parts.port  # raises ValueError on a bad port
    path = parts.path if parts.path not in ("", "/") else "/metrics"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def scrape(url: str, timeout_s: float = 2.0) -> Found | Missing | Failed | TimedOut:
    """Read `url` once: Found(facts=counters) or why not. Never raises."""
    try:
        with net.open_url(url, timeout_s, {"Accept": "text/plain"}) as resp:
            body = resp.read(MAX_BYTES + 1)
        if len(body) > MAX_BYTES:
            return Failed("too_large", f"{url} sent more than {MAX_BYTES} bytes")
        counters = parse_metrics(body.decode("utf-8", errors="replace"))
    except TimeoutError:
        return TimedOut(timeout_s)
    except net.HTTPError as exc:
        return Failed("http_error", f"HTTP {exc.code} from {url}")
    except net.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            return TimedOut(timeout_s)
        return Missing("not_running", str(exc.reason)[:200])
    except (ValueError, UnicodeError, net.HTTPException) as exc:
        return Failed("bad_reply", str(exc)[:200])
    except OSError as exc:
        return Missing("not_running", str(exc)[:200])
    if counters is None:
        return Failed("unknown_engine", f"{url} has no vLLM, SGLang or llama.cpp metrics")
    return Found(counters.as_dict())
