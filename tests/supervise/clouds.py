"""Real loopback HTTP servers playing each cloud's metadata service (for the supervise tests).

Replies follow the formats in src/gpuwise/catalog/data/compat/preemption.toml and the cloud docs
cited there; they are built here (synthetic), not recorded. Each server answers "no notice" until
`arm(notice_s)` is called, then announces the VM going away `notice_s` seconds later, and checks
the headers the real service demands (IMDSv2 token, Metadata-Flavor, Metadata: true), answering
401/403/400 as the real ones would when they are missing.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "tok-AQAEAGk"  # what the fake IMDSv2 / Alibaba token service hands out
TENCENT_TZ = dt.timezone(dt.timedelta(hours=8))


@dataclass
class Seen:
    """One request the fake service received."""

    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class FakeCloud:
    """State of one fake metadata service."""

    cloud: str
    deadline: dt.datetime | None = None
    advisory: bool = False
    requests: list[Seen] = field(default_factory=list)
    armed_after: int = -1  # how many requests had been answered "nothing" when armed
    lock: threading.Lock = field(default_factory=threading.Lock)

    def arm(self, notice_s: float) -> dt.datetime:
        """From now on, announce that the VM goes away `notice_s` seconds from now."""
        self.armed_after = len(self.requests)
        when = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=notice_s)
        whole = when.replace(microsecond=0)  # the clouds write whole seconds: round up
        self.deadline = whole + dt.timedelta(seconds=1) if when.microsecond else whole
        return self.deadline

    def reply(self, method: str, path: str, headers: dict[str, str], body: str) -> tuple[int, str]:
        """Status and body for one request."""
        with self.lock:
            self.requests.append(Seen(method, path, headers, body))
        handler = getattr(self, f"_{self.cloud}")
        status, text = handler(method, path, headers, body)
        return int(status), str(text)

    # --------------------------------------------------------------------- per cloud

    def _aws(self, method: str, path: str, h: dict[str, str], body: str) -> tuple[int, str]:
        if path == "/latest/api/token":
            if method != "PUT" or "x-aws-ec2-metadata-token-ttl-seconds" not in h:
                return 400, ""
            return 200, TOKEN
        if h.get("x-aws-ec2-metadata-token") != TOKEN:
            return 401, ""  # IMDSv2 required: no token, no answer
        if path == "/latest/meta-data/spot/instance-action" and self.deadline:
            when = self.deadline.strftime("%Y-%m-%dT%H:%M:%SZ")
            return 200, json.dumps({"action": "terminate", "time": when})
        if path == "/latest/meta-data/events/recommendations/rebalance" and self.advisory:
            return 200, json.dumps({"noticeTime": "2026-12-02T08:22:00Z"})
        return 404, "<?xml version='1.0'?><title>404 - Not Found</title>"

    def _gcp(self, method: str, path: str, h: dict[str, str], body: str) -> tuple[int, str]:
        if h.get("metadata-flavor") != "Google":
            return 403, "Missing Metadata-Flavor:Google header."
        if path == "/computeMetadata/v1/instance/preempted":
            return 200, "TRUE" if self.deadline else "FALSE"
        if path == "/computeMetadata/v1/instance/maintenance-event":
            return 200, "MIGRATE_ON_HOST_MAINTENANCE" if self.advisory else "NONE"
        return 404, "Not Found"

    def _azure(self, method: str, path: str, h: dict[str, str], body: str) -> tuple[int, str]:
        if h.get("metadata") != "true":
            return 400, json.dumps({"error": "Bad request. Required metadata header not specified"})
        if path != "/metadata/scheduledevents?api-version=2020-07-01":
            return 404, ""
        if method == "POST":
            return 200, ""
        events = []
        if self.deadline:
            events.append(
                {
                    "EventId": "602d9444-d2cd-49c7-8624-8643e7171297",
                    "EventType": "Preempt",
                    "ResourceType": "VirtualMachine",
                    "Resources": ["spot-vm-1"],
                    "EventStatus": "Scheduled",
                    "NotBefore": format_datetime(self.deadline, usegmt=True),
                    "Description": "",
                    "EventSource": "Platform",
                    "DurationInSeconds": -1,
                }
            )
        return 200, json.dumps({"DocumentIncarnation": 2 if events else 1, "Events": events})

    def _alibaba(self, method: str, path: str, h: dict[str, str], body: str) -> tuple[int, str]:
        if path == "/latest/api/token":
            return (200, TOKEN) if method == "PUT" else (405, "")
        if h.get("x-aliyun-ecs-metadata-token") != TOKEN:
            return 403, ""  # hardened mode
        if path == "/latest/meta-data/instance/spot/termination-time" and self.deadline:
            return 200, self.deadline.strftime("%Y-%m-%dT%H:%M:%SZ")
        return 404, "404 - Not Found"

    def _tencent(self, method: str, path: str, h: dict[str, str], body: str) -> tuple[int, str]:
        if path == "/latest/meta-data/spot/termination-time" and self.deadline:
            return 200, self.deadline.astimezone(TENCENT_TZ).strftime("%Y-%m-%d %H:%M:%S")
        return 404, "<html><title>404 Not Found</title></html>"

    def _volcengine(self, method: str, path: str, h: dict[str, str], body: str) -> tuple[int, str]:
        if path == "/latest/spot_instance_termination_time" and self.deadline:
            return 200, self.deadline.strftime("%Y-%m-%dT%H:%M:%SZ")
        return 404, ""


@contextmanager
def serve(cloud: str) -> Iterator[tuple[str, FakeCloud]]:
    """A fake metadata service for `cloud` on 127.0.0.1; yields (base URL, its state)."""
    state = FakeCloud(cloud)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, text = state.reply(self.command, self.path, headers, body)
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_PUT = do_POST = _answer

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
