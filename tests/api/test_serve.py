"""``kgsvc serve`` as a user runs it: a real subprocess on a free port, stopped with SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import kgsvc
from tests.conftest import free_port

# The lead registers the command in kgsvc/cli/__init__.py; importing the module registers it either way.
LAUNCH = "import sys; import kgsvc.cli.serve; from kgsvc.cli import app; app(sys.argv[1:], prog_name='kgsvc')"


@pytest.mark.parametrize("server", ["granian", "uvicorn"])
def test_serve_answers_sparql_and_stops_cleanly(tmp_path: Path, server: str) -> None:
    data = tmp_path / "data"
    with kgsvc.KG.open(data) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    env = {**os.environ, "KGSVC_API_TOKEN": "t"}
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "serve", "--data-dir", str(data), "--port", str(port), "--no-access-log"]
        + ["--server", server],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 300  # serve loads the embedding model before it answers /health
        while True:
            assert process.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "kgsvc serve did not start"
            time.sleep(0.1)
        answer = httpx.get(
            url + "/datasets/sample/sparql",
            params={"query": "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"},
            headers={"Accept": "text/csv"},
        )
        assert answer.text.splitlines() == ["n", "615"]  # a query worker's answer
        assert httpx.post(url + "/sparql", data={"update": "CLEAR ALL"}).status_code == 401
        new = "INSERT DATA { GRAPH <urn:kgsvc:dataset:sample> { <urn:x:served> <urn:x:by> 'kgsvc' } }"
        written = httpx.post(url + "/sparql", data={"update": new}, headers={"Authorization": "Bearer t"})
        assert written.status_code == 200, written.text
        lookup = httpx.get(  # answered inline (kgsvc.api.lookup), and it sees the write
            url + "/datasets/sample/sparql",
            params={"query": "SELECT ?o { <urn:x:served> <urn:x:by> ?o }"},
            headers={"Accept": "text/tab-separated-values"},
        )
        assert lookup.text.splitlines() == ["?o", '"kgsvc"'], lookup.text
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
        log.close()
    assert code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal after its graceful shutdown
    assert f"with {server}" in (tmp_path / "serve.log").read_text()
    assert "kgsvc serving" in (tmp_path / "serve.log").read_text()
    assert not (data / "endpoint-snapshots").exists()


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_serve_refuses_a_public_address_without_a_token(tmp_path: Path, host: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("KGSVC_API_TOKEN", "KGSVC_READ_ONLY")}
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, "serve", "--data-dir", str(tmp_path / "d"), "--host", host],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "refusing to serve" in done.stderr and "--insecure" in done.stderr
    assert not (tmp_path / "d").exists()  # nothing was opened
