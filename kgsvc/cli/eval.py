"""``kgsvc eval {metaqa,pq,wc2014,nobel}``: score the question path on a benchmark (:mod:`kgsvc.eval.harness`,
:mod:`kgsvc.eval.nobel`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TimeElapsedColumn, TimeRemainingColumn

from kgsvc.cli._app import app, console, err_console

__all__ = ["eval_command"]

#: The LLM-free baseline of issue 16: rank the enumerated paths by similarity alone (``--baseline``).
BASELINE_OPTIONS_KW = {"w_zero": 0.0, "w_align": 0.0, "w_person": 0.0, "hop_penalty": 0.0, "w_sim": 1.0}


@app.command("eval")
def eval_command(
    benchmark: Annotated[str, typer.Argument(help="metaqa, pq, wc2014 or nobel.")],
    split: Annotated[
        list[str] | None,
        typer.Option("--split", help="Split(s): metaqa 1-hop/2-hop/3-hop, pq 2H/3H, wc2014 1hop/2hop/conj."),
    ] = None,
    hops: Annotated[
        list[int] | None, typer.Option("--hops", help="Shorthand for MetaQA/PQ splits by hop count.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Questions scored per split.")] = 200,
    exemplars: Annotated[
        list[str] | None,
        typer.Option(
            "--exemplars",
            help="Exemplar setting(s): 0 (none), 12 (the fixed committed set) or pool (unscored benchmark "
            "questions); twins of scored questions are removed. Repeat to compare. Default: 0 and 12.",
        ),
    ] = None,
    sample: Annotated[
        str, typer.Option(help="random: a seeded random sample of each split; first: the first ones in file order.")
    ] = "random",
    seed: Annotated[int, typer.Option(help="Seed of the random sample.")] = 0,
    strategy: Annotated[
        str, typer.Option(help="grounded or pattern (the bundled LLM writes the pattern).")
    ] = "grounded",
    llm_choice: Annotated[
        bool, typer.Option(help="The bundled LLM chooses among the top grounded candidates.")
    ] = False,
    drop: Annotated[
        float, typer.Option(help="Share of the KB removed first (seeded); 0.5 is the MetaQA-half setting.")
    ] = 0.0,
    infer: Annotated[
        bool,
        typer.Option(
            help="Answer with inferred edges too: a GNN is trained on the (reduced) KB once, kept under the "
            "report folder, and used by ask(infer=True). Each split is then reported without and with them."
        ),
    ] = False,
    epochs: Annotated[int, typer.Option(help="GNN training epochs (cap; early stopping) with --infer.")] = 20,
    baseline: Annotated[
        bool,
        typer.Option(
            help="Also score the LLM-free similarity baseline with no exemplars: the same linking and 1-3-hop "
            "candidates, ranked by MiniLM similarity of the verbalised path to the question only "
            "(no alignment, no hop penalty)."
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the reports (default: <data dir>/eval).", show_default=False),
    ] = None,
) -> None:
    """Evaluate strict and lenient Hits@1, the ceiling, errors by stage and latency per stage."""
    from kgsvc import torch_threads
    from kgsvc.eval.harness import run_eval, splits
    from kgsvc.gnn.model import GNNConfig
    from kgsvc.qa.pipeline import QAOptions
    from kgsvc.settings import Settings

    torch_threads.configure(Settings().torch_threads)  # the harness loads MiniLM without KG.open
    settings_wanted = list(exemplars or ["0", "12"])
    try:
        if benchmark == "nobel":
            from kgsvc.eval.nobel import run_nobel

            folder = out or Settings().data_dir / "eval"
            for nobel in run_nobel(folder / "nobel-kg", tuple(settings_wanted), strategy=strategy):
                md = nobel.write(folder)
                console.print(nobel.markdown(), highlight=False)
                console.print(f"(written: {md} and {md.with_suffix('.jsonl')})")
            return
        names = list(split or [])
        for h in hops or []:
            names.append({"metaqa": f"{h}-hop", "pq": f"{h}H"}.get(benchmark, str(h)))
        names = names or splits(benchmark)
        options = QAOptions.from_kwargs(strategy=strategy, llm_choice=llm_choice)
        BASELINE_OPTIONS = QAOptions.from_kwargs(**BASELINE_OPTIONS_KW)  # noqa: N806
        llm = None
        if strategy == "pattern" or llm_choice:
            from kgsvc.llm.base import open_llm

            llm = open_llm(Settings())
        folder = out or Settings().data_dir / "eval"
        for name in names:
            runs: list[tuple[QAOptions, Path | None]] = [(options, None)]
            if infer:
                trained = folder / f"gnn-{benchmark}-{name}-drop{round(100 * drop)}pct"
                runs.append((dataclasses.replace(options, infer=True), trained))
            plan = [(r, s) for r in runs for s in settings_wanted]
            if baseline:
                plan.insert(0, ((BASELINE_OPTIONS, None), "0"))
            for (run_options, model), setting in plan:
                with Progress(
                    "[progress.description]{task.description}",
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    TimeRemainingColumn(),
                    console=err_console,
                    transient=True,
                ) as bar:
                    label = f"{benchmark} {name}, {setting} exemplars" + (" (inferred edges)" if model else "")
                    task = bar.add_task(f"{label}: loading the KB", total=None)

                    def advance(done: int, total: int, task: TaskID = task, label: str = label) -> None:
                        bar.update(task, description=label, completed=done, total=total)

                    report = run_eval(
                        benchmark,
                        name,
                        limit=limit,
                        sample=sample,
                        seed=seed,
                        options=run_options,
                        llm=llm,
                        drop=drop,
                        gnn=model,
                        gnn_config=GNNConfig(epochs=epochs) if model else None,
                        exemplar_setting=setting,
                        progress=advance,
                    )
                md = report.write(folder)
                console.print(report.markdown(), highlight=False)
                if model:
                    console.print(f"GNN: {model} (trained in {report.extra['gnn_train_s']} s this run)")
                console.print(f"(written: {md} and {md.with_suffix('.jsonl')})")
    except (ValueError, TypeError, FileNotFoundError) as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from None
