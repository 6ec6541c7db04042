"""docs/schemas/ publishes the JSON schemas of the `--json` documents; they are generated from
the report models (`make schemas`), so a committed schema that differs is out of date."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuwise.render.schemas import report_models, schema_text

SCHEMAS = Path(__file__).parent.parent / "docs" / "schemas"


@pytest.mark.parametrize("name", sorted(report_models()))
def test_committed_schema_equals_the_generated_one(name: str) -> None:
    path = SCHEMAS / f"{name}.json"
    assert path.exists(), f"{path} is missing: run `make schemas`"
    assert path.read_text(encoding="utf-8") == schema_text(report_models()[name]), (
        f"{path} is out of date: run `make schemas` and review the diff"
    )


def test_every_committed_schema_has_a_model() -> None:
    assert sorted(p.stem for p in SCHEMAS.glob("*.json")) == sorted(report_models())


@pytest.mark.parametrize("name", sorted(report_models()))
def test_a_schema_forbids_keys_its_model_does_not_declare(name: str) -> None:
    """extra='forbid' on every part: a key the code adds without declaring it fails at once."""
    schema = json.loads(schema_text(report_models()[name]))
    assert schema["additionalProperties"] is False
    for part, body in schema.get("$defs", {}).items():
        if body.get("type") == "object" and "properties" in body:
            assert body.get("additionalProperties") is False, part


def test_plan_json_reads_back_as_its_model(cli: Any) -> None:
    """What `plan --json` prints is a PlanReport: every key declared, every type right."""
    from gpuwise.advise.report_model import PlanReport

    r = cli("plan", "--example", "--json")
    assert r.code == 0, r.err
    report = PlanReport.model_validate(r.json())
    assert report.options and report.answers.buy_or_rent in ("buy", "rent", "either")
    assert report.options[0].config.quant


def test_cost_json_reads_back_as_its_model(cli: Any) -> None:
    """What `cost --json` prints is a CostReport (an owning bill and a rental's)."""
    from gpuwise.cost.report_model import CostReport, OwnBill, RentBill

    r = cli("cost", "--own", "rtx-4090", "--vs", "aws:g5.xlarge", "--json")
    assert r.code == 0, r.err
    report = CostReport.model_validate(r.json())
    kinds = [type(o) for o in report.options]
    assert kinds == [OwnBill, RentBill]
    assert report.cheapest in {o.label for o in report.options}
    assert report.plot is None


def test_estimate_json_reads_back_and_leaves_absent_parts_out(cli: Any) -> None:
    """Without a GPU the fit and speed keys are left out (not null), as they always were; with
    one they are there and the document is still an EstimateReport."""
    from gpuwise.estimate.report_model import EstimateReport

    bare = cli("estimate", "qwen2.5-7b", "--json")
    assert bare.code == 0, bare.err
    data = bare.json()
    assert not {"gpu", "fits", "speed", "max_batch"} & set(data)
    assert "reading" in data["model"]
    EstimateReport.model_validate(data)
    fitted = cli("estimate", "qwen2.5-7b", "--gpu", "rtx-4090", "--json")
    assert fitted.code == 0, fitted.err
    report = EstimateReport.model_validate(fitted.json())
    assert report.gpu is not None and report.gpu.id == "rtx-4090"
    assert report.fits is not None and report.speed


def test_doctor_from_json_reads_back_as_its_model(cli: Any) -> None:
    """What `doctor --from FILE --json` prints is a DoctorReport, paste part included."""
    from gpuwise.doctor.report_model import DoctorReport

    paste = Path(__file__).parent / "fixtures" / "reports" / "fooocus-1313-driver-470.txt"
    r = cli("doctor", "--from", str(paste), "--json")
    data = r.json()
    report = DoctorReport.model_validate(data)
    assert report.mode == "paste" and report.paste is not None and report.paste.blocks
    assert report.findings and r.code == report.exit_code


def test_doctor_facts_are_typed_outcomes_with_the_as_dict_keys() -> None:
    """Each probe's outcome in the doctor report is a ProbeOutcome whose JSON has exactly the
    keys parse/result.as_dict writes: `seconds` for a timed-out probe only."""
    from gpuwise.catalog.compat import CompatTables
    from gpuwise.doctor.report import make_report
    from gpuwise.doctor.report_model import ProbeOutcome
    from gpuwise.parse.result import Found, ProbeResult, TimedOut, as_dict

    facts: dict[str, ProbeResult] = {
        "nvml": Found({"driver_version": "550.54.14", "cuda_version": "12.4", "gpus": []}),
        "kernel": TimedOut(9.5),
    }
    report = make_report(facts, CompatTables(), elapsed_s=0.1)
    assert all(isinstance(o, ProbeOutcome) for o in report.facts.values())
    assert report.facts["kernel"].status == "timeout" and report.facts["kernel"].seconds == 9.5
    dumped = report.model_dump(mode="json")["facts"]
    assert dumped == {name: as_dict(r) for name, r in facts.items()}
    assert "seconds" not in dumped["nvml"]
