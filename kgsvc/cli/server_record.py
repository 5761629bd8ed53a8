"""The record a running ``kgsvc serve`` leaves in its data dir, so that other ``kgsvc`` commands can use it.

RocksDB lets one process open a store, so while ``kgsvc serve`` holds a data dir the other commands cannot open it;
they read ``<data_dir>/server.json`` instead and talk to the server over HTTP (:class:`kgsvc.Client`).

The record is a JSON object ``{"url", "pid", "token"}``, written atomically with file mode 0600 (it may hold the
server's API token), once the server answers ``/health``, and removed when ``serve`` exits. A record whose process
is gone (a killed server) is stale and ignored.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RECORD_NAME", "ServerRecord", "client_url", "read_record", "remove_record", "store_locked", "write_record"]

#: The record's file name in the data dir.
RECORD_NAME = "server.json"


@dataclass(frozen=True)
class ServerRecord:
    """A running server: its base URL, its process id and its API token (``None`` when it has none)."""

    url: str
    pid: int
    token: str | None = None


def client_url(host: str, port: int) -> str:
    """The URL a local client uses for a server bound to ``host``: a wildcard address becomes loopback.

    >>> client_url("0.0.0.0", 8000), client_url("::", 8000), client_url("127.0.0.1", 9)
    ('http://127.0.0.1:8000', 'http://[::1]:8000', 'http://127.0.0.1:9')
    """
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def write_record(data_dir: Path, record: ServerRecord) -> Path:
    """Write ``record`` to ``data_dir`` (mode 0600, atomically); returns the file's path."""
    path = data_dir / RECORD_NAME
    partial = path.with_name(f".{RECORD_NAME}.{os.getpid()}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as sink:
        json.dump({"url": record.url, "pid": record.pid, "token": record.token}, sink)
    os.replace(partial, path)
    return path


def read_record(data_dir: Path) -> ServerRecord | None:
    """The record of the server running on ``data_dir``; ``None`` when there is none, or its process is gone."""
    try:
        raw = json.loads((data_dir / RECORD_NAME).read_text(encoding="utf-8"))
        record = ServerRecord(url=str(raw["url"]), pid=int(raw["pid"]), token=raw.get("token") or None)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record if _alive(record.pid) else None


def remove_record(data_dir: Path, pid: int) -> None:
    """Remove the record if it is the one process ``pid`` wrote (a newer server's record stays)."""
    path = data_dir / RECORD_NAME
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        if int(json.loads(path.read_text(encoding="utf-8"))["pid"]) == pid:
            path.unlink()


def store_locked(data_dir: Path) -> bool:
    """Whether another process holds the embedded store of ``data_dir`` (RocksDB's ``fcntl`` lock on
    ``store/LOCK``); ``False`` when there is no store yet.

    Call it only in a process that has not opened that store itself: closing the test descriptor drops every
    ``fcntl`` lock the process holds on the file.
    """
    lock = data_dir / "store" / "LOCK"
    try:
        fd = os.open(lock, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing the descriptor releases the test lock
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
