"""The sample KG loaded and indexed once per module (real store, real MiniLM embeddings, real snapshot);
:func:`indexed_turtle` for a test's own small graph, :func:`hand_answers`, :func:`answer_values` and
:func:`top_answers` to compare it with hand-written SPARQL; :func:`zero_shot_answerer` and :func:`top_signature` for
the ranking tests on small triple lists."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import kgsvc
from kgsvc.qa.graph import QAGraph, load_embedder
from kgsvc.qa.pipeline import QAOptions, QuestionAnswerer, _main_spans
from kgsvc.qa.result import Answer


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


def hand_answers(kg: kgsvc.KG, query: str, dataset: str) -> list[str]:
    """The values of ``?x`` in the rows of the hand-written SPARQL ``query`` on ``dataset``, sorted."""
    return sorted(str(row["x"].value) for row in kg.sparql(query, dataset=dataset).rows)


def answer_values(answer: Answer) -> list[str]:
    """The values of a grounded ``answer``'s answers, sorted (the answer's text in the failure message)."""
    assert answer.grounded, answer.text
    return sorted(a.value for a in answer.answers)


def top_answers(kg: kgsvc.KG, question: str, dataset: str) -> list[str]:
    """The answers of ``question`` on ``dataset`` tied at the best GSD, sorted (the answer must be grounded)."""
    answer = kg.ask(question, dataset=dataset)
    assert answer.grounded
    best = answer.answers[0].gsd
    return sorted(a.value for a in answer.answers if a.gsd == best)


def zero_shot_answerer(kb: list[tuple[str, str, str]], name: str) -> QuestionAnswerer:
    """A question answerer over the triples ``kb`` (real MiniLM embeddings) with no exemplars at all."""
    graph = QAGraph.from_triples(kb, base_iri=f"https://kgsvc.local/{name}/", embed=load_embedder(), name=name)
    return QuestionAnswerer(graph)


def top_signature(qa: QuestionAnswerer, question: str, **options: float) -> tuple[tuple[tuple[str, bool], ...], ...]:
    """The pattern signature (steps of each path) the ranker puts first for ``question``, with ``options``
    overriding :class:`QAOptions`' defaults."""
    opts = QAOptions(**options)  # type: ignore[arg-type]
    spans = _main_spans(qa.linker.link(question), opts.min_relative_score)
    return qa.ranker.rank(question, spans, opts)[0].signature
