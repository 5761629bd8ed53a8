"""The CLI beside a running ``kgsvc serve`` on the same data dir: every command goes through the server.

RocksDB lets one process open the store; ``kgsvc serve`` records its URL in the data dir, and the other commands
use it (saying so on stderr) instead of failing on the store's lock.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgsvc
from tests.cli.serving import cli_env, kgsvc_cmd, serving, stop
from tests.conftest import free_port

VIA = "using the server at http://127.0.0.1:"

#: The data dir, the port, the ``kgsvc serve`` process and its log.
Served = tuple[Path, int, "subprocess.Popen[bytes]", Path]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    data = tmp_path / "data"
    settings = kgsvc.Settings(data_dir=data, auto_index=True)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="movies")
        kg.wait(600)
    port = free_port()
    env = cli_env(data, KGSVC_AUTO_INDEX="true", KGSVC_API_TOKEN="s3cret")
    args = [sys.executable, "-m", "kgsvc", "serve", "--port", str(port), "--no-access-log"]
    log = tmp_path / "serve.log"
    with serving(args, env=env, data_dir=data, log=log) as process:
        yield data, port, process, log


def test_commands_go_through_the_server(served: Served, tmp_path: Path) -> None:
    data, port, process, log = served
    record = data / "server.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600  # it holds the token
    assert json.loads(record.read_text())["url"] == f"http://127.0.0.1:{port}"
    env = cli_env(data)  # a user's shell: no token set, the CLI takes the recorded one

    listed = kgsvc_cmd("datasets", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "movies" in listed.stdout and f"{VIA}{port} (it holds this data dir)" in listed.stderr

    stats = kgsvc_cmd("stats", "movies", env=env)
    assert stats.returncode == 0 and "615" in stats.stdout and "index v1: complete" in stats.stdout

    query = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    counted = kgsvc_cmd("sparql", "movies", query, "--format", "csv", env=env)
    assert counted.returncode == 0, counted.stderr
    assert counted.stdout.split() == ["n", "615"]

    extra = tmp_path / "extra.ttl"
    extra.write_text('<urn:x:film> <http://www.w3.org/2000/01/rdf-schema#label> "Extra Film" .\n')
    loaded = kgsvc_cmd("load", str(extra), "--dataset", "extra", env=env)
    assert loaded.returncode == 0, loaded.stderr
    assert "+1 triples" in loaded.stdout and "indexed extra: index v1" in loaded.stdout
    jobs = kgsvc_cmd("jobs", "--dataset", "extra", env=env)
    assert "build_index" in jobs.stdout and "ingest" in jobs.stdout

    asked = kgsvc_cmd("ask", "who directed Tokyo Godfathers", "-D", "movies", env=env)
    assert asked.returncode == 0, asked.stderr
    assert "Satoshi Kon" in asked.stdout and VIA in asked.stderr

    bad = tmp_path / "bad.ttl"
    bad.write_text("<urn:a> <urn:b> .\n")
    refused = kgsvc_cmd("load", str(bad), "--dataset", "broken", env=env)
    assert refused.returncode == 1 and "bad.ttl:1:" in refused.stderr
    assert "broken" not in kgsvc_cmd("datasets", env=env).stdout

    assert kgsvc_cmd("drop", "extra", "--yes", env=env).returncode == 0
    assert "extra" not in kgsvc_cmd("datasets", env=env).stdout

    demo = kgsvc_cmd("demo", env=env)  # needs the embedded KG: says why it cannot run
    assert demo.returncode == 1 and "cannot run through it" in demo.stderr and "Traceback" not in demo.stderr

    second = kgsvc_cmd("serve", "--port", str(free_port()), env=env)
    assert second.returncode == 1
    assert second.stderr.strip().splitlines() == [
        f"error: the data dir {data} is already served by the kgsvc server at http://127.0.0.1:{port} "
        f"(pid {process.pid}); stop it first or use another --data-dir"
    ]

    assert stop(process) == 0, log.read_text()
    assert not record.exists()
    after = kgsvc_cmd("datasets", env=env)  # the store is free again: embedded, no server mentioned
    assert after.returncode == 0 and "movies" in after.stdout and VIA not in after.stderr


def test_a_stale_record_is_ignored(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with kgsvc.KG.open(data) as kg:
        kg.load(kgsvc.sample_path(), dataset="movies")
    # a process id above Linux's pid_max stands for a killed server
    (data / "server.json").write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": 2**22 + 7, "token": None}))
    listed = kgsvc_cmd("datasets", env=cli_env(data))
    assert listed.returncode == 0 and "movies" in listed.stdout and VIA not in listed.stderr
