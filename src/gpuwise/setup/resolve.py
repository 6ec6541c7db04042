"""Target + stack → a Plan of pinned versions, indexes and base image, or a refusal.

Pure: every decision is a table row (data/compat/*.toml) whose sources the plan carries, so
`--explain` can say where each pin comes from. Gates run before the PyTorch choice: a package
that cannot run on this vendor or architecture is refused with the nearest stack that can.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuwise.doctor.recommend import driver_need
from gpuwise.doctor.versions import at_least, major_minor, parse
from gpuwise.errors import UserError
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
    plan = Plan(stack=stack, target=target, uv_image=_uv(t))
    gate = _gate(t, target, stack, flash_attn)
    if gate is not None:
        return replace(plan, refusal=gate)
    if stack == "ollama":
        return _ollama(t, plan)
    if target.vendor == "ascend":
        return _ascend(t, plan, Want(torch=torch))
    want = Want(torch=torch, cuda=cuda)
    extra: list[Pin] = []
    if stack == "vllm":
        want, extra = _vllm_want(t, target, want)
    choice = _torch_choice(t, target, want)
    if isinstance(choice, Refusal):
        return replace(plan, refusal=choice)
    pins = _torch_pins(choice, target, stack, asked=bool(want.torch)) + extra
    if stack == "qlora":
        pins += [_pin(p, "setup.why.qlora") for p in t.pins("qlora")]
    if flash_attn:
        pins += [_pin(p, "setup.why.flash_attn") for p in t.pins("flash_attn")]
    index, extra_index = (choice.index_url, "") if stack == "pytorch" else ("", choice.index_url)
    plan = replace(plan, pins=tuple(pins), index_url=index, extra_index_url=extra_index)
    if stack == "vllm":
        plan = replace(plan, server=t.server("vllm"))
    return _platform(t, plan, choice)


# ------------------------------------------------------------------ gates


def _gate(t: SetupTables, target: Target, stack: str, flash_attn: bool) -> Refusal | None:
    """Refuse a stack whose package cannot run here (vendor, OS, architecture)."""
    if target.vendor == "ascend" and (stack != "pytorch" or flash_attn):
        return Refusal(
            "setup.refuse.ascend_stack",
            {"stack": stack},
            "setup.nearest.stack",
            {"stack": "pytorch"},
        )
    checks = {"vllm": "vllm", "qlora": "bitsandbytes"}
    packages = [checks[stack]] if stack in checks else []
    if flash_attn:
        packages.append("flash-attn")
    for package in packages:
        refusal = _requirement(t, target, package, stack)
        if refusal is not None:
            return refusal
    refusal = _driver_gate(t, target)
    if refusal is None and stack == "ollama":
        return _ollama_gate(t, target)
    return refusal


def _driver_gate(t: SetupTables, target: Target) -> Refusal | None:
    """A driver older than the first branch that drives this GPU sees no device at all."""
    if target.vendor != "nvidia" or not target.driver or not target.compute_capability:
        return None
    row = t.first_driver(target.compute_capability)
    if row is None or at_least(target.driver, row.min_driver_branch):
        return None
    params = {
        "driver": target.driver,
        "need": row.min_driver_branch,
        "cc": target.compute_capability,
    }
    return Refusal(
        "setup.refuse.gpu_driver",
        params,
        "setup.nearest.upgrade_driver",
        {"need": row.min_driver_branch},
        tuple(row.source_ids()),
    )


_NEAREST = {
    "vllm": ("setup.nearest.stack", {"stack": "ollama"}),
    "bitsandbytes": ("setup.nearest.stack", {"stack": "pytorch"}),
    "flash-attn": ("setup.nearest.sdpa", {}),
}


def _requirement(t: SetupTables, target: Target, package: str, stack: str) -> Refusal | None:
    row = t.requirement(package)
    if row is None:
        return None
    nearest, near = _NEAREST.get(package, ("setup.nearest.none_plain", {}))
    params: dict[str, Any] = {"package": package, "vendor": target.vendor, "stack": stack}
    ids = tuple(row.source_ids())
    if target.vendor not in row.vendors:
        return Refusal("setup.refuse.vendor", params, nearest, near, ids)
    if row.linux_only and target.os in ("macos", "windows"):
        return Refusal("setup.refuse.linux_only", {**params, "os": target.os}, nearest, near, ids)
    cc = target.compute_capability
    needs = row.min_compute_capability
    if target.vendor == "nvidia" and needs and cc and not at_least(cc, needs):
        params.update(cc=cc, need=needs)
        return Refusal("setup.refuse.package_arch", params, nearest, near, ids)
    if target.vendor == "amd" and package == "vllm":
        if target.gfx not in row.gfx_targets:
            params.update(gfx=target.gfx or "?", known=", ".join(row.gfx_targets))
            return Refusal("setup.refuse.package_gfx", params, nearest, near, ids)
        pin = t.pins("vllm")[0]
        return Refusal(
            "setup.refuse.vllm_rocm",
            {**params, "version": pin.version},
            nearest,
            near,
            (*ids, *pin.source_ids()),
        )
    return None


def _ollama_gate(t: SetupTables, target: Target) -> Refusal | None:
    """Ollama's documented GPU requirements (the doctor's ollama_gpu_req rows)."""
    req = t.compat.ollama_requirement(target.vendor)
    if req is None:
        return None
    ids = tuple(req.source_ids())
    if target.vendor == "nvidia":
        cc, driver = target.compute_capability, target.driver
        if cc and req.min_compute_capability and not at_least(cc, req.min_compute_capability):
            return Refusal(
                "setup.refuse.ollama_cc",
                {"cc": cc, "need": req.min_compute_capability},
                "setup.nearest.cpu",
                {},
                ids,
            )
        need = req.min_driver
        legacy = req.legacy_max_compute_capability
        if cc and legacy and at_least(legacy, cc) and req.legacy_min_driver:
            need = req.legacy_min_driver
        if driver and need and not at_least(driver, need):
            return Refusal(
                "setup.refuse.ollama_driver",
                {"driver": driver, "need": need},
                "setup.nearest.upgrade_driver",
                {"need": need},
                ids,
            )
    gfx = target.gfx
    unsupported = gfx and gfx not in req.gfx_targets and not t.compat.gfx_override(gfx)
    if target.vendor == "amd" and unsupported:
        known = ", ".join(req.gfx_targets)
        params = {"gfx": target.gfx, "known": known}
        return Refusal("setup.refuse.ollama_gfx", params, "setup.nearest.cpu", {}, ids)
    return None


# ------------------------------------------------------------------ torch


def _vllm_want(t: SetupTables, target: Target, want: Want) -> tuple[Want, list[Pin]]:
    """vLLM's wheel pins torch exactly and is built for one CUDA: ask for exactly those."""
    pin = t.pins("vllm")[0]
    if want.torch and major_minor(want.torch) != major_minor(pin.torch):
        raise UserError(
            "setup.conflict",
            first=f"--torch {want.torch}",
            second=f"vllm {pin.version} (torch {pin.torch})",
        )
    cuda = pin.wheel_cuda if target.vendor == "nvidia" else ""
    vllm_want = Want(
        torch=pin.torch,
        cuda=want.cuda or cuda,
        python_min=pin.python_min,
        python_max=pin.python_max,
    )
    return vllm_want, [_pin(pin, "setup.why.vllm")]


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


def _platform(t: SetupTables, plan: Plan, choice: Choice) -> Plan:
    """Base image, environment, driver facts and notes for where the plan will run."""
    target = plan.target
    notes: list[Note] = []
    env: list[tuple[str, str]] = []
    base: Pin | None = None
    branch = need = first = ""
    open_only = False
    if target.vendor == "nvidia":
        first_row = t.first_driver(target.compute_capability)
        if first_row is not None:
            first, open_only = first_row.min_driver_branch, first_row.open_modules_only
        need = driver_need(t.compat, choice.variant, target.os == "windows") or ""
        base, fallback = _cuda_image(t, target, choice.variant)
        if fallback:
            notes.append(("setup.note.image_fallback", {"cuda": choice.variant}))
            env += [
                ("NVIDIA_VISIBLE_DEVICES", "all"),
                ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
            ]
        if not target.driver:
            notes.append(("setup.note.driver_unknown", {"need": need}))
        support = t.compat.arch_support(target.compute_capability)
        if support is not None and support.last_driver_branch:
            branch = support.last_driver_branch
            notes.append(("setup.note.legacy_branch", {"branch": branch, "arch": support.arch}))
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
        first_driver_branch=first,
        open_modules_only=open_only,
    )


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
    uid = int(base.params.get("uid", 0)) if base else 0
    return replace(
        plan,
        base_image=base,
        server=t.server("ollama"),
        env=tuple(env),
        notes=tuple(notes),
        uv_image=None,
        app_uid=uid,
    )


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
