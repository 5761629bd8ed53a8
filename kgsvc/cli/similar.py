"""``kgsvc similar``: the nodes nearest to one node by its GNN embedding (``KG.similar``)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from kgsvc.cli._app import DataDir, app, console, open_service

__all__ = ["similar"]


@app.command()
def similar(
    term: Annotated[str, typer.Argument(help="IRI of the node (or an N-Triples term).")],
    dataset: Annotated[str, typer.Option("--dataset", "-D", help="Dataset of the node.")],
    data_dir: DataDir = None,
    k: Annotated[int, typer.Option("-k", min=1, help="How many nodes.")] = 10,
    literals: Annotated[bool, typer.Option(help="Include literal nodes (labels, years, …).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """The K nodes of DATASET nearest to TERM by GNN embedding (needs a trained GNN: KGSVC_GNN_TRAIN=true)."""
    with open_service(data_dir) as kg:
        found = kg.similar(term, dataset=dataset, k=k, literals=literals)
    if as_json:
        console.print_json(json.dumps([node.model_dump(mode="json") for node in found]))
        return
    table = Table("#", "label", "term", "distance")
    for rank, node in enumerate(found, 1):
        table.add_row(str(rank), node.label, node.term.value, f"{node.distance:.3f}")
    console.print(table)
