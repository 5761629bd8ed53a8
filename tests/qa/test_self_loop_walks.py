"""Questions whose only answer path walks one stored triple two or three times (issue 19), end to end on a real
store: a small music KB where merged same-named entities left self-loops (``Kim –tracks→ Kim``), loaded with
``KG.load``, indexed with ``KG.build_index`` (real MiniLM embeddings), answered with ``KG.ask`` and its exemplar
file; then every evidence's SPARQL and the pattern's SPARQL are run against the store and must agree with the
evidence (SPARQL matches a basic graph pattern by homomorphism, and so does the matcher with ``node_reuse``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import kgsvc
from kgsvc.qa.exemplars import Exemplar, write_exemplars
from kgsvc.qa.result import Answer

BASE = "https://kgsvc.local/music/"
KB = [
    ("Kim", "tracks", "Kim"),  # a self-loop, and Kim's only tracks triple
    ("Kim", "performer", "Lee"),
    ("Lee", "genre", "Jazz"),
    ("Robin", "tracks", "Robin"),  # another self-loop, and ordinary triples around it
    ("Robin", "tracks", "Sherwood"),
    ("Sherwood", "performer", "Marian"),
    ("Robin", "performer", "Tuck"),
    ("Nova", "signed_to", "Bluebird"),  # Nova is Bluebird's only artist
    ("Nova", "genre", "Soul"),
    ("Orbit", "signed_to", "Redwing"),
    ("Pulse", "signed_to", "Redwing"),
    ("Orbit", "genre", "Rock"),
    ("Pulse", "genre", "Pop"),
]


def _chain(question: str, *steps: tuple[str, bool]) -> Exemplar:
    """An exemplar about an entity that is not in the KB: a walk of ``(relation, forward)`` steps."""
    nodes = ["Zed", *[f"?x{i}" for i in range(1, len(steps))], "?a"]
    triples = tuple(
        (nodes[i], r, nodes[i + 1]) if forward else (nodes[i + 1], r, nodes[i]) for i, (r, forward) in enumerate(steps)
    )
    return Exemplar(question, ("Zed",), triples, "?a")


EXEMPLARS = [
    _chain("what is the tracks of tracks of Zed 's tracks", ("tracks", True), ("tracks", True), ("tracks", True)),
    _chain(
        "who is the performer of the tracks of Zed 's tracks", ("tracks", True), ("tracks", True), ("performer", True)
    ),
    _chain(
        "what is the genre of the artists signed to Zed 's label",
        ("signed_to", True),
        ("signed_to", False),
        ("genre", True),
    ),
    _chain("which artists are signed to the label of Zed", ("signed_to", True), ("signed_to", False)),
    _chain("who is the performer of Zed", ("performer", True)),
    _chain("what is the genre of Zed", ("genre", True)),
    _chain("what label is Zed signed to", ("signed_to", True)),
    _chain("what is the tracks of Zed", ("tracks", True)),
]


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    folder = tmp_path_factory.mktemp("walks")
    source = folder / "music.nt"
    source.write_text("".join(f"<{BASE}{h}> <{BASE}rel/{r}> <{BASE}{t}> .\n" for h, r, t in KB), encoding="utf-8")
    with kgsvc.KG.open(folder / "data") as kg:
        write_exemplars(Path(kg.settings.data_dir) / "exemplars" / "music.jsonl", EXEMPLARS)
        kg.load(source, dataset="music")
        kg.build_index("music")
        yield kg


def _select(kg: kgsvc.KG, query: str) -> list[str]:
    result = kg.sparql(query, dataset="music")
    assert result.kind == "select" and len(result.variables) == 1, query
    return [row[result.variables[0]].value for row in result.rows]


def _assert_evidence_and_sparql_agree(kg: kgsvc.KG, answer: Answer) -> None:
    stored = {(f"{BASE}{h}", f"{BASE}rel/{r}", f"{BASE}{t}") for h, r, t in KB}
    assert answer.sparql is not None
    pattern_answers = set(_select(kg, answer.sparql))
    for evidence in answer.evidence:
        assert evidence.answer is not None
        assert {(t.head.value, t.relation.value, t.tail.value) for t in evidence.triples} <= stored
        # the evidence's own query returns exactly its answer
        assert _select(kg, evidence.sparql) == [evidence.answer.value], evidence.sparql
        # exact relations (GSD 0): the pattern's query, run on the store, returns the evidence's answer too
        if evidence.gsd == 0.0:
            assert evidence.answer.value in pattern_answers, (answer.sparql, evidence.sparql)
    assert {a.value for a in answer.answers if a.gsd == 0.0} <= pattern_answers


@pytest.mark.parametrize(
    ("question", "steps", "answer", "uses"),
    [
        # Kim –tracks→ Kim three times: one triple for three pattern edges
        ("what is the tracks of tracks of Kim 's tracks", ["tracks", "tracks", "tracks"], "Kim", 3),
        # the loop twice, then Kim –performer→ Lee
        ("who is the performer of the tracks of Kim 's tracks", ["tracks", "tracks", "performer"], "Lee", 2),
        # Nova –signed to→ Bluebird, back over the same triple to Nova, then Nova's genre
        ("what is the genre of the artists signed to Nova 's label", ["signed to", "signed to", "genre"], "Soul", 2),
        # there and straight back: Bluebird's only artist is Nova herself
        ("which artists are signed to the label of Nova", ["signed to", "signed to"], "Nova", 2),
        # Redwing has two artists: the walk back to Orbit (Rock) is a homomorphic match, Pulse's genre comes first
        ("what is the genre of the artists signed to Orbit 's label", ["signed to", "signed to", "genre"], "Pop", 1),
    ],
)
def test_walks_that_reuse_a_triple_are_answered_and_agree_with_sparql(
    music: kgsvc.KG, question: str, steps: list[str], answer: str, uses: int
) -> None:
    result = music.ask(question, dataset="music", align_full_at=0, vote_full_at=0)  # its few exemplars count in full
    assert result.grounded, result.reason
    assert result.pattern is not None and [t.relation for t in result.pattern.triples] == steps
    assert result.answers[0].label == answer
    best = result.evidence[0]
    assert best.answer is not None and best.answer.label == answer
    walked = [t.edge_id for t in best.triples]
    assert len(walked) == len(steps) and max(walked.count(e) for e in walked) == uses
    _assert_evidence_and_sparql_agree(music, result)
    assert answer in {t.split("/")[-1] for t in _select(music, result.sparql or "")}


def test_walking_straight_back_is_a_match_but_its_answer_only_a_fallback(music: kgsvc.KG) -> None:
    """Orbit → Redwing ← Orbit → Rock is a match (evidence) but its answer is dropped while a walk that does not
    turn back answers as closely (Pulse's Pop); the Nova question above is the fallback case."""
    result = music.ask("what is the genre of the artists signed to Orbit 's label", dataset="music")
    assert result.answers[0].label == "Pop" and result.answers[0].gsd == 0.0
    assert "Rock" not in [a.label for a in result.answers]
    # both are answers of the rendered SPARQL (homomorphism: ?x2 may be Orbit again, over the same triple)
    assert {"Pop", "Rock"} <= {t.split("/")[-1] for t in _select(music, result.sparql or "")}
    rock = [e for e in result.evidence if e.answer is not None and e.answer.label == "Rock"]
    assert rock and all(len({t.edge_id for t in e.triples}) == 2 for e in rock)


def test_the_other_self_loop_walks_and_answers_agree_with_sparql(music: kgsvc.KG) -> None:
    """Robin has a loop and other tracks: every walk's end is an answer, each evidence agrees with the SPARQL."""
    result = music.ask("who is the performer of the tracks of Robin 's tracks", dataset="music")
    assert result.grounded, result.reason
    # exact relations reach Tuck (Robin's loop, then Robin –performer→ Tuck) and Marian (Robin → Sherwood); the rest
    # of the answers come from relations GSD took as near ones (gsd > 0)
    assert {a.label for a in result.answers if a.gsd == 0.0} == {"Tuck", "Marian"}
    assert result.answers[0].label in {"Tuck", "Marian"}
    _assert_evidence_and_sparql_agree(music, result)


def test_an_injective_map_says_so_in_its_sparql(music: kgsvc.KG) -> None:
    """``node_reuse=False`` (SimGRAG's isomorphism): the pattern's SPARQL carries ``FILTER``s, so it finds no walk
    back over a triple either; no answer of this question rests on one."""
    result = music.ask("which artists are signed to the label of Nova", dataset="music", node_reuse=False)
    if result.sparql is not None:
        assert "FILTER" in result.sparql or len(result.pattern.triples if result.pattern else []) == 1
    assert all(a.label != "Nova" for a in result.answers)
    if result.grounded and result.sparql is not None and "FILTER" in result.sparql:
        assert "Nova" not in {t.split("/")[-1] for t in _select(music, result.sparql)}
        _assert_evidence_and_sparql_agree(music, result)
