"""The web app under test: FastAPI's TestClient, addressed as 127.0.0.1 (the server answers
loopback Host names only). Skipped with a reason where the `web` extra is not installed."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi", reason="gpuwise serve needs the web extra (pip install '.[web]')")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (the dev extra)")

BASE = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def app() -> Any:
    from gpuwise.web.app import create_app

    return create_app()


@pytest.fixture
def client(app: Any) -> Any:
    from fastapi.testclient import TestClient

    return TestClient(app, base_url=BASE)
