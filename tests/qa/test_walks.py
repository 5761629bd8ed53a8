"""Walks that come back through a node (PathQuestion's "the nationality of X 's daughter 's mother" = X's
nationality): enumeration, the quotient of a walk that repeats a triple, orientation of matches, and the answers
end to end on a small family graph (real snapshot, real GSD matcher, real MiniLM embeddings)."""

from __future__ import annotations

import numpy as np
import pytest

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.qa.candidates import Branch, CandidatePattern, candidate_pattern, enumerate_paths, walk_quotient
from kgsvc.qa.exemplars import Exemplar, ExemplarSet
from kgsvc.qa.graph import QAGraph, load_embedder
from kgsvc.qa.orient import oriented
from kgsvc.qa.pipeline import QAOptions, QuestionAnswerer
from kgsvc.retrieval.candidates import Candidates, candidate_set
from kgsvc.retrieval.pattern import Pattern
from kgsvc.retrieval.result import Match
from kgsvc.retrieval.search import top_k_subgraphs

# eve's daughter is dora (both directions stored); eve is married to adam (both directions); adam's only stored
# child is dora, dora's only stored parent is eve; ivan is eve's mother (one direction only).
KB = [
    ("eve", "children", "dora"),
    ("dora", "parents", "eve"),
    ("eve", "spouse", "adam"),
    ("adam", "spouse", "eve"),
    ("adam", "children", "dora"),
    ("eve", "nationality", "england"),
    ("dora", "nationality", "france"),
    ("adam", "nationality", "spain"),
    ("eve", "parents", "ivan"),
    ("ivan", "nationality", "italy"),
]
NODES = sorted({x for h, _, t in KB for x in (h, t)})
RELATIONS = sorted({r for _, r, _ in KB})
N, R = NODES.index, RELATIONS.index


def _snapshot() -> GraphSnapshot:
    ids = np.array([(N(h), R(r), N(t)) for h, r, t in KB], dtype=np.int64)
    return GraphSnapshot.from_triples(ids[:, 0], ids[:, 1], ids[:, 2], n_nodes=len(NODES), n_relations=len(RELATIONS))


def _steps(*steps: tuple[str, bool]) -> tuple[tuple[int, bool], ...]:
    return tuple((R(r), out) for r, out in steps)


def _ends(paths: dict[tuple[tuple[int, bool], ...], np.ndarray], *steps: tuple[str, bool]) -> set[str] | None:
    ends = paths.get(_steps(*steps))
    return None if ends is None else {NODES[int(n)] for n in ends}


def test_walks_may_come_back_to_the_start_but_never_straight_back() -> None:
    paths, truncated = enumerate_paths(_snapshot(), N("eve"), max_hops=3)
    assert not truncated
    # eve → dora → eve (two stored triples) → england: her own nationality
    assert _ends(paths, ("children", True), ("parents", True)) == {"eve"}
    assert _ends(paths, ("children", True), ("parents", True), ("nationality", True)) == {"england"}
    # eve → adam → eve: the start node may end a walk
    assert _ends(paths, ("spouse", True), ("spouse", True)) == {"eve"}
    # "← children" right after "children →" walks the same triple back: it reaches adam (eve → dora ← adam), never eve
    assert _ends(paths, ("children", True), ("children", False)) == {"adam"}
    # eve → ivan has no reverse triple: nothing walks back to eve through ivan
    assert _ends(paths, ("parents", True), ("parents", False)) is None


def test_walk_quotient_only_for_a_repeated_first_step() -> None:
    def path(*steps: tuple[str, bool]) -> CandidatePattern:
        return CandidatePattern((Branch(0, N("eve"), _steps(*steps)),), 1)

    relation_labels = RELATIONS
    lasso = walk_quotient(path(("spouse", True), ("spouse", True), ("spouse", True)), ["eve"], relation_labels)
    assert lasso is not None
    pattern, names = lasso
    assert names == ["eve", "?answer"] and pattern.answer == 1
    assert [(e.head, e.label, e.tail) for e in pattern.edges] == [(0, "spouse", 1), (1, "spouse", 0)]
    assert walk_quotient(path(("spouse", True), ("spouse", True)), ["eve"], relation_labels) is None
    assert walk_quotient(path(("spouse", True), ("children", True), ("nationality", True)), ["eve"], RELATIONS) is None
    # s, reverse(s), s would walk one triple three times: never a non-backtracking walk
    backtrack = path(("spouse", True), ("spouse", False), ("spouse", True))
    assert walk_quotient(backtrack, ["eve"], relation_labels) is None


def _match(pattern_steps: tuple[tuple[str, bool], ...], relation: str) -> tuple[list[Match], Pattern, Candidates]:
    candidate = CandidatePattern((Branch(0, N("eve"), _steps(*pattern_steps)),), 1)
    pattern, _ = candidate_pattern(candidate, ["eve"], RELATIONS)
    allowed = candidate_set(np.array([R(relation)], dtype=np.int64), np.array([0.0]))
    candidates = Candidates(
        nodes={0: candidate_set(np.array([N("eve")], dtype=np.int64), np.array([0.0]))},
        relations=dict.fromkeys(range(len(pattern.edges)), allowed),
    )
    result = top_k_subgraphs(_snapshot(), pattern, candidates, k=10, allow_node_reuse=True)
    return list(result.matches), pattern, candidates


def test_oriented_drops_matches_that_run_against_the_candidate() -> None:
    matches, pattern, candidates = _match((("parents", True),), "parents")
    # the matcher takes "eve –parents→ ?" both ways: ivan (her parent) and dora (dora –parents→ eve: her child)
    assert {m.answer for m in matches} == {N("ivan"), N("dora")}
    kept = [o for m in matches if (o := oriented(m, pattern, candidates)) is not None]
    assert [m.answer for m in kept] == [N("ivan")]
    assert kept[0] in matches


def test_oriented_reassigns_the_triples_of_one_subgraph() -> None:
    matches, pattern, candidates = _match((("spouse", True), ("spouse", True)), "spouse")
    # eve → adam → eve: one subgraph of two triples, two assignments; the matcher keeps one of them
    (match,) = [m for m in matches if m.answer == N("eve")]
    walk = ((N("eve"), R("spouse"), N("adam")), (N("adam"), R("spouse"), N("eve")))
    fixed = oriented(match, pattern, candidates)
    assert fixed is not None and fixed.triples == walk and fixed.gsd == match.gsd
    assert sorted(fixed.edge_ids) == sorted(match.edge_ids)
    swapped = fixed._replace(triples=walk[::-1], edge_ids=fixed.edge_ids[::-1])
    assert oriented(swapped, pattern, candidates) == fixed


def _exemplar(question: str, *relations: str) -> Exemplar:
    nodes = ["zed", *[f"?x{i}" for i in range(1, len(relations))], "?a"]
    triples = tuple((nodes[i], r, nodes[i + 1]) for i, r in enumerate(relations))
    return Exemplar(question, ("zed",), triples, "?a")


EXEMPLARS = [
    _exemplar("what is the nationality of zed 's daughter 's mother", "children", "parents", "nationality"),
    _exemplar("who is the mother of zed 's husband 's son", "spouse", "children", "parents"),
    _exemplar("who is the wife of zed 's husband 's wife", "spouse", "spouse", "spouse"),
    _exemplar("what is the nationality of zed 's mother", "parents", "nationality"),
    _exemplar("what is the nationality of zed", "nationality"),
    _exemplar("who is the mother of zed", "parents"),
]


@pytest.fixture(scope="module")
def qa() -> QuestionAnswerer:
    embed = load_embedder()
    graph = QAGraph.from_triples(KB, base_iri="https://kgsvc.local/family/", embed=embed, name="family")
    # a curated set that covers the questions' wording: its lexicon and votes count fully whatever its size
    options = QAOptions(align_full_at=0, vote_full_at=0)
    return QuestionAnswerer(graph, exemplars=ExemplarSet.build(EXEMPLARS, embed), options=options)


@pytest.mark.parametrize(
    ("question", "steps", "answer"),
    [
        ("what is the nationality of eve 's daughter 's mother", ["children", "parents", "nationality"], "england"),
        ("who is the mother of eve 's husband 's son", ["spouse", "children", "parents"], "eve"),
        ("who is the wife of eve 's husband 's wife", ["spouse", "spouse", "spouse"], "adam"),
    ],
)
def test_walk_back_questions_are_answered_from_stored_triples(
    qa: QuestionAnswerer, question: str, steps: list[str], answer: str
) -> None:
    result = qa.ask(question)
    assert result.grounded, result.reason
    assert result.pattern is not None and [t.relation for t in result.pattern.triples] == steps
    assert result.answers[0].label == answer
    stored = set(KB)
    for evidence in result.evidence:
        triples = [(t.head.label, t.relation.label, t.tail.label) for t in evidence.triples]
        assert set(triples) <= stored  # grounded: every evidence triple is a stored triple
        assert len(set(triples)) == len(triples)
    best = result.evidence[0]
    assert best.answer is not None and best.answer.label == answer
    # the wife of eve's husband's wife walks eve → adam → eve → adam: evidence is the two triples it uses
    if steps == ["spouse", "spouse", "spouse"]:
        assert {(t.head.label, t.tail.label) for t in best.triples} == {("eve", "adam"), ("adam", "eve")}
