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


def test_console_script_start_up_runs_without_collection_until_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`run()` pauses the collector for start-up; `end_start_up` turns it back on before the
    command (a long-running command must keep collecting), having frozen what start-up made."""
    from gpuwise.cli import startup

    monkeypatch.setattr(startup, "_one_shot_process", False)
    frozen_before = gc.get_freeze_count()
    try:
        startup.pause_gc_for_process()
        assert not gc.isenabled()
        startup.end_start_up()
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen_before  # start-up's objects out of reach
    finally:
        gc.unfreeze()
        gc.enable()


def test_gc_paused_in_tests_does_not_freeze_objects() -> None:
    """Outside the console script (tests call `main`), the pause freezes nothing: frozen cyclic
    garbage would never be freed across hundreds of in-process commands."""
    frozen_before = gc.get_freeze_count()
    with gc_paused():
        pass
    assert gc.get_freeze_count() == frozen_before


def test_end_start_up_outside_the_console_script_changes_nothing() -> None:
    from gpuwise.cli.startup import end_start_up

    gc.disable()
    try:
        end_start_up()
        assert not gc.isenabled()  # only the console script's own pause is ended here
    finally:
        gc.enable()
