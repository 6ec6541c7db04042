"""Read a cloud's preemption-notice reply into a :class:`Notice` (pure; formats from the catalog).

Each metadata endpoint in data/compat/preemption.toml names its reply `format`; the readers here
follow the clouds' documented replies:

- AWS `spot/instance-action`: `{"action": "terminate"|"stop"|"hibernate", "time": "…Z"}` (UTC);
  `events/recommendations/rebalance`: `{"noticeTime": "…Z"}`, advisory only.
- GCP `instance/preempted`: `TRUE`/`FALSE`, no time (the deadline is detection + notice_s);
  `instance/maintenance-event`: `TERMINATE_ON_HOST_MAINTENANCE` ends the VM, `MIGRATE_…` does not.
- Azure Scheduled Events: `Events[]` with `EventType` and `NotBefore` (RFC 1123, GMT).
- Alibaba, Tencent, Volcano Engine: a bare time; Tencent's has no zone and is UTC+8.

A reply in an idle status (404) or an empty body is "no notice". A 200 that cannot be read on
an endpoint whose mere presence means an interruption (AWS instance-action) is still a notice,
with an unknown time: being wrong that way costs a checkpoint, the other way costs the work.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from gpuwise.catalog.schema_supervise import PreemptionEndpoint

Severity = Literal["terminate", "advisory", "info"]
AZURE_ENDING = ("Preempt", "Terminate", "Reboot", "Redeploy")
"""Azure event types that end the running job (memory or the VM is lost); Freeze only pauses."""


@dataclass(frozen=True)
class Notice:
    """One announcement read from a metadata endpoint.

    `deadline` is when the VM goes away (aware, UTC) or None when the reply gives no time;
    `reason` is the cloud's own word for it; `event_id` is what Azure wants acknowledged.
    """

    cloud: str
    endpoint_id: str
    severity: Severity
    reason: str
    deadline: dt.datetime | None = None
    event_id: str = ""

    def key(self) -> str:
        """What makes two polls report the same notice (so it is handled once)."""
        when = self.deadline.isoformat() if self.deadline else ""
        return f"{self.endpoint_id}|{self.reason}|{self.event_id}|{when}"


def parse_time(text: str, utc_offset_h: float = 0.0) -> dt.datetime | None:
    """A timestamp as the clouds write it, as an aware UTC datetime; None when it is not one.

    ISO 8601 with `Z` or an offset, or without a zone (then `utc_offset_h` applies: Tencent
    writes UTC+8 with no marker); `T` or a space between date and time; RFC 1123 (Azure).
    """
    raw = text.strip().strip('"')
    if not raw:
        return None
    iso = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
    try:
        when = dt.datetime.fromisoformat(iso.replace(" ", "T", 1) if "T" not in iso else iso)
    except ValueError:
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone(dt.timedelta(hours=utc_offset_h)))
    return when.astimezone(dt.timezone.utc)


def parse_reply(ep: PreemptionEndpoint, status: int, body: str, now: dt.datetime) -> list[Notice]:
    """The notices in one reply of endpoint `ep` read at `now` (empty: nothing announced)."""
    if status in ep.idle_status or status >= 400 or not body.strip():
        return []
    reader = _READERS[ep.format]
    return reader(ep, body, now)


def _aws_instance_action(ep: PreemptionEndpoint, body: str, now: dt.datetime) -> list[Notice]:
    data = _json_object(body)
    action = str(data.get("action", "")) or "unreadable"
    when = parse_time(str(data.get("time", "")))
    return [Notice(ep.cloud, ep.id, "terminate", action, when)]


def _aws_rebalance(ep: PreemptionEndpoint, body: str, now: dt.datetime) -> list[Notice]:
    data = _json_object(body)
    return [Notice(ep.cloud, ep.id, "advisory", "rebalance-recommendation")] if data else []


def _gcp_preempted(ep: PreemptionEndpoint, body: str, now: dt.datetime) -> list[Notice]:
    if body.strip().upper() != "TRUE":
        return []
    return [Notice(ep.cloud, ep.id, "terminate", "preempted")]


def _gcp_maintenance(ep: PreemptionEndpoint, body: str, now: dt.datetime) -> list[Notice]:
    value = body.strip().upper()
    if value.startswith("TERMINATE"):
        return [Notice(ep.cloud, ep.id, "terminate", value)]
    if value and value != "NONE":
        return [Notice(ep.cloud, ep.id, "info", value)]
    return []


def _azure_events(ep: PreemptionEndpoint, body: str, now: dt.datetime) -> list[Notice]:
    events = _json_object(body).get("Events")
    out: list[Notice] = []
    for event in events if isinstance(events, list) else []:
        if not isinstance(event, dict):
            continue
        kind = str(event.get("EventType", ""))
        event_id = str(event.get("EventId", ""))
        started = str(event.get("EventStatus", "")) == "Started"
        when = parse_time(str(event.get("NotBefore", "")))
        if kind in AZURE_ENDING:
            deadline = now if when is None and started else when
            out.append(Notice(ep.cloud, ep.id, "terminate", kind, deadline, event_id))
        elif kind:
            out.append(Notice(ep.cloud, ep.id, "info", kind, when, event_id))
    return out


def _bare_time(ep: PreemptionEndpoint, body: str, now: dt.datetime) -> list[Notice]:
    when = parse_time(body, ep.utc_offset_h)
    if when is None:
        return []  # documented: a body that is not a time means "not being reclaimed"
    return [Notice(ep.cloud, ep.id, "terminate", "termination-time", when)]


def _json_object(body: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


_READERS = {
    "aws-instance-action": _aws_instance_action,
    "aws-rebalance": _aws_rebalance,
    "gcp-preempted": _gcp_preempted,
    "gcp-maintenance-event": _gcp_maintenance,
    "azure-scheduled-events": _azure_events,
    "time": _bare_time,
}
