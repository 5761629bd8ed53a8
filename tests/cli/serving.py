"""Running ``kgsvc`` commands and ``kgsvc serve`` as a user does: real subprocesses, the data dir in the environment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["cli_env", "kgsvc_cmd", "serving", "stop"]

ROOT = Path(__file__).resolve().parents[2]


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a ``kgsvc`` subprocess: this checkout first on the path, the venv's ``kgsvc`` on PATH."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    python_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {
        **os.environ,
        "KGSVC_DATA_DIR": str(data_dir),
        "COLUMNS": "200",
        "PATH": path,
        "PYTHONPATH": python_path,
        **extra,
    }


def kgsvc_cmd(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``kgsvc ARGS`` to completion, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "kgsvc", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGINT) -> int:
    """Stop a ``kgsvc serve`` as Ctrl+C does; returns its exit code."""
    if process.poll() is None:
        process.send_signal(sig)
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


@contextmanager
def serving(
    args: list[str], *, env: dict[str, str], data_dir: Path, log: Path, cwd: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``args`` (a shell-free ``kgsvc serve`` command line) and wait until it has written its server record."""
    with log.open("wb") as sink:
        process = subprocess.Popen(
            args, stdout=sink, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL, cwd=cwd
        )
    try:
        deadline = time.monotonic() + 300
        record = data_dir / "server.json"
        while not record.exists():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"kgsvc serve did not get ready:\n{log.read_text()}"
            time.sleep(0.1)
        assert json.loads(record.read_text())["pid"] == process.pid
        yield process
    finally:
        if process.poll() is None:
            stop(process)
