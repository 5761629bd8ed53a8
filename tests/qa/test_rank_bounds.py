"""The ranking's shortcuts give the ranking's own results: ``rank(exact_top=k)`` (candidates that cannot reach the
top ``k`` by similarity are not embedded) and the answer ranges read on first use (real MiniLM embeddings)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest

from kgsvc.qa.exemplars import relation_key
from kgsvc.qa.graph import QAGraph, load_embedder
from kgsvc.qa.pipeline import QAOptions, QuestionAnswerer, _main_spans
from kgsvc.qa.rank import _AnswerRanges
from kgsvc.qa.zeroshot import answer_ranges
from tests.qa.conftest import indexed_turtle

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

KB = [
    ("Night Train", "directed_by", "Ada Moss"),
    ("Night Train", "written_by", "Ben Hale"),
    ("Night Train", "starred_actors", "Cora Lind"),
    ("Night Train", "starred_actors", "Dan Pike"),
    ("Night Train", "has_genre", "Drama"),
    ("Night Train", "release_year", "1999"),
    ("Night Train", "in_language", "French"),
    ("Blue Harbour", "directed_by", "Ben Hale"),
    ("Blue Harbour", "written_by", "Ada Moss"),
    ("Blue Harbour", "starred_actors", "Cora Lind"),
    ("Blue Harbour", "has_genre", "Comedy"),
    ("Blue Harbour", "release_year", "2004"),
    ("Red Field", "directed_by", "Ada Moss"),
    ("Red Field", "starred_actors", "Dan Pike"),
    ("Red Field", "has_genre", "Drama"),
    ("Red Field", "in_language", "French"),
]

QUESTIONS = [
    "who directed Night Train",
    "what movies did Cora Lind star in",
    "what genre is Blue Harbour",
    "who directed the movies written by Ben Hale",
    "which actors starred in the films directed by Ada Moss",
    "what language are the films that share actors with Red Field in",
]


def _answerer() -> QuestionAnswerer:
    graph = QAGraph.from_triples(KB, base_iri="https://kgsvc.local/films/", embed=load_embedder(), name="films")
    return QuestionAnswerer(graph)


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("k", [1, 3])
def test_exact_top_is_the_head_of_the_full_ranking(question: str, k: int) -> None:
    opts = QAOptions()
    full_qa, bounded_qa = _answerer(), _answerer()  # separate rankers: no text read by one is cached for the other
    spans = _main_spans(full_qa.linker.link(question), opts.min_relative_score)
    full = full_qa.ranker.rank(question, spans, opts)
    bounded = bounded_qa.ranker.rank(question, spans, opts, exact_top=k)
    assert len(full) >= k
    assert len(k_head := bounded[:k]) == k
    for got, want in zip(k_head, full[:k], strict=True):
        assert (got.candidate, got.signature, got.text, got.parts) == (
            want.candidate,
            want.signature,
            want.text,
            want.parts,
        )
        assert got.score == want.score
    assert {r.text for r in bounded} <= {r.text for r in full}


def test_exact_top_embeds_fewer_candidate_texts() -> None:
    opts = QAOptions()
    full_qa, bounded_qa = _answerer(), _answerer()
    question = "which actors starred in the films directed by Ada Moss"
    spans = _main_spans(full_qa.linker.link(question), opts.min_relative_score)
    full = full_qa.ranker.rank(question, spans, opts)
    bounded = bounded_qa.ranker.rank(question, spans, opts, exact_top=1)
    assert len(bounded) < len(full)
    assert len(bounded_qa.ranker._text_vectors) < len(full_qa.ranker._text_vectors)


def test_pipeline_answers_match_the_full_ranking() -> None:
    """The pipeline reads only the ranking's best: its answers are those of the best of the full ranking."""
    opts = QAOptions()
    for question in QUESTIONS:
        qa, reference = _answerer(), _answerer()
        spans = _main_spans(reference.linker.link(question), opts.min_relative_score)
        best = reference.ranker.rank(question, spans, opts)[0]
        answer = qa.ask(question)
        assert answer.grounded
        assert answer.pattern is not None and answer.pattern.score == best.score


def test_answer_ranges_are_read_on_first_use_from_the_graph() -> None:
    qa = _answerer()
    graph = qa.graph
    ranges = _AnswerRanges(graph)
    assert ranges._ranges is None  # nothing computed until read
    snapshot = graph.snapshot
    want = answer_ranges(
        [relation_key(label) for label in graph.relation_labels],
        np.asarray(snapshot.triple_heads),
        np.asarray(snapshot.triple_relations),
        np.asarray(snapshot.triple_tails),
    )
    assert want  # the graph has some: the comparison below can fail
    assert dict(ranges) == want
    step = next(iter(want))
    assert ranges.get(step) == want[step] and ranges.get(("no such label", True)) is None
    # the lexicon of a ranker reads the same
    assert dict(qa.ranker.graph_lexicon.ranges) == want


def test_a_new_version_answers_from_its_own_triples(tmp_path: Path) -> None:
    """Nothing the ranker keeps outlives its version: after a one-triple change, the first question of the new
    version reads the new triple (the answer ranges and the bounded ranking included)."""
    base = "https://kgsvc.local/films/"
    turtle = "".join(
        f"<{base}{quote(h)}> <{base}rel/{r}> <{base}{quote(t)}> .\n"
        f'<{base}{quote(h)}> <{RDFS_LABEL}> "{h}" .\n<{base}{quote(t)}> <{RDFS_LABEL}> "{t}" .\n'
        for h, r, t in KB
    )
    with indexed_turtle(tmp_path, "films", turtle) as kg:
        before = kg.ask("who directed Red Field", dataset="films")
        assert [a.label for a in before.answers] == ["Ada Moss"]
        row = kg.catalog.current_index_version("films")
        assert row is not None
        version = row.version
        kg.update(
            f'INSERT DATA {{ GRAPH <urn:kgsvc:dataset:films> {{ <{base}Green%20Door> <{RDFS_LABEL}> "Green Door" ; '
            f"<{base}rel/directed_by> <{base}Ben%20Hale> }} }}"
        )
        kg.build_index("films")  # tests run without auto_index
        row = kg.catalog.current_index_version("films")
        assert row is not None and row.version > version
        after = kg.ask("who directed Green Door", dataset="films")
        assert [a.label for a in after.answers] == ["Ben Hale"], (after.reason, after.mentions)
        assert kg.ask("who directed Red Field", dataset="films").answers[0].label == "Ada Moss"
