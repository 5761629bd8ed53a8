"""The trained-model folder: what :mod:`kgsvc.gnn.train` writes and :mod:`kgsvc.gnn.predict` reads.

Layout of an output folder::

    model.pt                  best model state + GNNConfig (torch.save, weights only)
    node_embeddings.npy       float32 (n_nodes × dim): encoder output z, row = snapshot node id
    relation_embeddings.npy   float32 (2·n_relations × dim): DistMult diagonals w_r (rows ≥ n_relations: inverses)
    relation_priors.npy       float32 (2·n_relations × dim): relation priors u_r (kgsvc.gnn.model)
    relation_ranges.npy       bool (2·n_relations × n_nodes): candidate answers per relation (type constraint)
    metrics.json              config, split sizes, held-out metrics, random baseline, calibration, timings
    held_out.npy              int64 (k × 4): the held-out triples (head, relation, tail, 0 = valid / 1 = test), so
                              that a model fine-tuned from this one is validated on edges neither has trained on
    vectors/gnn_nodes/        Qdrant Edge shard: collection GNN_NODES, one point per node (id = node id), named
                              vector GNN_VECTOR = the unit-normalised row of z (kgsvc.index.vectors)

The Qdrant collection lives in the model folder, not beside the label collections of the index version, so that it
is replaced together with the model it comes from (a failed training leaves both as they were).

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

import numpy as np
import numpy.typing as npt

from kgsvc.index.exact import searched_exactly, unit_rows
from kgsvc.index.vectors import GNN_NODES, GNN_VECTOR, EdgeVectorIndex

__all__ = [
    "HELD_OUT",
    "METRICS",
    "MODEL",
    "NODE_EMBEDDINGS",
    "NODE_VECTORS",
    "RELATION_EMBEDDINGS",
    "RELATION_PRIORS",
    "RELATION_RANGES",
    "read_metrics",
    "replace_folder",
    "resolve_output",
    "write_node_vectors",
]

MODEL = "model.pt"
NODE_EMBEDDINGS = "node_embeddings.npy"
RELATION_EMBEDDINGS = "relation_embeddings.npy"
RELATION_PRIORS = "relation_priors.npy"
RELATION_RANGES = "relation_ranges.npy"
METRICS = "metrics.json"
HELD_OUT = "held_out.npy"
NODE_VECTORS = "vectors"


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


def write_node_vectors(folder: Path, z: npt.NDArray[np.floating]) -> None:
    """Store the node embeddings ``z`` (n × d) in Qdrant: collection :data:`~kgsvc.index.vectors.GNN_NODES` of a
    Qdrant Edge index under ``folder / NODE_VECTORS``, point ``i`` = node ``i``, named vector
    :data:`~kgsvc.index.vectors.GNN_VECTOR` = ``unit_rows(z)[i]`` (so L2 ranks as cosine). No HNSW graph when the
    collection is scanned exactly anyway (:func:`kgsvc.index.exact.searched_exactly`).
    """
    unit = unit_rows(z)
    with EdgeVectorIndex(Path(folder) / NODE_VECTORS) as index:
        index.create_collection(
            GNN_NODES, unit.shape[1], vector=GNN_VECTOR, hnsw=not searched_exactly(unit.shape[0], unit.shape[1])
        )
        index.add(GNN_NODES, unit, vector=GNN_VECTOR)
        index.finish(GNN_NODES)
