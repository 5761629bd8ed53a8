"""Walks that come back through a node (PathQuestion's "the nationality of X 's daughter 's mother" = X's
nationality) or over a triple they already walked: enumeration, matching with walk semantics, orientation of
matches, and the answers end to end on a small family graph (real snapshot, real GSD matcher, real MiniLM
embeddings). Self-loops, and the agreement of evidence and SPARQL on a real store: ``test_self_loop_walks.py``."""

from __future__ import annotations

import numpy as np
import pytest

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.qa.candidates import Branch, CandidatePattern, candidate_pattern, enumerate_candidates, enumerate_paths
from kgsvc.qa.exemplars import Exemplar, ExemplarSet
from kgsvc.qa.graph import QAGraph, load_embedder
from kgsvc.qa.pipeline import QAOptions, QuestionAnswerer, walks_back
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


def test_walks_may_come_back_to_the_start_and_straight_back() -> None:
    paths, truncated = enumerate_paths(_snapshot(), N("eve"), max_hops=3)
    assert not truncated
    # eve → dora → eve (two stored triples) → england: her own nationality
    assert _ends(paths, ("children", True), ("parents", True)) == {"eve"}
    assert _ends(paths, ("children", True), ("parents", True), ("nationality", True)) == {"england"}
    # eve → adam → eve: the start node may end a walk
    assert _ends(paths, ("spouse", True), ("spouse", True)) == {"eve"}
    # "← children" right after "children →" may walk the same triple back (eve), or reach adam (eve → dora ← adam)
    assert _ends(paths, ("children", True), ("children", False)) == {"adam", "eve"}
    # eve → ivan has no reverse triple: only the triple just walked leads back to eve
    assert _ends(paths, ("parents", True), ("parents", False)) == {"eve"}
    assert _ends(paths, ("parents", True), ("parents", False), ("nationality", True)) == {"england"}
    assert _ends(paths, ("spouse", True), ("spouse", False), ("spouse", True)) == {"adam"}


def test_paths_only_a_backtracking_walk_has_are_detours() -> None:
    found = enumerate_candidates(_snapshot(), [(0, N("eve"))], max_hops=3)
    detour = {c.branches[0].steps: c.detour for c in found.candidates if len(c.branches) == 1}
    assert detour[_steps(("parents", True), ("parents", False))]  # eve → ivan ← eve: back to eve only
    assert not detour[_steps(("children", True), ("children", False))]  # eve → dora ← adam as well
    assert not detour[_steps(("spouse", True), ("spouse", True))]
    plain = enumerate_candidates(_snapshot(), [(0, N("eve"))], max_hops=3, backtrack=False)
    assert not any(c.detour for c in plain.candidates)
    assert len(plain.candidates) < len(found.candidates)


def test_non_backtracking_walks_for_an_injective_matcher() -> None:
    paths, truncated = enumerate_paths(_snapshot(), N("eve"), max_hops=3, backtrack=False)
    assert not truncated
    assert _ends(paths, ("spouse", True), ("spouse", True)) == {"eve"}
    # "← children" right after "children →" never walks the same triple back: adam only
    assert _ends(paths, ("children", True), ("children", False)) == {"adam"}
    assert _ends(paths, ("parents", True), ("parents", False)) is None


def _match(
    pattern_steps: tuple[tuple[str, bool], ...], relation: str, *, directed: bool = True
) -> tuple[list[Match], Pattern, Candidates]:
    """The question path's match of a walk from eve: node and triple reuse, directed like a grounded candidate."""
    candidate = CandidatePattern((Branch(0, N("eve"), _steps(*pattern_steps)),), 1)
    pattern, _ = candidate_pattern(candidate, ["eve"], RELATIONS)
    allowed = candidate_set(np.array([R(relation)], dtype=np.int64), np.array([0.0]))
    candidates = Candidates(
        nodes={0: candidate_set(np.array([N("eve")], dtype=np.int64), np.array([0.0]))},
        relations=dict.fromkeys(range(len(pattern.edges)), allowed),
    )
    result = top_k_subgraphs(
        _snapshot(), pattern, candidates, k=10, allow_node_reuse=True, allow_triple_reuse=True, directed=directed
    )
    return list(result.matches), pattern, candidates


def _walked(match: Match) -> list[tuple[str, str, str]]:
    return [(NODES[h], RELATIONS[r], NODES[t]) for h, r, t in match.triples]


def test_directed_matches_run_along_the_candidate() -> None:
    # undirected, "eve –parents→ ?" is also dora (dora –parents→ eve: her child); directed, only her parent
    undirected, _, _ = _match((("parents", True),), "parents", directed=False)
    assert {NODES[m.answer] for m in undirected if m.answer is not None} == {"ivan", "dora"}
    (match,), _, _ = _match((("parents", True),), "parents")
    assert _walked(match) == [("eve", "parents", "ivan")]


def test_a_walk_back_to_the_start_uses_both_stored_triples() -> None:
    matches, pattern, _ = _match((("spouse", True), ("spouse", True)), "spouse")
    assert [_walked(m) for m in matches] == [[("eve", "spouse", "adam"), ("adam", "spouse", "eve")]]
    assert not walks_back(matches[0], pattern)


def test_a_walk_over_one_triple_three_times_matches_as_it_is() -> None:
    """``spouse →, ← spouse, spouse →`` from eve walks (eve, spouse, adam) three times: one stored triple."""
    matches, pattern, candidates = _match((("spouse", True), ("spouse", False), ("spouse", True)), "spouse")
    assert [_walked(m) for m in matches] == [[("eve", "spouse", "adam")] * 3]
    assert walks_back(matches[0], pattern)
    # with distinct triples (SimGRAG's isomorphism) no walk of this candidate exists
    injective = top_k_subgraphs(_snapshot(), pattern, candidates, k=10, allow_node_reuse=True, directed=True)
    assert injective.matches == ()


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
        assert len(triples) == len(steps)  # one per step of the walk
    best = result.evidence[0]
    assert best.answer is not None and best.answer.label == answer
    # the wife of eve's husband's wife walks eve → adam → eve → adam: evidence is the two triples it uses
    if steps == ["spouse", "spouse", "spouse"]:
        assert {(t.head.label, t.tail.label) for t in best.triples} == {("eve", "adam"), ("adam", "eve")}
