"""Crashes of a real ``kgsvc load`` and a real ``kgsvc serve`` at named points, then recovery on the next open.

Each crash uses the test-only hook ``KGSVC_FAULT_KILL_AT`` (:mod:`kgsvc.faults`): the subprocess SIGKILLs itself
at the named point. The data dir is then opened again in this process, and the checks are the same every time:
the catalog's counts equal the store's, no job is left running or pending, no index version is left building,
no ``bulk-*`` file or stray index folder is left, and the state after recovery (and, where the crash lost the
input, after loading the file again) equals the state of an uninterrupted run: same counts, same current index.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import kgsvc
from kgsvc.index.strings import read_strings
from kgsvc.recovery import JOB_INTERRUPTED, MARKER, VERSION_INTERRUPTED
from kgsvc.settings import Settings
from tests.conftest import free_port

ENTITIES = 1_000  # 2,000 triples: 1,000 edges over 7 relations, 1,000 labels


def write_graph(path: Path, entities: int) -> Path:
    with path.open("w", encoding="utf-8") as sink:
        for i in range(entities):
            target = (i * 7) % entities
            sink.write(f"<http://e.example/{i}> <http://p.example/r{i % 7}> <http://e.example/{target}> .\n")
            sink.write(f'<http://e.example/{i}> <http://www.w3.org/2000/01/rdf-schema#label> "entity number {i}" .\n')
    return path


def env_for(data: Path, *, kill_at: str | None, auto_index: bool) -> dict[str, str]:
    env = {
        **os.environ,
        "KGSVC_DATA_DIR": str(data),
        "KGSVC_AUTO_INDEX": str(auto_index).lower(),
        "KGSVC_BULK_THRESHOLD_BYTES": "0",  # every file takes the streaming bulk path
    }
    env.pop("KGSVC_FAULT_KILL_AT", None)
    if kill_at is not None:
        env["KGSVC_FAULT_KILL_AT"] = kill_at
    return env


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgsvc", *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def reopen(data: Path, *, auto_index: bool) -> kgsvc.KG:
    return kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=auto_index, bulk_threshold_bytes=0))


def index_contents(kg: kgsvc.KG, dataset: str) -> dict[str, Any]:
    """What the current index version holds: its counts and term tables (not its number)."""
    current = kg.catalog.current_index_version(dataset)
    assert current is not None
    folder = kg.catalog.index_path(dataset, current.version)
    tables = {name: list(read_strings(folder, name)) for name in ("node_terms", "relation_terms")}
    return {"counts": current.counts, "store_version_covered": current.store_version, **tables}


def assert_consistent(kg: kgsvc.KG, data: Path) -> None:
    """Catalog = store; nothing running, pending or building; no orphaned files."""
    for info in kg.datasets():
        assert info.triples == kg.store.count(info.graph), info
        for version in kg.catalog.index_versions(info.name):
            assert version.state != "building", version
            folder = kg.catalog.index_path(info.name, version.version)
            assert folder.exists() == (version.state == "complete"), (version, folder)
    assert all(job.state not in ("running", "pending") for job in kg.jobs()), kg.jobs()
    assert not list((data / "store").glob("bulk-*"))


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_graph(tmp_path_factory.mktemp("input") / "graph.nt", ENTITIES)


@pytest.fixture(scope="module")
def uninterrupted(graph_file: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The state of one uninterrupted load + index build of ``graph_file``."""
    data = tmp_path_factory.mktemp("reference") / "data"
    with reopen(data, auto_index=True) as kg:
        kg.load(graph_file, dataset="g")
        kg.wait()
        return {"triples": kg.catalog.get("g").triples, "index": index_contents(kg, "g")}


@pytest.mark.parametrize("point", ["bulk-file-written", "load-stored"])
def test_load_killed_during_a_bulk_load(
    point: str, graph_file: Path, uninterrupted: dict[str, Any], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    killed = cli("load", str(graph_file), "-n", "g", env=env_for(data, kill_at=point, auto_index=False))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert (data / MARKER).exists()  # the process did not close the data dir
    orphans = list((data / "store").glob("bulk-*"))
    if point == "bulk-file-written":
        assert orphans  # the crash left the bulk loader's file behind
    with reopen(data, auto_index=False) as kg:
        report = kg.recovery
        assert report is not None and report.unclean
        assert report.orphans_deleted >= len(orphans)
        (job,) = kg.jobs(dataset="g")
        assert job.id in report.jobs_failed
        assert (job.state, job.error) == ("failed", JOB_INTERRUPTED)
        assert_consistent(kg, data)
        if point == "load-stored":  # the triples were all in the store: the catalog now counts them
            assert report.counts_fixed == {"g": (0, uninterrupted["triples"])} and report.rolled_back == []
            info = kg.catalog.get("g")
            assert (info.triples, info.store_version) == (uninterrupted["triples"], 1)
        else:  # killed before its data was all in the store: rolled back, and loading the file again completes it
            assert report.rolled_back == ["g"] and kg.store.count("urn:kgsvc:dataset:g") == 0
            kg.load(graph_file, dataset="g")
            assert kg.catalog.get("g").triples == uninterrupted["triples"]
        assert_consistent(kg, data)
    assert not (data / MARKER).exists()  # a clean close
    with reopen(data, auto_index=False) as kg:  # a second open finds nothing to do
        assert kg.recovery is not None and not kg.recovery.changed and not kg.recovery.unclean


@pytest.mark.parametrize("point", ["index-mid-build", "index-before-publish"])
def test_load_killed_during_its_index_build(
    point: str, graph_file: Path, uninterrupted: dict[str, Any], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    killed = cli("load", str(graph_file), "-n", "g", env=env_for(data, kill_at=point, auto_index=True))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with reopen(data, auto_index=True) as kg:
        report = kg.recovery
        assert report is not None
        assert report.versions_failed == [("g", 1)] and report.builds_queued == ["g"]
        assert kg.catalog.index_versions("g")[0].error == VERSION_INTERRUPTED
        kg.wait()
        assert_consistent(kg, data)
        assert kg.catalog.get("g").triples == uninterrupted["triples"]
        assert index_contents(kg, "g") == uninterrupted["index"]


def start_serve(data: Path, env: dict[str, str], log: Path, *, server: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "kgsvc", "serve", "--data-dir", str(data), "--port", str(port)]
            + ["--no-access-log", "--server", server],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        assert process.poll() is None, log.read_text()
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "kgsvc serve did not start"
        time.sleep(0.1)


def post_graph(url: str, path: Path) -> None:
    posted = httpx.post(
        url + "/datasets/g/store",
        content=path.read_bytes(),
        headers={"Content-Type": "application/n-triples"},
        timeout=120,
    )
    assert posted.status_code == 201, posted.text


def test_serve_killed_mid_index_build(graph_file: Path, uninterrupted: dict[str, Any], tmp_path: Path) -> None:
    data = tmp_path / "data"
    log = tmp_path / "serve.log"
    # uvicorn: one process, so the kill ends the server (granian would respawn its worker, which recovers)
    env = env_for(data, kill_at="index-mid-build", auto_index=True)
    process, url = start_serve(data, env, log, server="uvicorn")
    try:
        post_graph(url, graph_file)  # the load's event queues the build, which kills the server
        assert process.wait(timeout=300) == -signal.SIGKILL, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    with reopen(data, auto_index=True) as kg:
        report = kg.recovery
        assert report is not None and report.unclean and report.versions_failed == [("g", 1)]
        kg.wait()
        assert_consistent(kg, data)
        assert index_contents(kg, "g") == uninterrupted["index"]


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8,000 labels: a build long enough to be stopped mid-way."""
    return write_graph(tmp_path_factory.mktemp("input") / "big.nt", 8_000)


def building(data: Path) -> bool:
    """Whether an index version of the data dir is ``building`` (read from the SQLite catalog, which WAL lets us
    read while the process writes it)."""
    import sqlite3

    if not (data / "kgsvc.db").exists():
        return False
    with contextlib.closing(sqlite3.connect(data / "kgsvc.db", timeout=30)) as db:
        try:
            return int(db.execute("SELECT count(*) FROM index_versions WHERE state = 'building'").fetchone()[0]) > 0
        except sqlite3.OperationalError:  # not migrated yet
            return False


def test_load_stops_on_sigterm_mid_build(big_file: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "kgsvc", "load", str(big_file), "-n", "g"],
        env=env_for(data, kill_at=None, auto_index=True),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not building(data):
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "no index build started"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143, output
    assert "interrupted" in output
    with reopen(data, auto_index=False) as kg:  # LOCK released; the job and the build ended by themselves
        assert kg.recovery is not None
        assert_consistent(kg, data)
        assert kg.catalog.get("g").triples == 16_000
        (version,) = kg.catalog.index_versions("g")
        assert version.state == "failed" and (version.error or "").startswith(("Interrupted:", VERSION_INTERRUPTED))


def test_serve_stops_on_sigterm_mid_build_and_restarts(big_file: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    big = big_file
    log = tmp_path / "serve.log"
    process, url = start_serve(data, env_for(data, kill_at=None, auto_index=True), log, server="granian")
    try:
        post_graph(url, big)
        deadline = time.monotonic() + 120
        while not any(v["state"] == "building" for v in httpx.get(url + "/datasets/g").json()["index_versions"]):
            assert time.monotonic() < deadline, "no index build started"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 0, log.read_text()
    with reopen(data, auto_index=False) as kg:  # the store's LOCK was released: a restart opens it
        assert kg.recovery is not None
        assert_consistent(kg, data)
        (version,) = kg.catalog.index_versions("g")
        assert version.state == "failed" and version.error is not None
        assert version.error.startswith(("Interrupted:", VERSION_INTERRUPTED)), version
        assert kg.catalog.get("g").triples == 16_000
