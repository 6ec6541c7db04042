"""The JSON schemas of the `--json` documents, generated from the report models.

The models (cost/report_model.py, advise/report_model.py, …) are what the commands print;
their schemas are published under docs/schemas/ so that a script reading `gpuwise plan --json`
knows every key and type. `python -m gpuwise.render.schemas docs/schemas` rewrites them
(`make schemas`); tests/test_schemas.py fails when a committed schema differs from the models.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def report_models() -> dict[str, type[BaseModel]]:
    """Command → the model of its `--json` document."""
    from gpuwise.advise.report_model import PlanReport
    from gpuwise.cost.report_model import CostReport
    from gpuwise.doctor.report_model import DoctorReport
    from gpuwise.estimate.report_model import EstimateReport

    return {
        "cost": CostReport,
        "doctor": DoctorReport,
        "estimate": EstimateReport,
        "plan": PlanReport,
    }


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The schema of what the command prints. Validation mode: a key with a default is not
    required, which is true of the printed document too (the optional parts of a sized
    configuration are left out where they do not apply)."""
    return model.model_json_schema(mode="validation")


def schema_text(model: type[BaseModel]) -> str:
    """The schema as the committed file holds it (sorted keys, two-space indent, newline)."""
    return json.dumps(schema_of(model), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """Write every schema into the folder named on the command line."""
    folder = Path(argv[0] if argv else "docs/schemas")
    folder.mkdir(parents=True, exist_ok=True)
    for name, model in report_models().items():
        (folder / f"{name}.json").write_text(schema_text(model), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
