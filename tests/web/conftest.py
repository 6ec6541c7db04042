"""The web app under test: FastAPI's TestClient, addressed as 127.0.0.1 (the server answers
loopback Host names only)."""

from __future__ import annotations

from typing import Any

import pytest

WEB_EXTRA = "gpuwise serve needs the web extra and httpx (pip install '.[dev]')"
"""Each test module skips itself with this reason where fastapi or httpx is missing."""
BASE = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def app() -> Any:
    from gpuwise.web.app import create_app

    return create_app()


@pytest.fixture
def client(app: Any) -> Any:
    from fastapi.testclient import TestClient

    return TestClient(app, base_url=BASE)
