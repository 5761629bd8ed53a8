"""A full index build with and without questions asked meanwhile, in one process (issue 23).

Issue 23 asks that questions asked while a build runs do not slow it several-fold (measured then: polling every
100 ms made the label pass 5x slower). Embedded mode, as a user runs it: one ``KG`` with auto-index off holds
dataset ``live`` (indexed once, the one questions go to) and, per run, a fresh dataset with the same data whose
first, full index build is timed with ``KG.build_index`` in the main thread. In the ``asking`` runs a second
thread asks ``live`` "who directed <film>" every ``--interval`` seconds (a new film each time) until the build
ends. The embedder's in-process text cache is cleared before each build, so each embeds from scratch. Runs
alternate alone / asking, ``--rounds`` times each; the table gives each run's build seconds by stage, and the
asks' count and latency.

The data: the bundled sample plus ``--films`` synthetic films (``bench/freshness.py``'s ``movie_kg``).

Run: ``python bench/build_while_asking.py [--films 20000] [--rounds 2] [--interval 0.1]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from freshness import _FILMS, _cold_cache, movie_kg  # noqa: E402

import kgsvc  # noqa: E402
from kgsvc.settings import Settings  # noqa: E402

STAGES = ("labels", "embedding", "vectors", "snapshot")


def _asker(kg: kgsvc.KG, titles: list[str], interval: float, stop: threading.Event, latencies: list[float]) -> None:
    i = 0
    while not stop.is_set():
        started = time.perf_counter()
        kg.ask(f"who directed {titles[i % len(titles)]}", dataset="live")
        latencies.append(time.perf_counter() - started)
        i += 1
        stop.wait(max(0.0, interval - (time.perf_counter() - started)))


def run(films: int, rounds: int, interval: float, workdir: Path) -> list[dict[str, object]]:
    source = movie_kg(workdir, films)
    rows: list[dict[str, object]] = []
    with kgsvc.KG.open(settings=Settings(data_dir=workdir / "data", auto_index=False)) as kg:
        kg.load(source, dataset="live")
        kg.build_index("live")
        titles = [r["l"].value for r in kg.sparql(_FILMS, dataset="live").rows]
        kg.ask(f"who directed {titles[0]}", dataset="live")  # the live index and its question path, loaded
        for r in range(rounds):
            for mode in ("alone", "asking"):
                dataset = f"build-{r}-{mode}"
                kg.load(source, dataset=dataset)
                _cold_cache()
                latencies: list[float] = []
                stop = threading.Event()
                asker = threading.Thread(target=_asker, args=(kg, titles, interval, stop, latencies))
                if mode == "asking":
                    asker.start()
                started = time.perf_counter()
                kg.build_index(dataset)
                seconds = time.perf_counter() - started
                stop.set()
                if mode == "asking":
                    asker.join()
                version = kg.catalog.current_index_version(dataset)
                assert version is not None
                stages = {s: float(version.metrics[f"{s}_s"]) for s in STAGES}
                rows.append(
                    {
                        "round": r + 1,
                        "mode": mode,
                        "build_s": seconds,
                        **stages,
                        "asks": len(latencies),
                        "ask_p50_ms": 1000 * statistics.median(latencies) if latencies else None,
                    }
                )
                print(_line(rows[-1]), flush=True)
    return rows


def _line(row: dict[str, object]) -> str:
    p50 = row["ask_p50_ms"]
    asks = f"{row['asks']} asks, p50 {p50:.0f} ms" if isinstance(p50, float) else "no asks"
    stages = " / ".join(f"{row[s]:.1f}" for s in STAGES)
    return f"| {row['round']} | {row['mode']} | {row['build_s']:.1f} | {stages} | {asks} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--films", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between the starts of two questions")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print("| round | mode | build s | labels / embedding / vectors / snapshot s | questions meanwhile |")
    print("|---:|---|---:|---|---|")
    with tempfile.TemporaryDirectory(prefix="kgsvc-build-asking-") as tmp:
        rows = run(args.films, args.rounds, args.interval, Path(tmp))
    alone = [float(r["build_s"]) for r in rows if r["mode"] == "alone"]  # type: ignore[arg-type]
    asking = [float(r["build_s"]) for r in rows if r["mode"] == "asking"]  # type: ignore[arg-type]
    print(f"\nbuild while asking / alone: {statistics.median(asking) / statistics.median(alone):.2f}x (medians)")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
