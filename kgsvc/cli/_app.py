"""The typer application and the helpers every command module shares.

Commands open the data dir with :func:`open_service`: the embedded :class:`KG`, or, when a running ``kgsvc serve``
holds the data dir (:mod:`kgsvc.cli.server_record`), a :class:`kgsvc.Client` talking to that server, announced on
stderr. Commands that need the embedded KG itself use :func:`open_kg`, which explains why it cannot run beside a
server.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from kgsvc.cli.server_record import ServerRecord, read_record, store_locked
from kgsvc.errors import Interrupted, KgsvcError
from kgsvc.sdk import KG
from kgsvc.sdk.client import Client

__all__ = ["DataDir", "Service", "app", "console", "data_dir_of", "err_console", "fail", "open_kg", "open_service"]

app = typer.Typer(
    name="kgsvc",
    help="kgsvc: a SPARQL-native knowledge-graph service (SPARQL endpoint, grounded QA, event-driven indexing).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        "-d",
        help="Data directory (default: $KGSVC_DATA_DIR or ./kgsvc-data).",
        envvar="KGSVC_DATA_DIR",
        show_default=False,
    ),
]

#: What a command works on: the embedded KG, or the server that holds the data dir.
Service = KG | Client


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` on stderr; returns the ``typer.Exit`` to raise."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def data_dir_of(data_dir: Path | None) -> Path:
    """The data dir a command works on: ``--data-dir``, else ``Settings().data_dir`` (``KGSVC_DATA_DIR``)."""
    if data_dir is not None:
        return Path(data_dir).expanduser().resolve()
    from kgsvc.settings import Settings

    return Settings().data_dir


def _server(folder: Path) -> ServerRecord | None:
    return read_record(folder) if folder.is_dir() else None


def _locked_message(folder: Path) -> str:
    return (
        f"the data dir {folder} is in use by another process (its store is locked) that is not a kgsvc server "
        "this command can talk to; stop that process or use another --data-dir"
    )


#: Exit code of a command stopped by SIGTERM (128 + 15, as a shell reports a process killed by it).
SIGTERM_EXIT = 143


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Interrupted("stopped by SIGTERM")


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Interrupted` in the main thread, so the work unwinds through its
    failure path and :meth:`KG.close` runs (store ``LOCK`` released) instead of the process dying mid-write."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def open_kg(data_dir: Path | None, *, command: str = "this command", auto_index: bool | None = None) -> Iterator[KG]:
    """Open the embedded KG; any kgsvc error ends the command with its one-line message and exit code 1.

    SIGTERM stops the command cleanly: the running work is interrupted (:meth:`KG.stop`), the data dir closed, and
    the command exits with :data:`SIGTERM_EXIT`. When a running ``kgsvc serve`` holds the data dir, ends with a
    message that says so (``command`` names the command that cannot run through the server).
    """
    folder = data_dir_of(data_dir)
    record = _server(folder)
    if record is not None:
        raise fail(
            f"the kgsvc server at {record.url} (pid {record.pid}) holds the data dir {folder}, and {command} "
            "cannot run through it; stop the server first (Ctrl+C in its terminal) or use another --data-dir"
        )
    if store_locked(folder):
        raise fail(_locked_message(folder))
    from kgsvc.settings import Settings

    settings = Settings()
    if auto_index is not None:
        settings = settings.model_copy(update={"auto_index": auto_index})
    try:
        with _sigterm_interrupts(), KG.open(folder, settings=settings) as kg:
            yield kg
    except Interrupted as exc:
        err_console.print(f"[bold red]interrupted:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(SIGTERM_EXIT) from None
    except KgsvcError as exc:
        raise fail(str(exc)) from None


@contextlib.contextmanager
def open_service(data_dir: Path | None, *, auto_index: bool | None = None) -> Iterator[Service]:
    """The embedded KG, or a :class:`Client` of the running server that holds the data dir (said on stderr).

    The client's token is ``$KGSVC_API_TOKEN``, else the one the server recorded. Any kgsvc error ends the command
    with its one-line message and exit code 1. ``auto_index`` overrides ``KGSVC_AUTO_INDEX`` of the embedded KG.
    """
    folder = data_dir_of(data_dir)
    record = _server(folder)
    if record is None:
        with open_kg(folder, auto_index=auto_index) as kg:
            yield kg
        return
    err_console.print(f"using the server at {record.url} (it holds this data dir)", highlight=False, soft_wrap=True)
    token = os.environ.get("KGSVC_API_TOKEN") or record.token
    try:
        with Client(record.url, token=token, timeout=600.0) as client:
            yield client
    except KgsvcError as exc:
        raise fail(str(exc)) from None
