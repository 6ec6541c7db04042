"""A public API keeps one spare copy of the model: N+1 replicas, hot or cold.

Users of a public API expect it up (an SLA to keep), and any single instance goes down at
times: a host fault, a driver update, a cloud's maintenance window, a card that dies. A capacity
planner therefore runs one replica more than the load needs, in every kind of option — an owned
server as much as a data-centre rental (a blind review found the plan priced a standby only for
marketplace hosts, so the comparison was lopsided, and an expert asked for two H100 instances
where the plan rented one). The spare costs the hardware (the instance hours of a rental;
cards, host or system, upkeep, resale and rack space of a purchase) of what one machine
carries, since a machine, not a card, is what fails (spare_replicas): copies spread one per
machine pay 1/N more, which is why many small machines fail over cheaply, and copies that
share one machine pay for a second machine that carries the load. Power of a spare that
idles is left out (said in the item's name). Marketplace rentals of a 24/7 service already
carry their standby replica (advise.marketplace) and are not charged twice.

A hot spare is not the only standby. Where the budget buys either the speed or the spare but
not both, an expert keeps the fast primary and stands by cold: a rented replacement started on
failure (minutes, where the cloud has a free card), an owned machine repaired — the service is
down meanwhile. Doubling every single-server option made a 1× H100 service at $1.8k a month
cost $3.6k, over a $3k budget, and the plan fell to a 4-bit RTX A6000 at 6 tokens/s per user
(blind w21-05). So with `standby: auto` an option that holds its speed at the slow end of its
band has a cold twin if it is a rental (a bought server stands by cold for days of repair, not
minutes), ranked where no option with a hot spare holds its speed; `standby: cold` prices none
and says so; `standby: hot` never offers a cold one.

Pure: reads and extends the options' cost items.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from gpuwise.advise.evaluate import Fired, Option
from gpuwise.advise.fired_billing import money
from gpuwise.advise.margin import at_risk_of_missing
from gpuwise.advise.scenario import Scenario

HARDWARE_ITEMS = ("compute", "cards", "host", "system", "maintenance", "resale", "colocation")
"""The items one replica's share of which a spare copy costs again: a rack is contracted for
the peak draw of every machine in it, a spare's too (blind w25-01: a colocated spare was
charged its cards and host, not its rack)."""


def spare_replicas(s: Scenario, o: Option) -> int:
    """Copies the spare holds: what one failure domain carries. The unit that fails is a
    machine (a power supply, a board, a kernel panic, a host's maintenance), not a card: a
    spare must carry the load of whatever one machine holds (blind w51-02: a bank's four
    copies in one workstation were "N+1" with a one-card spare machine, and a host fault took
    four of five). Copies spread one per machine lose one; copies that share machines lose
    each machine's share; a copy spanning machines is its own domain. Where one machine holds
    every copy, the spare holds the copies that carry the target (all of them without one)."""
    replicas, machines = max(1, o.sized.replicas), max(1, o.candidate.nodes)
    if machines > 1:
        lost = max(1, replicas // machines)
        return 0 if survivors_carry(s, o, lost) else lost
    target = s.workload.target_tokens_per_s or 0.0
    if target <= 0 or o.sized.tokens_per_s <= 0:
        return replicas
    per_copy = o.sized.tokens_per_s / replicas
    return max(1, min(replicas, math.ceil(target / per_copy - 1e-9)))


def survivors_carry(s: Scenario, o: Option, lost: int) -> bool:
    """Whether the copies left when one machine (`lost` copies) fails still carry the target
    at the central estimate: the option, sized to meet it at the slow end of its band, is then
    N+1 already and needs no spare machine. A failure is rare and brief; the slow-end margin
    is for the estimate's error in normal running, not for the hours a machine is down (blind
    w57-05: three H100 instances priced where two, each carrying the load, were asked)."""
    target = s.workload.target_tokens_per_s or 0.0
    if target <= 0 or o.sized.tokens_per_s <= 0 or lost >= max(1, o.sized.replicas):
        return False
    return one_machine_down(o) >= target


def one_machine_down(o: Option) -> float:
    """Tokens/s the option's other machines serve while one of them is down (central). Models
    served beside it with a stated load (companions) keep all of it: their share of the
    survivors' time grows as the survivors shrink, so what is left for the model is the raw
    speed times (survivors' share − companions' share of the whole), not the leftover scaled
    down (blind w61-05: three machines of a reranker at 5.4M tokens/s called N+1 where two
    carry 4.6M)."""
    replicas, machines = max(1, o.sized.replicas), max(1, o.candidate.nodes)
    lost = max(1, replicas // machines)
    left = max(0, replicas - lost) / replicas
    share = o.sized.companion_share
    if share <= 0:
        return o.sized.tokens_per_s * left
    if share >= 1:
        return 0.0
    raw = o.sized.tokens_per_s / (1 - share)
    return raw * max(0.0, left - share)


def failover_cost(s: Scenario, o: Option, items: tuple[str, ...] = HARDWARE_ITEMS) -> float:
    """What the spare (`spare_replicas` copies) of this option costs of its `items` (the
    hardware by default, the capital for `spare_capital`): a share of them by copies, in a
    machine of its own where it is bought. Copies in one bought machine share its host: the
    spare stands in another machine, with a host of its own, or a whole system where the
    part is sold only as one (blind w30-02: the spare card sat in the desktop beside the two
    it was to stand in for)."""
    replicas = max(1, o.sized.replicas)
    share = spare_replicas(s, o) / replicas
    hardware = sum(o.cost.items.get(k, 0.0) for k in items)
    c = o.candidate
    if c.kind != "own" or c.already_owned or c.nodes > 1 or replicas == 1:
        return hardware * share
    if c.system is not None:
        return hardware  # another whole system, unless the server holds its spare (below)
    host = o.cost.items.get("host", 0.0) if "host" in items else 0.0
    return (hardware - host) * share + host


def spare_capital(s: Scenario, o: Option) -> float:
    """What buying the hot spare pays at once: its share of the cards, host or system."""
    if "failover_replica" not in o.cost.items:
        return 0.0
    return failover_cost(s, o, ("cards", "host", "system"))


def spare_in_server(s: Scenario, o: Option) -> bool:
    """Whether the spare of copies in one bought server can be one of its own copies: with
    one copy down the others still carry the target (at the central estimate). A data-centre
    server (redundant power, a management controller, hot-swap parts) loses a card far more
    often than itself, and a second $300k server to cover the rest is not what an expert
    buys; the host's own faults are covered by a cloud account ready to start the copies (a
    cold standby), said as a risk (blind w36-03). A desktop build keeps its spare in a
    machine of its own (failover_cost, blind w30-02)."""
    c, r = o.candidate, o.sized.replicas
    if c.kind != "own" or c.system is None or c.nodes != 1 or r < 2 or c.already_owned:
        return False
    target = s.workload.target_tokens_per_s or 0.0
    return o.sized.tokens_per_s * (r - 1) / r >= target


def _serves_public_api(s: Scenario) -> bool:
    return s.public_api and s.workload.kind == "serve"


def keeps_a_spare(s: Scenario) -> bool:
    """A service that keeps a spare copy: a public API's by default, any service's the user
    asks for (`standby: hot`; blind w50-04: an insurer's internal service asked for a spare
    and the plan dropped it without a word)."""
    return s.workload.kind == "serve" and (s.public_api or s.standby == "hot")


def price_public_api_failover(s: Scenario, options: list[Option]) -> None:
    """Add the spare replica (in place) to each option of a service that keeps one
    (`keeps_a_spare`) and carries no standby yet; with `standby: cold`, say instead that
    none runs."""
    if not keeps_a_spare(s):
        return
    for o in options:
        if "standby_replica" in o.cost.items:
            continue
        if o.candidate.nodes > 1 and spare_replicas(s, o) == 0:  # N+1 already
            params = {"machines": o.candidate.nodes, "one_down": round(one_machine_down(o))}
            o.rules.append(("failover-within", params))
            continue
        spare = failover_cost(s, o)
        if spare <= 0:
            continue  # hardware already owned: the spare is a card the user has or buys later
        if s.standby == "cold":
            o.cold_standby = True
            o.risks.append(cold_standby_risk(o, spare))
            continue
        if spare_in_server(s, o):  # one of its copies is the spare: nothing more to buy
            one_down = o.sized.tokens_per_s * (o.sized.replicas - 1) / o.sized.replicas
            params = {"replicas": o.sized.replicas, "one_down": round(one_down)}
            on_site = not s.data_may_leave or s.domestic_only  # no cloud to stand by in
            key = "risk.spare_same_server_on_site" if on_site else "risk.spare_same_server"
            o.risks.append((key, params))
            continue
        o.cost = replace(o.cost, items={**o.cost.items, "failover_replica": spare})
        o.spare_replicas = spare_replicas(s, o)
        rule = "public-api-failover" if s.public_api else "asked-failover"
        o.rules.append((rule, {"replicas": o.sized.replicas}))


def cold_standby_risk(o: Option, spare: float) -> tuple[str, dict[str, object]]:
    """What standing by cold means for this option, with what a hot spare would add a month."""
    months = o.cost.months or 1.0
    key = "risk.cold_standby_rent" if o.candidate.kind == "rent" else "risk.cold_standby_own"
    return (key, {"spare": money(spare / months, o.cost.currency), "spare_value": spare / months})


def cold_twins(s: Scenario, options: list[Option]) -> list[tuple[Option, Option]]:
    """Each rental priced with a hot spare and its copy without one (`standby: auto`), made
    before the limits are checked, for `with_cold_standby` to rank where it must. Only
    rentals: a failed instance is replaced from the cloud's capacity in minutes, where a
    bought server with no spare is down until repaired (blind w24-03: a public API answered
    with one DGX B200 and no spare); `standby: cold` says so for purchases too."""
    if s.standby != "auto" or not _serves_public_api(s):
        return []
    out = []
    for o in options:
        spare = o.cost.items.get("failover_replica")
        if not spare or o.candidate.kind != "rent":
            continue  # a bought server's cold standby is days of repair (blind w24-03)
        items = {k: v for k, v in o.cost.items.items() if k != "failover_replica"}
        twin = replace(
            o,
            cost=replace(o.cost, items=items),
            risks=[*o.risks, cold_standby_risk(o, spare)],
            rules=[r for r in o.rules if r[0] != "public-api-failover"],
            blockers=list(o.blockers),
            unchecked=list(o.unchecked),
            cold_standby=True,
            spare_replicas=0,
        )
        out.append((o, twin))
    return out


def holds_speed(o: Option) -> bool:
    """Meets every speed limit and deadline at the slow end of its band."""
    return not at_risk_of_missing(o.risks)


def with_cold_standby(
    ranked: list[Option],
    twins: list[tuple[Option, Option]],
    classify: Callable[[list[Option]], list[Option]],
    key: Callable[[Option], object],
) -> list[Option]:
    """The ranked options and, where the first of them (each with a hot spare) does not hold
    its speed at the slow end of its band or none is ranked, the options that only the
    budget kept out with a hot spare, standing by cold, where they hold it (`classify` checks
    the limits and returns those that pass): a fast primary with a cold standby is ranked
    with a slow one that has a spare, by the same key (a speed shortfall weighs a total up).
    An option whose hot spare fits the limits is never offered cold as well."""
    if not twins or (ranked and holds_speed(ranked[0])):
        return ranked
    kept_out = [t for o, t in twins if [k for k, _ in o.blockers] == ["plan.block_budget"]]
    cold = [o for o in classify(kept_out) if holds_speed(o)]
    return sorted([*ranked, *cold], key=key)  # type: ignore[arg-type]


def cold_standby_note(options: list[Option]) -> list[Fired]:
    """The ⓘ line where the first option stands by cold (with_cold_standby): no option in the
    limits runs a hot spare and holds its speed, so the choice is the user's to make."""
    if not options or not options[0].cold_standby:
        return []
    first = options[0]
    spare = next(p["spare"] for k, p in first.risks if k.startswith("risk.cold_standby"))
    hot = [o for o in options if not o.cold_standby]
    params: dict[str, object] = {"spare": spare}
    if hot:
        from gpuwise.advise.labels import option_label

        params["hot_option"] = option_label(hot[0])
        return [("plan.note_cold_standby_or", params)]
    return [("plan.note_cold_standby", params)]
