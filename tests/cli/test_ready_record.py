"""``kgsvc serve`` writes its server record once ``/health`` answers, asking from a thread that runs while granian
forks its workers: that thread must make no TLS context. An OpenSSL lock it held at a fork stayed held in the worker,
whose first SHA-256 (an index build's chunk plan) then waited forever: a hung server (fresh-clone CI, 2026-11-29,
``test_beside_server``: ``kgsvc load`` through the server timed out after 300 s, the worker stuck in
``EVP_MD_fetch``)."""

from __future__ import annotations

import http.server
import ssl
import threading
from pathlib import Path
from typing import Any

import pytest

from kgsvc.cli import serve
from kgsvc.cli.server_record import read_record


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.send_response(200 if self.path == "/health" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_the_ready_check_makes_no_tls_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []
    real_new = ssl.SSLContext.__new__

    def spy(cls: type[ssl.SSLContext], *args: Any, **kwargs: Any) -> ssl.SSLContext:
        made.append(cls)
        return real_new(cls, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "__new__", spy)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert not serve._healthy(f"http://127.0.0.1:{_closed_port()}")  # nothing listening: not ready, no error
        serve._publish_when_ready(tmp_path, url, "s3cret", threading.Event())
    finally:
        server.shutdown()
        server.server_close()
    record = read_record(tmp_path)
    assert record is not None and record.url == url and record.token == "s3cret"
    assert made == []  # no TLS context was made while polling


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
