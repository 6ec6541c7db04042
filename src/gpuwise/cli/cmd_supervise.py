"""`gpuwise supervise -- CMD`: run a training command through spot preemptions without losing work;
`gpuwise supervise --report`: what the interruptions cost."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gpuwise.i18n import t

if TYPE_CHECKING:
    from gpuwise.supervise.config import CatalogFacts, SuperviseConfig


def register(app: typer.Typer) -> None:
    """Add `supervise` to the root app."""

    @app.command("supervise", help=t("supervise.help"))
    def supervise(
        command: list[str] = typer.Argument(None, help=t("supervise.arg_command")),
        cloud: str = typer.Option("auto", "--cloud", help=t("supervise.opt_cloud")),
        metadata_url: str = typer.Option(
            None, "--metadata-url", help=t("supervise.opt_metadata_url")
        ),
        checkpoint_dir: Path = typer.Option(
            None, "--checkpoint-dir", help=t("supervise.opt_checkpoint_dir")
        ),
        pattern: str = typer.Option("*", "--pattern", help=t("supervise.opt_pattern")),
        marker: str = typer.Option(None, "--marker", help=t("supervise.opt_marker")),
        sig: str = typer.Option("SIGTERM", "--signal", help=t("supervise.opt_signal")),
        on_notice: str = typer.Option(None, "--on-notice", help=t("supervise.opt_on_notice")),
        margin_s: float = typer.Option(None, "--margin-s", help=t("supervise.opt_margin_s")),
        notice_s: float = typer.Option(None, "--notice-s", help=t("supervise.opt_notice_s")),
        poll_s: float = typer.Option(None, "--poll-s", help=t("supervise.opt_poll_s")),
        checkpoint_poll_s: float = typer.Option(
            None, "--checkpoint-poll-s", help=t("supervise.opt_checkpoint_poll_s")
        ),
        grace_s: float = typer.Option(None, "--grace-s", help=t("supervise.opt_grace_s")),
        restart: bool = typer.Option(False, "--restart", help=t("supervise.opt_restart")),
        max_restarts: int = typer.Option(
            None, "--max-restarts", help=t("supervise.opt_max_restarts")
        ),
        backoff_s: float = typer.Option(None, "--backoff-s", help=t("supervise.opt_backoff_s")),
        journal: Path = typer.Option(None, "--journal", help=t("supervise.opt_journal")),
        job: str = typer.Option(None, "--job", help=t("supervise.opt_job")),
        report: bool = typer.Option(False, "--report", help=t("supervise.opt_report")),
        offer: str = typer.Option(None, "--offer", help=t("supervise.opt_offer")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        opts = dict(locals())
        code = _report(opts) if report else _run(opts)
        raise typer.Exit(code)


# ---------------------------------------------------------------------- running


def _run(o: dict[str, Any]) -> int:
    from gpuwise.render import out
    from gpuwise.supervise.outcome import say
    from gpuwise.supervise.runner import supervise

    cfg = build_config(o)
    _announce(cfg)
    outcome = supervise(cfg)
    # a command that ignored the stop and was SIGKILLed did not stop "cleanly"
    what = "outcome_killed" if outcome.killed else "outcome"
    say(
        "supervise.done",
        outcome=t(f"supervise.{what}.{outcome.outcome}"),
        code=outcome.code,
        journal=outcome.journal,
        job=outcome.job,
    )
    if o["as_json"]:
        out.emit_json(outcome.as_dict())
    return outcome.code


def build_config(o: dict[str, Any]) -> SuperviseConfig:
    """Check the options (exit 2 on bad ones) and resolve them against the catalog."""
    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UserError
    from gpuwise.supervise.config import (
        CatalogFacts,
        SuperviseConfig,
        check_cloud,
        check_pattern,
        parse_signal,
    )
    from gpuwise.supervise.journal import Journal

    argv = [a for a in (o["command"] or []) if a != "--"]
    if not argv:
        raise UserError("supervise.no_command")
    cloud_opt = check_cloud(o["cloud"])
    signum = parse_signal(o["sig"])
    ckpt = _checkpoint_dir(o["checkpoint_dir"])
    _check_url(o["metadata_url"])
    check_pattern(o["pattern"])
    _check_numbers(o)
    facts = CatalogFacts.load(load_catalog())
    cloud, source = _resolve_cloud(cloud_opt, facts)
    s = facts.settings
    journal = _journal_path(o["journal"])
    Journal(journal).check()  # a bad journal is the one line printed, before any progress line
    return SuperviseConfig(
        argv=tuple(argv),
        job=o["job"] or (str(ckpt) if ckpt else " ".join(argv)),
        journal=journal,
        cloud=cloud,
        cloud_source=source,
        endpoints=facts.endpoints_for(cloud),
        metadata_url=o["metadata_url"],
        checkpoint_dir=ckpt,
        pattern=o["pattern"],
        marker=o["marker"],
        notice_signal=signum,
        on_notice=o["on_notice"],
        margin_s=o["margin_s"],
        notice_s=o["notice_s"],
        poll_s=o["poll_s"],
        checkpoint_poll_s=_or(o["checkpoint_poll_s"], s["checkpoint_poll_s"]),
        grace_s=_or(o["grace_s"], s["platform_grace_s"]),
        kill_grace_s=s["kill_grace_s"],
        restart=o["restart"],
        max_restarts=int(_or(o["max_restarts"], s["max_restarts"])),
        backoff_s=_or(o["backoff_s"], s["restart_backoff_s"]),
        backoff_max_s=s["restart_backoff_max_s"],
        offer=o["offer"] or "",
        http_timeout_s=s["http_timeout_s"],
        margin_fraction=s["notice_margin_fraction"],
        stable_polls=max(1, int(s["stable_polls"])),
    )


def _check_numbers(o: dict[str, Any]) -> None:
    """Durations positive (a margin or backoff may be 0), a restart count not negative."""
    from gpuwise.errors import UserError

    for name in ("margin_s", "notice_s", "poll_s", "checkpoint_poll_s", "grace_s", "backoff_s"):
        _check_number(name, o[name], allow_zero=name in ("margin_s", "backoff_s"))
    if o["max_restarts"] is not None and o["max_restarts"] < 0:
        raise UserError(
            "supervise.bad_number",
            option="--max-restarts",
            value=o["max_restarts"],
            expected=t("supervise.expect_count"),
        )


def _or(value: float | None, default: float) -> float:
    return float(default if value is None else value)


def _checkpoint_dir(path: Path | None) -> Path | None:
    from gpuwise.errors import UserError

    if path is None:
        return None
    folder = path.expanduser().absolute()
    if not folder.exists():
        raise UserError("supervise.no_checkpoint_dir", path=str(folder))
    if not folder.is_dir():
        raise UserError("supervise.not_a_dir", path=str(folder))
    return folder


def _check_url(url: str | None) -> None:
    from urllib.parse import urlsplit

    from gpuwise.errors import UserError

    if url is None:
        return
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise UserError("supervise.bad_url", value=url)


def _check_number(name: str, value: float | None, allow_zero: bool) -> None:
    from gpuwise.errors import UserError

    if value is None:
        return
    if value < 0 or (value == 0 and not allow_zero) or value != value:
        key = "supervise.expect_non_negative" if allow_zero else "supervise.expect_positive"
        raise UserError(
            "supervise.bad_number",
            option="--" + name.replace("_", "-"),
            value=value,
            expected=t(key),
        )


def _journal_path(path: Path | None) -> Path:
    from gpuwise.supervise.paths import default_journal

    return path.expanduser().absolute() if path is not None else default_journal()


def _resolve_cloud(cloud_opt: str, facts: CatalogFacts) -> tuple[str, str]:
    """The cloud to watch and how it was chosen (option / dmi / none)."""
    if cloud_opt != "auto":
        return cloud_opt, ("none" if cloud_opt == "none" else "option")
    from gpuwise.preempt.dmi import detect_cloud, dmi_fields
    from gpuwise.supervise.dmi import read_dmi

    found = detect_cloud(read_dmi(dmi_fields(facts.dmi_rules)), facts.dmi_rules)
    return (found, "dmi") if found else ("none", "none")


def _announce(cfg: SuperviseConfig) -> None:
    from gpuwise.supervise.outcome import say

    if not cfg.endpoints:
        say("supervise.cloud_none")
        return
    names = ", ".join(e.path for e in cfg.endpoints)
    say(
        "supervise.cloud_detected",
        cloud=cfg.cloud,
        how=t(f"supervise.how.{cfg.cloud_source}"),
        endpoints=names,
    )


# ---------------------------------------------------------------------- the report


def _report(o: dict[str, Any]) -> int:
    from gpuwise.errors import UserError
    from gpuwise.render import out
    from gpuwise.render.supervise import render_report
    from gpuwise.supervise.journal import Journal

    if [a for a in (o["command"] or []) if a != "--"]:
        raise UserError("supervise.report_with_command")
    path = _journal_path(o["journal"])
    journal = Journal(path)
    jobs = journal.jobs()
    if o["job"] is not None:
        if o["job"] not in jobs:
            raise UserError(
                "supervise.unknown_job", job=o["job"], path=str(path), jobs=", ".join(jobs) or "-"
            )
        jobs = [o["job"]]
    reports = [job_report(journal, job, o["offer"], o["notice_s"]) for job in jobs]
    if o["as_json"]:
        out.emit_json({"journal": str(path), "jobs": reports})
    elif not reports:
        out.console().print(t("supervise.no_jobs", path=str(path)))
    else:
        render_report(out.console(), reports)
    return 0


def job_report(journal: Any, job: str, offer: str | None, notice_s: float | None) -> dict[str, Any]:
    """One job's report as plain data (the --json shape; the table renders it)."""
    from gpuwise.preempt.cadence import check_cadence
    from gpuwise.preempt.summary import interruption_cost, summarise

    runs = journal.runs(job)
    summary = summarise(job, journal.events(job))
    offer = offer or next((r.offer for r in reversed(runs) if r.offer), None)
    data: dict[str, Any] = {
        "job": job,
        "runs": summary.runs,
        "hosts": sorted({r.host for r in runs}),
        "clouds": sorted({r.cloud for r in runs}),
        "attempts": summary.attempts,
        "wall_s": round(summary.wall_s, 3),
        "running_s": round(summary.running_s, 3),
        "finished": summary.finished,
        "interruptions": len(summary.interruptions),
        "failures": len(summary.failures),
        "lost_s": round(summary.lost_s, 3),
        "restart_s": round(summary.restart_s, 3),
        "checkpoints": summary.checkpoints,
        "last_checkpoint": summary.last_checkpoint,
        "stops": [s.as_dict() for s in summary.stops],
        "plan_inputs": summary.plan_inputs(),
        "plan_clamps": summary.plan_clamps(),
        "offer": None,
        "cost": None,
    }
    notice = notice_s if notice_s is not None else _recorded_notice(journal, job)
    if notice is not None and (summary.save_s or summary.interval_s):
        margin = _margin_fraction() * notice
        verdict = check_cadence(list(summary.save_s), list(summary.interval_s), notice, margin)
        data["cadence"] = verdict.as_dict()
    else:
        data["cadence"] = None
    if offer:
        price, currency, label = _hourly_price(offer)
        data["offer"] = {"label": label, "price_per_hour": price, "currency": currency}
        data["cost"] = {k: round(v, 6) for k, v in interruption_cost(summary, price).items()}
    return data


def _recorded_notice(journal: Any, job: str) -> float | None:
    """The notice length the last run lived with (journal `run_start.notice_s`)."""
    starts = [e for e in journal.events(job) if e.kind == "run_start" and "notice_s" in e.data]
    return float(starts[-1].data["notice_s"]) if starts else None


def _margin_fraction() -> float:
    from gpuwise.catalog import load_catalog
    from gpuwise.supervise.config import CatalogFacts

    return CatalogFacts.load(load_catalog()).settings["notice_margin_fraction"]


def _hourly_price(offer: str) -> tuple[float, str, str]:
    """`provider:instance[:billing]` → (price per hour, currency, label) from the catalog."""
    from gpuwise.catalog import load_catalog
    from gpuwise.cost.resolve import find_offer, find_provider, parse_vs
    from gpuwise.errors import UserError

    cat = load_catalog()
    prov_name, inst_name, billing = parse_vs(offer)
    provider = find_provider(cat, prov_name)
    found = find_offer(cat, provider, inst_name)
    price = found.price(billing) if billing else (found.price("spot") or found.prices[0])
    if price is None:
        have = ", ".join(p.billing for p in found.prices)
        raise UserError("cost.no_billing", offer=found.instance, billing=billing, have=have)
    if price.per != "hour":
        raise UserError("supervise.offer_not_hourly", offer=offer, per=price.per)
    label = f"{provider.id}:{found.instance}:{price.billing}"
    return price.amount, price.currency_of(provider), label
