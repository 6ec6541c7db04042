"""The rows of a plan's options table: distinct choices, each with its place in the ranking.

The ranking itself is unchanged; the table gives each card bought, or each seller's card on
one billing, its best-ranked size and its fastest on the cost/time front, and says which ranks
it leaves out (blind w35-05: five sizes of one AutoDL offer filled a top five).
"""

from __future__ import annotations

from gpuwise.advise.evaluate import Option
from gpuwise.advise.report_model import TextItem
from gpuwise.i18n import t


def _family(o: Option) -> tuple[object, ...]:
    """One card bought, or one seller's card on one billing: the table gives a family two rows
    at most (table_rows), since five sizes of one AutoDL offer filled a top five and hid the
    half-as-long run on another card (blind w35-05). The ranking itself is unchanged, and
    each row says its place in it."""
    c = o.candidate
    seller = c.provider.id if c.provider else (c.system.id if c.system else "")
    return (c.kind, seller, c.gpu.id, c.billing, c.owned_kept, c.beside_owned, c.already_owned)


def table_rows(options: list[Option], top: int) -> list[tuple[int, Option]]:
    """(rank, option) for the table, in ranking order: each family's best-ranked option and,
    beside it, its fastest option on the cost/time Pareto front (a size that ends sooner for
    a little more money is a choice to show; the sizes between them are not)."""
    firsts: dict[tuple[object, ...], int] = {}
    fastest: dict[tuple[object, ...], int] = {}
    for i, o in enumerate(options):
        family = _family(o)
        firsts.setdefault(family, i)
        if o.pareto and (family not in fastest or _quicker(o, options[fastest[family]])):
            fastest[family] = i
    chosen = sorted({*firsts.values(), *fastest.values()})
    return [(i + 1, options[i]) for i in chosen[:top]]


def skipped_rows(rows: list[tuple[int, Option]]) -> list[TextItem]:
    """The ⓘ line that says which ranks the table leaves out (other sizes of its rows)."""
    ranks = [r for r, _ in rows]
    skipped = sorted(set(range(1, ranks[-1] + 1)) - set(ranks)) if ranks else []
    if not skipped:
        return []
    spans = t("plan.enum_sep").join(_span(group) for group in _runs(skipped))
    return [TextItem(id="plan.note_rows_skipped", text=t("plan.note_rows_skipped", ranks=spans))]


def _runs(ranks: list[int]) -> list[list[int]]:
    """Consecutive ranks grouped: [2, 3, 4, 7] -> [[2, 3, 4], [7]]."""
    out: list[list[int]] = []
    for r in ranks:
        if out and out[-1][-1] == r - 1:
            out[-1].append(r)
        else:
            out.append([r])
    return out


def _span(group: list[int]) -> str:
    return f"#{group[0]}" if len(group) == 1 else f"#{group[0]}–{group[-1]}"


def _quicker(a: Option, b: Option) -> bool:
    """Whether `a` ends its run sooner (a run) or serves more tokens/s (a service) than `b`."""
    if a.time_hours and b.time_hours:
        return a.time_hours < b.time_hours
    return a.sized.tokens_per_s > b.sized.tokens_per_s


__all__ = ["skipped_rows", "table_rows"]
