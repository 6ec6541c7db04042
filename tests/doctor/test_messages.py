"""Every finding the rules can produce has a title, what was seen, why and a fix in English and
Chinese, and formats without leftover placeholders."""

from __future__ import annotations

import re

import pytest

from gpuwise.doctor.engine import FINDING_IDS
from gpuwise.doctor.model import Finding
from gpuwise.doctor.rules_ollama import WHY_KEYS
from gpuwise.i18n import messages, t

PARTS = ("title", "seen", "why", "fix")


@pytest.mark.parametrize("fid", FINDING_IDS)
def test_finding_texts_exist_in_both_languages(fid: str) -> None:
    m = messages()
    for part in PARTS:
        texts = m.get(f"doctor.f.{fid}.{part}")
        assert texts and texts.get("en") and texts.get("zh"), f"{fid}.{part}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_findings_format_completely(lang: str) -> None:
    field = re.compile(r"\{(\w+)")
    for fid in FINDING_IDS:
        names = {
            n for part in PARTS for n in field.findall(messages()[f"doctor.f.{fid}.{part}"][lang])
        }
        f = Finding(fid, "info", dict.fromkeys(names, "X"))
        for part in PARTS:
            text = t(f"doctor.f.{fid}.{part}", lang=lang, **f.params)
            assert "{" not in text, (fid, part, text)


def test_variant_texts_exist_in_both_languages_and_format() -> None:
    """`<part>_<variant>` texts (Finding.params["variant"]) are complete like the base ones."""
    field = re.compile(r"\{(\w+)")
    variants = [
        k for k in messages() if k.startswith("doctor.f.") and k.rsplit(".", 1)[1] not in PARTS
    ]
    assert variants
    for key in variants:
        texts = messages()[key]
        assert texts.get("en") and texts.get("zh"), key
        for lang in ("en", "zh"):
            names = set(field.findall(texts[lang]))
            assert "{" not in t(key, lang=lang, **dict.fromkeys(names, "X")), key


def test_ollama_reasons_and_ids_unique() -> None:
    for key in WHY_KEYS:
        assert f"doctor.ollama_why.{key}" in messages()
    assert len(FINDING_IDS) == len(set(FINDING_IDS))
