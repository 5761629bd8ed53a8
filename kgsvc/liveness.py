"""Which process owns a row, and whether that process is still alive.

A job row (while ``running``) and an index version row (while ``building``) record their owner as
``HOST/BOOT/PID/START``: the host name, the kernel's boot id (``/proc/sys/kernel/random/boot_id``), the process id
and the process's start time in clock ticks since boot (``/proc/PID/stat``, field 22). Startup recovery
(:mod:`kgsvc.recovery`) fails a row only when :func:`owner_state` proves its owner dead:

* same host, another boot: the machine restarted since, so the process is gone;
* same host and boot: the pid is gone or a zombie, or it now names another process (its start time differs: pid
  reuse);
* another host: ``"unknown"`` — a Celery worker elsewhere may still be running it, so it is left alone.

Where ``/proc`` is missing (not Linux) the boot id and start time are empty and only the pid is checked.
"""

from __future__ import annotations

import functools
import os
import socket
from typing import Literal

__all__ = ["OwnerState", "owner_state", "process_owner"]

OwnerState = Literal["alive", "dead", "unknown"]


@functools.cache
def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


@functools.cache
def _host() -> str:
    return socket.gethostname().replace("/", "_")


def _stat(pid: int) -> tuple[str, str]:
    """The state letter and the start time (clock ticks since boot) of ``pid``; ``("", "")`` when unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return "", ""
    # field 2 (comm) is in parentheses and may hold spaces: split after its closing parenthesis
    fields = stat[stat.rfind(")") + 2 :].split()
    return (fields[0], fields[19]) if len(fields) > 19 else ("", "")  # fields 3 and 22 of the whole line


def process_owner(pid: int | None = None) -> str:
    """The owner string of this process (or of ``pid`` on this host): ``HOST/BOOT/PID/START``.

    >>> process_owner().count("/")
    3
    """
    pid = os.getpid() if pid is None else pid
    return f"{_host()}/{_boot_id()}/{pid}/{_stat(pid)[1]}"


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def owner_state(owner: str | None) -> OwnerState:
    """Whether the process ``owner`` (:func:`process_owner`) is alive, provably dead, or unknown (another host,
    or no owner recorded).

    >>> owner_state(process_owner())
    'alive'
    >>> owner_state(None)
    'unknown'
    """
    if not owner:
        return "unknown"
    parts = owner.split("/")
    if len(parts) != 4 or not parts[2].isdigit():
        return "unknown"
    host, boot, pid_text, start = parts
    if host != _host():
        return "unknown"
    if boot and _boot_id() and boot != _boot_id():
        return "dead"
    pid = int(pid_text)
    if not _pid_exists(pid):
        return "dead"
    state, started = _stat(pid)
    if state in ("Z", "X"):
        return "dead"  # exited, not yet reaped by its parent
    if start and started not in ("", start):
        return "dead"  # the pid was reused by a process started later
    return "alive"
