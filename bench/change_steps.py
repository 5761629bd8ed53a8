"""One change → answerable, step by step, on a data folder built once (issue 23; docs/scale.md).

``--build DIR --scale K`` builds a data folder of the MetaQA KB ×K (``bench/scale.py``'s replication, embedded mode,
auto-index, full build) once. Then, per run, on a copy of that folder (so every run starts from the same version)::

    python bench/change_steps.py --data DIR [--changes 3] [--json out.json]

opens the KG (auto-index off), asks one question (the label index of the version on disk is built outside the
clock), then ``--changes`` times: ``KG.update`` of one ``INSERT DATA`` (a new film with a label, directed by an
existing director, released in an existing year), ``KG.build_index``, ``KG.index`` (``load_index`` of the new
version), the first ``KG.ask`` about the new film ("who directed …"); each step timed apart, with the build's stage
seconds from its metrics; then, outside ``total_s``, the version's first question of another kind ("when was …
released": the graph's dates and times, read once per version) as ``first_when_s``. Then, on the same open KG,
``--asks`` warm "who directed <film>" questions and ``--lookups`` SPARQL one-subject lookups (p50 / p95, as
``bench/scale.py`` times them): run it on the ×1 and the ×16 folder back to back for the issue's ratios without two
full builds. The checkout whose ``kgsvc`` runs is ``PYTHONPATH``'s: run it with main's and with a branch's on copies
of one folder, back to back.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import RDFS_LABEL, STAGES, _p, write_kb  # noqa: E402


def build(folder: Path, scale: int) -> dict[str, Any]:
    """A data folder of the KB ×``scale`` with its first (full) index version."""
    import kgsvc
    from kgsvc.settings import Settings

    source = folder.parent / f"{folder.name}.tsv"
    write_kb(source, scale)
    with kgsvc.KG.open(settings=Settings(data_dir=folder, auto_index=True)) as kg:
        kg.load(source, dataset="kb")
        kg.wait()
        row = kg.catalog.current_index_version("kb")
        assert row is not None
        metrics: dict[str, Any] = row.metrics
    source.unlink(missing_ok=True)
    return metrics


def steps(data: Path, changes: int, asks: int = 0, lookups: int = 0) -> dict[str, Any]:
    """The step timings on ``data`` (changed in place: pass a copy)."""
    import kgsvc
    from kgsvc.eval.data import metaqa_kb
    from kgsvc.index.embed import Embedder
    from kgsvc.ingest.triples import entity_iri, relation_iri
    from kgsvc.settings import Settings

    kb = metaqa_kb()
    director = next(t for _, r, t in kb if r == "directed_by")
    year = next(t for _, r, t in kb if r == "release_year")
    films = sorted({h for h, r, _ in kb if r == "directed_by"})
    rng = random.Random(0)
    Embedder().encode(["warm-up"])  # the model loads outside every measurement
    result: dict[str, Any] = {"kgsvc": kgsvc.__file__, "load_average": os.getloadavg()[0], "changes": []}
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False)) as kg:
        base = kg.catalog.get("kb").base_iri or "https://kgsvc.local/kb/"
        directed_by = f"<{relation_iri(base, 'directed_by')}>"
        released = f"<{relation_iri(base, 'release_year')}>"
        kg.ask(f"who directed {director}", dataset="kb")
        for i in range(changes):
            title = f"Quiet Harbour Nights Part {i + 1}"
            update = (
                f'INSERT DATA {{ GRAPH <urn:kgsvc:dataset:kb> {{ <{entity_iri(base, title)}> {RDFS_LABEL} "{title}" '
                f"; {directed_by} <{entity_iri(base, director)}> ; {released} <{entity_iri(base, year)}> }} }}"
            )
            step: dict[str, Any] = {}
            begin = time.perf_counter()
            kg.update(update)
            step["update_s"] = time.perf_counter() - begin
            started = time.perf_counter()
            kg.build_index("kb")
            step["build_s"] = time.perf_counter() - started
            started = time.perf_counter()
            kg.index("kb")
            step["load_index_s"] = time.perf_counter() - started
            started = time.perf_counter()
            answer = kg.ask(f"who directed {title}", dataset="kb")
            step["first_ask_s"] = time.perf_counter() - started
            step["total_s"] = time.perf_counter() - begin
            started = time.perf_counter()
            when = kg.ask(f"when was {title} released", dataset="kb")
            step["first_when_s"] = time.perf_counter() - started
            step = {key: round(value, 3) for key, value in step.items()}
            row = kg.catalog.current_index_version("kb")
            assert row is not None
            step.update({f"{stage}_s": row.metrics.get(f"{stage}_s") for stage in STAGES})
            step["mode"] = row.metrics.get("mode")
            step["answered"] = bool(answer.answers) and answer.answers[0].label == director
            step["when_answered"] = bool(when.answers) and when.answers[0].label == year
            result["changes"].append(step)
            print(json.dumps(step), flush=True)
        times = []
        for film in rng.sample(films, asks):
            started = time.perf_counter()
            kg.ask(f"who directed {film}", dataset="kb")
            times.append(time.perf_counter() - started)
        lookup_times = []
        for film in rng.sample(films, lookups):
            started = time.perf_counter()
            kg.sparql(f"SELECT ?p ?o WHERE {{ <{entity_iri(base, film)}> ?p ?o }}", dataset="kb")
            lookup_times.append(time.perf_counter() - started)
        if times:
            result["ask_ms"] = {"p50": round(1000 * _p(times, 0.5), 1), "p95": round(1000 * _p(times, 0.95), 1)}
        if lookup_times:
            result["sparql_ms"] = {"p50": round(1000 * _p(lookup_times, 0.5), 2)}
        print(json.dumps({k: result[k] for k in ("ask_ms", "sparql_ms") if k in result}), flush=True)
    result["load_average_end"] = os.getloadavg()[0]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, help="build a data folder here (with --scale) and stop")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--data", type=Path, help="a data folder --build made (copied for the run)")
    parser.add_argument("--changes", type=int, default=3)
    parser.add_argument("--asks", type=int, default=0, help="warm questions timed after the changes")
    parser.add_argument("--lookups", type=int, default=0, help="SPARQL lookups timed after the changes")
    parser.add_argument("--json", type=Path, help="write the timings here too")
    args = parser.parse_args()
    if args.build is not None:
        print(json.dumps(build(args.build, args.scale)))
        return
    if args.data is None:
        parser.error("--data or --build is needed")
    with tempfile.TemporaryDirectory(prefix="kgsvc-steps-", dir=args.data.parent) as tmp:
        copy = Path(tmp) / "data"
        shutil.copytree(args.data, copy)
        result = steps(copy, args.changes, args.asks, args.lookups)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
