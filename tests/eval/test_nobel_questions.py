"""The Nobel question set (kgsvc/eval/questions/nobel.jsonl) against the real Nobel graph loaded into kgsvc.

Every question's SPARQL runs over the dataset ``nobel`` of a real embedded :class:`kgsvc.KG` and must return
exactly the recorded answers; every mentioned IRI must be a node of the graph. The graph is
``../shared/data/nobel/nobel.ttl.gz`` (not copied into the project): without it these tests fail, never skip.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib.util import from_n3

import kgsvc
from kgsvc.eval.data import data_root
from kgsvc.schemas import RdfTerm
from kgsvc.settings import Settings

QUESTIONS = Path(__file__).resolve().parents[2] / "kgsvc" / "eval" / "questions" / "nobel.jsonl"
#: The base IRI the question set's IRIs resolve against (the file's IRIs are relative), as in the README there.
BASE_IRI = "https://kgsvc.local/nobel/"
LOOKUPS = {"1-hop": 9, "reverse": 9, "2-hop": 9, "3-hop": 9, "two-condition": 9}
OTHERS = {"count": 5, "yes-no": 5, "superlative": 5, "comparison": 5}
#: The one syntax error of the published file: its VoID block ends with ``;`` and no ``.`` (line 38).
_UNTERMINATED = b"geoFeatures20040307.owl#>;\n\n<Christopher_A._Sims>"


def nobel_turtle() -> bytes:
    """The Nobel Turtle file with its one syntax error repaired (the VoID statement closed with ``.``)."""
    data = gzip.decompress((data_root() / "nobel" / "nobel.ttl.gz").read_bytes())
    assert data.count(_UNTERMINATED) == 1, "the Nobel file changed: its known syntax error is not where expected"
    return data.replace(_UNTERMINATED, _UNTERMINATED.replace(b";", b" ;\n.", 1))


def questions() -> list[dict[str, object]]:
    return [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def nobel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    """A real embedded KG holding the Nobel graph as dataset ``nobel`` (no index build)."""
    folder = tmp_path_factory.mktemp("nobel")
    source = folder / "nobel.ttl"
    source.write_bytes(nobel_turtle())
    with kgsvc.KG.open(folder / "data", settings=Settings(auto_index=False)) as kg:
        result = kg.load(source, dataset="nobel", base_iri=BASE_IRI)
        assert result.triples_total > 26_000
        yield kg


def ntriples(term: RdfTerm) -> str:
    """An RDF term of a SPARQL result in N-Triples syntax (as the question file writes ``answer_terms``)."""
    if term.type == "uri":
        return str(ox.NamedNode(term.value))
    assert term.type == "literal", term
    if term.lang:
        return str(ox.Literal(term.value, language=term.lang))
    return str(ox.Literal(term.value, datatype=ox.NamedNode(term.datatype) if term.datatype else None))


def test_the_question_file_is_well_formed() -> None:
    rows = questions()
    ids = [str(r["id"]) for r in rows]
    assert len(ids) == len(set(ids)), "question ids must be unique"
    kinds = Counter(str(r["kind"]) for r in rows)
    assert set(kinds) <= set(LOOKUPS) | set(OTHERS)
    for kind, least in (LOOKUPS | OTHERS).items():
        assert kinds[kind] >= least, f"{kind}: {kinds[kind]} questions, expected at least {least}"
    for r in rows:
        keys = {"id", "kind", "question", "answers", "answer_terms", "mentions", "sparql"}
        assert keys <= set(r) <= keys | {"batch"}, r["id"]  # "batch": a later batch, written held out
        answers, terms = r["answers"], r["answer_terms"]
        assert isinstance(answers, list) and answers and all(isinstance(a, str) and a for a in answers), r["id"]
        assert isinstance(terms, list), r["id"]
        if r["kind"] in LOOKUPS:
            assert len(terms) == len(answers) <= 10, r["id"]
        if r["kind"] == "count":
            assert terms == [] and len(answers) == 1 and answers[0].isdigit(), r["id"]
        if r["kind"] == "yes-no":
            assert terms == [] and answers in (["yes"], ["no"]), r["id"]
        if terms == []:
            assert r["kind"] in ("count", "yes-no", "comparison"), r["id"]
        for mention in r["mentions"]:  # type: ignore[attr-defined]
            assert mention["text"].casefold() in str(r["question"]).casefold(), (r["id"], mention)
            # the dataset's base, or a DBpedia resource the graph links with owl:sameAs (n375: "dbr:Holbeach")
            assert mention["iri"].startswith((BASE_IRI, "http://dbpedia.org/resource/")), (r["id"], mention)
        assert "\n" not in str(r["sparql"]), r["id"]


def test_every_mention_is_a_node_of_the_graph(nobel: kgsvc.KG) -> None:
    iris = {m["iri"] for r in questions() for m in r["mentions"]}  # type: ignore[attr-defined]
    assert len(iris) > 50
    for iri in sorted(iris):
        result = nobel.sparql(f"ASK {{ {{ <{iri}> ?p ?o }} UNION {{ ?s ?p <{iri}> }} }}", dataset="nobel")
        assert result.boolean, f"{iri} is not in the Nobel graph"


@pytest.mark.parametrize("row", questions(), ids=lambda r: str(r["id"]))
def test_each_question_sparql_gives_its_recorded_answers(nobel: kgsvc.KG, row: dict[str, object]) -> None:
    result = nobel.sparql(str(row["sparql"]), dataset="nobel")
    answers = row["answers"]
    if result.kind == "ask":
        assert row["kind"] in ("yes-no", "comparison")
        assert answers == ["yes" if result.boolean else "no"]
        return
    assert result.kind == "select" and len(result.variables) == 1
    values = [r[result.variables[0]] for r in result.rows if result.variables[0] in r]
    if row["kind"] == "count":
        assert len(values) == 1 and answers == [values[0].value]
        assert values[0].datatype == "http://www.w3.org/2001/XMLSchema#integer"
        return
    got = sorted(ntriples(v) for v in values)
    assert len(got) == len(set(got)), "the query returns an answer twice"
    expected = row["answer_terms"]
    assert isinstance(expected, list)
    assert got == sorted(expected), row["question"]


def test_answer_names_are_the_graphs_names(nobel: kgsvc.KG) -> None:
    """Each answer's text is its node's name in the graph (dbo:name, given + family name, label), its IRI where the
    graph names it nowhere, or the literal's value."""
    checked = 0
    for row in questions():
        if not row["answer_terms"]:
            continue
        for text, term in zip(row["answers"], row["answer_terms"], strict=True):  # type: ignore[call-overload]
            if not term.startswith("<"):
                assert str(from_n3(term)) == text  # the literal's value, its N-Triples escapes read (n257: \")
                continue
            names = nobel.sparql(
                "PREFIX dbo: <http://dbpedia.org/ontology/> PREFIX foaf: <http://xmlns.com/foaf/0.1/> "
                "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> SELECT ?n WHERE { "
                f"{{ {term} dbo:name ?n }} UNION {{ {term} rdfs:label ?n }} UNION "
                f"{{ {term} foaf:givenName ?g OPTIONAL {{ {term} foaf:familyName ?f }} "
                'BIND(IF(BOUND(?f) && ?f != "", CONCAT(?g, " ", ?f), ?g) AS ?n) } UNION '
                f"{{ {term} dbo:year ?y ; dbo:category/rdfs:label ?c "
                'BIND(CONCAT(?y, " Nobel Prize in ", ?c) AS ?n) } }',
                dataset="nobel",
            )
            if not names.rows:  # a node the graph names nowhere (an owl:sameAs link, n331): its IRI
                assert text == term[1:-1], (row["id"], text, term)
                continue
            assert text in {r["n"].value for r in names.rows}, (row["id"], text, term)
            checked += 1
    assert checked > 90
