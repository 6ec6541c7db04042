"""Target + stack → a Plan of pinned versions, indexes and base image, or a refusal.

Pure: every decision is a table row (data/compat/*.toml) whose sources the plan carries, so
`--explain` can say where each pin comes from. Gates run before the PyTorch choice: a package
that cannot run on this vendor or architecture is refused with the nearest stack that can.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuwise.catalog.versions import at_least, major_minor, parse
from gpuwise.errors import UserError
from gpuwise.setup.gates import gate
from gpuwise.setup.model import Pin, Plan, Refusal, Target
from gpuwise.setup.tables import SetupTables
from gpuwise.setup.torchpick import (
    INDEX,
    Choice,
    Want,
    pick_ascend,
    pick_nvidia,
    pick_plain,
    pick_rocm,
)

Note = tuple[str, dict[str, Any]]


def resolve(
    t: SetupTables,
    target: Target,
    stack: str,
    torch: str = "",
    cuda: str = "",
    flash_attn: bool = False,
) -> Plan:
    """The plan for `stack` on `target` (a refusal inside the plan when nothing works)."""
    if cuda and target.vendor != "nvidia":
        raise UserError("setup.conflict", first="--cuda", second=f"vendor {target.vendor}")
    if flash_attn and stack == "ollama":
        raise UserError("setup.flash_attn_ollama")
    plan = Plan(stack=stack, target=target, uv_image=_uv(t))
    refusal = gate(t, target, stack, flash_attn)
    if refusal is not None:
        return replace(plan, refusal=refusal)
    if stack == "ollama":
        return _ollama(t, plan)
    if target.vendor == "ascend":
        return _ascend(t, plan, Want(torch=torch))
    picking, assumed = _picking_target(t, target)
    want = _stack_want(t, stack, Want(torch=torch, cuda=cuda))
    extra: list[Pin] = []
    if stack == "vllm":
        choice, extra = _pick_vllm(t, picking, want)
    else:
        choice = _torch_choice(t, picking, want)
    if isinstance(choice, Refusal):
        return replace(plan, refusal=_unknown_driver(choice, assumed))
    asked = bool(want.torch) or stack == "vllm"
    pins = _torch_pins(choice, picking, stack, asked=asked) + extra
    if stack == "qlora":
        pins += [_pin(p, "setup.why.qlora") for p in t.pins("qlora")]
    if flash_attn:
        pins += [_pin(p, "setup.why.flash_attn") for p in t.pins("flash_attn")]
    index, extra_index = (choice.index_url, "") if stack == "pytorch" else ("", choice.index_url)
    plan = replace(plan, pins=tuple(pins), index_url=index, extra_index_url=extra_index)
    if stack == "vllm":
        plan = replace(plan, server=t.server("vllm"))
    return _platform(t, plan, choice, assumed)


def _stack_want(t: SetupTables, stack: str, want: Want) -> Want:
    """What the stack's other packages require of torch and Python (their declared bounds)."""
    pins = t.pins(stack) if stack == "qlora" else []
    lows = [p.python_min for p in pins if p.python_min]
    highs = [p.python_max for p in pins if p.python_max]
    torch_mins = [p.torch_min for p in pins if p.torch_min]
    return replace(
        want,
        python_min=max(lows, key=lambda v: parse(v) or (), default=""),
        python_max=min(highs, key=lambda v: parse(v) or (), default=""),
        torch_min=max(torch_mins, key=lambda v: parse(v) or (), default=""),
    )


def _picking_target(t: SetupTables, target: Target) -> tuple[Target, str]:
    """The target the wheels are picked for, and the driver assumed when it is not known.

    An unknown driver (a rented machine, a plan option) is taken to be the oldest one that
    drives this GPU (and is new enough for the oldest CUDA family the wheels use), so the pins
    run on any machine that has the card — never the newest CUDA, which a rented box on an
    older driver refuses to start.
    """
    if target.vendor != "nvidia" or target.driver or not target.compute_capability:
        return target, ""
    first = t.compat.first_driver(target.compute_capability, target.os == "windows")
    families = [str(r.min_driver) for r in t.compat.cuda_mvc]
    oldest = min(families, key=lambda v: parse(v) or (), default="")
    candidates = [v for v in (first[0] if first else "", oldest) if v]
    assumed = max(candidates, key=lambda v: parse(v) or (), default="")
    return (replace(target, driver=assumed), assumed) if assumed else (target, "")


def _unknown_driver(refusal: Refusal, assumed: str) -> Refusal:
    """A wheel that needs a newer driver than the assumed one: ask for the real driver."""
    if not assumed or refusal.reason not in ("setup.refuse.driver", "setup.refuse.vllm_driver"):
        return refusal
    params = {**refusal.params, "assumed": assumed}
    # a vLLM refusal already names the oldest driver any listed vLLM runs on
    need = {"need": refusal.nearest_params.get("need") or refusal.params.get("need", "?")}
    return Refusal(
        "setup.refuse.driver_unknown", params, "setup.nearest.give_driver", need, refusal.sources
    )


# ------------------------------------------------------------------ torch


def _pick_vllm(t: SetupTables, target: Target, want: Want) -> tuple[Choice | Refusal, list[Pin]]:
    """The newest vLLM whose wheel runs here. Its wheel pins torch exactly and is built for one
    CUDA, so that torch and that CUDA are what is asked of the PyTorch choice."""
    pins = t.pins("vllm")
    if want.torch:
        pins = [p for p in pins if major_minor(p.torch) == major_minor(want.torch)]
        if not pins:
            known = ", ".join(f"vllm {p.version} (torch {p.torch})" for p in t.pins("vllm"))
            raise UserError("setup.conflict", first=f"--torch {want.torch}", second=known)
    first: Refusal | None = None
    for pin in pins:
        cuda = pin.wheel_cuda if target.vendor == "nvidia" else ""
        vllm_want = Want(
            torch=pin.torch,
            cuda=want.cuda or cuda,
            python_min=pin.python_min,
            python_max=pin.python_max,
        )
        choice = _torch_choice(t, target, vllm_want)
        if isinstance(choice, Choice):
            return choice, [_pin(pin, "setup.why.vllm")]
        first = first or choice
    assert first is not None
    return _vllm_nearest(t, target, first, pins), []


def _vllm_nearest(t: SetupTables, target: Target, refusal: Refusal, pins: list[Any]) -> Refusal:
    """Name a vLLM way out instead of a plain PyTorch wheel: the driver the oldest listed vLLM
    needs, the Pythons the newest one ships for, or another stack."""
    nearest: tuple[str, dict[str, Any]] = ("setup.nearest.stack", {"stack": "ollama"})
    if refusal.reason == "setup.refuse.driver":
        oldest, newest = pins[-1], pins[0]
        need = t.compat.driver_need(oldest.wheel_cuda, target.os == "windows") or "?"
        nearest = ("setup.nearest.vllm_driver", {"version": oldest.version, "need": need})
        params = {**refusal.params, "version": newest.version}
        refusal = replace(refusal, reason="setup.refuse.vllm_driver", params=params)
    elif refusal.reason == "setup.refuse.python":
        ok = [p for p in pins if p.python_min and p.python_max]
        if ok:
            low, high = ok[0].python_min, ok[0].python_max
            nearest = (
                "setup.nearest.vllm_python",
                {"version": ok[0].version, "low": low, "high": high},
            )
    return replace(refusal, nearest=nearest[0], nearest_params=nearest[1])


def _torch_choice(t: SetupTables, target: Target, want: Want) -> Choice | Refusal:
    if target.vendor == "nvidia":
        return pick_nvidia(t, target, want)
    if target.vendor == "amd":
        return pick_rocm(t, target, want)
    return pick_plain(t, target, want, "pypi" if target.vendor == "apple" else "cpu")


def _torch_pins(choice: Choice, target: Target, stack: str, asked: bool) -> list[Pin]:
    b = choice.build
    params = {
        "release": choice.release.version,
        "variant": choice.variant,
        "python": target.python,
        "cc": target.compute_capability or "-",
        "driver": target.driver or "-",
    }
    why = "setup.why.torch_asked" if asked else "setup.why.torch"
    if target.vendor != "nvidia":  # no architecture or driver check for these wheels
        why = f"setup.why.torch_{target.vendor}"
    pins = [Pin("torch", b.torch, why, choice.sources, params)]
    pins.append(Pin("torchvision", b.torchvision, "setup.why.torchvision", tuple(b.source_ids())))
    if stack == "pytorch" and b.torchaudio:
        pins.append(Pin("torchaudio", b.torchaudio, "setup.why.torchaudio", tuple(b.source_ids())))
    return pins


def _pin(row: Any, why: str) -> Pin:
    return Pin(row.package, row.version, why, tuple(row.source_ids()), {"torch": row.torch})


def _uv(t: SetupTables) -> Pin | None:
    row = next(iter(t.images("uv")), None)
    return Pin(row.image, row.tag, "setup.why.uv", tuple(row.source_ids())) if row else None


# ------------------------------------------------------------------ platform


def _platform(t: SetupTables, plan: Plan, choice: Choice, assumed: str = "") -> Plan:
    """Base image, environment, driver facts and notes for where the plan will run."""
    target = plan.target
    notes: list[Note] = []
    env: list[tuple[str, str]] = []
    base: Pin | None = None
    branch = need = ""
    open_only = False
    if target.vendor == "nvidia":
        need = t.compat.driver_need(choice.variant, target.os == "windows") or ""
        branch, open_only, driver_notes = _driver_plan(t, target, need, assumed)
        notes += driver_notes
        base, fallback = _cuda_image(
            t, replace(target, driver=target.driver or assumed), choice.variant
        )
        if fallback:
            notes.append(("setup.note.image_fallback", {"cuda": choice.variant}))
            env += [
                ("NVIDIA_VISIBLE_DEVICES", "all"),
                ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
            ]
    elif target.vendor in ("amd", "cpu"):
        base = _os_image(t, target)
    if target.vendor == "amd":
        notes.append(("setup.note.render_group", {}))
        override = t.compat.gfx_override(target.gfx) if target.gfx else None
        if override:
            env.append(("HSA_OVERRIDE_GFX_VERSION", override))
            notes.append(("setup.note.gfx_override", {"gfx": target.gfx, "value": override}))
    if target.vendor == "apple":
        notes.append(("setup.note.apple_no_docker", {}))
    if target.place == "wsl2":
        notes.append(("setup.note.wsl2", {}))
    uid = int(base.params.get("uid", 0)) if base else 0
    return replace(
        plan,
        base_image=base,
        env=tuple(env),
        notes=tuple(notes),
        app_uid=uid,
        driver_branch=branch,
        need_driver=need,
        open_modules_only=open_only,
    )


def _driver_plan(
    t: SetupTables, target: Target, need: str, assumed: str
) -> tuple[str, bool, list[Note]]:
    """(the driver branch install-driver.sh pins, whether only the open kernel modules drive
    the GPU, notes) for software that needs driver `need`: the oldest branch NVIDIA supports
    that meets `need`, knows the GPU and is not older than the target's own driver."""
    cc = target.compute_capability
    row = t.compat.arch_support(cc)
    notes: list[Note] = []
    own = target.driver.split(".")[0] if target.driver else ""
    floor = max((v for v in (need, own) if v), key=lambda v: parse(v) or (), default="")
    branch = t.compat.install_branch(floor, cc)
    if not target.driver:
        arch = row.arch.capitalize() if row is not None else cc
        params = {"driver": assumed or "?", "arch": arch, "need": need or "?"}
        notes.append(("setup.note.driver_assumed", params))
    if row is not None and row.last_driver_branch:
        params = {"branch": row.last_driver_branch, "arch": row.arch.capitalize()}
        notes.append(("setup.note.legacy_branch", params))
    return branch, bool(row is not None and row.open_modules_only), notes


def _cuda_image(t: SetupTables, target: Target, cuda: str) -> tuple[Pin | None, bool]:
    """The nvidia/cuda runtime tag of the wheel's CUDA family, no newer than the wheel's CUDA
    nor than what the driver supports (the image's NVIDIA_REQUIRE_CUDA check); else a plain
    Ubuntu image (the wheel brings its own CUDA runtime)."""
    driver_max = t.compat.max_cuda_for_driver(target.driver) if target.driver else None
    family = (parse(cuda) or (0,))[0]
    rows = [
        r
        for r in t.images("cuda")
        if (parse(r.cuda) or (0,))[0] == family
        and at_least(cuda, r.cuda)
        and (driver_max is None or at_least(driver_max, r.cuda))
    ]
    if not rows:
        return _os_image(t, target), True
    rows.sort(key=lambda r: (parse(r.cuda) or (), r.os == target.os, r.os), reverse=True)
    row = rows[0]
    return Pin(
        row.image,
        row.tag,
        "setup.why.cuda_image",
        tuple(row.source_ids()),
        {"cuda": row.cuda, "driver_max": driver_max or "-", "uid": row.app_uid},
    ), False


def _os_image(t: SetupTables, target: Target) -> Pin | None:
    rows = sorted(t.images("os"), key=lambda r: (r.os == target.os, r.os), reverse=True)
    if not rows:
        return None
    row = rows[0]
    return Pin(
        row.image,
        row.tag,
        "setup.why.os_image",
        tuple(row.source_ids()),
        {"os": row.os, "uid": row.app_uid},
    )


def _ollama(t: SetupTables, plan: Plan) -> Plan:
    target = plan.target
    variant = "rocm" if target.vendor == "amd" else ""
    row = next((i for i in t.images("ollama") if i.variant == variant), None)
    base = (
        Pin(row.image, row.tag, "setup.why.ollama", tuple(row.source_ids()), {"uid": row.app_uid})
        if row
        else None
    )
    env: list[tuple[str, str]] = []
    notes: list[Note] = []
    if target.vendor == "amd" and target.gfx:
        req = t.compat.ollama_requirement("amd")
        override = t.compat.gfx_override(target.gfx)
        if override and (req is None or target.gfx not in req.gfx_targets):
            env.append(("HSA_OVERRIDE_GFX_VERSION", override))
            notes.append(("setup.note.gfx_override", {"gfx": target.gfx, "value": override}))
    if target.vendor == "amd":
        notes.append(("setup.note.render_group", {}))
    if target.vendor == "apple":
        notes.append(("setup.note.apple_no_docker", {}))
    branch, need, open_only = "", "", False
    if target.vendor == "nvidia":
        need = _ollama_driver_need(t, target)
        assumed = _picking_target(t, target)[1]
        branch, open_only, driver_notes = _driver_plan(t, target, need, assumed)
        notes += driver_notes
    uid = int(base.params.get("uid", 0)) if base else 0
    return replace(
        plan,
        base_image=base,
        server=t.server("ollama"),
        env=tuple(env),
        notes=tuple(notes),
        uv_image=None,
        app_uid=uid,
        driver_branch=branch,
        need_driver=need,
        open_modules_only=open_only,
    )


def _ollama_driver_need(t: SetupTables, target: Target) -> str:
    """The driver Ollama documents for this GPU (older GPUs have their own minimum)."""
    req = t.compat.ollama_requirement("nvidia")
    if req is None:
        return ""
    cc, legacy = target.compute_capability, req.legacy_max_compute_capability
    if cc and legacy and at_least(legacy, cc) and req.legacy_min_driver:
        return str(req.legacy_min_driver)
    return str(req.min_driver)


def _ascend(t: SetupTables, plan: Plan, want: Want) -> Plan:
    """torch + torch_npu for the target's CANN. torch comes from PyTorch's CPU index (x86_64
    `+cpu` builds; aarch64 takes PyPI's own CPU build), torch_npu from PyPI."""
    picked = pick_ascend(t, plan.target, want)
    if isinstance(picked, Refusal):
        return replace(plan, refusal=picked)
    row, release = picked
    ids = tuple(dict.fromkeys([*release.source_ids(), *row.source_ids()]))
    params = {"cann": row.cann, "python": plan.target.python, "release": release.version}
    pins = (
        Pin("torch", row.torch, "setup.why.torch_ascend", ids, params),
        Pin("torch-npu", row.torch_npu, "setup.why.torch_npu", tuple(row.source_ids()), params),
    )
    notes: tuple[Note, ...] = (
        ("setup.note.cann", {"cann": row.cann}),
        ("setup.note.ascend_no_docker", {}),
    )
    return replace(plan, pins=pins, extra_index_url=INDEX + "cpu", notes=notes, uv_image=None)
