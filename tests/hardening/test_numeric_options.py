"""By construction: every numeric option of estimate, fit, offers, cost, plan and gpus is read
by gpuwise.units (units, ranges, one-line errors), so a new flag cannot slip past."""

from __future__ import annotations

import click
import pytest
import typer

from gpuwise.cli.app import build_app
from gpuwise.cli.numbers import NumberOrNameType, NumberType

COMMANDS = ("estimate", "fit", "offers", "cost", "plan", "gpus")
NUMBER_OR_NAME = {("cost", "--tariff"), ("cost", "--pue")}


def _commands() -> dict[str, click.Command]:
    group = typer.main.get_command(build_app())
    assert isinstance(group, click.Group)
    return {name: group.commands[name] for name in COMMANDS}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_numeric_option_is_read_by_units(name: str) -> None:
    command = _commands()[name]
    numeric = 0
    for param in command.params:
        flag = next((o for o in param.opts if o.startswith("--")), param.name)
        if (name, flag) in NUMBER_OR_NAME:
            assert isinstance(param.type, NumberOrNameType), flag
            continue
        assert not isinstance(param.type, click.types.IntParamType | click.types.FloatParamType), (
            f"{name} {flag} is a plain {param.type.name}: give it click_type=number(…)"
        )
        numeric += isinstance(param.type, NumberType)
    assert numeric >= 1
