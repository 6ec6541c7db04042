"""The report for pasted text: the same rules on the pasted facts, plus which facts came from
where and which are missing (with the one command whose output would settle it)."""

from __future__ import annotations

from collections.abc import Callable

from gpuwise.catalog.compat import CompatTables
from gpuwise.doctor.engine import diagnose
from gpuwise.doctor.gpu_names import fill_capabilities
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding, exit_code
from gpuwise.doctor.paste.assemble import Pasted, assemble, find_blocks
from gpuwise.doctor.paste.model import Text
from gpuwise.doctor.report_model import (
    DoctorReport,
    FindingEntry,
    MissingFact,
    PasteInfo,
    ProbeOutcome,
    SummaryRow,
)
from gpuwise.doctor.summary import summary
from gpuwise.i18n import t
from gpuwise.parse.result import as_dict
from gpuwise.parse.view import Facts, any_facts, driver_version, torch_info

ARCH_CMD = (
    'python -c "import torch; print(torch.__version__, torch.version.cuda, '
    'torch.cuda.get_arch_list(), torch.cuda.get_device_capability())"'
)
_DRIVER_FIXES = (
    "nvidia.",
    "torch.driver_too_old",
    "ollama.driver_too_old",
    "container.",
    "docker.",
)
Check = Callable[[Facts, list[Finding]], bool]


def _ids(findings: list[Finding]) -> set[str]:
    return {f.id for f in findings}


def _needs_nvidia(facts: Facts, findings: list[Finding]) -> bool:
    tt = torch_info(facts)
    cuda_side = bool(
        tt.get("cuda")
        or tt.get("driver_too_old")
        or tt.get("no_kernel_image")
        or tt.get("cpu_build")
    )
    return (
        "nvidia_smi" not in facts
        and not driver_version(facts)
        and (cuda_side or "nccl_smoke" in facts)
    )


def _needs_torch(facts: Facts, findings: list[Finding]) -> bool:
    tt = torch_info(facts)
    return bool(tt or "nccl_smoke" in facts) and not (
        tt.get("version") and (tt.get("cuda") or tt.get("hip"))
    )


def _needs_place(facts: Facts, findings: list[Finding]) -> bool:
    place_known = "system" in facts or "container" in facts or "wsl" in facts
    return not place_known and any(
        f.id.startswith(_DRIVER_FIXES) and f.level == "error" for f in findings
    )


def _needs_dmesg(facts: Facts, findings: list[Finding]) -> bool:
    r = facts.get("nvidia_smi")
    return (
        r is not None
        and r.status == "failed"
        and r.reason in ("driver_not_loaded", "gpu_lost", "version_mismatch", "no_devices")
        and "kmsg" not in facts
        and any_facts(facts, "wsl").get("version") != 1  # WSL 1 has no GPU and no such log
    )


def _needs_ollama_log(facts: Facts, findings: list[Finding]) -> bool:
    return "ollama" in facts and not any_facts(facts, "ollama").get("log")


def _needs_gfx(facts: Facts, findings: list[Finding]) -> bool:
    return bool(torch_info(facts).get("hip_invalid_function")) and not any_facts(facts, "amd").get(
        "cards"
    )


def _needs_nccl_log(facts: Facts, findings: list[Finding]) -> bool:
    d = any_facts(facts, "nccl_smoke")
    return bool(d) and not d.get("nccl_version") and not d.get("stderr_tail")


def _needs_cann(facts: Facts, findings: list[Finding]) -> bool:
    return bool(any_facts(facts, "torch").get("import_error")) and not any_facts(
        facts, "ascend"
    ).get("cann_version")


# (fact id, command, when it is missing) — most decisive first.
ASKS: tuple[tuple[str, str, Check], ...] = (
    ("arch_list", ARCH_CMD, lambda f, fs: "torch.no_kernel_image" in _ids(fs)),
    ("nvidia", "nvidia-smi", _needs_nvidia),
    ("place", "uname -a; cat /etc/os-release; ls /.dockerenv", _needs_place),
    ("kernel_log", "sudo dmesg | grep -iE 'nvrm|xid' | tail -n 30", _needs_dmesg),
    ("torch", "python -m torch.utils.collect_env", _needs_torch),
    ("gfx", "rocminfo | grep -m1 -o 'gfx[0-9a-f]*'", _needs_gfx),
    ("ollama_log", "journalctl -u ollama --no-pager | tail -n 200", _needs_ollama_log),
    ("nccl_log", "NCCL_DEBUG=INFO <your command> 2>&1 | tail -n 60", _needs_nccl_log),
    (
        "cann",
        "cat /usr/local/Ascend/ascend-toolkit/latest/*/ascend_toolkit_install.info",
        _needs_cann,
    ),
)


def missing(facts: Facts, findings: list[Finding]) -> list[dict[str, str]]:
    """Facts the paste did not show that would settle or sharpen the diagnosis."""
    return [{"fact": fid, "command": cmd} for fid, cmd, check in ASKS if check(facts, findings)]


def diagnose_texts(texts: list[Text], tables: CompatTables) -> tuple[Pasted, list[Finding]]:
    """Recognise, assemble and diagnose (no I/O: the texts were already read)."""
    pasted = assemble(find_blocks(texts))
    _gfx_from_codenames(pasted.facts, tables)
    fill_capabilities(pasted.facts, tables)  # nvidia-smi's table names GPUs, not capabilities
    return pasted, diagnose(Inputs(pasted.facts, tables, pasted=True))


def _gfx_from_codenames(facts: Facts, tables: CompatTables) -> None:
    """lspci names an AMD chip ("Navi 22"), not its gfx target: look the target up."""
    for card in any_facts(facts, "amd").get("cards") or []:
        if not card.get("gfx") and card.get("codename"):
            card["gfx"] = tables.gfx_of_codename(str(card["codename"])) or ""


def make_paste_report(texts: list[Text], tables: CompatTables, elapsed_s: float) -> DoctorReport:
    """Everything `gpuwise doctor --from` prints, in the shape of its --json output."""
    pasted, findings = diagnose_texts(texts, tables)
    shown = [f.as_dict() for f in findings]
    unknown = t("doctor.sum.unknown")
    rows = [
        SummaryRow(**r)
        for r in summary(pasted.facts, shown)
        if r["probe"] in pasted.facts and (r["verdict"] or r["value"] != unknown)
    ]
    paste = PasteInfo(
        blocks=[lbl for lbl, _ in pasted.blocks],
        facts_from=pasted.origins,
        missing=[MissingFact(**m) for m in missing(pasted.facts, findings)],
    )
    return DoctorReport(
        mode="paste",
        summary=rows,
        findings=[FindingEntry(**f) for f in shown],
        facts={name: ProbeOutcome(**as_dict(r)) for name, r in pasted.facts.items()},
        paste=paste,
        sources=tables.sources,
        exit_code=exit_code(findings),
        elapsed_s=round(elapsed_s, 2),
    )
