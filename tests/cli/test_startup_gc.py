"""The collector pause around `gpuwise plan` (issue 26) leaves the process as it found it."""

from __future__ import annotations

import gc

import pytest

from gpuwise.cli.startup import gc_paused


def test_gc_paused_turns_collection_back_on_after_the_command() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_gc_paused_turns_collection_back_on_after_an_error() -> None:
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("bad input")
    assert gc.isenabled()


def test_gc_paused_keeps_collection_off_when_it_was_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_plan_command_runs_with_collection_on_afterwards(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("plan", "--example")
    assert result.code == 0, result.err
    assert result.out.strip()  # the plan was printed
    assert gc.isenabled()
