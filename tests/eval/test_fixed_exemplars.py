"""The fixed 12-exemplar sets (kgsvc/eval/exemplars/*.jsonl) against their benchmarks' real KBs.

Each set must parse with :func:`read_exemplars`, use only relations of its KB's vocabulary and entity texts of
its KB, mention each entity in its question, and its pattern must have an answer in the KB. The KBs are in
``../shared/data`` (not copied into the project): without them these tests fail, never skip.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import kgsvc
from kgsvc.eval.data import metaqa_kb, pq_kb, wc2014_kb
from kgsvc.index.labels import humanize
from kgsvc.qa.exemplars import Exemplar, find_spans, read_exemplars, relation_key
from kgsvc.settings import Settings
from tests.eval.test_nobel_questions import BASE_IRI, QUESTIONS, nobel_turtle

FOLDER = Path(__file__).resolve().parents[2] / "kgsvc" / "eval" / "exemplars"
#: Hop mix of each set (the ``qtype`` field).
MIX = {
    "metaqa": {"1-hop": 4, "2-hop": 4, "3-hop": 4},
    "pq": {"2-hop": 6, "3-hop": 6},
    "wc2014": {"1-hop": 5, "2-hop": 4, "conjunction": 3},
    "nobel": {"1-hop": 3, "reverse": 2, "2-hop": 3, "3-hop": 2, "two-condition": 2},
}
Triple = tuple[str, str, str]
NAMES = (
    "PREFIX dbo: <http://dbpedia.org/ontology/> PREFIX foaf: <http://xmlns.com/foaf/0.1/> "
    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> SELECT DISTINCT ?s ?n WHERE { "
    "{ ?s dbo:name ?n } UNION { ?s rdfs:label ?n } UNION "
    '{ ?s foaf:givenName ?g OPTIONAL { ?s foaf:familyName ?f } BIND(IF(BOUND(?f) && ?f != "", '
    'CONCAT(?g, " ", ?f), ?g) AS ?n) } }'
)


def matches(kb: Sequence[Triple], pattern: Sequence[Triple], answer: str) -> set[str]:
    """The values of ``answer`` over all matches of ``pattern`` in ``kb`` (variables start with ``?``)."""
    forward: dict[tuple[str, str], set[str]] = {}
    backward: dict[tuple[str, str], set[str]] = {}
    for h, r, t in kb:
        forward.setdefault((h, r), set()).add(t)
        backward.setdefault((t, r), set()).add(h)

    def solve(pending: list[Triple], binding: dict[str, str]) -> Iterator[dict[str, str]]:
        if not pending:
            yield binding
            return
        i = next((k for k, (h, _, t) in enumerate(pending) if bound(h, binding) or bound(t, binding)), None)
        assert i is not None, f"pattern {pattern} has a triple with no constant or bound end"
        h, r, t = pending[i]
        head = binding.get(h) if h.startswith("?") else h
        tail = binding.get(t) if t.startswith("?") else t
        rest = pending[:i] + pending[i + 1 :]
        if head is not None:
            for value in forward.get((head, r), ()):
                if tail is None:
                    yield from solve(rest, {**binding, t: value})
                elif value == tail:
                    yield from solve(rest, binding)
        else:
            assert tail is not None
            for value in backward.get((tail, r), ()):
                yield from solve(rest, {**binding, h: value})

    return {b[answer] for b in solve(list(pattern), {})}


def bound(node: str, binding: dict[str, str]) -> bool:
    return not node.startswith("?") or node in binding


def exemplars(name: str) -> list[Exemplar]:
    return read_exemplars(FOLDER / f"{name}.jsonl")


@pytest.mark.parametrize("name", sorted(MIX))
def test_each_set_is_twelve_valid_exemplars_with_its_hop_mix(name: str) -> None:
    lines = [line for line in (FOLDER / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = exemplars(name)
    assert len(lines) == len(rows) == 12
    assert Counter(e.qtype for e in rows) == Counter(MIX[name])
    assert len({e.question for e in rows}) == 12
    for e in rows:
        assert e.answer == "?x" and e.entities, e.question
        constants = {n for t in e.triples for n in (t[0], t[2]) if not n.startswith("?")}
        assert constants == set(e.entities), e.question
        spans = find_spans(e.question, e.entities)
        assert len(spans) == len(e.entities), f"{e.question!r}: not every entity is written in the question"
        assert "X" in e.masked(), e.question


@pytest.mark.parametrize(
    ("name", "kbs"),
    [
        ("metaqa", lambda: [metaqa_kb()]),
        ("pq", lambda: [pq_kb(2), pq_kb(3)]),
        ("wc2014", lambda: [wc2014_kb()]),
    ],
)
def test_triple_benchmark_sets_use_their_kb(name: str, kbs: object) -> None:
    graphs: list[list[Triple]] = kbs()  # type: ignore[operator]
    relations = {relation_key(r) for kb in graphs for _, r, _ in kb}
    entities = {n for kb in graphs for h, _, t in kb for n in (h, t)}
    for e in exemplars(name):
        for _, r, _ in e.triples:
            assert relation_key(r) in relations, f"{e.question!r}: relation {r!r} is not in the {name} KB"
        assert set(e.entities) <= entities, f"{e.question!r}: {e.entities} not all in the {name} KB"
        # PQ's 2- and 3-hop KBs are separate files: a pattern must have an answer in one of them
        assert any(matches(kb, e.triples, e.answer) for kb in graphs), f"{e.question!r} has no answer in the KB"


@pytest.fixture(scope="module")
def nobel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    folder = tmp_path_factory.mktemp("nobel-exemplars")
    source = folder / "nobel.ttl"
    source.write_bytes(nobel_turtle())
    with kgsvc.KG.open(folder / "data", settings=Settings(auto_index=False)) as kg:
        kg.load(source, dataset="nobel", base_iri=BASE_IRI)
        yield kg


def test_nobel_set_uses_the_graph_and_shares_no_topic_with_the_questions(nobel: kgsvc.KG) -> None:
    predicates = [r["p"].value for r in nobel.sparql("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", dataset="nobel").rows]
    vocabulary: dict[str, list[str]] = {}
    for p in predicates:  # the text kgsvc gives an unlabelled predicate (kgsvc.index.labels)
        vocabulary.setdefault(relation_key(humanize(p)), []).append(p)
    named: dict[str, set[str]] = {}
    for row in nobel.sparql(NAMES, dataset="nobel").rows:
        named.setdefault(row["n"].value, set()).add(row["s"].value)
    mentioned = {
        m["iri"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines() for m in json.loads(line)["mentions"]
    }
    for e in exemplars("nobel"):
        where: list[str] = []
        sparql_term: dict[str, str] = {}
        for entity in e.entities:
            nodes = named.get(entity, set())
            literal = nobel.sparql(f"ASK {{ ?s ?p {json.dumps(entity)} }}", dataset="nobel").boolean
            assert nodes or literal, f"{e.question!r}: {entity!r} names no node and is no value of the graph"
            assert not nodes & mentioned, f"{e.question!r}: {entity!r} is a topic of a scored Nobel question"
            if nodes:
                sparql_term[entity] = f"?c{len(sparql_term)}"
                where.append(f"VALUES {sparql_term[entity]} {{ {' '.join(f'<{n}>' for n in sorted(nodes))} }}")
            else:
                sparql_term[entity] = json.dumps(entity)
        for i, (h, r, t) in enumerate(e.triples):
            assert relation_key(r) in vocabulary, f"{e.question!r}: relation {r!r} is not a predicate of the graph"
            values = " ".join(f"<{p}>" for p in vocabulary[relation_key(r)])
            where.append(f"VALUES ?p{i} {{ {values} }} {sparql_term.get(h, h)} ?p{i} {sparql_term.get(t, t)} .")
        rows = nobel.sparql(f"SELECT DISTINCT ?x WHERE {{ {' '.join(where)} }}", dataset="nobel").rows
        assert rows, f"{e.question!r}: the pattern has no answer in the Nobel graph"
