"""Provider names → provider ids (pure): 华为云, "Huawei Cloud", huaweicloud and huawei all land on
`huawei`; a name the catalog does not list is refused with the nearest names, never folded into
another provider.

Why not :func:`gpuwise.catalog.names.normalize`: that folds *GPU* names, so it drops vendor words
("huawei", "google", "amd") and every non-ASCII character. A Chinese provider name then folds to
"" — which equalled Alibaba's folded 阿里云, so every Chinese name became Alibaba (review 3,
map-quotes-huawei). Provider keys keep every letter of every script and drop only case, width,
spaces and punctuation; the spellings a provider is known by are catalog data (`aliases` in the
clouds/*.toml provider tables), matched exactly, so nothing is guessed.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Protocol

from gpuwise.errors import UserError


class Named(Protocol):
    """What resolution reads of a provider (typed Provider or the offer index's ProviderInfo)."""

    @property
    def id(self) -> str:
        """The catalog id."""
        ...

    @property
    def name_en(self) -> str:
        """English name."""
        ...

    @property
    def name_zh(self) -> str:
        """Chinese name."""
        ...

    @property
    def aliases(self) -> Iterable[str]:
        """Other spellings (catalog data)."""
        ...


def provider_key(name: str) -> str:
    """The form names are compared in: NFKC (full-width → ASCII), case-folded, letters and
    digits of every script kept, everything else dropped ("Huawei Cloud" → "huaweicloud",
    "华为 云" → "华为云", "Vast.ai" → "vastai")."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def names_of(p: Named) -> list[str]:
    """Every name a provider answers to: id, English and Chinese names, aliases."""
    return [p.id, p.name_en, p.name_zh, *p.aliases]


def provider_index(providers: Iterable[Named]) -> tuple[dict[str, str], list[str]]:
    """key → provider id, and the names two providers both claim (a data error: tests and the
    override guard refuse them). A provider's own id always wins over another's alias."""
    index: dict[str, str] = {}
    owner_is_id: dict[str, bool] = {}
    clashes: list[str] = []
    for p in providers:
        for i, name in enumerate(names_of(p)):
            key = provider_key(name)
            if not key:
                continue
            if key in index and index[key] != p.id:
                clashes.append(f"{name!r}: {index[key]} / {p.id}")
                if owner_is_id[key] or i != 0:
                    continue
            index[key] = p.id
            owner_is_id[key] = i == 0
    return index, clashes


def resolve(index: Mapping[str, str], name: str) -> str | None:
    """The provider id a name means, or None (an empty key never matches anything)."""
    key = provider_key(name)
    return index.get(key) if key else None


def nearest(
    index: Mapping[str, str], name: str, labels: Mapping[str, str], n: int = 3
) -> list[str]:
    """Up to `n` providers whose names are closest to `name`, as labels, best first: close
    spellings (difflib), then names that contain or are contained in it ("华为" → 华为云)."""
    key = provider_key(name)
    if not key:
        return []
    hits = difflib.get_close_matches(key, list(index), n=n * 3, cutoff=0.6)
    hits += [k for k in index if (key in k or k in key) and k not in hits]
    out: list[str] = []
    for hit in hits:
        label = labels.get(index[hit], index[hit])
        if label not in out:
            out.append(label)
    return out[:n]


def label_of(p: Named) -> str:
    """How a suggestion names a provider: `huawei (Huawei Cloud / 华为云)`."""
    names = [p.name_en] + ([p.name_zh] if p.name_zh != p.name_en else [])
    return f"{p.id} ({' / '.join(names)})"


def find_id(providers: Mapping[str, Named], name: str) -> str:
    """The id of the provider `name` means; an unknown name is a UserError (exit 2) that lists
    the nearest providers."""
    index, _ = provider_index(providers.values())
    found = resolve(index, name)
    if found is not None:
        return found
    raise unknown(providers, index, name)


def unknown(providers: Mapping[str, Named], index: Mapping[str, str], name: str) -> UserError:
    """The error for a name no provider answers to, with the nearest ones (or all of them)."""
    from gpuwise.i18n import t

    labels = {pid: label_of(p) for pid, p in providers.items()}
    close = nearest(index, name, labels)
    if close:
        hint = t("cli.did_you_mean", names=", ".join(close))
    else:
        hint = t("providers.known", names=", ".join(sorted(providers)))
    return UserError("providers.unknown", name=name, hint=hint)
