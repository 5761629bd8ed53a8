"""Issue 16, 2026-11-26: two conditions whose one branch is two steps long. "Which laureates born in Riga won the
prize in physics?" is a laureate born in Riga (one step) whose prize's category is physics (two steps: laureate →
prize → physics); "which Harbour Institute laureates won the chemistry prize" names neither of its relations, the
entities do (a category node that only prizes point to states *category*). Before, conjunctions were one step per
branch, and no candidate held the question. A small real embedded KG written here, the bundled MiniLM, no
exemplars; the answers are checked against hand-written SPARQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import indexed_turtle

NS = "https://kgsvc.local/laureates/"
GRAPH = f"""@prefix : <{NS}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Laureate rdfs:label "Laureate" . :Person rdfs:label "Person" . :Prize rdfs:label "Prize" .
:Institute rdfs:label "Institute" .
:won rdfs:label "won" . :category rdfs:label "category" . :bornIn rdfs:label "born in" .
:memberOf rdfs:label "member of" . :year rdfs:label "year" .
:physics rdfs:label "physics" . :chemistry rdfs:label "chemistry" .
:Riga rdfs:label "Riga" . :Oslo rdfs:label "Oslo" .
:Harbour_Institute a :Institute ; rdfs:label "Harbour Institute" .
:Hill_Lab a :Institute ; rdfs:label "Hill Lab" ; :won :P4 .
:P1 a :Prize ; rdfs:label "Prize 1961 physics" ; :category :physics ; :year "1961" .
:P2 a :Prize ; rdfs:label "Prize 1962 chemistry" ; :category :chemistry ; :year "1962" .
:P3 a :Prize ; rdfs:label "Prize 1970 physics" ; :category :physics ; :year "1970" .
:P4 a :Prize ; rdfs:label "Prize 1975 chemistry" ; :category :chemistry ; :year "1975" .
:Ada_Quell a :Laureate , :Person ; rdfs:label "Ada Quell" ; :won :P1 ; :bornIn :Riga ; :memberOf :Harbour_Institute .
:Ivo_Marsh a :Laureate , :Person ; rdfs:label "Ivo Marsh" ; :won :P2 ; :bornIn :Riga ; :memberOf :Harbour_Institute .
:Ola_Sand a :Laureate , :Person ; rdfs:label "Ola Sand" ; :won :P3 ; :bornIn :Oslo ; :memberOf :Hill_Lab .
:Uma_Berg a :Laureate , :Person ; rdfs:label "Uma Berg" ; :won :P4 ; :bornIn :Riga ; :memberOf :Hill_Lab .
:Eli_Roth a :Laureate , :Person ; rdfs:label "Eli Roth" ; :won :P3 ; :bornIn :Riga ; :memberOf :Harbour_Institute .
"""
PREFIX = f"PREFIX : <{NS}> "


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("laureates"), "laureates", GRAPH) as kg:
        yield kg


@pytest.mark.parametrize(
    ("question", "hand"),
    [
        (
            "Which laureates born in Riga won the prize in physics?",
            "SELECT ?x WHERE { ?x :bornIn :Riga ; :won ?p . ?p :category :physics }",
        ),
        (
            "Which Harbour Institute laureates won the chemistry prize?",
            "SELECT ?x WHERE { ?x :memberOf :Harbour_Institute ; :won ?p . ?p :category :chemistry }",
        ),
    ],
)
def test_a_condition_two_steps_away_joins_the_other(kg: kgsvc.KG, question: str, hand: str) -> None:
    expected = {str(row["x"].value) for row in kg.sparql(PREFIX + hand, dataset="laureates").rows}
    assert expected  # the hand query holds answers, and only some of each condition's
    answer = kg.ask(question, dataset="laureates")
    assert answer.grounded and answer.pattern is not None
    assert len(answer.pattern.triples) == 3
    best = answer.answers[0].gsd
    assert {a.value for a in answer.answers if a.gsd == best} == expected
