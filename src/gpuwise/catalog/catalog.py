"""The validated catalog object: typed entries, their sources, and name lookup."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from gpuwise.catalog import files as F
from gpuwise.catalog.lazy import LazyParts
from gpuwise.catalog.names import build_index, normalize, suggest
from gpuwise.catalog.raw import RawCatalog, RawEntry
from gpuwise.catalog.schema import Gpu, LlmModel, Source, Sourced
from gpuwise.catalog.sourcing import locate_line
from gpuwise.errors import CatalogError, UserError
from gpuwise.i18n import t

if TYPE_CHECKING:
    from pydantic import BaseModel

    from gpuwise.catalog.schema_cloud import HiddenCosts, Offer, Provider


T = TypeVar("T")


def did_you_mean(names: list[str]) -> str:
    """ " did you mean: a, b?" in the user's language, or nothing when there is no close name."""
    return t("cli.did_you_mean", names=", ".join(names)) if names else ""


@dataclass(frozen=True)
class Catalog:
    """Everything gpuwise knows, validated. Built once per process (and cached on disk)."""

    sources: dict[str, Source]
    gpus: tuple[Gpu, ...]
    models: tuple[LlmModel, ...]
    parts: LazyParts = field(default_factory=LazyParts)
    """Cloud data and the extra kinds, each unpickled only when asked for (see lazy.py)."""
    files: tuple[str, ...] = ()
    gpu_index: dict[str, str] = field(default_factory=dict)
    model_index: dict[str, str] = field(default_factory=dict)
    name_clashes: tuple[str, ...] = ()
    findings: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    """Problems that did not stop loading (a refreshed price feed that no longer validates
    was left out): (message key, params)."""

    @property
    def providers(self) -> dict[str, Provider]:
        """Cloud providers by id."""
        return self.parts.get("providers", {})  # type: ignore[no-any-return]

    @property
    def hidden_costs(self) -> dict[str, HiddenCosts]:
        """Each provider's storage, egress and IP prices, by provider id."""
        return self.parts.get("hidden_costs", {})  # type: ignore[no-any-return]

    @property
    def offers(self) -> tuple[Offer, ...]:
        """Every priced cloud offer."""
        return self.parts.get("offers", ())  # type: ignore[no-any-return]

    @property
    def extras(self) -> dict[str, tuple[Any, ...]]:
        """Every extra kind (unpickles them all; commands use `extra(kind)`)."""
        return {k[len(EXTRA) :]: self.parts[k] for k in self.parts if k.startswith(EXTRA)}

    def with_part(self, name: str, value: Any) -> Catalog:
        """A copy with one part replaced ("offers", "providers", "hidden_costs" or
        "extra:<kind>"): what benchmarks and tests use to build variants of the catalog."""
        values = {key: self.parts[key] for key in self.parts}
        values[name] = value
        return replace(self, parts=LazyParts(values))

    def derived(self, key: Hashable, build: Callable[[], T]) -> T:
        """A value computed from this catalog alone (an index, a resale curve), built once.

        Why: the planner asks the same catalog the same question for every candidate. The memo
        lives on this object, so a catalog with other data (overrides, `with_part`, a refreshed
        file) is another object and never sees it; it is left out of the pickled cache."""
        memo: dict[Hashable, Any] = self.__dict__.setdefault("_derived", {})
        if key not in memo:
            memo[key] = build()
        return memo[key]  # type: ignore[no-any-return]

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the memo of derived values (they are rebuilt on use)."""
        state = dict(self.__dict__)
        state.pop("_derived", None)
        return state

    def gpu_by_id(self, gpu_id: str) -> Gpu:
        """The GPU with exactly this id (KeyError if none)."""
        by_id = self.derived("gpus_by_id", lambda: {g.id: g for g in reversed(self.gpus)})
        return by_id[gpu_id]

    def gpu(self, name: str) -> Gpu:
        """Resolve a user-typed GPU name; unknown names raise a UserError with suggestions."""
        gpu_id = self.gpu_index.get(normalize(name))
        if gpu_id is None:
            display = {g.id: g.id for g in self.gpus}
            raise UserError(
                "gpu.unknown", name=name, hint=did_you_mean(suggest(name, self.gpu_index, display))
            )
        return self.gpu_by_id(gpu_id)

    def model(self, name: str) -> LlmModel:
        """Resolve a catalog id, alias, Hugging Face repo id or Ollama tag to a model."""
        model_id = self.model_index.get(normalize(name))
        if model_id is None and ":" in name:
            # Ollama tags such as qwen2.5:7b-instruct-q4_K_M: drop trailing -parts one at a time,
            # so qwen3:30b-a3b-instruct-2507-q4_K_M finds the 2507 model before plain qwen3:30b.
            base, _, rest = name.partition(":")
            parts = rest.split("-")
            for keep in range(len(parts) - 1, 0, -1):
                model_id = self.model_index.get(normalize(f"{base}:{'-'.join(parts[:keep])}"))
                if model_id is not None:
                    break
        if model_id is None and "/" in name:
            model_id = self._training_stage_sibling(name) or self._rehosted(name)
        if model_id is None:
            display = {m.id: m.id for m in self.models}
            raise UserError(
                "model.unknown",
                name=name,
                hint=did_you_mean(suggest(name, self.model_index, display)),
            )
        return next(m for m in self.models if m.id == model_id)

    def _training_stage_sibling(
        self, name: str, lookup: Callable[[str], str | None] | None = None
    ) -> str | None:
        """A Hugging Face repo named for another training stage of a model the catalog has:
        Qwen/Qwen3-8B-Base, …-Instruct, …-Chat, google/gemma-3-27b-pt / -it. The pre-trained and
        the tuned checkpoints of one release share their config.json (layers, heads, sizes),
        so they are the same model to every estimate. Only stage words are dropped, never a
        format (-FP8, -AWQ) or a release (-2507), which change what is loaded. `lookup` finds
        a stem (default: the catalog's own names)."""
        find = lookup or (lambda repo: self.model_index.get(normalize(repo)))
        repo = name.rstrip("/")
        while True:
            stem, sep, last = repo.rpartition("-")
            if not sep or last.lower() not in TRAINING_STAGE_WORDS:
                return None
            repo = stem
            found = find(repo)
            if found is not None:
                return found

    def _rehosted(self, name: str) -> str | None:
        """A copy of a catalog repository under another account (unsloth/, RedHatAI/,
        bartowski/ re-host the weights under the model's own name), or another training stage
        of one: the repository name alone finds it where exactly one model has a repository of
        that name."""
        by_name: dict[str, set[str]] = self.derived("repo_names", self._repo_names)

        def one(repo: str) -> str | None:
            ids = by_name.get(normalize(repo.rstrip("/").rpartition("/")[2]), set())
            return next(iter(ids)) if len(ids) == 1 else None

        return one(name) or self._training_stage_sibling(name, one)

    def _repo_names(self) -> dict[str, set[str]]:
        """Model ids by the name part of their Hugging Face repositories."""
        out: dict[str, set[str]] = {}
        for m in self.models:
            for repo in m.hf_repos:
                out.setdefault(normalize(repo.rpartition("/")[2]), set()).add(m.id)
        return out

    def sources_of(self, entry: Sourced) -> list[Source]:
        """The sources an entry's numbers come from."""
        return [self.sources[s] for s in entry.source_ids() if s in self.sources]

    def extra(self, kind: str) -> tuple[Any, ...]:
        """Owning, FX and feature data by kind (see schema_extra.EXTRA_KINDS)."""
        return self.parts.get(EXTRA + kind, ())  # type: ignore[no-any-return]


EXTRA = "extra:"
TRAINING_STAGE_WORDS = frozenset(("base", "instruct", "chat", "it", "pt"))
"""Suffixes of Hugging Face repos that name a training stage, not another architecture."""
"""Prefix of the extra kinds' names among a catalog's lazy parts."""


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Override keys win; nested tables merge one level deep."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and "value" not in value:
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


KEY_FIELDS: dict[str, tuple[str, ...]] = {
    "decode_efficiency": ("engine", "memory"),
    "decode_overhead": ("engine", "backend"),
    "dequant_cost": ("engine", "kind"),
    "prefill_efficiency": ("engine", "backend", "architecture", "rate", "model_kind"),
    "kernel_path": ("engine", "backend", "kind", "before"),
    "engine_era": ("engine", "before"),
    "train_efficiency": ("mode", "architecture", "precision", "model_kind"),
    "step_launch": ("engine",),
    "error_band": ("kind", "engine", "card_class"),
    "engine_scheduler": ("engine", "min_memory_gb", "unless_name_contains", "built_before"),
    "kv_read_cost": ("engine", "backend", "kv_dtype", "built_before"),
    "matmul_fraction": ("architecture",),
    "architecture_generation": ("architecture",),
    "feature": ("stack", "feature"),
    "resale": ("gpu", "date", "months_since_launch"),
    "bench_reference": ("metric", "architecture"),
    "measured_rate": ("gpu", "metric", "engine"),
    "training_support": ("gpu", "framework"),
}
"""Entries without an `id` are matched by these fields when an override corrects them."""
SINGLETONS = (
    "hidden_costs",
    "activation_model",
    "psu_sizing",
    "host_memory",
    "fit_settings",
    "power_scaling",
    "provider",
)


def _entry_key(e: RawEntry) -> str | None:
    """What makes two entries of a kind the same entry (so an override merges, not duplicates)."""
    if e.kind == "offer":
        return f"{e.context.get('provider')}:{e.data.get('instance')}"
    if e.kind in KEY_FIELDS:
        return "/".join(str(e.data.get(f, "any")) for f in KEY_FIELDS[e.kind])
    if e.kind == "hidden_costs":
        return e.context.get("provider") or None
    if e.data.get("id"):
        return str(e.data["id"])
    return e.kind if e.kind in SINGLETONS else None


def _overlay(entries: list[RawEntry]) -> list[RawEntry]:
    """Later entries with the same kind and key (user overrides) merge over earlier ones."""

    out: list[RawEntry] = []
    where: dict[tuple[str, str], int] = {}
    for e in entries:
        key_id = _entry_key(e)
        key = (e.kind, key_id) if key_id else None
        if key and key in where:
            old = out[where[key]]
            out[where[key]] = RawEntry(
                e.kind, _merge(old.data, e.data), e.file, e.index, e.text, e.context
            )
        else:
            if key:
                where[key] = len(out)
            out.append(e)
    return out


def build(raw: RawCatalog, files: list[Path]) -> Catalog:
    """Validate raw entries into a Catalog and check every source reference."""
    provider_sources = {
        str(e.data.get("id")): str(e.data.get("source", ""))
        for e in raw.entries
        if e.kind == "provider"
    }
    typed: dict[str, list[BaseModel]] = {}
    from gpuwise.catalog import guard
    from gpuwise.catalog import load as L
    from gpuwise.catalog.schema_extra import EXTRA_KINDS

    guard.check_duplicates(raw.entries, _entry_key)
    guard.check_sources(raw.entries, F.override_dir())
    overlaid = _overlay(raw.entries)
    guard.check_aliases(overlaid, F.override_dir())
    origins: dict[str, str] = {}  # per file, not per offer: each asks the disk for real paths
    for e in overlaid:
        ctx = dict(e.context)
        if e.kind in ("offer", "hidden_costs"):
            ctx["default_source"] = provider_sources.get(ctx.get("provider", ""), "")
        if e.kind == "offer":
            if e.file not in origins:
                origins[e.file] = _origin(e.file)
            ctx["origin"] = origins[e.file]
        model = {**L.ARRAY_KINDS, **L.SINGLE_KINDS, **EXTRA_KINDS}[e.kind]
        obj = L.validate_remembered(RawEntry(e.kind, e.data, e.file, e.index, e.text, ctx), model)
        _check_sources(obj, raw.sources, e)
        typed.setdefault(e.kind, []).append(obj)
    return _assemble(raw, typed, files)


def _origin(file: str) -> str:
    """catalog, feed (a refreshed price feed in the user cache) or user (an override file)."""
    from gpuwise.catalog.guard import is_override

    if is_override(file, F.override_dir()):
        return "user"
    return "feed" if is_override(file, F.feed_dir()) else "catalog"


def _check_sources(obj: BaseModel, sources: dict[str, Source], e: RawEntry) -> None:
    ids = obj.source_ids() if hasattr(obj, "source_ids") else []
    for sid in ids:
        if sid not in sources:
            line = locate_line(e.text, e.kind, e.index, "source")
            raise CatalogError("catalog.unknown_source", file=e.file, line=line, source=sid)


def _assemble(raw: RawCatalog, typed: dict[str, list[BaseModel]], files: list[Path]) -> Catalog:
    from gpuwise.catalog.schema_cloud import HiddenCosts, Offer, Provider
    from gpuwise.catalog.schema_extra import EXTRA_KINDS

    gpus = tuple(g for g in typed.get("gpu", []) if isinstance(g, Gpu))
    models = tuple(m for m in typed.get("model", []) if isinstance(m, LlmModel))
    gpu_index, gpu_clash = build_index((g.id, [g.id, g.name, *g.aliases]) for g in gpus)
    model_index, model_clash = build_index(
        (m.id, [m.id, m.name, *m.aliases, *m.hf_repos, *m.ollama_tags]) for m in models
    )
    providers = {p.id: p for p in typed.get("provider", []) if isinstance(p, Provider)}
    hidden = {h.provider: h for h in typed.get("hidden_costs", []) if isinstance(h, HiddenCosts)}
    extras = {EXTRA + k: tuple(v) for k, v in typed.items() if k in EXTRA_KINDS}
    offers = tuple(o for o in typed.get("offer", []) if isinstance(o, Offer))
    return Catalog(
        sources=raw.sources,
        gpus=gpus,
        models=models,
        parts=LazyParts(
            {"providers": providers, "hidden_costs": hidden, "offers": offers, **extras}
        ),
        files=tuple(str(f) for f in files),
        gpu_index=gpu_index,
        model_index=model_index,
        name_clashes=tuple(gpu_clash + model_clash),
    )


_loaded: dict[str, Catalog] = {}


def load_catalog(use_overrides: bool = True, use_cache: bool = True) -> Catalog:
    """The built-in catalog, the refreshed price feeds, then the user's overrides on top.

    Overrides come from `GPUWISE_CONFIG_DIR/catalog/*.toml` (default: the platform's user config
    dir); gpuwise only reads them. A feed (`gpuwise prices refresh`, in the user cache) or an
    override file that does not validate is left out, named in `findings` and warned about on
    stderr (file, line, what is wrong): one broken file never stops every command.
    """
    feeds = F.feed_files() if use_overrides else []
    overrides = F.override_files() if use_overrides else []
    files = F.builtin_files() + feeds + overrides
    key = F.fingerprint(files)
    cat = _loaded.get(key)
    if cat is None:
        cat = F.load_cached(key) if use_cache else None
        if not isinstance(cat, Catalog):
            cat = build_skipping(files, feeds + overrides)
            if use_cache:
                F.store_cached(key, cat)
        _loaded[key] = cat
    warn_left_out(cat.findings)  # once per command run, however often the catalog is asked for
    return cat


Finding = tuple[str, tuple[tuple[str, str], ...]]


def build_skipping(files: Sequence[Path], droppable: Collection[Path]) -> Catalog:
    """Build from `files` (in order: later files overlay earlier ones). A droppable file (a
    refreshed feed, a user override) that breaks the build is left out and named in
    `findings`, and the build runs again without it; an error in any other file is raised."""
    from gpuwise.catalog import load as L
    from gpuwise.catalog.guard import is_override

    kept, findings = list(files), list[Finding]()
    may_drop = {str(f) for f in droppable}
    while True:
        try:
            cat = build(L.read_files(kept), kept)
        except CatalogError as exc:
            bad = str(exc.params.get("file", ""))
            if bad not in may_drop or not any(str(f) == bad for f in kept):
                raise
            kept = [f for f in kept if str(f) != bad]
            feed = is_override(bad, F.feed_dir())
            key = "prices.feed_left_out" if feed else "catalog.override_left_out"
            findings.append((key, (("file", bad), ("problem", exc.render()))))
            continue
        return replace(cat, findings=(*cat.findings, *findings))


def warn_left_out(findings: tuple[Finding, ...] | list[Finding]) -> None:
    """One stderr line per user file that was left out (once per command run): the file, the
    line and what is wrong, and that everything else still works."""
    import sys

    from gpuwise.diag import first_time

    for key, params in findings:
        values = dict(params)
        if key == "catalog.override_left_out" and first_time(f"left-out:{values.get('file')}"):
            sys.stderr.write(f"{t('cli.warning')}: {t(key, None, **values)}\n")
