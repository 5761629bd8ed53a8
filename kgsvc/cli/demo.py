"""``kgsvc demo``: the main job on the embedded default — load the bundled sample KG and answer its questions."""

from __future__ import annotations

from kgsvc.cli._app import DataDir, app, console, open_kg
from kgsvc.samples import sample_path, sample_questions

__all__ = ["demo"]


@app.command()
def demo(data_dir: DataDir = None) -> None:
    """Load the bundled sample KG (if not loaded yet), index it, and answer the bundled questions with evidence."""
    with open_kg(data_dir, command="`kgsvc demo`") as kg:
        if not any(d.name == "sample" for d in kg.datasets()):
            result = kg.load(sample_path(), dataset="sample")
            console.print(f"loaded the sample KG: {result.triples_added} triples into dataset [bold]sample[/]")
        kg.build_index("sample")  # no-op when the current index version covers the data
        for question, expected in sample_questions():
            console.print(f"\n[bold]Q:[/] {question}")
            answer = kg.ask(question, dataset="sample")
            console.print(answer.render(), highlight=False, markup=False)
            console.print(f"   expected: {', '.join(expected)}", highlight=False, markup=False)
