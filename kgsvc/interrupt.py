"""Stopping long work early and cleanly: a stop event per KG, checked at safe points by the thread doing the work.

:meth:`kgsvc.KG.stop` (called by ``kgsvc serve`` on SIGTERM, and by the CLI when it receives SIGTERM) sets the
event of its KG. Jobs that the in-process dispatcher runs see that event through :func:`bound`, and long loops call
:func:`check` between steps (index build stages, embedding batches, chunks of a load). :func:`check` raises
:class:`~kgsvc.errors.Interrupted`, so the work unwinds through its normal failure path: a load into an empty
dataset is rolled back, the job row ends ``failed`` with the reason, a building index version ends ``failed``
and its folder is deleted. Nothing is left half-done for :mod:`kgsvc.recovery` to find, and the store is
closed normally (its ``LOCK`` released).

A thread that has no event bound (a Celery worker thread, which Celery stops itself) never raises here.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from kgsvc.errors import Interrupted

__all__ = ["INTERRUPTED_PREFIX", "bound", "check", "stopping"]

#: How an interrupted job or index version's recorded error starts (``f"{type(exc).__name__}: …"``).
INTERRUPTED_PREFIX = "Interrupted:"

_local = threading.local()


@contextlib.contextmanager
def bound(event: threading.Event) -> Iterator[None]:
    """Make :func:`check` on this thread watch ``event`` while the block runs (nests; restores the previous)."""
    previous = getattr(_local, "event", None)
    _local.event = event
    try:
        yield
    finally:
        _local.event = previous


def stopping() -> bool:
    """Whether the event bound to this thread (if any) is set."""
    event: threading.Event | None = getattr(_local, "event", None)
    return event is not None and event.is_set()


def check(where: str = "") -> None:
    """Raise :class:`~kgsvc.errors.Interrupted` if the event bound to this thread is set.

    Raises
    ------
    Interrupted
        ``"kgsvc is stopping: <where> was interrupted"``.
    """
    if stopping():
        raise Interrupted(f"kgsvc is stopping: {where or 'the work'} was interrupted; run it again to finish it")
