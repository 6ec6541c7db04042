"""Every message exists in both languages, and every key the code uses exists."""

from __future__ import annotations

import re
from pathlib import Path

from gpuwise.i18n import messages, t

SRC = Path(__file__).parent.parent / "src" / "gpuwise"
KEY_CALL = re.compile(r"""(?:\bt|Error)\(\s*["']([a-z_]+\.[a-z0-9_.]+)["']""")


def test_every_key_has_both_languages() -> None:
    missing = [k for k, v in messages().items() if not v.get("en") or not v.get("zh")]
    assert not missing, missing


def test_every_key_used_in_code_exists() -> None:
    used: set[str] = set()
    for path in SRC.rglob("*.py"):
        used.update(KEY_CALL.findall(path.read_text(encoding="utf-8")))
    for path in SRC.rglob("*.py"):  # validators raise ValueError("validate.…")
        used.update(
            re.findall(r'ValueError\("([a-z_]+\.[a-z_]+)"\)', path.read_text(encoding="utf-8"))
        )
    known = set(messages())
    assert used, "the scan found no keys"
    assert not used - known, sorted(used - known)


def test_placeholders_match_between_languages() -> None:
    """Same fields in both languages; a `note_en` in English pairs with a `note_zh` in Chinese."""
    fields = re.compile(r"\{(\w+)")

    def paired(text: str, lang: str) -> set[str]:
        return {
            f.removesuffix(f"_{lang}") + "_lang" if f.endswith(f"_{lang}") else f
            for f in fields.findall(text)
        }

    for key, texts in messages().items():
        assert paired(texts["en"], "en") == paired(texts["zh"], "zh"), key


def test_format_and_fallback() -> None:
    assert t("gpu.unknown", lang="zh", name="x", hint="").startswith("未知的 GPU")
    assert t("no.such.key") == "no.such.key"
