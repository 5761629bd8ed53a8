"""Peak RSS of a full index build, stage by stage (issue 23: "peak RSS of any build process <= 1.5 GB at x16").

Builds (once) a data folder of the MetaQA KB ×K (``bench/scale.py``'s replication, embedded mode, auto-index off),
then, in a fresh child process per measurement and on a fresh copy of that folder, runs one full
:func:`kgsvc.index.build.build_index` and records per stage (labels, embedding, vectors, snapshot): the RSS when the
stage starts and the stage's own peak (``VmHWM``, reset at the start of each stage through ``/proc/self/clear_refs``,
so each stage's peak is its own, not the process's so far)::

    python bench/build_memory.py --workdir /tmp/mem --scales 1 2 [--fake] [--stop-after labels] [--json out.json]

``--stop-after STAGE`` cuts the build short after that stage (nothing is published): the labels stage alone at
sizes where the vectors stage would take many minutes.

``--fake`` replaces the model by a deterministic stand-in (a unit vector seeded by each text's CRC-32, 384
dimensions, no torch): the graph-dependent memory without the model's few hundred MB and without the minutes of
forward passes. Without it the real model runs (loaded before the build starts; its RSS is reported as ``model``).
``--stand-in`` loads the real model (resident, as in a warmed worker) but gives the build's chunks the stand-in's
rows (``bench/scale.py --stand-in``): the build's memory with the model in the process, without hours of forward
passes at x16. ``prepare`` prints the load's own peak (the parent process's ``VmHWM`` after loading the KB).
The checkout whose ``kgsvc`` runs is ``PYTHONPATH``'s: set it (``PYTHONPATH=$PWD``), since ``python bench/...``
puts ``bench/`` first on the path and would otherwise import the installed kgsvc (an editable install of
another checkout); the JSON's ``kgsvc`` names the one that ran.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import _stand_in_rows, write_kb  # noqa: E402


def _status(key: str) -> float:
    """``/proc/self/status`` field ``key`` in MB."""
    text = Path("/proc/self/status").read_text()
    match = re.search(rf"{key}:\s+(\d+) kB", text)
    return round(int(match.group(1)) / 1024, 1) if match else float("nan")


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS (Linux >= 4.0)


def prepare(workdir: Path, scale: int) -> Path:
    """The data folder of the KB ×``scale`` (loaded, no index), built once."""
    import kgsvc
    from kgsvc.settings import Settings

    folder = workdir / f"data_x{scale}"
    if (folder / ".loaded").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    source = workdir / f"metaqa_x{scale}.tsv"
    write_kb(source, scale)
    with kgsvc.KG.open(settings=Settings(data_dir=folder, auto_index=False)) as kg:
        _reset_peak()
        before = _status("VmRSS")
        kg.load(source, dataset="kb")
        kg.wait()
        print(f"×{scale} loaded: RSS {before:.0f} → peak {_status('VmHWM'):.0f} MB", flush=True)
    source.unlink(missing_ok=True)
    (folder / ".loaded").write_text("")
    return folder


class _Stop(BaseException):
    """Raised after the stage ``--stop-after`` names: the build is cut short there (nothing is published)."""


def measure(data: Path, fake: bool, stop_after: str | None = None, stand_in: bool = False) -> dict[str, Any]:
    """One full build on ``data`` (changed in place: pass a copy), stage by stage; up to ``stop_after`` only when
    given (the later stages and the version's publication are skipped)."""
    import kgsvc
    import kgsvc.index.build as build
    from kgsvc.index.embed import Embedder
    from kgsvc.settings import Settings

    class FakeEmbedder(Embedder):
        """Unit vectors seeded by each text's CRC-32 (no model)."""

        @property
        def dimension(self) -> int:
            return 384

        def encode(self, texts: Sequence[str], *, cache: bool = True) -> npt.NDArray[np.float32]:
            rows = np.empty((len(texts), 384), dtype=np.float32)
            for i, text in enumerate(texts):
                row = np.random.default_rng(zlib.crc32(text.encode("utf-8", "surrogatepass"))).standard_normal(384)
                rows[i] = row / np.linalg.norm(row)
            return rows

    if stand_in:
        _stand_in_rows()
    result: dict[str, Any] = {"kgsvc": str(Path(kgsvc.__file__).parent), "fake": fake, "start": _status("VmRSS")}
    result["stand_in"] = stand_in
    embedder: Embedder = FakeEmbedder() if fake else Embedder()
    if not fake:
        embedder.encode(["warm-up"])
    result["model"] = round(_status("VmRSS") - result["start"], 1)
    stages: dict[str, dict[str, float]] = {}
    original = build._Stages.stage

    @contextmanager
    def stage(self: Any, name: str) -> Iterator[None]:
        _reset_peak()
        before = _status("VmRSS")
        start = time.perf_counter()
        with original(self, name):
            yield
        stages[name] = {
            "start_mb": before,
            "peak_mb": _status("VmHWM"),
            "end_mb": _status("VmRSS"),
            "s": round(time.perf_counter() - start, 1),
        }
        if name == stop_after:
            raise _Stop(name)

    build._Stages.stage = stage  # type: ignore[method-assign]
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False)) as kg:
        result["opened"] = _status("VmRSS")
        started = time.perf_counter()
        try:
            build.build_index(kg.store, kg.catalog, kg.settings, "kb", embedder=embedder)
        except _Stop:
            result["counts"] = {"nodes": -1, "edges": -1}
        else:
            row = kg.catalog.current_index_version("kb")
            assert row is not None
            result["counts"] = row.counts
        result["build_s"] = round(time.perf_counter() - started, 1)
    result["stages"] = stages
    result["peak_mb"] = max(s["peak_mb"] for s in stages.values())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--scales", type=int, nargs="+", default=[1])
    parser.add_argument("--fake", action="store_true", help="a stand-in embedder instead of the model")
    parser.add_argument("--stand-in", action="store_true", help="the model resident, the chunks' rows a stand-in")
    parser.add_argument("--keep", type=Path, help="move the built data folder here (e.g. for change_steps.py --data)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--stop-after", choices=["labels", "embedding", "vectors"], help="cut the build short there")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        args.out.write_text(json.dumps(measure(args.one, args.fake, args.stop_after, args.stand_in)))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    results = []
    for scale in args.scales:
        data = prepare(args.workdir, scale)
        with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
            copy = Path(tmp) / "data"
            shutil.copytree(data, copy)
            out = Path(tmp) / "out.json"
            command = [sys.executable, str(Path(__file__).resolve()), "--workdir", str(args.workdir)]
            command += ["--one", str(copy), "--out", str(out)] + (["--fake"] if args.fake else [])
            command += ["--stand-in"] if args.stand_in else []
            command += ["--stop-after", args.stop_after] if args.stop_after else []
            subprocess.run(command, check=True)
            result = json.loads(out.read_text()) | {"scale": scale}
            if args.keep is not None:
                shutil.move(copy, args.keep / f"built_x{scale}")
        results.append(result)
        stages = ", ".join(
            f"{name} {s['start_mb']:.0f}→{s['peak_mb']:.0f} MB ({s['s']} s)" for name, s in result["stages"].items()
        )
        print(
            f"×{scale} ({result['counts']['nodes']:,} nodes, {result['counts']['edges']:,} edges): opened "
            f"{result['opened']:.0f} MB, model {result['model']:.0f} MB, peak {result['peak_mb']:.0f} MB; {stages}",
            flush=True,
        )
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
