"""``kgsvc ask``: answer one question about a dataset with evidence and SPARQL (``KG.ask``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kgsvc.cli._app import DataDir, app, console, open_service
from kgsvc.qa.result import Answer
from kgsvc.sdk import KG

__all__ = ["ask"]


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question in plain English.")],
    dataset: Annotated[str, typer.Option("--dataset", "-D", help="Dataset to ask.")],
    data_dir: DataDir = None,
    strategy: Annotated[str, typer.Option(help="grounded (default) or pattern (LLM-written pattern).")] = "grounded",
    k: Annotated[int, typer.Option(help="Evidence subgraphs kept.")] = 10,
    verbalise: Annotated[bool, typer.Option(help="Let the bundled LLM write the answer text.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole answer object as JSON.")] = False,
) -> None:
    """Answer QUESTION from DATASET (its index must be built: ``kgsvc load`` waits for it)."""
    with open_service(data_dir) as kg:
        if isinstance(kg, KG):
            answer = kg.ask(question, dataset=dataset, strategy=strategy, k=k, verbalise=verbalise)
        else:
            answer = Answer.model_validate(
                kg.ask(question, dataset=dataset, strategy=strategy, k=k, verbalise=verbalise)
            )
    if as_json:
        console.print_json(answer.model_dump_json())
    else:
        console.print(answer.render(), highlight=False, markup=False)
    if not answer.grounded:
        raise typer.Exit(3)
