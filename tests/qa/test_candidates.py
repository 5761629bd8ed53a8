"""Linking and grounded candidate enumeration on a small hand-made graph (no models needed)."""

from __future__ import annotations

import numpy as np

from kgsvc.eval.gold import chain_triples, metaqa_chain
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.qa.candidates import candidate_pattern, enumerate_candidates, verbalise
from kgsvc.qa.exemplars import relation_key, signature
from kgsvc.qa.link import EntityLinker, LabelIndex

LABELS = ["Tokyo Godfathers", "Satoshi Kon", "Japanese", "Paprika", "Perfect Blue", "Paprika"]
RELATIONS = ["directed_by", "in_language"]
TRIPLES = [(0, 0, 1), (3, 0, 1), (4, 0, 1), (0, 1, 2), (3, 1, 2)]


def _snapshot() -> GraphSnapshot:
    h, r, t = (np.array(c) for c in zip(*TRIPLES, strict=True))
    return GraphSnapshot.from_triples(h, r, t, n_nodes=len(LABELS), n_relations=len(RELATIONS))


def test_exact_fuzzy_and_homonym_linking() -> None:
    linker = EntityLinker(LabelIndex.build(LABELS))
    spans = linker.link("what language are the films of satoshi kon in")
    assert [(s.text, s.method, [n for n, _, _ in s.nodes]) for s in spans] == [("satoshi kon", "normalised", [1])]
    (fuzzy,) = linker.link("who directed Tokyo Godfathrs")
    assert fuzzy.method == "fuzzy" and fuzzy.nodes[0][0] == 0
    (homonym,) = linker.link("who directed Paprika")
    assert sorted(n for n, _, _ in homonym.nodes) == [3, 5]
    assert linker.link("who directed Star Wars") == []


def test_enumeration_contains_the_gold_signature_and_renders_it() -> None:
    snapshot = _snapshot()
    keys = [relation_key(r) for r in RELATIONS]
    gold = chain_triples("Satoshi Kon", metaqa_chain("director_to_movie_to_language"))
    wanted = signature(gold, "?x")
    found = enumerate_candidates(snapshot, [(0, 1)], max_hops=2)
    assert not found.truncated
    by_signature = {c.signature(keys): c for c in found.candidates}
    assert wanted in by_signature
    candidate = by_signature[wanted]
    assert candidate.n_answers == 1  # Japanese
    assert verbalise(candidate, ["directed by", "in language"]) == "← directed by in language →"
    pattern, names = candidate_pattern(candidate, ["Satoshi Kon"], ["directed by", "in language"])
    assert names == ["Satoshi Kon", "?x1", "?answer"] and pattern.answer == 2
    assert [(e.head, e.label, e.tail) for e in pattern.edges] == [(1, "directed by", 0), (1, "in language", 2)]


def test_conjunction_meets_at_a_shared_node() -> None:
    found = enumerate_candidates(_snapshot(), [(0, 1), (1, 2)], max_hops=1)
    conj = [c for c in found.candidates if c.kind == "conjunction"]
    assert conj and all(c.n_answers == 2 for c in conj)  # Tokyo Godfathers and Paprika (3)
