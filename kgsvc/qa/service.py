"""One :class:`~kgsvc.qa.pipeline.QuestionAnswerer` per (KG, dataset, index version): what ``KG.ask`` uses.

:func:`answerer_for` adapts the dataset's current index (``KG.index``) to a :class:`~kgsvc.qa.graph.QAGraph`,
loads the dataset's exemplars from ``<data_dir>/exemplars/<dataset>.jsonl`` when that file exists (JSON lines,
:func:`kgsvc.qa.exemplars.read_exemplars`; written by :mod:`kgsvc.qa.exemplar_store`, and re-read when the file
changes: an added exemplar counts from the next question, no restart), attaches the version's GNN link
predictor (``<version>/gnn/``, used
with ``infer=True``) once one is trained, and keeps the answerer until a newer index version is current or the
GNN is (re)trained. The LLM (``open_llm(settings)``) is opened only when an option needs it
(``strategy="pattern"``, ``llm_choice``, ``verbalise``), once per KG.
"""

from __future__ import annotations

import logging
import threading
import weakref
from pathlib import Path
from typing import Any

from kgsvc.errors import IndexError_
from kgsvc.gnn import artifacts
from kgsvc.gnn.predict import LinkPredictor
from kgsvc.index.build import GNN_FOLDER
from kgsvc.qa.exemplars import ExemplarSet, read_exemplars
from kgsvc.qa.graph import QAGraph
from kgsvc.qa.pipeline import QAOptions, QuestionAnswerer

__all__ = ["answerer_for", "needs_llm"]

log = logging.getLogger(__name__)

_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[Any, dict[str, tuple[Any, QuestionAnswerer]]] = weakref.WeakKeyDictionary()
_LLMS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _stamp(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def needs_llm(options: QAOptions) -> bool:
    """Whether these options use the LLM."""
    return options.strategy == "pattern" or options.llm_choice or options.verbalise


def answerer_for(kg: Any, dataset: str, options: QAOptions) -> QuestionAnswerer:
    """The answerer of ``dataset`` on ``kg`` (an embedded :class:`kgsvc.KG`) for its current index version.

    Raises
    ------
    DatasetError
        For an unknown dataset.
    IndexError_
        When the dataset has no complete index version yet (build it with ``KG.build_index``).
    """
    index = kg.index(dataset)
    model = index.path / GNN_FOLDER
    path = kg.settings.data_dir / "exemplars" / f"{dataset}.jsonl"
    # a GNN trained later for this version counts, and so does a change of the exemplar file
    key = (index.version, _stamp(model / artifacts.METRICS), _file_stamp(path))
    with _LOCK:
        per_kg = _CACHE.setdefault(kg, {})
        cached = per_kg.get(dataset)
        if cached is None or cached[0] != key:
            exemplars = None
            if path.exists():
                exemplars = ExemplarSet.build(read_exemplars(path), index.embedder.encode)
            graph = QAGraph.from_index(index, name=dataset)
            if key[1] is not None:
                try:
                    graph.predictor = LinkPredictor.load(model, index.snapshot)
                except IndexError_:
                    log.warning("the GNN of %s v%d cannot be used", dataset, index.version, exc_info=True)
            answerer = QuestionAnswerer(graph, exemplars=exemplars)
            if cached is not None:  # the previous version's answerer: its folded labels carry over
                answerer.follow(cached[1])
            cached = (key, answerer)
            per_kg[dataset] = cached
        answerer = cached[1]
        if needs_llm(options) and answerer.llm is None:
            if kg not in _LLMS:
                from kgsvc.llm.base import open_llm

                _LLMS[kg] = open_llm(kg.settings)
            answerer.llm = _LLMS[kg]
    return answerer
