"""The class of what a count counts (issue 17 after issue 18): "how many *people* …", "how many *winners* …" count
only the items of that ``rdf:type``, the class enters the ranking, and the COUNT SPARQL carries the same type line —
checked against hand-written SPARQL on a small real embedded KG written here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.qa.options import QAOptions
from kgsvc.qa.service import answerer_for
from tests.qa.conftest import indexed_turtle

NS = "https://kgsvc.local/classes/"
GRAPH = f"""@prefix : <{NS}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Person rdfs:label "Person" . :Organisation rdfs:label "Organisation" . :Award rdfs:label "Award" .
:Winner rdfs:label "Winner" . :Group rdfs:label "Group" .
:awardedTo rdfs:label "awarded to" . :birthPlace rdfs:label "birth place" .
:Prize_1999 a :Award ; rdfs:label "Golden Rook 1999" ;
    :awardedTo :Ann_Berg , :Ivo_Lind , :Riga_Chess_Club .
:Ann_Berg a :Person , :Winner ; rdfs:label "Ann Berg" ; :birthPlace :Riga .
:Ivo_Lind a :Person , :Winner ; rdfs:label "Ivo Lind" ; :birthPlace :Riga .
:Ola_Sand a :Person , :Winner ; rdfs:label "Ola Sand" ; :birthPlace :Oslo .
:Riga_Chess_Club a :Organisation ; rdfs:label "Riga Chess Club" ; :birthPlace :Riga .
:Riga rdfs:label "Riga" . :Oslo rdfs:label "Oslo" .
:all_winners a :Group ; rdfs:label "Chess Open Winners" .
"""


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("classes"), "classes", GRAPH) as kg:
        yield kg


def _count(kg: kgsvc.KG, query: str) -> str:
    rows = kg.sparql(query, dataset="classes").rows
    return str(next(iter(rows[0].values())).value)


def test_a_plural_class_noun_is_no_name_alias(kg: kgsvc.KG) -> None:
    """The label "Chess Open Winners" gets no alias "Chess Winners": "winners" is the plural of a class label, so
    the span is a type constraint (the class Winner), not the group node."""
    answerer = answerer_for(kg, "classes", QAOptions())
    linked = answerer.linker.link_types("How many chess winners were born in Riga?")
    assert [t.text for t in linked.types] == ["winners"]
    assert [answerer.graph.node_terms[c] for c in linked.classes] == [f"<{NS}Winner>"]
    assert all(s.text.lower() != "chess winners" for s in linked.spans)


@pytest.mark.parametrize(
    ("question", "hand"),
    [
        (  # the prize went to two people and a club: people are counted
            "How many people shared the Golden Rook 1999?",
            f"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ <{NS}Prize_1999> <{NS}awardedTo> ?x . ?x a <{NS}Person> }}",
        ),
        (  # the class noun is linked as a type: its class, not the club born "in" Riga, is counted
            "How many chess winners were born in Riga?",
            f"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ ?x <{NS}birthPlace> <{NS}Riga> ; a <{NS}Winner> }}",
        ),
    ],
)
def test_count_is_of_the_class_the_noun_names(kg: kgsvc.KG, question: str, hand: str) -> None:
    answer = kg.ask(question, dataset="classes")
    expected = _count(kg, hand)
    assert expected == "2"
    assert answer.grounded and answer.kind == "count" and answer.answers[0].value == expected
    assert answer.sparql is not None and " a <" in answer.sparql
    assert _count(kg, answer.sparql) == expected
    assert len(answer.items) == 2
    assert {ev.answer.value for ev in answer.evidence if ev.answer} == {i.value for i in answer.items}
