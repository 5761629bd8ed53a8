"""The first question on a fresh ``kgsvc serve`` is answered from what ``serve`` loaded before it reported ready:
the embedding model and the current indexes (:meth:`KG.preload`, issue 22). How long it takes is measured by
``bench/first_question.py`` (docs/benchmarks.md), not asserted here.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import kgsvc

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "first_question.py"


def test_a_fresh_server_answers_its_first_questions(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("first_question", _BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    data = tmp_path / "data"
    with kgsvc.KG.open(settings=kgsvc.Settings(data_dir=data, auto_index=True)) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        kg.wait(600)
    _ready, seconds = bench.measure(data, 3)  # raises unless every POST /ask answered 200
    assert len(seconds) == 3


def test_preload_opens_the_index_of_every_indexed_dataset(tmp_path: Path) -> None:
    with kgsvc.KG.open(settings=kgsvc.Settings(data_dir=tmp_path / "data", auto_index=False)) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        kg.load(kgsvc.sample_path(), dataset="unindexed")
        kg.build_index("sample")
        assert kg.preload() == ["sample"]
        assert set(kg._indexes) == {"sample"}  # opened by the preload, before any question
