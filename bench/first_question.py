"""First question versus the tenth on a fresh ``kgsvc serve`` (issue 22): the server loads the embedding model and
the current indexes before it answers ``/health``, so the first ``POST /ask`` should cost what the tenth does.

The bundled sample is loaded and indexed into a temporary data dir, ``kgsvc serve`` (granian) is started on a free
port, and as soon as its server record appears (written once ``/health`` answers) the sample's questions are asked
in order, ``--questions`` of them (cycling), one at a time; each request's wall time is printed, with the time from
the start of ``serve`` to ready.

Run: ``python bench/first_question.py [--questions 10] [--server granian]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

import kgsvc
from kgsvc.samples import sample_questions

__all__ = ["main", "measure"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def measure(data_dir: Path, questions: int, server: str = "granian") -> tuple[float, list[float]]:
    """Start ``kgsvc serve`` on ``data_dir`` (dataset ``sample`` indexed); returns the seconds to ready and the
    seconds of each of ``questions`` asks, in order."""
    port = _free_port()
    env = {**os.environ, "KGSVC_DATA_DIR": str(data_dir)}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "kgsvc", "serve", "--port", str(port), "--no-access-log", "--server", server],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        while not (data_dir / "server.json").exists():
            if process.poll() is not None:
                raise RuntimeError(f"kgsvc serve exited with {process.returncode}")
            time.sleep(0.05)
        ready = time.perf_counter() - started
        texts = [q for q, _ in sample_questions()]
        seconds = []
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as client:
            for i in range(questions):
                begin = time.perf_counter()
                client.post("/ask", json={"question": texts[i % len(texts)], "dataset": "sample"}).raise_for_status()
                seconds.append(time.perf_counter() - begin)
        return ready, seconds
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--server", default="granian", choices=["granian", "uvicorn"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgsvc-first-") as folder:
        data = Path(folder) / "data"
        with kgsvc.KG.open(settings=kgsvc.Settings(data_dir=data, auto_index=True)) as kg:
            kg.load(kgsvc.sample_path(), dataset="sample")
            kg.wait()
        ready, seconds = measure(data, args.questions, args.server)
    print(f"serve ready after {ready:.1f} s ({args.server})")
    for i, s in enumerate(seconds, 1):
        print(f"question {i:2d}: {s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
