"""The trained-model folder: what :mod:`kgsvc.gnn.train` writes and :mod:`kgsvc.gnn.predict` reads.

Layout of an output folder::

    model.pt                  best model state + GNNConfig (torch.save, weights only)
    node_embeddings.npy       float32 (n_nodes × dim): encoder output z, row = snapshot node id
    relation_embeddings.npy   float32 (2·n_relations × dim): DistMult diagonals w_r (rows ≥ n_relations: inverses)
    relation_priors.npy       float32 (2·n_relations × dim): relation priors u_r (kgsvc.gnn.model)
    relation_ranges.npy       bool (2·n_relations × n_nodes): candidate answers per relation (type constraint)
    metrics.json              config, split sizes, held-out metrics, random baseline, calibration, timings

Replacement is all-or-nothing: the new folder is written complete under a temporary name beside the target and
then swapped in with two ``os.rename`` calls (old → ``<name>.old-<pid>``, new → ``<name>``) before the old one is
deleted. A failure before the swap leaves the previous output untouched; a crash between the two renames leaves
the previous output under ``<name>.old-*``, which :func:`resolve_output` falls back to.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "METRICS",
    "MODEL",
    "NODE_EMBEDDINGS",
    "RELATION_EMBEDDINGS",
    "RELATION_PRIORS",
    "RELATION_RANGES",
    "read_metrics",
    "replace_folder",
    "resolve_output",
]

MODEL = "model.pt"
NODE_EMBEDDINGS = "node_embeddings.npy"
RELATION_EMBEDDINGS = "relation_embeddings.npy"
RELATION_PRIORS = "relation_priors.npy"
RELATION_RANGES = "relation_ranges.npy"
METRICS = "metrics.json"


@contextlib.contextmanager
def replace_folder(target: Path) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``target``; on normal exit it replaces ``target``.

    On an exception the temporary folder is removed and ``target`` is left as it was.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = target.with_name(f"{target.name}.old-{os.getpid()}")
    if target.exists():
        os.rename(target, old)
    os.rename(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


def resolve_output(target: Path) -> Path:
    """``target`` when it holds a complete output, else a complete ``<name>.old-*`` left by an interrupted swap.

    Raises
    ------
    FileNotFoundError
        When neither exists.
    """
    target = Path(target)
    candidates = [target, *sorted(target.parent.glob(f"{target.name}.old-*"))]
    for folder in candidates:
        if (folder / METRICS).is_file():
            return folder
    raise FileNotFoundError(f"no trained GNN output in {target} (looked for {METRICS})")


def read_metrics(folder: Path) -> dict[str, Any]:
    """The ``metrics.json`` of an output folder."""
    result: dict[str, Any] = json.loads((Path(folder) / METRICS).read_text(encoding="utf-8"))
    return result
