"""Issue 16, 2026-11-26: the question's focus is read last. "In which year did X win her prize?" asks for the end
of the chain X → won → prize → year, though its words for *year* come before the entity and those for *won* after
it; read in the order they stand, only one of the two steps could be explained, and the one-step path *won*
(whose answer is the prize, not its year) won the ranking. A small real embedded KG written here, the bundled
MiniLM, no exemplars."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import indexed_turtle

NS = "https://kgsvc.local/prizes/"
GRAPH = f"""@prefix : <{NS}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:won rdfs:label "won" . :year rdfs:label "year" . :bornIn rdfs:label "born in" . :memberOf rdfs:label "member of" .
:city rdfs:label "city" .
:Ada_Quell rdfs:label "Ada Quell" ; :won :Rook_Prize_1961 ; :bornIn :Tallinn ; :memberOf :Harbour_Institute .
:Ivo_Marsh rdfs:label "Ivo Marsh" ; :won :Rook_Prize_1974 ; :bornIn :Turku ; :memberOf :Harbour_Institute .
:Rook_Prize_1961 rdfs:label "Rook Prize 1961" ; :year "1961" .
:Rook_Prize_1974 rdfs:label "Rook Prize 1974" ; :year "1974" .
:Harbour_Institute rdfs:label "Harbour Institute" ; :city :Turku .
:Tallinn rdfs:label "Tallinn" . :Turku rdfs:label "Turku" .
"""


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("prizes"), "prizes", GRAPH) as kg:
        yield kg


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("In which year did Ada Quell win her prize?", "1961"),
        ("In what year did Ivo Marsh win his prize?", "1974"),
        ("In which city is the institute that Ada Quell is a member of?", "Turku"),
    ],
)
def test_the_focus_asks_for_the_end_of_the_chain(kg: kgsvc.KG, question: str, expected: str) -> None:
    answer = kg.ask(question, dataset="prizes")
    assert answer.grounded
    assert answer.answers[0].label == expected
    assert len(answer.pattern.triples) == 2 if answer.pattern is not None else False
