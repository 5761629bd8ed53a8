"""Crash and shutdown numbers: what a killed ``kgsvc load`` leaves, what the next open recovers, how fast SIGTERM is.

Three measurements, each on a fresh data dir under ``--work``:

1. **kill mid bulk load** — the sample KG (615 triples) as dataset ``d``, then ``kgsvc load`` of ``--triples``
   generated N-Triples into ``d`` on the bulk path, SIGKILLed ``--delay`` seconds after its first ``bulk-*.sst``
   file appeared. Shown: the ``bulk-*`` files and bytes left, the store folder size, the catalog's and the store's
   counts; then the next ``KG.open``: seconds it took, files and bytes recovery deleted, counts after.
2. **kill after the store write** — the same load with ``KGSVC_FAULT_KILL_AT=load-stored`` (the issue's case: the
   store holds the file, the catalog does not know): counts and data version before and after the next open.
3. **SIGTERM mid index build** — ``kgsvc serve`` (granian and uvicorn) with auto-index on; a Graph Store POST of
   ``--labels`` labelled entities starts a build; SIGTERM as soon as the version is ``building``; shown: seconds
   from SIGTERM to exit, the exit code, and whether a restart opens the data dir (the store's LOCK released).

Run: ``python bench/recovery.py [--triples 1000000] [--labels 8000]``. Prints a markdown table per part.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

import kgsvc
from kgsvc.settings import Settings
from kgsvc.store import EmbeddedStore


def _write(path: Path, triples: int) -> Path:
    with path.open("w", encoding="utf-8") as sink:
        for i in range(triples):
            sink.write(f"<http://e.example/{i}> <http://p.example/r{i % 7}> <http://e.example/{(i * 7) % triples}> .\n")
    return path


def _du(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _bulk(store: Path) -> tuple[int, int]:
    files = list(store.glob("bulk-*"))
    return len(files), sum(p.stat().st_size for p in files)


def _env(data: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "KGSVC_DATA_DIR": str(data), "KGSVC_AUTO_INDEX": "false"}
    env.pop("KGSVC_FAULT_KILL_AT", None)
    return {**env, **extra}


def _prepare(data: Path) -> None:
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False)) as kg:
        kg.load(kgsvc.sample_path(), dataset="d")


def _state(data: Path) -> tuple[int, int, int]:
    """(catalog triples, store triples, data version) of ``d``, read without recovery (SQLite and the store)."""
    import sqlite3

    with sqlite3.connect(data / "kgsvc.db") as db:
        triples, version = db.execute("SELECT triple_count, store_version FROM datasets WHERE name='d'").fetchone()
    store = EmbeddedStore(data / "store")
    try:
        stored = store.count("urn:kgsvc:dataset:d")
    finally:
        store.close()
    return int(triples), stored, int(version)


def _reopen(data: Path) -> tuple[float, kgsvc.KG]:
    started = time.perf_counter()
    kg = kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False))
    return time.perf_counter() - started, kg


def kill_mid_bulk(work: Path, source: Path, delay: float) -> None:
    data = work / "kill-bulk"
    _prepare(data)
    process = subprocess.Popen([sys.executable, "-m", "kgsvc", "load", str(source), "-n", "d"], env=_env(data))
    while process.poll() is None and not _bulk(data / "store")[0]:
        time.sleep(0.001)
    time.sleep(delay)
    process.kill()
    process.wait()
    files, size = _bulk(data / "store")
    folder = _du(data / "store")
    catalog, stored, version = _state(data)
    seconds, kg = _reopen(data)
    report = kg.recovery
    assert report is not None
    after = kg.catalog.get("d")
    kg.close()
    print("| | bulk files | bulk bytes | store folder bytes | catalog triples | store triples | data version |")
    print("|---|---|---|---|---|---|---|")
    print(f"| after SIGKILL | {files} | {size:,} | {folder:,} | {catalog:,} | {stored:,} | {version} |")
    files2, size2 = _bulk(data / "store")
    print(
        f"| after the next open ({seconds:.2f} s; deleted {report.orphans_deleted} files, {report.orphan_bytes:,} "
        f"bytes) | {files2} | {size2:,} | {_du(data / 'store'):,} | {after.triples:,} | {after.triples:,} | "
        f"{after.store_version} |"
    )


def kill_after_store_write(work: Path, source: Path) -> None:
    data = work / "kill-stored"
    _prepare(data)
    env = _env(data, KGSVC_FAULT_KILL_AT="load-stored")
    subprocess.run([sys.executable, "-m", "kgsvc", "load", str(source), "-n", "d"], env=env, check=False)
    catalog, stored, version = _state(data)
    seconds, kg = _reopen(data)
    after = kg.catalog.get("d")
    jobs = [(j.state, j.error) for j in kg.jobs(dataset="d")]
    kg.close()
    print("| | catalog triples | store triples | data version | newest job |")
    print("|---|---|---|---|---|")
    print(f"| after SIGKILL at load-stored | {catalog:,} | {stored:,} | {version} | running |")
    print(
        f"| after the next open ({seconds:.2f} s) | {after.triples:,} | {after.triples:,} | {after.store_version} "
        f"| {jobs[0][0]}: {jobs[0][1]} |"
    )


def sigterm_mid_build(work: Path, labels: int, server: str) -> None:
    data = work / f"sigterm-{server}"
    body = "".join(
        f'<http://e.example/{i}> <http://www.w3.org/2000/01/rdf-schema#label> "entity number {i}" .\n'
        for i in range(labels)
    ).encode()
    port = 20000 + os.getpid() % 20000
    env = _env(data, KGSVC_AUTO_INDEX="true")
    log = (work / f"serve-{server}.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "kgsvc", "serve", "-p", str(port), "--server", server, "--no-access-log"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    httpx.post(url + "/datasets/d/store", content=body, headers={"Content-Type": "application/n-triples"}, timeout=60)
    building_at = time.perf_counter()
    while not any(v["state"] == "building" for v in httpx.get(url + "/datasets/d").json()["index_versions"]):
        time.sleep(0.02)
    into_build = time.perf_counter() - building_at
    started = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=120)
    seconds = time.perf_counter() - started
    log.close()
    opened, kg = _reopen(data)
    states = [(v.state, (v.error or "")[:40]) for v in kg.catalog.index_versions("d")]
    kg.close()
    print(
        f"| {server} | {seconds:.2f} | {code} | {into_build:.2f} | restart opened in {opened:.2f} s | {states} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triples", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=8_000)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds after the first bulk file to kill")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kgsvc-recovery-"))
    source = _write(work / "input.nt", args.triples)
    print(f"## kill mid bulk load ({args.triples:,} triples, SIGKILL {args.delay} s after the first bulk file)\n")
    kill_mid_bulk(work, source, args.delay)
    print(f"\n## kill after the store write ({args.triples:,} triples)\n")
    kill_after_store_write(work, source)
    print(f"\n## SIGTERM of kgsvc serve mid index build ({args.labels:,} labels)\n")
    print("| server | SIGTERM to exit (s) | exit code | s from the POST to building | restart | index versions |")
    print("|---|---|---|---|---|---|")
    for server in ("granian", "uvicorn"):
        sigterm_mid_build(work, args.labels, server)


if __name__ == "__main__":
    main()
