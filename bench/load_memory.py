"""Peak RSS and time of loading a large triple file, bulk-loaded in pieces of several sizes (issue 23; docs/scale.md).

Writes the MetaQA KB ×K as a TSV (``bench/scale.py``'s replication) and, per piece size and in a fresh child process
each, loads it into a fresh embedded KG (auto-index off) with the setting ``bulk_piece_bytes`` set to that size
(``0``: one ``bulk_load`` call for the whole file), recording the load's seconds, the
process's peak RSS during the load (``VmHWM`` reset before it), and then one-subject SPARQL lookups and a full
``COUNT(*)`` (the store's read speed after a load in pieces)::

    PYTHONPATH=$PWD .venv/bin/python bench/load_memory.py --workdir /tmp/loadmem --scale 16 --pieces 0 64 16
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_memory import _reset_peak, _status  # noqa: E402
from scale import _p, write_kb  # noqa: E402


def measure(source: Path, data: Path, piece_mb: int, lookups: int) -> dict[str, Any]:
    """One load of ``source`` into a fresh KG at ``data`` with pieces of ``piece_mb`` MB (0: one call)."""
    import kgsvc
    from kgsvc.eval.data import metaqa_kb
    from kgsvc.ingest.triples import entity_iri
    from kgsvc.settings import Settings

    result: dict[str, Any] = {"piece_mb": piece_mb}
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False, bulk_piece_bytes=piece_mb << 20)) as kg:
        _reset_peak()
        result["start_mb"] = _status("VmRSS")
        started = time.perf_counter()
        kg.load(source, dataset="kb")
        kg.wait()
        result["load_s"] = round(time.perf_counter() - started, 1)
        result["peak_mb"] = _status("VmHWM")
        result["triples"] = kg.stats("kb").triples
        base = kg.catalog.get("kb").base_iri or "https://kgsvc.local/kb/"
        films = sorted({h for h, r, _ in metaqa_kb() if r == "directed_by"})
        times = []
        for film in random.Random(0).sample(films, lookups):
            started = time.perf_counter()
            kg.sparql(f"SELECT ?p ?o WHERE {{ <{entity_iri(base, film)}> ?p ?o }}", dataset="kb")
            times.append(time.perf_counter() - started)
        result["lookup_p50_ms"] = round(1000 * statistics.median(times), 2)
        result["lookup_p95_ms"] = round(1000 * _p(times, 0.95), 2)
        started = time.perf_counter()
        kg.sparql("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", dataset="kb")
        result["count_s"] = round(time.perf_counter() - started, 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--pieces", type=int, nargs="+", default=[0, 64, 16], help="piece sizes in MB; 0: one call")
    parser.add_argument("--rounds", type=int, default=1, help="the piece sizes this many times, alternating")
    parser.add_argument("--lookups", type=int, default=300)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    source = args.workdir / f"metaqa_x{args.scale}.tsv"
    data = args.workdir / "data"
    if args.one is not None:
        args.out.write_text(json.dumps(measure(source, data, args.one, args.lookups)))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    write_kb(source, args.scale)
    print(f"×{args.scale}: {source.stat().st_size / 2**20:.0f} MB of TSV", flush=True)
    results = []
    for _ in range(args.rounds):
        for piece in args.pieces:
            shutil.rmtree(data, ignore_errors=True)
            out = args.workdir / "out.json"
            command = [sys.executable, str(Path(__file__).resolve()), "--workdir", str(args.workdir)]
            command += [
                "--scale",
                str(args.scale),
                "--lookups",
                str(args.lookups),
                "--one",
                str(piece),
                "--out",
                str(out),
            ]
            subprocess.run(command, check=True)
            result = json.loads(out.read_text())
            results.append(result)
            print(
                f"pieces {piece or 'one call'}{' MB' if piece else ''}: load {result['load_s']} s, RSS "
                f"{result['start_mb']:.0f} → peak {result['peak_mb']:.0f} MB, {result['triples']:,} triples; lookup "
                f"p50 / p95 {result['lookup_p50_ms']} / {result['lookup_p95_ms']} ms, COUNT(*) {result['count_s']} s",
                flush=True,
            )
    shutil.rmtree(data, ignore_errors=True)
    source.unlink(missing_ok=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
