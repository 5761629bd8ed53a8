"""Label and term tables from a real Oxigraph store: Turtle sample, plain triples, languages, literals as nodes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kgsvc
from kgsvc.index.labels import extract_labels, humanize
from kgsvc.settings import Settings

EX = "https://kgsvc.local/sample/"
RDFS_LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"


@pytest.fixture
def kg(tmp_path: Path):  # no auto-index: these tests read the store only
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path / "data", auto_index=False)) as handle:
        yield handle


def _tables(kg: kgsvc.KG, dataset: str, **options):
    return extract_labels(kg.store, kg.catalog.get(dataset).graph, **options)


def test_sample_terms_ids_and_texts(kg: kgsvc.KG) -> None:
    kg.load(kgsvc.sample_path(), dataset="sample")
    tables = _tables(kg, "sample")
    stats = kg.stats("sample")
    assert tables.n_nodes == stats.nodes + stats.literals
    assert tables.n_relations == stats.relations
    assert tables.heads.shape[0] == stats.triples
    # every stored triple comes back through the term tables
    dump = {tuple(line.rsplit(" .", 1)[0].split(" ", 2)) for line in kg.dump("sample").decode().splitlines() if line}
    rebuilt = {
        (tables.node_terms[h], tables.relation_terms[r], tables.node_terms[t])
        for h, r, t in zip(tables.heads.tolist(), tables.relations.tolist(), tables.tails.tolist(), strict=True)
    }
    assert rebuilt == dump
    # IRIs first, literals after, each sorted
    literal = [term.startswith('"') for term in tables.node_terms]
    first_literal = literal.index(True)
    assert not any(literal[:first_literal]) and all(literal[first_literal:])
    assert tables.node_terms[:first_literal] == sorted(tables.node_terms[:first_literal])
    labels = dict(zip(tables.node_terms, tables.node_labels, strict=True))
    assert labels[f"<{EX}person_Satoshi_Kon>"] == "Satoshi Kon"  # rdfs:label
    assert labels[f"<{EX}film_Paprika>"] == "Paprika"
    assert labels['"2006"^^<http://www.w3.org/2001/XMLSchema#gYear>'] == "2006"  # literal: lexical form
    relations = dict(zip(tables.relation_terms, tables.relation_labels, strict=True))
    assert relations[f"<{EX}directedBy>"] == "directed by"
    assert relations[RDFS_LABEL] == "label"  # the labelling predicate is still a relation
    # distinct texts: shared labels share a text id
    assert list(tables.node_texts) == sorted(set(tables.node_labels))
    assert [tables.node_texts[i] for i in tables.node_text_ids] == list(tables.node_labels)
    kon = [i for i, term in enumerate(tables.node_terms) if tables.node_labels[i] == "Satoshi Kon"]
    assert len(kon) == 2 and len({int(tables.node_text_ids[i]) for i in kon}) == 1  # the IRI and its label literal


def test_plain_triples(kg: kgsvc.KG, tmp_path: Path) -> None:
    path = tmp_path / "kb.txt"
    path.write_text(
        "Kismet|directed_by|William Dieterle\nKismet|release_year|1944\nKismet|directed_by|William Dieterle\n"
    )
    kg.load(path, dataset="plain")
    tables = _tables(kg, "plain")
    entity_labels = sorted(
        label for term, label in zip(tables.node_terms, tables.node_labels, strict=True) if term.startswith("<")
    )
    # the mapping labels each entity and relation IRI (DESIGN §3), so relation IRIs are subjects, hence nodes
    assert entity_labels == ["1944", "Kismet", "William Dieterle", "directed by", "release year"]
    # kgsvc:sourceText keeps a relation's original name ("directed_by"); it is a relation too
    assert sorted(tables.relation_labels) == ["directed by", "label", "release year", "source text"]
    assert tables.heads.shape[0] == kg.stats("plain").triples


def test_language_preference_and_predicate_order(kg: kgsvc.KG, tmp_path: Path) -> None:
    path = tmp_path / "lang.ttl"
    path.write_text(
        """@prefix ex: <http://ex.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> . @prefix foaf: <http://xmlns.com/foaf/0.1/> .
ex:a rdfs:label "Le chat"@fr , "Katze"@de , "the cat"@en-GB , "cat" .
ex:b rdfs:label "Hund"@de ; foaf:name "dog" .
ex:c rdfs:label "Vogel"@de ; skos:prefLabel "Oiseau"@fr .
ex:d skos:prefLabel "pref" ; foaf:name "foaf" ; <https://schema.org/name> "schema" .
ex:a ex:chases ex:b . ex:c ex:chases ex:d .
ex:chases rdfs:label "jagt"@de , "chases"@en .
"""
    )
    kg.load(path, dataset="lang")
    tables = _tables(kg, "lang")
    labels = dict(zip(tables.node_terms, tables.node_labels, strict=True))
    assert labels["<http://ex.org/a>"] == "the cat"  # en-GB matches "en" before the untagged label
    assert labels["<http://ex.org/b>"] == "dog"  # untagged before German, whatever the predicate
    assert labels["<http://ex.org/c>"] == "Vogel"  # neither listed: rdfs:label before skos:prefLabel
    assert labels["<http://ex.org/d>"] == "pref"  # skos:prefLabel before schema:name before foaf:name
    assert dict(zip(tables.relation_terms, tables.relation_labels, strict=True))["<http://ex.org/chases>"] == "chases"
    tables = _tables(kg, "lang", languages=("de",))
    german = dict(zip(tables.node_terms, tables.node_labels, strict=True))
    assert german["<http://ex.org/a>"] == "Katze" and german["<http://ex.org/b>"] == "Hund"


def test_literals_are_nodes_with_their_lexical_form(kg: kgsvc.KG, tmp_path: Path) -> None:
    path = tmp_path / "lit.nt"
    path.write_text(
        '<http://ex.org/x> <http://ex.org/year> "1999"^^<http://www.w3.org/2001/XMLSchema#gYear> .\n'
        '<http://ex.org/y> <http://ex.org/year> "1999"^^<http://www.w3.org/2001/XMLSchema#gYear> .\n'
        '<http://ex.org/y> <http://ex.org/note> "hello"@en .\n'
        "<http://ex.org/y> <http://ex.org/link> _:b1 .\n"
        "<http://ex.org/y> <http://ex.org/seeAlso> <http://ex.org/Tom_Hanks> .\n"
    )
    kg.load(path, dataset="lit")
    tables = _tables(kg, "lit")
    year = tables.node_terms.index('"1999"^^<http://www.w3.org/2001/XMLSchema#gYear>')
    assert tables.node_labels[year] == "1999"
    assert int(np.count_nonzero(tables.tails == year)) == 2  # one node for the shared literal term
    assert tables.node_labels[tables.node_terms.index('"hello"@en')] == "hello"
    # no label: the IRI's local name, humanised (nodes and relations alike)
    assert tables.node_labels[tables.node_terms.index("<http://ex.org/Tom_Hanks>")] == "Tom Hanks"
    assert tables.relation_labels[tables.relation_terms.index("<http://ex.org/seeAlso>")] == "see also"
    blank = [i for i, term in enumerate(tables.node_terms) if term.startswith("_:")]
    assert len(blank) == 1 and tables.node_labels[blank[0]] == ""


@pytest.mark.parametrize(
    ("iri", "text"),
    [
        ("http://ex.org/directed_by", "directed by"),
        ("http://ex.org/ns#releaseYear", "release year"),
        ("http://ex.org/Tom_Hanks", "Tom Hanks"),
        ("http://ex.org/a/New%20York", "New York"),
        ("urn:isbn:0451450523", "0451450523"),
        ("http://ex.org/hasIMDbRating", "has IMDb rating"),
    ],
)
def test_humanize(iri: str, text: str) -> None:
    assert humanize(iri) == text
