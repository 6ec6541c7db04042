"""A real HTTP server on loopback standing in for Ollama or a serving engine's metrics page (for
probe, monitor and CLI tests)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Reply = tuple[int, bytes, float]  # status, body, delay in seconds


@contextmanager
def serve(routes: dict[str, Reply | Callable[[], Reply]]) -> Iterator[str]:
    """Serve `routes` (path → reply, or a function giving a fresh reply per request) on
    127.0.0.1; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reply = routes.get(self.path, (404, b'{"error":"not found"}', 0.0))
            status, body, delay = reply() if callable(reply) else reply
            if delay:
                time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first (the timeout tests want exactly that)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
