"""The typer application and the helpers every command module shares."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from kgsvc.errors import KgsvcError
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


@contextlib.contextmanager
def open_kg(data_dir: Path | None) -> Iterator[KG]:
    """Open the embedded KG; any kgsvc error ends the command with its one-line message and exit code 1."""
    try:
        with KG.open(data_dir) as kg:
            yield kg
    except KgsvcError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
