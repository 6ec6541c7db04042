"""Generated requests against /openapi.json (schemathesis): whatever the body, the answer is
never a 500. Bounded (few examples per call, no shrinking) to stay within seconds."""

from __future__ import annotations

from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="the dev extra installs schemathesis")
from hypothesis import HealthCheck, Phase, settings  # noqa: E402

from gpuwise.web.app import create_app  # noqa: E402

schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(), headers={"host": "127.0.0.1"}
)


@schema.parametrize()
@settings(
    max_examples=8,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_server_error_on_generated_input(case: Any) -> None:
    response = case.call(headers={"host": "127.0.0.1"})
    assert response.status_code < 500, (case.path, case.body, response.text[:300])
    assert response.status_code != 421  # the request reached the app
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error and "\n" not in error
