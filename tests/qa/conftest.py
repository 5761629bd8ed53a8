"""The sample KG loaded and indexed once per module (real store, real MiniLM embeddings, real snapshot)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc


@pytest.fixture(scope="module")
def indexed_kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with kgsvc.KG.open(tmp_path_factory.mktemp("qa") / "data") as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        kg.build_index("sample")
        yield kg
