"""Run a command under supervision: watch for the notice, get a checkpoint out, restart.

The loop (one thread; the metadata poller is a second, daemon thread):

1. start the command in its own process group (child.py), journal it;
2. every tick: reap its exit, forward signals gpuwise got, read the poller's queue, scan the
   checkpoint directory at its own pace (recording each checkpoint that becomes complete);
3. on a notice (or SIGTERM from the platform): send the chosen signal or run `--on-notice`,
   wait for a new complete checkpoint until `deadline - margin`, record it, stop the group,
   acknowledge (Azure), exit 75 (EX_TEMPFAIL: interrupted, resumable);
4. when the command fails on its own and `--restart` is on: wait (backoff), start it again
   from the newest checkpoint, within the restart budget.

Decisions (deadline, margin, completeness, backoff, substitution) come from gpuwise.preempt.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import queue
import signal
import socket
import time
from typing import Any

from gpuwise.catalog.schema_supervise import PreemptionEndpoint
from gpuwise.errors import UserError
from gpuwise.preempt.checkpoints import Completed
from gpuwise.preempt.notice import Notice
from gpuwise.preempt.plan import WaitPlan, plan_wait, resolve_deadline
from gpuwise.preempt.restart import backoff_s, substitute
from gpuwise.supervise.child import Child, run_hook, spawn
from gpuwise.supervise.config import SuperviseConfig
from gpuwise.supervise.inbox import SignalInbox
from gpuwise.supervise.journal import Journal
from gpuwise.supervise.metadata import MetadataPoller, Polled, Unreachable, acknowledge
from gpuwise.supervise.outcome import Attempt as _Attempt
from gpuwise.supervise.outcome import Outcome, say
from gpuwise.supervise.paths import notice_file
from gpuwise.supervise.watch import CheckpointWatch

EX_TEMPFAIL = 75  # sysexits.h: a temporary failure, the caller may retry (here: resume)
_TICK_S = 0.05  # main-loop pace; real work (HTTP, directory scans) runs at its own intervals


class Supervisor:
    """One supervision (a 'run' in the journal), possibly several starts of the command."""

    def __init__(self, cfg: SuperviseConfig) -> None:
        self.cfg = cfg
        self.journal = Journal(cfg.journal)
        self.queue: queue.Queue[Polled] = queue.Queue()
        self.poller: MetadataPoller | None = None
        self.inbox = SignalInbox()
        self.run_id = 0
        self.interrupted = False
        self.notice_file = notice_file(os.getpid())
        self.outcome = Outcome(0, "completed", 0, 0, cfg.job, str(cfg.journal))
        self.watch = CheckpointWatch(cfg, self._log, self.outcome)

    # ------------------------------------------------------------------ top level

    def run(self) -> Outcome:
        """Supervise until the command finishes, fails for good, or the machine is going away."""
        self.inbox.install()
        try:
            self._open()
            resume = self._initial_resume()
            self._start_poller()
            attempt = 0
            while True:
                attempt += 1
                self.outcome.attempts = attempt
                result = self._attempt(attempt, resume)
                if result.ended_by != "failed" or not self._may_restart(attempt):
                    return self._finish(result)
                delay = backoff_s(attempt, self.cfg.backoff_s, self.cfg.backoff_max_s)
                resume = self._newest_checkpoint()
                self._log("restart", attempt=attempt + 1, delay_s=delay, resume=resume)
                say(
                    "supervise.restarting",
                    delay=f"{delay:g}",
                    attempt=attempt + 1,
                    budget=self.cfg.max_restarts + 1,
                    resume=resume or "-",
                )
                stop = self._sleep(delay)
                if stop is not None:
                    return self._finish(stop)
        finally:
            if self.poller is not None:
                self.poller.stop()
            self.inbox.restore()
            with contextlib.suppress(OSError):
                self.notice_file.unlink()

    def _open(self) -> None:
        cfg = self.cfg
        now = time.time()
        self.run_id = self.journal.start_run(
            cfg.job,
            socket.gethostname(),
            cfg.cloud,
            now,
            list(cfg.argv),
            str(cfg.checkpoint_dir or ""),
            cfg.offer,
        )
        self.outcome.run_id = self.run_id
        self._log(
            "run_start",
            cloud=cfg.cloud,
            cloud_source=cfg.cloud_source,
            notice_s=cfg.notice_length_s(),
            pid=os.getpid(),
        )
        self.watch.prime(now)

    def _may_restart(self, attempt: int) -> bool:
        return self.cfg.restart and attempt <= self.cfg.max_restarts

    def _finish(self, result: _Attempt) -> Outcome:
        code = EX_TEMPFAIL if result.ended_by in ("preempted", "platform-sigterm") else result.code
        self.outcome.code = code
        self.outcome.outcome = result.ended_by
        self.outcome.last_checkpoint = self._newest_checkpoint()
        cadence = self.watch.cadence()
        if cadence is not None:
            self.outcome.cadence = cadence
        self._log(
            "run_end",
            code=code,
            outcome=result.ended_by,
            child_code=result.code,
            killed=self.outcome.killed,
        )
        return self.outcome

    # ------------------------------------------------------------------ one start

    def _attempt(self, attempt: int, resume: str | None) -> _Attempt:
        argv = substitute(list(self.cfg.argv), resume)
        env = dict(os.environ)
        env["GPUWISE_NOTICE_FILE"] = str(self.notice_file)
        env.pop("GPUWISE_LAST_CHECKPOINT", None)
        if resume:
            env["GPUWISE_LAST_CHECKPOINT"] = resume
        try:
            child = spawn(argv, env)
        except OSError as exc:
            self._log("run_end", code=127, outcome="failed", error=str(exc))
            raise UserError("supervise.cannot_start", cmd=argv[0], problem=str(exc)) from exc
        self._log("child_start", attempt=attempt, pid=child.pid, argv=argv, resume=resume)
        say("supervise.started", pid=child.pid, attempt=attempt, cmd=" ".join(argv))
        while True:
            code = child.poll()
            if code is not None:
                return self._exited(child, attempt, code)
            for sig in self._drain_signals():
                if sig == signal.SIGTERM:
                    return self._on_notice(child, _platform_notice())
                if sig in (signal.SIGINT, signal.SIGHUP):
                    if self.interrupted:  # a second Ctrl-C: stop now
                        child.signal_group(signal.SIGKILL)
                    self.interrupted = True
                child.signal_group(sig)
                self._log("signal", signal=signal.Signals(sig).name, to="group", forwarded=True)
            notice = self._read_queue()
            if notice is not None:
                return self._on_notice(child, notice)
            self._maybe_scan(on_notice=False)
            time.sleep(_TICK_S)

    def _exited(self, child: Child, attempt: int, code: int) -> _Attempt:
        for _ in range(self.cfg.stable_polls):  # nothing writes any more: settle the last save
            self._maybe_scan(on_notice=False, force=True)
        if child.group_alive():  # the command is gone but left processes behind
            child.stop(signal.SIGTERM, self.cfg.kill_grace_s)
        self._log("child_exit", attempt=attempt, code=code)
        say("supervise.exited", code=code)
        if self.interrupted:
            return _Attempt(code, "interrupted")
        return _Attempt(code, "completed" if code == 0 else "failed")

    # ------------------------------------------------------------------ the notice

    def _on_notice(self, child: Child, notice: Notice) -> _Attempt:
        cfg = self.cfg
        now = dt.datetime.now(dt.timezone.utc)
        mono = time.monotonic()
        platform = notice.cloud == "platform"
        ep = next((e for e in cfg.endpoints if e.id == notice.endpoint_id), None)
        notice_len = (
            cfg.grace_s if platform else (cfg.notice_s or (ep.notice_s if ep else cfg.grace_s))
        )
        plan = plan_wait(
            resolve_deadline(notice.deadline, now, notice_len),
            now,
            cfg.margin_s,
            cfg.margin_fraction,
        )
        ended_by = "platform-sigterm" if platform else "preempted"
        info = {
            "cloud": notice.cloud,
            "endpoint": notice.endpoint_id,
            "reason": notice.reason,
            "event_id": notice.event_id,
            **plan.as_dict(),
        }
        self.outcome.notice = info
        self._log("notice", **info)
        say(
            "supervise.notice",
            cloud=notice.cloud,
            reason=notice.reason,
            left=f"{plan.left_s:.0f}",
            wait=f"{(plan.wait_until - now).total_seconds():.0f}",
        )
        self._write_notice_file(notice, plan)
        wait_until = mono + (plan.wait_until - now).total_seconds()
        deadline = mono + (plan.deadline - now).total_seconds()
        self.notice_ns = time.time_ns()
        self._deliver(child, plan, wait_until)
        found = self._wait_for_checkpoint(child, wait_until)
        self.outcome.checkpoint_on_notice = (
            None if cfg.checkpoint_dir is None else found is not None
        )
        if cfg.checkpoint_dir is not None and found is None:
            self._log("no_checkpoint", waited_s=round(time.monotonic() - mono, 3))
            say("supervise.no_checkpoint")
            self.outcome.warnings.append("no_checkpoint")
        code = child.poll()
        if code is None or child.group_alive():
            grace = max(0.0, min(cfg.kill_grace_s, deadline - time.monotonic()))
            code = child.stop(signal.SIGTERM, grace)
        self.outcome.killed = child.killed
        for _ in range(cfg.stable_polls):  # record a save that finished as the command stopped
            self._maybe_scan(on_notice=True, force=True)
        self._log("child_exit", attempt=self.outcome.attempts, code=code, killed=child.killed)
        if ep is not None and ep.ack == "azure-start-requests" and notice.reason == "Preempt":
            self._acknowledge(ep, notice.event_id)
        return _Attempt(code, ended_by)

    def _deliver(self, child: Child, plan: WaitPlan, wait_until: float) -> None:
        cfg = self.cfg
        if cfg.on_notice:
            env = dict(os.environ)
            env.update(
                GPUWISE_PREEMPT_AT=plan.deadline.isoformat(),
                GPUWISE_CHILD_PID=str(child.pid),
                GPUWISE_NOTICE_FILE=str(self.notice_file),
            )
            rc = run_hook(cfg.on_notice, env, max(0.05, wait_until - time.monotonic()))
            self._log("on_notice", command=cfg.on_notice, code=rc)
        else:
            sent = child.signal_group(cfg.notice_signal)
            self._log(
                "signal", signal=signal.Signals(cfg.notice_signal).name, to="group", sent=sent
            )

    def _wait_for_checkpoint(self, child: Child, wait_until: float) -> Completed | None:
        """Until `wait_until`: the first checkpoint completed with content written after the
        notice was passed on (`notice_ns`, wall clock), or None. One that merely finished being
        confirmed after the notice holds older work and does not end the wait."""

        def fresh(done: list[Completed]) -> Completed | None:
            return next((c for c in reversed(done) if self.watch.after_notice(c)), None)

        exited_scans = 0
        while time.monotonic() < wait_until:
            found = fresh(self._maybe_scan(on_notice=True))
            if found:
                return found
            if child.poll() is not None:
                if self.cfg.checkpoint_dir is None:
                    return None
                found = fresh(self._maybe_scan(on_notice=True, force=True))
                if found:
                    return found
                exited_scans += 1
                if exited_scans > self.cfg.stable_polls and not self.watch.tracker.in_progress():
                    return None
            if any(s == signal.SIGINT for s in self._drain_signals()):
                self.interrupted = True
                return None
            time.sleep(_TICK_S)
        return None

    def _acknowledge(self, ep: PreemptionEndpoint, event_id: str) -> None:
        got = acknowledge(ep, self.cfg.metadata_url, event_id, self.cfg.http_timeout_s)
        status = got.status if not isinstance(got, Unreachable) else None
        self._log("ack", event_id=event_id, status=status)
        say("supervise.acknowledged", event_id=event_id, status=status if status else "-")

    def _write_notice_file(self, notice: Notice, plan: WaitPlan) -> None:
        data = {"cloud": notice.cloud, "reason": notice.reason, **plan.as_dict()}
        with contextlib.suppress(OSError):
            self.notice_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.notice_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(data), encoding="utf-8")
            tmp.replace(self.notice_file)

    # ------------------------------------------------------------------ plumbing

    def _start_poller(self) -> None:
        cfg = self.cfg
        if not cfg.endpoints:
            return
        self.poller = MetadataPoller(
            cfg.endpoints, cfg.metadata_url, cfg.http_timeout_s, cfg.poll_s, self.queue
        )
        self.poller.start()

    def _read_queue(self) -> Notice | None:
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return None
            if isinstance(item, Unreachable):
                self._log("warning", key="metadata_unreachable", url=item.url, detail=item.detail)
                self.outcome.warnings.append("metadata_unreachable")
                say("supervise.metadata_unreachable", url=item.url, detail=item.detail)
            elif item.severity == "terminate":
                return item
            else:
                self._log(
                    "advisory",
                    cloud=item.cloud,
                    endpoint=item.endpoint_id,
                    reason=item.reason,
                    severity=item.severity,
                )
                say("supervise.advisory", cloud=item.cloud, reason=item.reason)

    def _sleep(self, seconds: float) -> _Attempt | None:
        """Wait between restarts; a SIGTERM or Ctrl-C ends the supervision instead."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for sig in self._drain_signals():
                if sig == signal.SIGTERM:
                    return _Attempt(143, "platform-sigterm")
                if sig in (signal.SIGINT, signal.SIGHUP):
                    return _Attempt(128 + sig, "interrupted")
            time.sleep(_TICK_S)
        return None

    def _log(self, kind: str, **data: Any) -> None:
        self.journal.add(self.run_id, self.cfg.job, time.time(), kind, **data)

    def _drain_signals(self) -> list[int]:
        return self.inbox.drain()

    def _maybe_scan(self, on_notice: bool, force: bool = False) -> list[Completed]:
        return self.watch.scan(on_notice, force)

    def _newest_checkpoint(self) -> str | None:
        return self.watch.newest()

    def _initial_resume(self) -> str | None:
        best = self.watch.initial_resume(self.journal.last_checkpoint(self.cfg.job) or {})
        if best:
            self._log("resume", path=best)
        return best

    @property
    def notice_ns(self) -> int | None:
        """Wall clock when the notice was passed on (None before a notice)."""
        return self.watch.notice_ns

    @notice_ns.setter
    def notice_ns(self, value: int | None) -> None:
        self.watch.notice_ns = value


def _platform_notice() -> Notice:
    return Notice("platform", "sigterm", "terminate", "SIGTERM")


def supervise(cfg: SuperviseConfig) -> Outcome:
    """Run one supervision (see the module docstring)."""
    return Supervisor(cfg).run()
