"""The time a rental session spends before its first useful step, billed at the instance's rate.

A rented run does not start when the bill does: the instance boots (a VM takes minutes, a
container pod about two), a VM pulls its environment image, and the model's weights are
downloaded (bytes / a realistic download rate). Each session pays this again: every run of a
job billed by the hour, every spot restart. Hardware the user owns pays it once, before the
first run (the weights then stay on its disk), so the plan bills it only to rentals; an instance
kept running (a monthly rental, a service) pays it once.

Pure: the catalog's `rental_session` rows and `model_download_mb_per_s` come in, hours go out.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_cost import RentalSession, SessionKind
from gpuwise.cost.power import assumption

FALLBACK_KIND: dict[str, SessionKind] = {"marketplace": "container", "datacenter": "gpu-cloud-vm"}
"""A provider the catalog has not classified (a user's own quotes): a marketplace host starts
like a container pod, a data centre like a GPU cloud's VM (the middle of the three)."""


@dataclass(frozen=True)
class SessionOverhead:
    """Minutes one session spends starting and downloading before the job's first step."""

    kind: SessionKind
    start_min: float
    download_min: float

    @property
    def hours(self) -> float:
        """The whole overhead in hours (what the instance bills for it)."""
        return (self.start_min + self.download_min) / 60


def _sessions_by_provider(cat: Catalog) -> dict[str, RentalSession]:
    """provider id → its rental-session row (built once per catalog)."""
    return cat.derived(
        "rental_sessions",
        lambda: {p: row for row in cat.extra("rental_session") for p in row.providers},
    )


def _row(cat: Catalog, provider_id: str, hosting: str) -> RentalSession:
    """The provider's rental-session row, else the fallback for its kind of hosting."""
    row = _sessions_by_provider(cat).get(provider_id)
    if row is None:
        kind = FALLBACK_KIND.get(hosting, "gpu-cloud-vm")
        row = next(r for r in cat.extra("rental_session") if r.kind == kind)
    return row


def needs_quota_request(cat: Catalog, provider_id: str, hosting: str) -> bool:
    """Whether the provider's GPU VMs need a quota the account must request before launching
    (a public cloud's per-family GPU quota): a new personal account may have none."""
    return _row(cat, provider_id, hosting).quota_request


def session_overhead(
    cat: Catalog, provider_id: str, hosting: str, weights_gb: float
) -> SessionOverhead:
    """Start-up and download minutes of one session on `provider_id`, for `weights_gb` of
    model weights (GB = 1e9 bytes). The environment image a VM pulls downloads at the same
    rate as the weights."""
    row = _row(cat, provider_id, hosting)
    rate_mb_s = assumption(cat, "model_download_mb_per_s").value
    download_s = (row.image_gb + max(0.0, weights_gb)) * 1000 / rate_mb_s
    return SessionOverhead(row.kind, row.start_min, download_s / 60)
