"""The README's "Use" block, run as written: each line in bash, in a scratch folder, every command exiting 0.

The folder holds the bundled sample as ``movies.ttl`` and a small plain-triple file as ``kb.txt``; the data dir is
``KGSVC_DATA_DIR``. ``kgsvc serve`` does not return: it is started in the background, waited for (its server
record), and stopped as a user stops it (Ctrl+C, SIGINT); its exit code must be 0 too. ``kgsvc eval`` reads the
benchmark data in ``../shared/data`` (``KGSVC_EVAL_DATA`` elsewhere).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import kgsvc
from tests.cli.serving import ROOT, cli_env, serving, stop
from tests.conftest import free_port

KB = """Tokyo Godfathers|directed_by|Satoshi Kon
Tokyo Godfathers|release_year|2003
Paprika|directed_by|Satoshi Kon
Paprika|has_genre|Animation
"""


def use_block() -> list[str]:
    """The command lines of the README's ``## Use`` bash block, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Use\n", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the README's Use section has no bash block"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_use_block_lists_the_commands_in_an_order_that_works() -> None:
    lines = use_block()
    commands = [line.split()[1] for line in lines]
    assert commands[0] == "load" and commands[-1] == "drop"
    assert commands.index("ask") < commands.index("drop") and commands.index("serve") < commands.index("drop")


def test_the_use_block_runs_top_to_bottom(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(kgsvc.sample_path(), work / "movies.ttl")
    (work / "kb.txt").write_text(KB, encoding="utf-8")
    data = work / "kgsvc-data"
    env = cli_env(data, KGSVC_AUTO_INDEX="true", KGSVC_PORT=str(free_port()))
    for line in use_block():
        if line.split()[:2] == ["kgsvc", "serve"]:
            log = tmp_path / "serve.log"
            with serving(["bash", "-c", f"exec {line}"], env=env, data_dir=data, log=log, cwd=work) as server:
                code = stop(server)
            assert code == 0, log.read_text()
            assert not (data / "server.json").exists()
            continue
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, f"{line}\nexit {done.returncode}\n{done.stdout}\n{done.stderr}"
        if line.startswith("kgsvc ask"):
            assert "Satoshi Kon" in done.stdout
        if line.startswith("kgsvc jobs"):
            assert "build_index" in done.stdout and "ingest" in done.stdout
        if line.startswith("kgsvc load movies.ttl"):
            assert "+615 triples" in done.stdout and "indexed movies: index v1" in done.stdout
