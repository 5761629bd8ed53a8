"""Index freshness and task-queue throughput (issue 6), measured in one run.

**Update → answerable** (embedded mode, auto-index on, the in-process dispatcher): a movie KG is loaded and
indexed; then, ``--changes`` times, one SPARQL UPDATE inserts a new film (a label never seen before and a
``directedBy`` edge to an existing director) and the clock runs until ``KG.ask("who directed <film>")`` answers
that director (polled every 100 ms; the previous index version keeps serving meanwhile). Beside it, the reference:
a **full rebuild** of the same data (a fresh KG, no previous version to reuse embeddings from), ``--repeat``
times. The embedding model is loaded once beforehand and its in-process text cache is cleared before every
timed run, so both sides embed from scratch what they embed. Two sizes: the bundled sample (615 triples) and
the sample plus a synthetic movie catalogue (``--films`` films with labels, directors and years).

**ask_batch throughput** (distributed mode): ``oxigraph serve`` as the store, a SQLite catalog in a shared data
folder, Redis db ``--redis-db`` as the broker, and 1 then 2 real ``celery worker --pool solo`` processes. The
client submits ``--batches`` ``ask_batch`` jobs of ``--batch-size`` questions ("who directed <film>" over the
sample's films) and the clock runs from the first submission until every job has succeeded.

Run: ``python bench/freshness.py [--changes 20] [--films 20000] [--batches 50] [--batch-size 20]``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

import kgsvc
from kgsvc.index import embed
from kgsvc.index.embed import Embedder
from kgsvc.settings import Settings

EX = "https://kgsvc.local/sample/"
GRAPH = "<urn:kgsvc:dataset:movies>"
RDFS_LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
ROOT = Path(__file__).resolve().parents[1]


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _wait_until(predicate: Callable[[], bool], timeout: float, what: str, poll: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not happen within {timeout} s")
        time.sleep(poll)


def movie_kg(folder: Path, films: int, seed: int = 7) -> Path:
    """The sample KG plus ``films`` synthetic films (label, director, year) as one N-Triples file."""
    rng = random.Random(seed)
    words = "amber harbour silent river paper moon glass winter garden crimson northern echo velvet".split()
    directors = [f"<{EX}person_syn_{i}>" for i in range(max(1, films // 8))]
    lines = [kgsvc.sample_path().read_text(encoding="utf-8")]  # Turtle; written separately below
    path = folder / "movies.ttl"
    extra = []
    for i, director in enumerate(directors):
        extra.append(f'{director} {RDFS_LABEL} "{rng.choice(words).title()} Director {i}" .')
    for i in range(films):
        film = f"<{EX}film_syn_{i}>"
        title = " ".join(rng.choice(words) for _ in range(3)).title() + f" {i}"
        extra.append(f'{film} {RDFS_LABEL} "{title}" .')
        extra.append(f"{film} <{EX}directedBy> {rng.choice(directors)} .")
        extra.append(f'{film} <{EX}releaseYear> "{1950 + rng.randrange(75)}" .')
    path.write_text(lines[0] + "\n" + "\n".join(extra) + "\n", encoding="utf-8")
    return path


def _open(data: Path) -> kgsvc.KG:
    return kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=True))


def _cold_cache() -> None:
    """Forget the embedder's in-process text cache (the model stays loaded): every run embeds from scratch."""
    embed._CACHES.clear()


def full_rebuild(source: Path, workdir: Path, repeat: int) -> list[float]:
    """Seconds from load to a complete first index version, with nothing to reuse (the reference)."""
    times = []
    for r in range(repeat):
        data = workdir / f"full-{r}"
        with _open(data) as kg:
            kg.load(source, dataset="movies")
            _cold_cache()
            started = time.perf_counter()
            kg.wait()
            times.append(time.perf_counter() - started)
            assert kg.catalog.current_index_version("movies") is not None
        shutil.rmtree(data)
    return times


STAGES = ("labels", "embedding", "vectors", "snapshot")


def update_to_answerable(
    source: Path, workdir: Path, changes: int
) -> tuple[list[float], list[int], int, dict[str, list[float]]]:
    """Per change: seconds from the UPDATE to the first right answer, the texts its build embedded, and the
    build's stage seconds."""
    data = workdir / "incremental"
    seconds, embedded = [], []
    stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
    with _open(data) as kg:
        kg.load(source, dataset="movies")
        kg.wait()
        triples = kg.stats("movies").triples
        for i in range(changes):
            title = f"Quiet Harbour Nights Part {i + 1}"
            update = (
                f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_fresh_{i}> {RDFS_LABEL} "{title}" ; '
                f"<{EX}directedBy> <{EX}person_Satoshi_Kon> }} }}"
            )
            _cold_cache()
            started = time.perf_counter()
            kg.update(update)

            def answered(title: str = title) -> bool:
                answer = kg.ask(f"who directed {title}", dataset="movies")
                return (
                    bool(answer.answers)
                    and answer.answers[0].label == "Satoshi Kon"
                    and any(title in (t.head.label, t.tail.label) for e in answer.evidence for t in e.triples)
                )

            _wait_until(answered, 300, f"change {i + 1} answerable", poll=0.1)
            seconds.append(time.perf_counter() - started)
            kg.wait()
            row = kg.catalog.current_index_version("movies")
            assert row is not None
            embedded.append(int(row.metrics["embedded_texts"]))
            for stage in STAGES:
                stages[stage].append(float(row.metrics[f"{stage}_s"]))
    shutil.rmtree(data)
    return seconds, embedded, triples, stages


# -- distributed: ask_batch with 1 and 2 Celery workers -----------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _process(command: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _worker_command() -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "workers.app", "worker", "--pool", "solo", "--loglevel", "WARNING",
            "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip


def oxigraph_binary() -> str:
    """The ``oxigraph`` server binary of this virtualenv (or on ``PATH``)."""
    binary = shutil.which("oxigraph", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    assert binary, "the oxigraph server binary is missing"
    return binary


def distributed_env(workdir: Path, port: int, broker: str) -> dict[str, str]:
    """The environment of the distributed mode: ``oxigraph serve`` on ``port``, the catalog and indexes in
    ``workdir/shared``, ``broker`` for Celery, auto-index off, one torch thread per process."""
    return {
        **os.environ,
        "KGSVC_DATA_DIR": str(workdir / "shared"),
        "KGSVC_STORE_URL": f"http://127.0.0.1:{port}",
        "KGSVC_BROKER_URL": broker,
        "KGSVC_AUTO_INDEX": "false",
        "OMP_NUM_THREADS": "1",
    }


def ask_batch_throughput(workdir: Path, redis_db: int, batches: int, batch_size: int) -> dict[int, float]:
    """Questions per second answered by ``ask_batch`` jobs with 1 and with 2 worker processes."""
    binary = oxigraph_binary()
    port = _free_port()
    broker = f"redis://127.0.0.1:6379/{redis_db}"
    env = distributed_env(workdir, port, broker)
    redis.Redis.from_url(broker).flushdb()
    oxigraph = [binary, "serve", "--location", str(workdir / "oxigraph"), "--bind", f"127.0.0.1:{port}"]
    results: dict[int, float] = {}
    with _process(oxigraph, env, workdir / "oxigraph.log"):
        _wait_until(lambda: _reachable(port), 30, "oxigraph serve")
        saved = {k: os.environ.get(k) for k in env if k.startswith("KGSVC_")}
        os.environ.update({k: v for k, v in env.items() if k.startswith("KGSVC_")})
        try:
            with kgsvc.KG.open() as kg:
                kg.load(kgsvc.sample_path(), dataset="movies")
                kg.build_index("movies")
                films = [r["l"].value for r in kg.sparql(_FILMS, dataset="movies").rows]
                questions = [f"who directed {films[i % len(films)]}" for i in range(batches * batch_size)]
                for n in (1, 2):
                    results[n] = _run_batches(kg, env, workdir, n, questions, batch_size)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            redis.Redis.from_url(broker).flushdb()
    return results


_FILMS = f"SELECT ?l WHERE {{ ?f <{EX}directedBy> ?d . ?f {RDFS_LABEL} ?l }} ORDER BY ?l"


def _reachable(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _run_batches(
    kg: kgsvc.KG, env: dict[str, str], workdir: Path, workers: int, questions: list[str], size: int
) -> float:
    logs = [workdir / f"worker-{workers}-{i}.log" for i in range(workers)]
    with _workers(env, logs):
        # every worker loads its models and opens the index before the clock starts (a solo worker takes one
        # message at a time, so 2 x workers one-question jobs reach every worker)
        warm = [kg.submit_ask_batch(questions[:1], dataset="movies") for _ in range(2 * workers)]
        _wait_until(lambda: all(kg.job(j.id).state == "succeeded" for j in warm), 300, "the warm-up", poll=0.1)
        time.sleep(1.0)
        started = time.perf_counter()
        jobs = [kg.submit_ask_batch(questions[i : i + size], dataset="movies") for i in range(0, len(questions), size)]
        _wait_until(lambda: all(kg.job(j.id).state == "succeeded" for j in jobs), 900, "the batches", poll=0.1)
        return len(questions) / (time.perf_counter() - started)


@contextmanager
def _workers(env: dict[str, str], logs: list[Path]) -> Iterator[None]:
    if not logs:
        yield
        return
    with _process(_worker_command() + ["-n", f"bench{len(logs)}@%h"], env, logs[0]), _workers(env, logs[1:]):
        yield


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="full rebuilds per size")
    parser.add_argument("--films", type=int, default=20000, help="synthetic films of the larger KG")
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=20)
    parser.add_argument("--redis-db", type=int, default=15)
    parser.add_argument("--skip-celery", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}, cpus: {os.cpu_count()}")
    Embedder().encode(["warm-up"])  # the model loads once, outside every measurement
    with tempfile.TemporaryDirectory(prefix="kgsvc-fresh-") as tmp:
        workdir = Path(tmp)
        sources = {"sample": kgsvc.sample_path(), f"sample+{args.films} films": movie_kg(workdir, args.films)}
        print("\n| KG | triples | full rebuild p50 (s) | update→answerable p50 / p95 (s) | texts embedded per change "
              "| full / p50 |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|")
        breakdown = {}
        for name, source in sources.items():
            full = full_rebuild(source, workdir, args.repeat)
            seconds, embedded, triples, breakdown[name] = update_to_answerable(source, workdir, args.changes)
            print(
                f"| {name} | {triples:,} | {statistics.median(full):.2f} | "
                f"{statistics.median(seconds):.2f} / {_p(seconds, 0.95):.2f} | "
                f"{statistics.median(embedded):.0f} | {statistics.median(full) / statistics.median(seconds):.1f}x |"
            )
        print("\n| KG | incremental build stages, median s: " + " / ".join(STAGES) + " |")
        print("|---|---:|")
        for name, stages in breakdown.items():
            print(f"| {name} | " + " / ".join(f"{statistics.median(v):.2f}" for v in stages.values()) + " |")
        if not args.skip_celery:
            rates = ask_batch_throughput(workdir, args.redis_db, args.batches, args.batch_size)
            print("\n| ask_batch workers | questions/s | vs 1 worker |")
            print("|---:|---:|---:|")
            for n, rate in rates.items():
                print(f"| {n} | {rate:.1f} | {rate / rates[1]:.2f}x |")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
