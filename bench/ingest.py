"""Ingestion throughput: the full kgsvc load beside plain ``pyoxigraph.Store.bulk_load``, in one run.

For each KB (MetaQA as the keallm KGE split, WorldCup2014), from ``../shared/data``:

Only the load call is timed (opening the store, and for kgsvc migrating the metadata DB, is shown apart).

* **kgsvc**: ``KG.load`` of the KB as a plain triple file (``h<TAB>r<TAB>t``) into a fresh on-disk data dir —
  format detection, the reversible RDF mapping with labels, the bulk path, job rows, metadata, event;
* **plain**: ``pyoxigraph.Store.bulk_load`` of an N-Triples file holding exactly the triples kgsvc stored
  (kgsvc's own dump), into a fresh on-disk store.

Each trial runs in its own subprocess (peak RSS is per process); trials alternate, and the table shows the
median of ``--repeat`` trials. Run: ``python bench/ingest.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _worker(mode: str, file: Path, workdir: Path) -> dict[str, float]:
    """One load in a fresh process; times the load call only (opening the store is timed apart)."""
    if mode == "kgsvc":
        import kgsvc

        settings = kgsvc.Settings(data_dir=workdir, bulk_threshold_bytes=0)
        opened = time.perf_counter()
        with kgsvc.KG.open(settings=settings) as kg:
            started = time.perf_counter()
            result = kg.load(file, dataset="bench")
            seconds = time.perf_counter() - started
            triples = result.triples_total
    else:
        import pyoxigraph

        opened = time.perf_counter()
        store = pyoxigraph.Store(str(workdir / "store"))
        started = time.perf_counter()
        store.bulk_load(
            path=str(file),
            format=pyoxigraph.RdfFormat.N_TRIPLES,
            to_graph=pyoxigraph.NamedNode("urn:kgsvc:dataset:bench"),
        )
        store.flush()
        seconds = time.perf_counter() - started
        triples = len(store)
        del store
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "open_s": started - opened, "triples": triples, "peak_mb": peak_mb}


def _trial(mode: str, file: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="kgsvc-bench-") as workdir:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", mode, "--file", str(file), "--workdir", workdir],
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _prepare(name: str, triples: list[tuple[str, str, str]], folder: Path) -> tuple[Path, Path]:
    import kgsvc

    tsv = folder / f"{name}.tsv"
    tsv.write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in triples), encoding="utf-8")
    nt = folder / f"{name}.nt"
    with kgsvc.KG.open(folder / f"{name}-ref") as kg:
        kg.load(tsv, dataset="bench")
        nt.write_bytes(kg.dump("bench", format="nt"))
    return tsv, nt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--worker", choices=["kgsvc", "plain"])
    parser.add_argument("--file", type=Path)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(args.worker, args.file, args.workdir)))
        return

    from kgsvc.eval.data import metaqa_kb, wc2014_kb

    rows = []
    with tempfile.TemporaryDirectory(prefix="kgsvc-bench-data-") as tmp:
        for name, kb in (("MetaQA (KGE-split KB)", metaqa_kb()), ("WorldCup2014", wc2014_kb())):
            tsv, nt = _prepare(name.split()[0], kb, Path(tmp))
            trials: dict[str, list[dict[str, float]]] = {"kgsvc": [], "plain": []}
            for _ in range(args.repeat):
                for mode, file in (("kgsvc", tsv), ("plain", nt)):
                    trials[mode].append(_trial(mode, file))
            summary = {}
            for mode, runs in trials.items():
                seconds = statistics.median(r["seconds"] for r in runs)
                summary[mode] = (
                    runs[0]["triples"],
                    seconds,
                    runs[0]["triples"] / seconds,
                    statistics.median(r["peak_mb"] for r in runs),
                    statistics.median(r["open_s"] for r in runs),
                )
            rows.append((name, len(kb), summary))
    print(
        "| KB | input triples | loader | stored triples | load s (median) | triples/s | ratio | open s | peak RSS MB |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for name, n_input, summary in rows:
        base = summary["plain"][2]
        for mode in ("kgsvc", "plain"):
            stored, seconds, rate, peak, open_s = summary[mode]
            label = "kgsvc `KG.load` (TSV → RDF + labels, bulk)" if mode == "kgsvc" else "`Store.bulk_load` (N-Triples)"
            print(
                f"| {name} | {n_input:,} | {label} | {stored:,} | {seconds:.2f} | {rate:,.0f} | {rate / base:.2f}× | "
                f"{open_s:.2f} | {peak:.0f} |"
            )


if __name__ == "__main__":
    main()
