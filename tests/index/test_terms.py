"""The full label pass without a Python object per term (issue 23) equals the dictionary pass it replaced.

``labels._streamed_tables`` (numpy interning, byte-order sorts) against ``labels._dict_tables`` (the previous full
pass: ``tables_from_triples`` + ``best_names``) on real Oxigraph stores, with chunks small enough that every term,
label candidate and tie crosses chunks; plus the building blocks against Python's own ``sorted`` and ``dict``.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import kgsvc
from kgsvc.index import labels, terms
from kgsvc.index.labels import LABEL_PREDICATES, LabelTables, extract_labels
from kgsvc.index.names import name_plan
from kgsvc.index.strings import StringTable
from kgsvc.index.terms import HashCollision, Interner, byte_order, gather
from kgsvc.settings import Settings

_ALPHABET = ["a", "b", "z", "A", "\x00", "é", "ß", "\U0001f600", "<", '"', " ", "_"]


def _random_strings(rng: random.Random, n: int) -> list[str]:
    sizes = [0, 1, 2, 7, 8, 9, 15, 16, 17, 40]
    return ["".join(rng.choice(_ALPHABET) for _ in range(rng.choice(sizes))) for _ in range(n)]


def test_byte_order_and_gather_equal_python_sorted() -> None:
    rng = random.Random(0)
    for _ in range(200):
        strings = _random_strings(rng, rng.randint(0, 80))
        table = StringTable.from_strings(strings)
        order = byte_order(table)
        assert order.tolist() == sorted(range(len(strings)), key=lambda i: strings[i])  # stable, str order
        assert gather(table, order).tolist() == sorted(strings)
    long = ["x" * rng.randint(0, 3000) + rng.choice("ab") for _ in range(300)]  # blocks of many bytes
    assert gather(StringTable.from_strings(long), byte_order(StringTable.from_strings(long))).tolist() == sorted(long)


def test_interner_gives_first_seen_slots_across_chunks() -> None:
    rng = random.Random(1)
    for _ in range(100):
        strings = _random_strings(rng, rng.randint(0, 60))
        interner, seen = Interner(), dict[str, int]()
        for start in range(0, len(strings), 7):
            chunk = strings[start : start + 7]
            slots = interner.slots(interner.add(chunk, [s[::-1] for s in chunk]))
            for s in chunk:
                seen.setdefault(s, len(seen))
            assert slots.tolist() == [seen[s] for s in chunk]
        assert interner.table().tolist() == list(seen)
        assert interner.extra_table().tolist() == [s[::-1] for s in seen]
        assert [interner.get(i) for i in range(len(seen))] == list(seen)
        assert interner.find([*strings, "never added"]).tolist() == [seen[s] for s in strings] + [-1]


def test_a_key_collision_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terms, "keys_of", lambda strings: np.zeros(len(strings), dtype=np.int64))
    interner = Interner()
    interner.add(["a"])
    with pytest.raises(HashCollision):
        interner.add(["b"])
    with pytest.raises(HashCollision):
        Interner().add(["a", "b"])


_TURTLE = """@prefix ex: <http://ex.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> . @prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a rdfs:label "Le chat"@fr , "Katze"@de , "the cat"@en-GB , "cat" , "  spaced \\t out  " ; a ex:Animal .
ex:b rdfs:label "Hund"@de , "Dog"@de ; foaf:name "dog" , "cur" ; a ex:Animal .
ex:c rdfs:label "Vogel"@de ; skos:prefLabel "Oiseau"@fr ; ex:chases ex:b , _:n1 .
ex:d skos:prefLabel "pref" ; foaf:name "foaf" ; <https://schema.org/name> "schema" ; ex:age "4"^^xsd:integer .
ex:p1 a foaf:Person ; foaf:givenName "Ada" , "Adele" ; foaf:familyName "Lovelace" ; ex:born "1815"^^xsd:gYear .
ex:p2 a foaf:Person ; foaf:familyName "Curie" ; ex:born "1867"^^xsd:gYear .
ex:p3 a foaf:Person ; foaf:givenName "Emmy" ; rdfs:label "E. Noether" .
ex:Stra%C3%9Fe_1 ex:near <http://ex.org/R.E.M.> , ex:Zoë ; ex:note "x"@en , "x"@de , "x" , "" , "Grüße\\n" .
ex:a ex:chases ex:b . ex:b ex:chases ex:a , ex:a . _:n1 rdfs:label "a blank" . _:n2 ex:chases ex:a .
ex:chases rdfs:label "jagt"@de , "chases"@en . ex:Animal rdfs:label "animal" .
ex:empty rdfs:label "   " ; ex:near ex:a .
"""


def _assert_equal(streamed: LabelTables, reference: LabelTables) -> None:
    for name in ("node_terms", "node_labels", "relation_terms", "relation_labels", "node_texts", "relation_texts"):
        assert list(getattr(streamed, name)) == list(getattr(reference, name)), name
    for name in ("node_text_ids", "relation_text_ids", "heads", "relations", "tails"):
        mine, theirs = getattr(streamed, name), getattr(reference, name)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), name


@pytest.mark.parametrize("chunk", [3, 1 << 14])
def test_the_streamed_pass_equals_the_dictionary_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(labels, "CHUNK_ROWS", chunk)
    path = tmp_path / "mixed.ttl"
    path.write_text(_TURTLE, encoding="utf-8")
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path / "data", auto_index=False)) as kg:
        kg.load(path, dataset="mixed")
        kg.load(kgsvc.sample_path(), dataset="sample")
        for dataset in ("mixed", "sample"):
            graph = kg.catalog.get(dataset).graph
            plan = name_plan(kg.store, graph, known=LABEL_PREDICATES)
            if dataset == "mixed":
                assert plan.given and plan.family  # the name pair is exercised
            for languages in (labels.DEFAULT_LANGUAGES, ("de",), ("fr", "")):
                streamed = labels._streamed_tables(kg.store, graph, plan, languages)
                reference = labels._dict_tables(kg.store, graph, plan, languages)
                assert streamed.n_nodes > 10
                _assert_equal(streamed, reference)


def test_a_collision_falls_back_to_the_dictionary_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mixed.ttl"
    path.write_text(_TURTLE, encoding="utf-8")
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path / "data", auto_index=False)) as kg:
        kg.load(path, dataset="mixed")
        graph = kg.catalog.get("mixed").graph
        expected = extract_labels(kg.store, graph)
        monkeypatch.setattr(terms, "keys_of", lambda strings: np.zeros(len(strings), dtype=np.int64))
        with pytest.raises(HashCollision):
            labels._streamed_tables(kg.store, graph, name_plan(kg.store, graph, known=LABEL_PREDICATES), ("en", ""))
        _assert_equal(extract_labels(kg.store, graph), expected)
