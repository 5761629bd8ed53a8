"""Data commands: ``load``, ``datasets``, ``stats``, ``sparql``, ``update``, ``dump``, ``drop``, ``jobs``."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn
from rich.table import Table

from kgsvc.cli._app import DataDir, app, console, fail, open_service
from kgsvc.cli.indexing import wait_for_index
from kgsvc.schemas import LoadResult, SparqlResult
from kgsvc.sdk import KG

__all__ = ["datasets", "drop", "dump", "index", "jobs", "load", "sparql", "stats", "update"]


def _duration(seconds: float) -> str:
    """``0.4 ms``, ``12 ms``, ``1.25 s``: enough digits to be read, never ``0.00 s``."""
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def _summary(file: Path, dataset: str, result: LoadResult) -> str:
    """The load's one-line summary; the rate only when the load took long enough for it to mean something."""
    rate = f", {result.triples_added / result.seconds:,.0f} triples/s" if result.seconds >= 0.1 else ""
    return (
        f"loaded {file} into [bold]{escape(dataset)}[/]: +{result.triples_added:,} triples "
        f"({result.triples_total:,} in total, {result.format}, {'bulk' if result.bulk else 'transactional'}, "
        f"{_duration(result.seconds)}{rate})"
    )


@app.command()
def load(
    file: Annotated[Path, typer.Argument(help="RDF file (ttl, nt, nq, trig, rdf, jsonld, …) or triple file; .gz ok.")],
    dataset: Annotated[str, typer.Option("--dataset", "-n", help="Dataset name (created if new).")],
    format: Annotated[str | None, typer.Option("--format", "-f", help="Format, if not clear from the name.")] = None,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            help="Base IRI of relative IRIs and of minted triple-file IRIs (default: https://kgsvc.local/DATASET/).",
        ),
    ] = None,
    name_predicate: Annotated[
        list[str] | None,
        typer.Option(
            "--name-predicate",
            help="IRI of a predicate whose literals name the nodes (repeatable; preferred to rdfs:label and the "
            "names discovered in the data). Kept for the dataset.",
        ),
    ] = None,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait/--no-wait",
            help="Wait for the dataset's index build (a progress line shows it), or return once the data is stored.",
        ),
    ] = True,
    data_dir: DataDir = None,
) -> None:
    """Load FILE into a dataset, all or nothing, then wait for its index (see --no-wait)."""
    if not file.is_file():
        raise fail(f"{file}: no such file")
    # embedded with --no-wait: no index build is queued (this process ends now); `kgsvc index` builds it later
    with open_service(data_dir, auto_index=None if wait else False) as service:
        if isinstance(service, KG):
            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                DownloadColumn(),
                TransferSpeedColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=True,
                disable=not console.is_terminal,
            ) as bar:
                task = bar.add_task(f"loading {file.name}", total=None)
                result = service.load(
                    file,
                    dataset=dataset,
                    format=format,
                    base_iri=base,
                    name_predicates=name_predicate or None,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )
            indexes = service.settings.auto_index
        else:
            result = service.load(
                file, dataset=dataset, format=format, base_iri=base, name_predicates=name_predicate or None
            )
            indexes = bool(service.health().get("auto_index", True))
        console.print(_summary(file, dataset, result), highlight=False, soft_wrap=True)
        if not wait:
            if isinstance(service, KG):
                console.print(f"not indexed yet (--no-wait): `kgsvc index {dataset}` builds the index", highlight=False)
            return
        if not indexes:
            console.print("not indexed: indexes are built on change only with KGSVC_AUTO_INDEX=true", highlight=False)
            return
        wait_for_index(service, dataset, result.store_version)


@app.command()
def index(dataset: Annotated[str, typer.Argument()], data_dir: DataDir = None) -> None:
    """Build DATASET's index for its current data (a no-op when it is up to date), with a progress line.

    Beside a running server, waits for the server's own build.
    """
    with open_service(data_dir, auto_index=False) as service:
        wanted = service.stats(dataset).store_version
        if isinstance(service, KG):
            service.dispatcher.submit("kgsvc.build_index", dataset=dataset, store_version=wanted)
        elif not service.health().get("auto_index", True):
            raise fail("the server builds no indexes (it runs with KGSVC_AUTO_INDEX=false); stop it to build here")
        wait_for_index(service, dataset, wanted)


@app.command()
def datasets(data_dir: DataDir = None) -> None:
    """List the datasets."""
    with open_service(data_dir) as kg:
        table = Table("dataset", "triples", "data version", "updated", "graph")
        for info in kg.datasets():
            table.add_row(
                info.name,
                f"{info.triples:,}",
                str(info.store_version),
                info.updated_at.strftime("%Y-%m-%d %H:%M"),
                info.graph,
            )
        console.print(table)


@app.command()
def stats(dataset: Annotated[str, typer.Argument()], data_dir: DataDir = None) -> None:
    """Triple, node, literal and relation counts of DATASET, and its index versions."""
    with open_service(data_dir) as kg:
        result = kg.stats(dataset)
    table = Table("", "count", title=f"dataset {dataset}")
    for key in ("triples", "nodes", "literals", "relations", "store_version"):
        table.add_row(key.replace("_", " "), f"{getattr(result, key):,}")
    console.print(table)
    for version in result.index_versions:
        console.print(f"index v{version.version}: {version.state} (data version {version.store_version})")


def _render(result: SparqlResult, fmt: str) -> None:
    if result.kind == "ask":
        console.print(json.dumps({"boolean": result.boolean}) if fmt == "json" else str(result.boolean).lower())
        return
    if result.kind == "graph":
        if fmt == "json":
            print(json.dumps([[t.model_dump(exclude_none=True) for t in triple] for triple in result.triples]))
        else:
            for s, p, o in result.triples:
                print(f"{s.value}\t{p.value}\t{o.value}")
        return
    if fmt == "json":
        print(result.model_dump_json(include={"variables", "rows"}, exclude_none=True))
    elif fmt in ("csv", "tsv"):
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(result.variables)
        for row in result.rows:
            writer.writerow([row[v].value if v in row else "" for v in result.variables])
        sys.stdout.write(buffer.getvalue())
    else:
        table = Table(*result.variables)
        for row in result.rows:
            table.add_row(*(row[v].value if v in row else "" for v in result.variables))
        console.print(table)
        console.print(f"{len(result.rows)} row(s)")


@app.command()
def sparql(
    dataset: Annotated[str, typer.Argument(help="Dataset whose graph is the default graph.")],
    query: Annotated[str, typer.Argument(help="SPARQL query (or @file.rq).")],
    format: Annotated[str, typer.Option("--format", "-f", help="table, json, csv or tsv.")] = "table",
    data_dir: DataDir = None,
) -> None:
    """Run a SPARQL query against DATASET."""
    if format not in ("table", "json", "csv", "tsv"):
        raise typer.BadParameter(f"expected table, json, csv or tsv, got {format!r}", param_hint="--format")
    text = Path(query[1:]).read_text(encoding="utf-8") if query.startswith("@") else query
    with open_service(data_dir) as kg:
        result = kg.sparql(text, dataset=dataset)
    _render(result, format)


@app.command()
def update(
    update: Annotated[
        str, typer.Argument(help="SPARQL update (or @file.ru); dataset graphs are <urn:kgsvc:dataset:NAME>.")
    ],
    data_dir: DataDir = None,
) -> None:
    """Run a SPARQL update, all or nothing."""
    text = Path(update[1:]).read_text(encoding="utf-8") if update.startswith("@") else update
    with open_service(data_dir) as kg:
        changed = kg.update(text)
    console.print(f"updated; datasets changed: {', '.join(changed) or 'none'}")


#: ``kgsvc dump --format`` names, and the format each stands for.
DUMP_FORMATS = {"nt": "nt", "ttl": "ttl", "turtle": "ttl", "rdf": "rdf", "jsonld": "jsonld", "n3": "n3"}


@app.command()
def dump(
    dataset: Annotated[str, typer.Argument()],
    format: Annotated[str, typer.Option("--format", "-f", help="nt, ttl, rdf, jsonld or n3.")] = "nt",
    data_dir: DataDir = None,
) -> None:
    """Write DATASET's triples to standard output."""
    name = DUMP_FORMATS.get(format.strip().lower())
    if name is None:
        raise typer.BadParameter(f"expected one of {', '.join(DUMP_FORMATS)}, got {format!r}", param_hint="--format")
    with open_service(data_dir) as kg:
        sys.stdout.buffer.write(kg.dump(dataset, format=name))


@app.command()
def drop(
    dataset: Annotated[str, typer.Argument()],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    data_dir: DataDir = None,
) -> None:
    """Remove DATASET with its graph, metadata and indexes."""
    if not yes and sys.stdin.isatty():
        typer.confirm(f"drop dataset {dataset!r}?", abort=True)
    with open_service(data_dir) as kg:
        kg.drop(dataset)
    console.print(f"dropped {dataset}")


@app.command()
def jobs(
    dataset: Annotated[str | None, typer.Option("--dataset", "-n")] = None,
    data_dir: DataDir = None,
) -> None:
    """Recent jobs with state, progress and timings."""
    with open_service(data_dir) as kg:
        rows = kg.jobs(dataset=dataset)
    table = Table("id", "kind", "dataset", "state", "progress", "seconds", "error")
    for job in rows:
        table.add_row(
            job.id[:8],
            job.kind,
            job.dataset or "",
            job.state,
            f"{job.progress:.0%}",
            f"{job.seconds:.2f}" if job.seconds is not None else "",
            (job.error or "")[:60],
        )
    console.print(table)
