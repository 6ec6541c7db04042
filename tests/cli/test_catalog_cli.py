"""The catalog commands end to end: output, JSON contract, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden import check_golden

GOLDEN = Path(__file__).parent.parent / "golden"


def _golden(name: str, text: str) -> None:
    """Compare with tests/golden/NAME (tests/golden.py: a missing file fails)."""
    check_golden(GOLDEN / name, text)


def test_a_missing_golden_file_fails_and_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (review 3): `_golden` used to write a missing file and compare the output
    with itself, so deleting a golden file made its test pass."""
    monkeypatch.delenv("GPUWISE_UPDATE_GOLDEN", raising=False)
    path = tmp_path / "gone.txt"
    with pytest.raises(pytest.fail.Exception, match="GPUWISE_UPDATE_GOLDEN=1"):
        check_golden(path, "any output\n")
    assert not path.exists()
    monkeypatch.setenv("GPUWISE_UPDATE_GOLDEN", "1")
    check_golden(path, "any output\n")  # the documented way to create it
    assert path.read_text(encoding="utf-8") == "any output\n"


@pytest.mark.usefixtures("fixture_catalog")
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gpus_golden(cli, lang: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("gpus", "--lang", lang)
    assert res.code == 0, res.err
    _golden(f"gpus.{lang}.txt", res.out)
    res = cli("gpus", "show", "RTX 4090", "--lang", lang)
    assert res.code == 0, res.err
    _golden(f"gpus-show-4090.{lang}.txt", res.out)


@pytest.mark.usefixtures("fixture_catalog")
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_models_golden(cli, lang: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("models", "show", "llama3.1:8b", "--lang", lang)
    assert res.code == 0, res.err
    _golden(f"models-show-llama31.{lang}.txt", res.out)


def test_gpus_json_contract(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("gpus", "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert len(data) >= 100
    for g in data:
        for key in (
            "id",
            "name",
            "vendor",
            "memory_gb",
            "memory_bandwidth_gbps",
            "tflops",
            "tdp_w",
            "sources",
        ):
            assert key in g, (g["id"], key)
        assert g["sources"] and all({"url", "retrieved"} <= set(s) for s in g["sources"])


def test_models_json_contract(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("models", "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert len(data) >= 45
    for m in data:
        for key in (
            "id",
            "params_b",
            "active_params_b",
            "layers",
            "hidden_size",
            "heads",
            "kv_heads",
            "head_dim",
            "vocab_size",
            "max_context",
            "sources",
        ):
            assert key in m, (m["id"], key)


def test_gpus_filters(cli) -> None:  # type: ignore[no-untyped-def]
    data = cli("gpus", "--vendor", "amd", "--min-memory", "100", "--json").json()
    assert data and all(g["vendor"] == "amd" and g["memory_gb"] >= 100 for g in data)
    data = cli("gpus", "--class", "consumer", "--sort", "bandwidth", "--json").json()
    bws = [g["memory_bandwidth_gbps"] or 0 for g in data]
    assert bws == sorted(bws, reverse=True)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("gpus", "show", "RTX 9999"), "unknown GPU"),
        (("models", "show", "not-a-model-xyz"), "unknown model"),
        (("gpus", "--vendor", "nvidai"), "--vendor"),
        (("gpus", "--sort", "speed"), "--sort"),
        (("gpus", "--min-memory", "-3"), "--min-memory"),
        (("--lang", "fr", "gpus"), "--lang"),
        (("models", "show", "/no/such/dir/config.json"), "does not exist"),
    ],
)
def test_bad_input_one_line_exit_2(cli, args: tuple[str, ...], needle: str) -> None:  # type: ignore[no-untyped-def]
    res = cli(*args)
    assert res.code == 2
    assert needle in res.err
    assert len(res.err.strip().splitlines()) == 1
    assert "Traceback" not in res.err


def test_unknown_gpu_suggests_close_name(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("gpus", "show", "RTX 4900")
    assert res.code == 2 and "rtx-4090" in res.err


def test_chinese_error_message(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("gpus", "show", "RTX 9999", "--lang", "zh")
    assert res.code == 2 and "未知的 GPU" in res.err


def test_debug_shows_traceback(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("gpus", "show", "RTX 9999", "--debug")
    assert res.code == 2 and "Traceback" in res.err


def test_help_in_both_languages(cli) -> None:  # type: ignore[no-untyped-def]
    assert "buy or rent" in cli("--help").out
    assert "买卡还是租云" in cli("--help", "--lang", "zh").out


def test_lang_from_environment(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from gpuwise.i18n import detect_lang

    monkeypatch.setenv("GPUWISE_LANG", "zh")
    assert detect_lang(None) == "zh"
    monkeypatch.delenv("GPUWISE_LANG")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert detect_lang(None) == "zh"
    assert detect_lang("en") == "en"


def test_click_messages_follow_the_language(cli) -> None:  # type: ignore[no-untyped-def]
    zh = cli("gpus", "--bogus", "--lang", "zh")
    assert zh.code == 2 and "没有选项" in zh.err
    en = cli("gpus", "--bogus", "--lang", "en")  # the same process: English again
    assert en.code == 2 and "No such option" in en.err
    assert "选项" in cli("gpus", "--help", "--lang", "zh").out


def test_a_mistyped_command_gets_one_suggestion_in_the_language(cli) -> None:  # type: ignore[no-untyped-def]
    """click 8.2+ suggests close names itself (ngettext); typer's own suggestion doubled it."""
    en = cli("estmate", "qwen2.5:7b", "--lang", "en")
    assert en.code == 2 and en.err.count("Did you mean 'estimate'?") == 1
    zh = cli("estmate", "qwen2.5:7b", "--lang", "zh")
    assert zh.code == 2 and "没有命令" in zh.err and "您是不是要输入 'estimate'" in zh.err
    assert "Did you mean" not in zh.err
    opt = cli("estimate", "qwen2.5:7b", "--gpuu", "4090", "--lang", "zh")
    assert opt.code == 2 and "其中之一" in opt.err and "'--gpu'" in opt.err


def test_the_command_on_the_line_is_the_only_one_registered() -> None:
    """Only the invoked command's module is imported (typer inspects every registered
    function on each start); root help and unknown names register all of them."""
    from gpuwise.cli.app import COMMANDS, build_app

    def names(app: object) -> set[str]:
        found = [*app.registered_groups, *app.registered_commands]  # type: ignore[attr-defined]
        return {c.name or c.callback.__name__ for c in found}

    assert names(build_app(only="estimate")) == {"estimate"}
    assert names(build_app(only="runs")) == {"runs"}
    assert names(build_app(only="estmate")) == set(COMMANDS)
    assert names(build_app()) == set(COMMANDS)


def test_gpus_show_says_date_unknown_for_an_undated_price(cli) -> None:  # type: ignore[no-untyped-def]
    """An undated card price was printed as '(None)'; it reads 'date unknown' like cost does."""
    res = cli("gpus", "show", "2080Ti 22G", "--lang", "en")
    assert res.code == 0, res.err
    assert "1,700 CNY (date unknown)" in res.out
    assert "(None)" not in res.out
    assert "modified card" in res.out
