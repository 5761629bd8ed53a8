"""Ingestion throughput: the full kgsvc load beside plain ``pyoxigraph.Store.bulk_load``, in one run.

For each KB (MetaQA as the keallm KGE split, WorldCup2014), from ``../shared/data``:

Only the load call is timed (opening the store, and for kgsvc migrating the metadata DB, is shown apart).

* **kgsvc**: ``KG.load`` of the KB as a plain triple file (``h<TAB>r<TAB>t``) into a fresh on-disk data dir —
  format detection, the reversible RDF mapping with labels, the bulk path, job rows, metadata, event. The
  indexes the event would rebuild (``auto_index``) are off: they are built asynchronously after the load, by a
  worker, and are measured by the index benchmarks;
* **plain**: ``pyoxigraph.Store.bulk_load`` of an N-Triples file holding exactly the triples kgsvc stored
  (kgsvc's own dump), into a fresh on-disk store.

Each trial runs in its own subprocess (peak RSS is per process); trials alternate, and the table shows the
median of ``--repeat`` trials, with the CPU seconds (all threads) the load call used. Below the table, the ratio
of each alternating pair (plain seconds / kgsvc seconds) shows how much the ratio moves from trial to trial.
Run: ``python bench/ingest.py [--repeat 5]``.
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


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _worker(mode: str, file: Path, workdir: Path) -> dict[str, float]:
    """One load in a fresh process; times the load call only (opening the store is timed apart)."""
    if mode == "kgsvc":
        import kgsvc

        settings = kgsvc.Settings(data_dir=workdir, bulk_threshold_bytes=0, auto_index=False)
        opened = time.perf_counter()
        with kgsvc.KG.open(settings=settings) as kg:
            cpu, started = _cpu_seconds(), time.perf_counter()
            result = kg.load(file, dataset="bench")
            seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
            triples = result.triples_total
    else:
        import pyoxigraph

        opened = time.perf_counter()
        store = pyoxigraph.Store(str(workdir / "store"))
        cpu, started = _cpu_seconds(), time.perf_counter()
        store.bulk_load(
            path=str(file),
            format=pyoxigraph.RdfFormat.N_TRIPLES,
            to_graph=pyoxigraph.NamedNode("urn:kgsvc:dataset:bench"),
        )
        store.flush()
        seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
        triples = len(store)
        del store
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "cpu_s": cpu, "open_s": started - opened, "triples": triples, "peak_mb": peak_mb}


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
    with kgsvc.KG.open(settings=kgsvc.Settings(data_dir=folder / f"{name}-ref", auto_index=False)) as kg:
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
                    statistics.median(r["cpu_s"] for r in runs),
                )
            pairs = [p["seconds"] / k["seconds"] for k, p in zip(trials["kgsvc"], trials["plain"], strict=True)]
            rows.append((name, len(kb), summary, pairs))
    print(
        "| KB | input triples | loader | stored triples | load s (median) | CPU s (median) | triples/s | ratio | "
        "open s | peak RSS MB |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, n_input, summary, _ in rows:
        base = summary["plain"][2]
        for mode in ("kgsvc", "plain"):
            stored, seconds, rate, peak, open_s, cpu = summary[mode]
            label = "kgsvc `KG.load` (TSV → RDF + labels, bulk)" if mode == "kgsvc" else "`Store.bulk_load` (N-Triples)"
            print(
                f"| {name} | {n_input:,} | {label} | {stored:,} | {seconds:.2f} | {cpu:.2f} | {rate:,.0f} | "
                f"{rate / base:.2f}× | {open_s:.2f} | {peak:.0f} |"
            )
    print()
    for name, _, _, pairs in rows:
        print(f"{name}: paired ratios {', '.join(f'{r:.2f}' for r in pairs)} (min {min(pairs):.2f})")


if __name__ == "__main__":
    main()
