"""The sample KG loaded and indexed once per module (real store, real MiniLM embeddings, real snapshot), and
:func:`indexed_turtle` for a test's own small graph."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import kgsvc


@pytest.fixture(scope="module")
def indexed_kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with kgsvc.KG.open(tmp_path_factory.mktemp("qa") / "data") as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        kg.build_index("sample")
        yield kg


@contextmanager
def indexed_turtle(folder: Path, dataset: str, turtle: str) -> Iterator[kgsvc.KG]:
    """An embedded KG in ``folder`` holding ``turtle`` as ``dataset``, its index built (for module fixtures)."""
    (folder / f"{dataset}.ttl").write_text(turtle, encoding="utf-8")
    with kgsvc.KG.open(folder / "data") as kg:
        kg.load(folder / f"{dataset}.ttl", dataset=dataset)
        kg.build_index(dataset)
        yield kg
