"""Test-only fault injection: ``KGSVC_FAULT_KILL_AT=<point>`` makes the process SIGKILL itself at a named point.

The crash tests (``tests/recovery``) run a real ``kgsvc load`` or ``kgsvc serve`` with this variable set and
check that the next open of the data dir recovers (:mod:`kgsvc.recovery`). It is not a setting: nothing reads
it through :class:`kgsvc.settings.Settings`, and with the variable unset every hook is one dictionary look-up.
Never set it outside tests.

Points (:data:`POINTS`):

``bulk-file-written``
    A bulk load has written its first ``bulk-*.sst`` file into the store folder and not yet ingested it
    (a watcher thread started by :func:`arm` polls the folder, as the file is written by the store's Rust code).
``load-stored``
    A load's triples are in the store; the catalog does not know yet (counts, data version, job row).
``index-mid-build``
    An index build has written its label tables and not yet its embeddings, vectors or snapshot.
``index-before-publish``
    An index version's files are complete (manifest written); its row is still ``building``.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

__all__ = ["ENV", "POINTS", "arm", "kill_point"]

ENV = "KGSVC_FAULT_KILL_AT"
POINTS = ("bulk-file-written", "load-stored", "index-mid-build", "index-before-publish")


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def kill_point(name: str) -> None:
    """SIGKILL this process if ``KGSVC_FAULT_KILL_AT`` names ``name`` (one of :data:`POINTS`)."""
    if os.environ.get(ENV) == name:
        _kill()


def arm(store_dir: Path | None) -> None:
    """Start the ``bulk-file-written`` watcher on ``store_dir`` when the variable asks for it (else nothing)."""
    if os.environ.get(ENV) != "bulk-file-written" or store_dir is None:
        return

    def watch() -> None:
        while True:
            try:
                names = os.listdir(store_dir)
            except OSError:
                names = []
            if any(n.startswith("bulk-") for n in names):
                _kill()
            time.sleep(0.0002)

    threading.Thread(target=watch, name="kgsvc-fault-watch", daemon=True).start()
