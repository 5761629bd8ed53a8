"""``kgsvc exemplars add/list/remove -D NAME``: a dataset's user-supplied exemplars (:mod:`kgsvc.qa.exemplar_store`).

An exemplar is a question with its pattern, one JSON object per line::

    {"question": "who directed Tokyo Godfathers", "entities": ["Tokyo Godfathers"],
     "triples": [["Tokyo Godfathers", "directed_by", "?x"]], "answer": "?x"}

The next question asked (``kgsvc ask``, a running server, an open ``KG``) uses them; no restart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from kgsvc.cli._app import DataDir, app, console, err_console, open_kg

__all__ = ["exemplars_app"]

exemplars_app = typer.Typer(help="A dataset's exemplars: question → pattern pairs the question path learns from.")
app.add_typer(exemplars_app, name="exemplars")

Dataset = Annotated[str, typer.Option("--dataset", "-D", help="The dataset.")]


@exemplars_app.command("add")
def add(
    file: Annotated[Path, typer.Argument(help="JSON lines: one exemplar per line ('-' reads standard input).")],
    dataset: Dataset,
    data_dir: DataDir = None,
) -> None:
    """Add the exemplars of FILE to DATASET (an exemplar whose question is already there replaces it)."""
    text = typer.get_text_stream("stdin").read() if str(file) == "-" else None
    if text is None:
        if not file.is_file():
            err_console.print(f"[bold red]error:[/] no such file: {file.name}", highlight=False)
            raise typer.Exit(1)
        text = file.read_text(encoding="utf-8")
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                err_console.print(f"[bold red]error:[/] line {number} is not JSON: {exc.msg}", highlight=False)
                raise typer.Exit(1) from None
    with open_kg(data_dir) as kg:
        try:
            count = kg.add_exemplars(dataset, rows)
        except ValueError as exc:
            err_console.print(f"[bold red]error:[/] {exc} (nothing was added)", highlight=False)
            raise typer.Exit(1) from None
    console.print(f"added {len(rows)} exemplar(s); {dataset} has {count}")


@exemplars_app.command("list")
def list_(
    dataset: Dataset,
    data_dir: DataDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """The exemplars of DATASET."""
    with open_kg(data_dir) as kg:
        rows = kg.exemplars(dataset)
    if as_json:
        for row in rows:
            console.print(json.dumps(row, ensure_ascii=False), highlight=False, soft_wrap=True)
        return
    table = Table("#", "question", "pattern")
    for i, row in enumerate(rows, 1):
        pattern = " . ".join(" ".join(t) for t in row["triples"])
        table.add_row(str(i), str(row["question"]), pattern)
    console.print(table)


@exemplars_app.command("remove")
def remove(
    questions: Annotated[list[str], typer.Argument(help="The question text(s) of the exemplars to remove.")],
    dataset: Dataset,
    data_dir: DataDir = None,
) -> None:
    """Remove the exemplars of DATASET with these questions."""
    with open_kg(data_dir) as kg:
        removed = kg.remove_exemplars(dataset, questions)
    console.print(f"removed {removed} exemplar(s)")
    if not removed:
        raise typer.Exit(1)
