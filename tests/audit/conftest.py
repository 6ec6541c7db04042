"""Shared pieces of the audit tests: the catalog's audit tables, real loopback HTTP and Redis
listeners, fake system trees and fake binaries (all written for these tests, not recorded)."""

from __future__ import annotations

import http.server
import os
import socket
import socketserver
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest

from gpuwise.audit.tables import AuditTables, tables_from_catalog
from gpuwise.catalog import load_catalog

EXPOSED = "127.0.0.2"  # stands for a public address (GPUWISE_AUDIT_LOOPBACK=127.0.0.1)
LOCAL = "127.0.0.1"
ONLY_LOOPBACK = frozenset({LOCAL, "::1"})


@pytest.fixture(scope="session")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One catalog cache for all audit tests (building the catalog takes ~1 s; the tests only
    read it). Still a temporary folder: the real user cache is never touched."""
    return tmp_path_factory.mktemp("audit-catalog-cache")


@pytest.fixture(autouse=True)
def _reuse_catalog_cache(_shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUWISE_CACHE_DIR", str(_shared_cache))


@pytest.fixture(scope="session")
def _session_tables(_shared_cache: Path) -> AuditTables:
    old = os.environ.get("GPUWISE_CACHE_DIR")
    os.environ["GPUWISE_CACHE_DIR"] = str(_shared_cache)
    try:
        return tables_from_catalog(load_catalog())
    finally:
        if old is not None:
            os.environ["GPUWISE_CACHE_DIR"] = old


CURRENT: list[AuditTables] = []  # the session tables, for helpers that take no fixture


@pytest.fixture
def tables(_session_tables: AuditTables) -> AuditTables:
    """The audit's catalog tables (built once per session)."""
    CURRENT[:] = [_session_tables]
    return _session_tables


@pytest.fixture(autouse=True)
def _current_tables(tables: AuditTables) -> None:
    """Make the tables reachable from plain helper functions too."""


def with_port(tables: AuditTables, service_id: str, port: int) -> AuditTables:
    """The tables with one service moved to `port` (the listener's random port) and every other
    service off it."""
    services = tuple(
        s.model_copy(update={"ports": [port]})
        if s.id == service_id
        else s.model_copy(update={"ports": [p for p in s.ports if p != port] or [1]})
        for s in tables.services
    )
    return replace(tables, services=services)


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, str]]] = {}

    def do_GET(self) -> None:
        status, body = self.routes.get(self.path.split("?", 1)[0], (404, "not found"))
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def _bind_or_skip(make: Callable[[], socketserver.BaseServer]) -> socketserver.BaseServer:
    try:
        return make()
    except OSError as exc:
        pytest.skip(f"cannot bind a loopback listener here: {exc}")


@pytest.fixture
def http_listener() -> Iterator[Callable[..., int]]:
    """Start an HTTP server on (ip, port 0 or given) answering `routes` {path: (status, body)}."""
    servers: list[socketserver.BaseServer] = []

    def start(ip: str, routes: dict[str, tuple[int, str]], port: int = 0) -> int:
        handler = type("H", (_Handler,), {"routes": routes})
        server = _bind_or_skip(lambda: _Server((ip, port), handler))
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return int(server.server_address[1])  # type: ignore[index]

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def redis_listener() -> Iterator[Callable[[str, str], int]]:
    """A one-line Redis stand-in: answers every connection with `reply` (e.g. +PONG)."""
    socks: list[socket.socket] = []

    def start(ip: str, reply: str) -> int:
        sock = socket.socket()
        try:
            sock.bind((ip, 0))
        except OSError as exc:
            pytest.skip(f"cannot bind {ip}: {exc}")
        sock.listen()
        socks.append(sock)

        def serve() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                with conn:
                    conn.recv(64)
                    conn.sendall(reply.encode() + b"\r\n")

        threading.Thread(target=serve, daemon=True).start()
        return int(sock.getsockname()[1])

    yield start
    for sock in socks:
        sock.close()


def write(root: Path, rel: str, text: str, mode: int | None = None) -> Path:
    """A file under a fake tree (parents created)."""
    path = root / rel.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mode is not None:
        path.chmod(mode)
    return path


def fake_tool(bindir: Path, name: str, script: str) -> Path:
    """An executable shell script named `name` in `bindir`."""
    bindir.mkdir(parents=True, exist_ok=True)
    path = bindir / name
    path.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def only_path(monkeypatch: pytest.MonkeyPatch, bindir: Path) -> None:
    """PATH holds only the fake tools (no real docker, sshd, nvidia-smi or nft is ever run)."""
    bindir.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("PATH", str(bindir))


def tree_snapshot(root: Path) -> dict[str, tuple[int, int, float]]:
    """(mode, size, mtime) of every file under root: the audit must change none of them."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            st = os.stat(os.path.join(dirpath, name))
            out[os.path.join(dirpath, name)] = (st.st_mode, st.st_size, st.st_mtime)
    return out
