"""``kgsvc eval {metaqa,pq,wc2014}``: score the question path on a benchmark (:mod:`kgsvc.eval.harness`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgsvc.cli._app import app, console, err_console

__all__ = ["eval_command"]


@app.command("eval")
def eval_command(
    benchmark: Annotated[str, typer.Argument(help="metaqa, pq or wc2014.")],
    split: Annotated[
        list[str] | None,
        typer.Option("--split", help="Split(s): metaqa 1-hop/2-hop/3-hop, pq 2H/3H, wc2014 1hop/2hop/conj."),
    ] = None,
    hops: Annotated[
        list[int] | None, typer.Option("--hops", help="Shorthand for MetaQA/PQ splits by hop count.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Questions scored per split (the first ones).")] = 200,
    strategy: Annotated[
        str, typer.Option(help="grounded or pattern (the bundled LLM writes the pattern).")
    ] = "grounded",
    llm_choice: Annotated[
        bool, typer.Option(help="The bundled LLM chooses among the top grounded candidates.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the reports (default: <data dir>/eval).", show_default=False),
    ] = None,
) -> None:
    """Evaluate strict and lenient Hits@1, the ceiling, errors by stage and latency per stage."""
    import torch

    from kgsvc.eval.harness import run_eval, splits
    from kgsvc.qa.pipeline import QAOptions
    from kgsvc.settings import Settings

    torch.set_num_threads(1)  # MiniLM on a few short texts: one thread is fastest on a shared 2-core machine
    try:
        names = list(split or [])
        for h in hops or []:
            names.append({"metaqa": f"{h}-hop", "pq": f"{h}H"}.get(benchmark, str(h)))
        names = names or splits(benchmark)
        options = QAOptions.from_kwargs(strategy=strategy, llm_choice=llm_choice)
        llm = None
        if strategy == "pattern" or llm_choice:
            from kgsvc.llm.base import open_llm

            llm = open_llm(Settings())
        folder = out or Settings().data_dir / "eval"
        for name in names:
            report = run_eval(benchmark, name, limit=limit, options=options, llm=llm)
            md = report.write(folder)
            console.print(report.markdown(), highlight=False)
            console.print(f"(written: {md} and {md.with_suffix('.jsonl')})")
    except (ValueError, TypeError, FileNotFoundError) as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from None
