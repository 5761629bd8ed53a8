"""Index cost against graph size (issue 23): the MetaQA KB replicated with renamed entities, ×1, ×4, ×8, …

Per size, in a fresh subprocess (so its peak RSS is the build's), embedded mode with auto-index and the in-process
dispatcher, the embedding model loaded before the clock starts:

* **full index build**: seconds by stage (labels / embedding / vectors / snapshot) from the version's metrics, and
  the build's peak RSS (``ru_maxrss`` of the process after loading the data and building, model included);
* **disk after build**: the data folder (store + index version);
* **one new film → answerable**: ``--changes`` times, one SPARQL ``INSERT DATA`` adds a film (new label, directed by
  an existing director); the clock runs until ``KG.ask("who directed <title>")`` answers that director with the new
  film in its evidence (polled every 100 ms, as ``bench/freshness.py``). The build mode (full / incremental) of
  each change is reported, and the p50 split into the build (its ``total_s``) and the rest (the update, the
  dispatch, opening the new version, the first question's label index, the polling);
* **ask p50 / p95**: ``--asks`` questions "who directed <film>" over random films of the KB, after the builds;
* **SPARQL lookup p50**: ``--lookups`` one-subject queries ``SELECT ?p ?o WHERE { <film> ?p ?o }``.

Replica ``r`` of the KB renames every entity ``name`` to ``name ~r`` (replica 0 keeps the names), so ×k has k times
the entities, labels and triples of ×1 (the 9 relations are shared). ``--baseline DIR`` runs the same measurements
with the kgsvc of another checkout (``PYTHONPATH=DIR``, e.g. ``/work/main``) for the sizes of ``--baseline-scales``,
in the same run.

``--stand-in`` embeds the build's rows (the chunks' ``Embedder.encode(cache=False)`` calls) with a stand-in, a unit
vector seeded by each text's CRC-32, instead of the model: sizes whose full build would take hours of forward passes
on 2 cores (×16: ~690k texts) become measurable. Questions still embed with the real model (the question, its
mentions, the relation words), so linking by label, the relation reading and the vector search over every part run
as in production; only what a node's vector is near is meaningless, which "who directed <exact title>" does not
need. The embedding stage's seconds are then the stand-in's, not the model's.

Run: ``python bench/scale.py --scales 1 4 [--stand-in] [--baseline /work/main --baseline-scales 1]``, with
``KGSVC_EVAL_DATA=/work/shared/data`` when the benchmark data folder is not next to the checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RDFS_LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
STAGES = ("labels", "embedding", "vectors", "snapshot")


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def write_kb(path: Path, scale: int) -> list[tuple[str, str, str]]:
    """The MetaQA KB ×``scale`` as a TSV file (replica r renames entity ``e`` to ``e ~r``); returns replica 0."""
    from kgsvc.eval.data import metaqa_kb

    kb = metaqa_kb()
    with path.open("w", encoding="utf-8") as out:
        for r in range(scale):
            suffix = f" ~{r}" if r else ""
            out.writelines(f"{h}{suffix}\t{rel}\t{t}{suffix}\n" for h, rel, t in kb)
    return kb


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _stand_in_rows() -> None:
    """Patch :meth:`Embedder.encode` so that calls with ``cache=False`` (a build's chunks) get stand-in rows."""
    import zlib

    import numpy as np

    from kgsvc.index.embed import Embedder

    real = Embedder.encode

    def encode(self: Embedder, texts: Any, *, cache: bool = True) -> Any:
        if cache:
            return real(self, texts, cache=cache)
        rows = np.empty((len(texts), 384), dtype=np.float32)
        for i, text in enumerate(texts):
            row = np.random.default_rng(zlib.crc32(text.encode("utf-8", "surrogatepass"))).standard_normal(384)
            rows[i] = row / np.linalg.norm(row)
        return rows

    Embedder.encode = encode  # type: ignore[method-assign]


def measure(
    scale: int, workdir: Path, changes: int, asks: int, lookups: int, seed: int, stand_in: bool = False
) -> dict[str, Any]:
    """Everything for one size, in this process (run it in a fresh one)."""
    import kgsvc
    from kgsvc.index.embed import Embedder
    from kgsvc.settings import Settings

    if stand_in:
        _stand_in_rows()

    rng = random.Random(seed)
    source = workdir / f"metaqa_x{scale}.tsv"
    kb = write_kb(source, scale)
    Embedder().encode(["warm-up"])  # the model loads outside every measurement
    data = workdir / f"data_x{scale}"
    result: dict[str, Any] = {"scale": scale, "kgsvc": str(Path(kgsvc.__file__).parents[1]), "stand_in": stand_in}
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=True)) as kg:
        started = time.perf_counter()
        kg.load(source, dataset="kb")
        result["load_s"] = round(time.perf_counter() - started, 1)
        kg.wait()
        row = kg.catalog.current_index_version("kb")
        assert row is not None
        result["triples"] = kg.stats("kb").triples
        result["build_s"] = float(row.metrics["total_s"])
        for stage in STAGES:
            result[f"{stage}_s"] = float(row.metrics[f"{stage}_s"])
        result["build_peak_rss_mb"] = max(float(v) for k, v in row.metrics.items() if k.endswith("_peak_rss_mb"))
        result["texts"] = int(row.counts["node_texts"])
        result["disk_mib"] = round(_du(data) / 2**20, 1)

        films = sorted({h for h, r, _ in kb if r == "directed_by"})
        base = kg.catalog.get("kb").base_iri or "https://kgsvc.local/kb/"
        from kgsvc.ingest.triples import entity_iri, relation_iri

        directed_by = f"<{relation_iri(base, 'directed_by')}>"
        director_of = {h: t for h, r, t in kb if r == "directed_by"}
        film = rng.choice(films)
        director = director_of[film]
        seconds, modes = [], []
        build_s: list[dict[str, Any]] = []
        for i in range(changes):
            title = f"Quiet Harbour Nights Part {i + 1}"
            iri = f"<{entity_iri(base, title)}>"
            update = (
                f'INSERT DATA {{ GRAPH <urn:kgsvc:dataset:kb> {{ {iri} {RDFS_LABEL} "{title}" ; '
                f"{directed_by} <{entity_iri(base, director)}> }} }}"
            )
            started = time.perf_counter()
            kg.update(update)
            deadline = started + 1800
            while True:
                answer = kg.ask(f"who directed {title}", dataset="kb")
                evidence = {label for e in answer.evidence for t in e.triples for label in (t.head.label, t.tail.label)}
                if answer.answers and answer.answers[0].label == director and title in evidence:
                    break
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"change {i + 1} not answerable after 1800 s")
                time.sleep(0.1)
            seconds.append(time.perf_counter() - started)
            kg.wait()
            row = kg.catalog.current_index_version("kb")
            assert row is not None
            modes.append(str(row.metrics.get("mode", "full")))
            build_s.append({k: row.metrics.get(f"{k}_s") for k in (*STAGES, "total")})
        result["change_s"] = [round(s, 2) for s in seconds]
        result["change_build_s"] = build_s
        result["change_modes"] = modes
        result["change_p50_s"] = round(statistics.median(seconds), 2) if seconds else None
        # what is not the build: the update, the dispatch, opening the version and the first question (the label
        # index), and the 100 ms polling
        rest = [s - float(b["total"] or 0) for s, b in zip(seconds, build_s, strict=True)]
        result["change_build_p50_s"] = round(statistics.median(float(b["total"] or 0) for b in build_s), 2)
        result["change_rest_p50_s"] = round(statistics.median(rest), 2) if rest else None

        times = []
        for film in rng.sample(films, min(asks, len(films))):
            started = time.perf_counter()
            kg.ask(f"who directed {film}", dataset="kb")
            times.append(time.perf_counter() - started)
        result["ask_p50_ms"] = round(1000 * _p(times, 0.5), 1)
        result["ask_p95_ms"] = round(1000 * _p(times, 0.95), 1)
        times = []
        for film in rng.sample(films, min(lookups, len(films))):
            query = f"SELECT ?p ?o WHERE {{ <{entity_iri(base, film)}> ?p ?o }}"
            started = time.perf_counter()
            kg.sparql(query, dataset="kb")
            times.append(time.perf_counter() - started)
        result["sparql_p50_ms"] = round(1000 * _p(times, 0.5), 2)
    result["process_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    shutil.rmtree(data, ignore_errors=True)
    source.unlink(missing_ok=True)
    return result


def _child(scale: int, args: argparse.Namespace, pythonpath: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kgsvc-scale-", dir=args.workdir) as tmp:
        out = Path(tmp) / "result.json"
        env = {**os.environ, "PYTHONPATH": str(pythonpath), "KGSVC_AUTO_INDEX": "true"}
        command = [sys.executable, str(Path(__file__).resolve()), "--one", str(scale), "--out", str(out)]
        command += ["--changes", str(args.changes), "--asks", str(args.asks), "--lookups", str(args.lookups)]
        command += ["--workdir", tmp, "--seed", str(args.seed)] + (["--stand-in"] if args.stand_in else [])
        subprocess.run(command, env=env, check=True)
        result: dict[str, Any] = json.loads(out.read_text())
    return result


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| code | size | triples | full build s (labels / embedding / vectors / snapshot) | build peak RSS | "
        "disk after build | one new film → answerable p50 (modes) | of which build / rest p50 | ask p50 / p95 | "
        "SPARQL lookup p50 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        stages = " / ".join(f"{r[f'{s}_s']:.1f}" for s in STAGES)
        modes = ",".join(sorted(set(r["change_modes"])))
        lines.append(
            f"| {r['code']}{' (stand-in rows)' if r.get('stand_in') else ''} | ×{r['scale']} | {r['triples']:,} |"
            f" {r['build_s']:.0f} ({stages}) | "
            f"{r['build_peak_rss_mb'] / 1024:.2f} GB | {r['disk_mib']:.0f} MiB | {r['change_p50_s']} s ({modes}) | "
            f"{r.get('change_build_p50_s')} / {r.get('change_rest_p50_s')} s | "
            f"{r['ask_p50_ms']:.0f} / {r['ask_p95_ms']:.0f} ms | {r['sparql_p50_ms']:.2f} ms |"
        )
    return "\n".join(lines)


def growth(results: list[dict[str, Any]]) -> list[str]:
    """One line per code: how each cost grows from the smallest to the largest size."""
    lines = []
    for code in dict.fromkeys(r["code"] for r in results):
        rows = sorted((r for r in results if r["code"] == code), key=lambda r: r["scale"])
        if len(rows) < 2:
            continue
        a, b = rows[0], rows[-1]
        factor = b["scale"] / a["scale"]
        parts = [
            f"{name} ×{b[key] / a[key]:.1f}"
            for name, key in (
                ("full build", "build_s"),
                ("peak RSS", "build_peak_rss_mb"),
                ("disk", "disk_mib"),
                ("change→answerable", "change_p50_s"),
                ("ask p95", "ask_p95_ms"),
                ("SPARQL p50", "sparql_p50_ms"),
            )
            if a.get(key) and b.get(key)
        ]
        lines.append(f"{code}: ×{a['scale']} → ×{b['scale']} (data ×{factor:.0f}): " + ", ".join(parts))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--baseline", type=Path, help="another checkout whose kgsvc is measured too")
    parser.add_argument("--baseline-scales", type=int, nargs="+", default=[1])
    parser.add_argument("--changes", type=int, default=5)
    parser.add_argument("--asks", type=int, default=40)
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--stand-in", action="store_true", help="stand-in rows for the build's embeddings")
    parser.add_argument("--json", type=Path, help="write the results here too")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        result = measure(args.one, args.workdir, args.changes, args.asks, args.lookups, args.seed, args.stand_in)
        args.out.write_text(json.dumps(result))
        return
    print(f"load average at start: {os.getloadavg()[0]:.2f}, cpus: {os.cpu_count()}", flush=True)
    runs = []
    for scale in sorted(set(args.scales) | set(args.baseline_scales if args.baseline else [])):
        if scale in args.scales:
            runs.append(("this", ROOT, scale))
        if args.baseline is not None and scale in args.baseline_scales:
            runs.append(("baseline", args.baseline.resolve(), scale))
    results = []
    for code, path, scale in runs:
        print(f"measuring {code} ({path}) ×{scale} …", flush=True)
        result = _child(scale, args, path)
        result["code"] = code
        results.append(result)
        print(json.dumps(result), flush=True)
    print()
    print(table(results))
    print()
    print("\n".join(growth(results)))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
