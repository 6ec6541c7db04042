"""`gpuwise record -- CMD`: run a command, sample the GPUs and its process tree, store it all.

Order of work: open the samplers, take a baseline sample (memory already in use, energy counters
at the start), create the run, start the command, then sample every interval until it exits
(the wait returns early when it does), take a last sample, and close the run. Every sample is
committed at once (see :mod:`gpuwise.monitor.store`), so a recorder killed with SIGKILL loses at
most the sample it was taking; the command keeps running and the run shows as "interrupted".

Per-process attribution: a GPU process belongs to the run when its parent chain reaches the
command (:class:`gpuwise.monitor.proctree.ProcessTree`). When the driver's PIDs cannot be seen
here (a container without `--pid=host`), the run is marked "device"-attributed and summaries use
used-minus-baseline memory per GPU instead.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuwise.errors import UserError
from gpuwise.monitor.child import Child, exit_status, forwarding
from gpuwise.monitor.imports import ImportedLog
from gpuwise.monitor.model import Sample
from gpuwise.monitor.policy import BUCKET_S, COMPACT_EVERY_S, RAW_WINDOW_S, THROTTLE_WARN_REASONS
from gpuwise.monitor.proctree import ProcessTree
from gpuwise.monitor.sampler import Sampler
from gpuwise.monitor.store import ProcRow, RunStore, StoreError, TreeTotals
from gpuwise.monitor.tokens import TokenTotals, advance, failed

Event = tuple[str | None, int | None, str, str]


def gpu_meta(sample: Sample) -> list[dict[str, Any]]:
    """What the run stores about each GPU before the command starts."""
    return [
        {
            "vendor": g.vendor,
            "index": g.index,
            "name": g.name,
            "uuid": g.uuid,
            "memory_total_bytes": g.memory_total_bytes,
            "baseline_used_bytes": g.memory_used_bytes,
            "energy_start_j": g.energy_j,
        }
        for g in sample.gpus
    ]


def sample_events(sample: Sample, previous: dict[str, frozenset[str]]) -> list[Event]:
    """Xid errors, and the moments heat/power throttling starts (``previous`` is updated)."""
    out: list[Event] = []
    for g in sample.gpus:
        out.extend((g.vendor, g.index, "xid", str(x)) for x in g.xid_events)
        now = frozenset(g.throttle_reasons or ()) & THROTTLE_WARN_REASONS
        if now - previous.get(g.key, frozenset()):
            out.append((g.vendor, g.index, "throttle", ",".join(sorted(now))))
        previous[g.key] = now
    return out


@dataclass
class Attribution:
    """Which GPU processes belong to the command, and whether any could not be seen."""

    tree: ProcessTree
    member_seen: bool = False
    unknown_seen: bool = False

    def rows(self, sample: Sample) -> list[ProcRow]:
        """The command's processes on each GPU in this sample."""
        out = []
        for g in sample.gpus:
            for p in g.processes or ():
                verdict = self.tree.classify(p.pid)
                if verdict == "member":
                    self.member_seen = True
                    out.append(ProcRow(g.vendor, g.index, p.pid, p.gpu_memory_bytes))
                elif verdict == "unknown":
                    self.unknown_seen = True
        return out

    @property
    def mode(self) -> str:
        """'process' normally; 'device' when the driver's PIDs were never visible here."""
        return "device" if self.unknown_seen and not self.member_seen else "process"


def _next_due(due: float, interval_s: float, now: float) -> float:
    """The next sampling time: on the grid, or one interval from now when behind (no bursts)."""
    due += interval_s
    return due if due >= now else now + interval_s


@dataclass
class RecordResult:
    """How the recording ended."""

    run_id: int
    exit_code: int
    signals_forwarded: list[int] = field(default_factory=list)
    write_errors: int = 0
    sample_errors: int = 0
    last_error: str = ""


@dataclass
class TokenWatch:
    """Reads a serving engine's metrics page at most every `every_s` seconds during a run."""

    url: str
    every_s: float = 5.0
    timeout_s: float = 2.0
    due: float = 0.0
    totals: TokenTotals = field(init=False)

    def __post_init__(self) -> None:
        self.totals = TokenTotals(url=self.url)

    def read_if_due(self, now: float) -> bool:
        """Read the page when due; True when the totals changed (and should be stored)."""
        if now < self.due:
            return False
        from gpuwise.probe.engine_metrics import scrape

        self.due = now + self.every_s
        got = scrape(self.url, self.timeout_s)
        if got.status == "found":
            advance(self.totals, got.facts, time.time())
        else:
            failed(self.totals, got.detail or got.reason)
        return True


class Recorder:
    """Record one command into `store`, sampling with `sampler` every `interval_s` seconds.

    With a `tokens` watch, the engine's token counters are read alongside (at the watch's own
    pace) and kept in the run's options under "tokens".
    """

    def __init__(
        self,
        store: RunStore,
        sampler: Sampler,
        interval_s: float,
        tokens: TokenWatch | None = None,
    ) -> None:
        self.store = store
        self.sampler = sampler
        self.interval_s = interval_s
        self.tokens = tokens
        self.options: dict[str, Any] = {}
        self.write_errors = 0
        self.sample_errors = 0
        self.last_error = ""

    def record(
        self, argv: Sequence[str], name: str, options: Mapping[str, Any] | None = None
    ) -> RecordResult:
        """Run `argv` to its end; returns the run id and the shell-style exit status."""
        self.options = dict(options or {})
        self.sampler.open()
        try:
            baseline = self.sampler.sample()
            run_id = self.store.create_run(
                name, argv, "record", self.interval_s, time.time(), gpu_meta(baseline), options
            )
            child = self._start(run_id, argv)
            rc, attribution = self._loop(run_id, child, baseline)
            if self.tokens is not None:  # a last reading: a client command's final tokens
                self.tokens.due = 0.0
                self._read_tokens(run_id)
        finally:
            self.sampler.close()
        code = exit_status(rc)
        status = "finished" if rc == 0 else ("signalled" if rc < 0 else "failed")
        ended = time.time()
        self._safe(
            self.store.update_run,
            run_id,
            ended_at=ended,
            exit_code=code,
            status=status,
            attribution=attribution.mode,
        )
        self._safe(self.store.compact, run_id, ended - RAW_WINDOW_S, baseline.t, BUCKET_S)
        return RecordResult(
            run_id,
            code,
            child.signals_forwarded,
            self.write_errors,
            self.sample_errors,
            self.last_error,
        )

    def _start(self, run_id: int, argv: Sequence[str]) -> Child:
        try:
            child = Child(argv)
        except OSError as exc:
            self.store.update_run(run_id, status="failed", ended_at=time.time(), exit_code=127)
            raise UserError(
                "record.cannot_start", command=argv[0], problem=exc.strerror or str(exc)
            ) from exc
        self.store.update_run(run_id, child_pid=child.pid)
        return child

    def _loop(self, run_id: int, child: Child, baseline: Sample) -> tuple[int, Attribution]:
        attribution = Attribution(ProcessTree(child.pid))
        throttled: dict[str, frozenset[str]] = {}
        last_t, next_compact = baseline.t, time.monotonic() + COMPACT_EVERY_S
        due = time.monotonic() + self.interval_s
        rc: int | None = None
        with forwarding(child):
            while rc is None:
                rc = child.wait(max(0.0, due - time.monotonic()))
                last_t = self._take(run_id, attribution, throttled, last_t)
                due = _next_due(due, self.interval_s, time.monotonic())
                if time.monotonic() >= next_compact:
                    self._safe(
                        self.store.compact, run_id, time.time() - RAW_WINDOW_S, baseline.t, BUCKET_S
                    )
                    next_compact = time.monotonic() + COMPACT_EVERY_S
            child.finish()  # asked to stop: none of the command's processes outlives gpuwise
        return rc, attribution

    def _take(
        self,
        run_id: int,
        attribution: Attribution,
        throttled: dict[str, frozenset[str]],
        last_t: float,
    ) -> float:
        """Sample now and store it; returns the time of the last stored sample.

        Nothing raised here may end the loop: the user's command must keep its recorder until
        it exits, so an unexpected error is counted (shown at the end) and sampling goes on.
        """
        try:
            return self._take_once(run_id, attribution, throttled, last_t)
        except Exception as exc:
            self.sample_errors += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
            return last_t

    def _take_once(
        self,
        run_id: int,
        attribution: Attribution,
        throttled: dict[str, frozenset[str]],
        last_t: float,
    ) -> float:
        sample = self.sampler.sample()
        procs = attribution.rows(sample)
        count, rss, cpu = attribution.tree.totals()
        tree = TreeTotals(count, rss, cpu)
        events = sample_events(sample, throttled)
        self._safe(
            self.store.add_sample, run_id, sample, max(0.0, sample.t - last_t), procs, tree, events
        )
        self._read_tokens(run_id)
        return sample.t

    def _read_tokens(self, run_id: int) -> None:
        """Read the engine's counters when due and store the run's totals so far."""
        if self.tokens is None or not self.tokens.read_if_due(time.monotonic()):
            return
        self.options["tokens"] = self.tokens.totals.as_dict()
        self._safe(self.store.update_run, run_id, options=self.options)

    def _safe(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        """A store write that must not stop the user's command (disk full, locked file)."""
        try:
            fn(*args, **kwargs)
        except StoreError:
            self.write_errors += 1


def store_imported(store: RunStore, log: ImportedLog, name: str, path: str) -> int:
    """Store an imported nvidia-smi log as a finished run; returns its id.

    Each sample covers the time since the previous one (the first: one interval), so the run
    starts one interval before its first line. No baseline exists: peaks are of total use.
    """
    first, last = log.samples[0], log.samples[-1]
    gpus = [{**m, "baseline_used_bytes": None, "energy_start_j": None} for m in gpu_meta(first)]
    start = first.t - log.interval_s
    run_id = store.create_run(
        name, [path], f"import:{log.kind}", log.interval_s, start, gpus, status="imported"
    )
    previous = start
    for sample in log.samples:
        span = sample.t - previous if sample.t > previous else log.interval_s
        store.add_sample(run_id, sample, span)
        previous = max(previous, sample.t)
    store.update_run(run_id, ended_at=last.t)
    return run_id
