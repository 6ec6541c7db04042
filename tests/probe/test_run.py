"""The subprocess wrapper: timeouts, missing programs, garbage output, never an exception."""

from __future__ import annotations

import time
from pathlib import Path

from gpuwise.probe.run import kill_all, run_cmd
from tests.probe.support import FIXTURES, fake_path


def test_missing_program_is_not_found(tmp_path: Path) -> None:
    res = run_cmd(["nvidia-smi"], 1.0, {"PATH": str(tmp_path)})
    assert res.found is False and not res.ok


def test_output_and_exit_code(tmp_path: Path) -> None:
    env = {
        "PATH": fake_path(tmp_path, "nvcc"),
        "FAKE_NVCC_MODE": "fail",
        "FAKE_NVCC_MSG": "bad",
        "FAKE_NVCC_RC": "3",
    }
    res = run_cmd(["nvcc", "--version"], 2.0, env)
    assert res.found and res.rc == 3 and res.stdout.strip() == "bad"
    assert res.first_line() == "bad"


def test_hang_is_killed_at_the_timeout(tmp_path: Path) -> None:
    env = {"PATH": fake_path(tmp_path, "nvidia-smi"), "FAKE_NVIDIA_SMI_MODE": "hang"}
    start = time.monotonic()
    res = run_cmd(["nvidia-smi", "-q", "-x"], 0.3, env)
    assert res.timed_out and res.rc is None
    assert time.monotonic() - start < 2.5


def test_binary_garbage_decodes(tmp_path: Path) -> None:
    env = {"PATH": fake_path(tmp_path, "nvidia-smi"), "FAKE_NVIDIA_SMI_MODE": "garbage"}
    res = run_cmd(["nvidia-smi"], 2.0, env)
    assert res.ok and "\ufffd" in res.stdout


def test_crash_reports_signal(tmp_path: Path) -> None:
    env = {"PATH": fake_path(tmp_path, "rocm-smi"), "FAKE_ROCM_SMI_MODE": "crash"}
    res = run_cmd(["rocm-smi"], 2.0, env)
    assert res.found and res.rc is not None and res.rc != 0


def test_not_executable_is_an_error_not_an_exception(tmp_path: Path) -> None:
    script = tmp_path / "tool"
    script.write_text("not a program")
    res = run_cmd([str(script)], 1.0, {"PATH": ""})
    assert res.found and res.error


def test_fixture_file_round_trip(tmp_path: Path) -> None:
    xml = FIXTURES / "nvidia-smi" / "tesla-t4-515.105.01.xml"
    env = {"PATH": fake_path(tmp_path, "nvidia-smi"), "FAKE_NVIDIA_SMI_FILE": str(xml)}
    res = run_cmd(["nvidia-smi", "-q", "-x"], 2.0, env)
    assert res.ok and "Tesla T4" in res.stdout


def test_kill_all_with_nothing_running() -> None:
    assert kill_all() >= 0


def test_empty_command() -> None:
    assert run_cmd([], 1.0).found is False
