"""A query worker process: ``python -m kgsvc.api.worker``, started and killed by :mod:`kgsvc.api.executor`.

It reads jobs from standard input and writes answers to its original standard output (anything else the
process prints goes to standard error). It opens the store snapshot named in each job read-only, reopening when
the snapshot changes, and answers with :func:`kgsvc.api.results.run_query`.

Frames, both ways: 4-byte big-endian header length, 8-byte body length, the JSON header, the body.
Job header: ``{"snapshot": PATH, "job": {…QueryJob…}, "limits": [MAX_DEPTH, MAX_OPERATORS]}`` (or
``{"ping": true}``), no body.
Answer header: ``{"ok": true, "media_type": …}`` with the result as body, or
``{"ok": false, "error": "QueryError", "kind": …, "message": …}``.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import Any

from kgsvc.api.frames import read_frame, write_frame
from kgsvc.api.results import QueryJob, run_query
from kgsvc.errors import KgsvcError, QueryError
from kgsvc.store import EmbeddedStore

__all__ = ["main"]


def _answer(store: EmbeddedStore, job: QueryJob) -> tuple[dict[str, Any], bytes]:
    try:
        media_type, body = run_query(store, job)
    except QueryError as exc:
        return {"ok": False, "error": "QueryError", "kind": exc.kind, "message": str(exc)}, b""
    except KgsvcError as exc:
        return {"ok": False, "error": type(exc).__name__, "message": str(exc)}, b""
    except Exception:  # a bug must cost this query, not the worker (its traceback goes to the server's log)
        traceback.print_exc(file=sys.stderr)
        return {"ok": False, "error": "StoreError", "message": "the query failed inside its worker"}, b""
    return {"ok": True, "media_type": media_type}, body


def main() -> None:
    """Serve jobs until standard input closes."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the frames
    inp = sys.stdin.buffer
    store: EmbeddedStore | None = None
    opened: str | None = None
    while (frame := read_frame(inp)) is not None:
        header, _ = frame
        if header.get("ping"):
            write_frame(out, {"ok": True})
            continue
        snapshot = header["snapshot"]
        if snapshot != opened:
            if store is not None:
                store.close()
                store = None
            try:
                store = EmbeddedStore.read_only(Path(snapshot))
            except KgsvcError as exc:
                write_frame(out, {"ok": False, "error": type(exc).__name__, "message": str(exc)})
                opened = None
                continue
            opened = snapshot
        assert store is not None
        store.sparql_max_depth, store.sparql_max_operators = header.get("limits", (32, 1000))
        answer, body = _answer(store, QueryJob.from_dict(header["job"]))
        write_frame(out, answer, body)


if __name__ == "__main__":
    main()
