"""gpuwise.userfiles: encodings, limits and parsers for files people give; atomic outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwise import userfiles
from gpuwise.errors import CatalogError, UserError

TEXT = "name: 中文场景 ￥\nmonths: 6\n"


@pytest.mark.parametrize(
    ("encoding", "detected"),
    [
        ("utf-8", "utf-8"),
        ("utf-8-sig", "utf-8-sig"),
        ("utf-16", "utf-16"),
        ("utf-16-le", None),  # no BOM: NUL bytes, refused as binary (never guessed)
        ("utf-32", "utf-32"),
        ("gbk", "gb18030"),
        ("gb18030", "gb18030"),
    ],
)
def test_encodings(tmp_path: Path, encoding: str, detected: str | None) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(TEXT.encode(encoding))
    if detected is None:
        with pytest.raises(UserError, match="not a text file"):
            userfiles.read_text(path)
        return
    assert userfiles.read_text(path) == TEXT
    assert userfiles.decode(path.read_bytes(), path)[1] == detected


def test_debug_says_which_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gpuwise.diag import set_debug

    path = tmp_path / "s.yaml"
    path.write_bytes(TEXT.encode("gbk"))
    set_debug(True)
    try:
        userfiles.read_text(path)
    finally:
        set_debug(False)
    assert "as gb18030" in capsys.readouterr().err


def test_error_class_is_the_callers(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(b"\x00\x01")
    with pytest.raises(CatalogError):
        userfiles.read_text(path, CatalogError)


def test_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b"#" * (userfiles.MAX_BYTES + 1))
    with pytest.raises(UserError, match="bytes"):
        userfiles.read_text(path)


@pytest.mark.parametrize(
    ("fmt", "text", "words"),
    [
        ("yaml", "a: 1\nb: 2\na: 3\n", [":3", "'a'", "twice"]),
        ("yaml", "a: {b: 1, b: 2}\n", [":1", "'b'"]),
        ("json", '{"a": 1,\n"a": 2}', [":2", "'a'"]),
        ("toml", "a = 1\na = 2\n", ["TOML"]),
        ("yaml", "a: &x [1, *x]\n", ["contains itself"]),
        ("yaml", "a: " + "[" * 40 + "]" * 40, ["nested more than 32"]),
        ("json", "[" * 40 + "]" * 40, ["nested more than 32"]),
        ("yaml", "a: !!python/name:os.system\n", ["YAML"]),
    ],
)
def test_parse_refuses(tmp_path: Path, fmt: str, text: str, words: list[str]) -> None:
    with pytest.raises(UserError) as err:
        userfiles.parse(text, tmp_path / f"f.{fmt}", fmt)
    message = err.value.render()
    for word in words:
        assert word in message, message


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    text = "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x: 3\n"
    assert userfiles.parse(text, tmp_path / "f.yaml", "yaml")["m"] == {"x": 3, "y": 2}


def test_write_output_is_atomic_and_keeps_a_backup(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_text("mine", encoding="utf-8")

    def boom(tmp: Path) -> None:
        tmp.write_text("half", encoding="utf-8")
        raise OSError(28, "No space left on device")

    with pytest.raises(UserError, match="No space left"):
        userfiles.write_output(target, boom, True, "--markdown")
    assert target.read_text(encoding="utf-8") == "mine"  # untouched
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]  # no temp file left behind
    userfiles.write_text_output(target, "new", True, "--markdown")
    assert target.read_text(encoding="utf-8") == "new"
    assert (tmp_path / "report.md.bak").read_text(encoding="utf-8") == "mine"


def test_check_output_refuses_before_work(tmp_path: Path) -> None:
    (tmp_path / "exists.md").write_text("x", encoding="utf-8")
    for path, words in (
        (tmp_path / "exists.md", "--force"),
        (tmp_path, "folder"),
        (tmp_path / "no" / "r.md", "does not exist"),
    ):
        with pytest.raises(UserError, match=words):
            userfiles.check_output(path, False, "--markdown")


def test_replace_managed_keeps_the_previous_version_as_bak(tmp_path: Path) -> None:
    path = tmp_path / "quotes-x.toml"
    assert userfiles.replace_managed(path, "# managed v1\n") is False  # nothing to keep yet
    assert not path.with_name("quotes-x.toml.bak").exists()
    assert userfiles.replace_managed(path, "# managed v2\n") is True
    assert path.read_text(encoding="utf-8") == "# managed v2\n"
    assert path.with_name("quotes-x.toml.bak").read_text(encoding="utf-8") == "# managed v1\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_read_managed_refuses_a_file_without_the_marker_on_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "gpuwise-calibration.toml"
    assert userfiles.read_managed(path, "gpuwise-managed", "calibrate.not_managed") is None
    path.write_text("# my own notes\n# gpuwise-managed\n", encoding="utf-8")
    with pytest.raises(UserError) as err:
        userfiles.read_managed(path, "gpuwise-managed", "calibrate.not_managed")
    assert err.value.key == "calibrate.not_managed" and err.value.params["path"] == str(path)
    path.write_text("# gpuwise-managed: v1\nx = 1\n", encoding="utf-8")
    assert userfiles.read_managed(path, "gpuwise-managed", "calibrate.not_managed") == (
        "# gpuwise-managed: v1\nx = 1\n"
    )
