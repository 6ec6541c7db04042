"""`gpuwise serve` and `gpuwise mcp` as commands: the warning off loopback, one-line errors,
a real uvicorn on a loopback port, and a start-up that never imports the web stack."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import WEB_EXTRA

pytest.importorskip("fastapi", reason=WEB_EXTRA)
pytest.importorskip("uvicorn", reason=WEB_EXTRA)

SRC = str(Path(__file__).parents[2] / "src")


def test_non_loopback_host_warns_of_no_authentication(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    ran: list[str] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: ran.append(self.config.host))
    res = cli("serve", "--host", "0.0.0.0", "--port", "8123")
    assert res.code == 0 and ran == ["0.0.0.0"]
    assert "no authentication" in res.err
    quiet = cli("serve")
    assert quiet.code == 0 and "authentication" not in quiet.err and ran[-1] == "127.0.0.1"


def test_bad_port_is_one_line(cli: Any) -> None:
    res = cli("serve", "--port", "70000")
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1 and "--port" in res.err


def test_help_never_imports_the_web_stack() -> None:
    code = (
        "import sys\nfrom gpuwise.cli.app import main\n"
        "for args in (['--help'], ['serve', '--help'], ['mcp', '--help']):\n"
        "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in ('fastapi', 'uvicorn', 'mcp', 'starlette') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert "gpuwise serve" in out.stdout or "--host" in out.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_real_server_on_loopback_answers(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpuwise", "serve", "--port", str(port)],
        env={
            "PYTHONPATH": SRC,
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "GPUWISE_CACHE_DIR": str(tmp_path / "cache"),
        },
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline, body, headers = time.monotonic() + 30, "", {}
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/plan", timeout=5) as r:
                    body, headers = r.read().decode(), dict(r.headers)
                break
            except OSError:
                time.sleep(0.2)
        assert "<form" in body and "default-src 'none'" in headers["content-security-policy"]
        assert "server" not in {k.lower() for k in headers}
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert f"http://127.0.0.1:{port}/" in err
