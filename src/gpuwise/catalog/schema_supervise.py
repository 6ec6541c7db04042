"""Typed catalog data for `gpuwise supervise`: each cloud's preemption-notice endpoint, the DMI
strings that identify a cloud from inside a VM, and the supervisor's named constants.

Registered into the catalog through SUPERVISE_KINDS (see schema_extra.EXTRA_KINDS). The data
lives in data/compat/preemption.toml with a source on every number: the URLs, headers, token
flows, reply formats and notice lengths are the clouds' own documented facts, so supervising a
new cloud (or fixing a changed endpoint) is a data change, not a code change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, PositiveFloat, PositiveInt

from gpuwise.catalog.schema import Sourced, Strict

CloudId = Literal["aws", "gcp", "azure", "alibaba", "tencent", "volcengine"]
CLOUD_IDS: tuple[str, ...] = ("aws", "gcp", "azure", "alibaba", "tencent", "volcengine")
NoticeFormat = Literal[
    "aws-instance-action",  # JSON {"action": …, "time": "…Z"}
    "aws-rebalance",  # JSON {"noticeTime": "…Z"} (advisory)
    "gcp-preempted",  # TRUE / FALSE
    "gcp-maintenance-event",  # NONE / MIGRATE_ON_HOST_MAINTENANCE / TERMINATE_ON_HOST_MAINTENANCE
    "azure-scheduled-events",  # JSON {"DocumentIncarnation": n, "Events": [...]}
    "time",  # a bare timestamp; its zone is the entry's utc_offset_h when it carries none
]


class TokenFlow(Strict):
    """A session-token handshake the metadata service asks for before a GET (IMDSv2-style).

    `PUT base_url + path` with header `ttl_header: ttl_s` returns a token, sent back on each GET
    in `header`. When the PUT fails the GET is tried without a token (services where the
    handshake is optional, or an older metadata version).
    """

    path: str = Field(pattern=r"^/")
    ttl_header: str
    ttl_s: PositiveInt
    header: str


class PreemptionEndpoint(Sourced):
    """Where and how one cloud announces, inside the VM, that the VM will be taken away."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    cloud: CloudId
    kind: Literal["spot", "rebalance", "maintenance", "scheduled-events"]
    provider: str = ""  # the catalog provider id whose spot_notice_s should agree, if any
    base_url: str = Field(pattern=r"^https?://")
    path: str = Field(pattern=r"^/")
    headers: dict[str, str] = Field(default_factory=dict)
    token: TokenFlow | None = None
    format: NoticeFormat
    utc_offset_h: float = Field(default=0.0, ge=-12, le=14)
    idle_status: list[int] = Field(default_factory=lambda: [404])
    notice_s: PositiveInt
    poll_s: PositiveFloat
    first_call_timeout_s: PositiveFloat | None = None
    ack: Literal["none", "azure-start-requests"] = "none"


class CloudDmiRule(Sourced):
    """A DMI (SMBIOS) string that says which cloud a VM runs on: `field` contains `contains`."""

    cloud: CloudId
    field: Literal[
        "sys_vendor",
        "product_name",
        "product_version",
        "bios_vendor",
        "bios_version",
        "chassis_asset_tag",
    ]
    contains: str = Field(min_length=2)


class SuperviseSetting(Sourced):
    """One named constant of the supervisor (timeouts, margins, restart budget), with its unit."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    value: float = Field(ge=0)
    unit: str
    basis: Literal["measured", "published", "derived", "assumption"]


SUPERVISE_KINDS: dict[str, type[BaseModel]] = {
    "preemption_endpoint": PreemptionEndpoint,
    "cloud_dmi": CloudDmiRule,
    "supervise_setting": SuperviseSetting,
}
