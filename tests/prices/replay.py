"""A real HTTP server on 127.0.0.1 that replays recorded feed answers (tests/fixtures/prices).

Each route is a list of scripted answers served in turn (the last one repeats): a status, headers
and a body, optionally cut short (the declared Content-Length stays, the connection closes: a
truncated transfer), optionally answering Range and If-None-Match requests like S3 and the AWS
price servers do. Every request is logged so tests can assert what the client sent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Answer:
    """One scripted answer."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    cut_at: int | None = None
    """Send only this many bytes of the body (Content-Length still says the full size)."""
    ranges: bool = False
    """Honour `Range: bytes=N-` with a 206 and the rest of the body."""
    etag: str | None = None
    """Answer 304 when the request's If-None-Match equals it."""


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]


class Replay:
    """Routes (path → answers, or a function of the query choosing them) and the request log."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Answer] | Callable[[dict[str, list[str]]], Answer]] = {}
        self.seen: list[Seen] = []
        self.base = ""

    def answer(self, path: str, query: dict[str, list[str]]) -> Answer:
        route = self.routes.get(path)
        if route is None:
            return Answer(404, b"not recorded")
        if callable(route):
            return route(query)
        return route.pop(0) if len(route) > 1 else route[0]


def _handler(replay: Replay) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output clean
            return

        def do_GET(self) -> None:  # http.server's method name
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            replay.seen.append(Seen(parts.path, query, dict(self.headers.items())))
            a = replay.answer(parts.path, query)
            body = a.body.replace(b"{base}", replay.base.encode())
            if a.etag and self.headers.get("If-None-Match") == a.etag:
                self.send_response(304)
                self.send_header("ETag", a.etag)
                self.end_headers()
                return
            start = 0
            rng = self.headers.get("Range", "")
            status = a.status
            if a.ranges and rng.startswith("bytes="):
                start = int(rng[6:].split("-")[0])
                status = 206
            self.send_response(status)
            for k, v in a.headers.items():
                self.send_header(k, v)
            if a.etag:
                self.send_header("ETag", a.etag)
            self.send_header("Content-Length", str(len(body) - start))
            self.end_headers()
            chunk = body[start:]
            if a.cut_at is not None:
                chunk = chunk[: a.cut_at]
            self.wfile.write(chunk)
            if a.cut_at is not None:
                self.wfile.flush()
                self.close_connection = True

    return Handler


@contextmanager
def serve(replay: Replay) -> Iterator[str]:
    """Serve on an ephemeral loopback port; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(replay))
    replay.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield replay.base
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
