"""The typer application and the helpers every command module shares."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.console import Console

from kgsvc.errors import Interrupted, KgsvcError
from kgsvc.sdk import KG

__all__ = ["DataDir", "app", "console", "err_console", "open_kg"]

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
def open_kg(data_dir: Path | None) -> Iterator[KG]:
    """Open the embedded KG; any kgsvc error ends the command with its one-line message and exit code 1.

    SIGTERM stops the command cleanly: the running work is interrupted (:meth:`KG.stop`), the data dir closed, and
    the command exits with :data:`SIGTERM_EXIT`.
    """
    try:
        with _sigterm_interrupts(), KG.open(data_dir) as kg:
            yield kg
    except Interrupted as exc:
        err_console.print(f"[bold red]interrupted:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(SIGTERM_EXIT) from None
    except KgsvcError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
