"""Issue 16, 2026-11-27: "the same <class> as X", "shared the <class> with X": the noun after the share cue is the
class of the value shared (a small graph of our own in Turtle with the Nobel graph's labels, the bundled MiniLM, no
exemplars, answers checked against hand-written SPARQL).

A laureate shares an institution and a prize with others here, and every "walk a relation and back" path reads the
share cue alike; "Nobel" spells *nobel laureates* (an institution's laureates), so main answered "who shared the
Nobel Prize with X" with X's colleagues. In a graph with classes, a path that shares a value is now kept only if the
value can be of the class the share cue names, when some path's can
(:meth:`kgsvc.qa.rank.CandidateRanker.shared_instances`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import hand_answers, indexed_turtle, top_answers

TURTLE = """\
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:NobelPrize rdfs:label "Nobel Prize" .
ex:Organisation rdfs:label "Organisation" .
ex:Laureate rdfs:label "Laureate" .
ex:memberOf rdfs:label "member of" .
ex:laureateAward rdfs:label "laureate award" .
ex:nobelLaureates rdfs:label "nobel laureates" .

ex:Prize1950 a ex:NobelPrize ; rdfs:label "Nobel 1950 chemistry" .
ex:Prize1961 a ex:NobelPrize ; rdfs:label "Nobel 1961 physics" .
ex:Orrin a ex:Organisation ; rdfs:label "Orrin University" ; ex:nobelLaureates ex:Ada, ex:Bo, ex:Cy .
ex:Vale a ex:Organisation ; rdfs:label "Vale Institute" ; ex:nobelLaureates ex:Dee, ex:Eli .

ex:Ada a ex:Laureate ; rdfs:label "Ada Quill" ; ex:memberOf ex:Orrin ; ex:laureateAward ex:Prize1950 .
ex:Bo a ex:Laureate ; rdfs:label "Bo Hart" ; ex:memberOf ex:Orrin ; ex:laureateAward ex:Prize1961 .
ex:Cy a ex:Laureate ; rdfs:label "Cy Lund" ; ex:memberOf ex:Orrin ; ex:laureateAward ex:Prize1961 .
ex:Dee a ex:Laureate ; rdfs:label "Dee Marsh" ; ex:memberOf ex:Vale ; ex:laureateAward ex:Prize1950 .
ex:Eli a ex:Laureate ; rdfs:label "Eli Stone" ; ex:memberOf ex:Vale ; ex:laureateAward ex:Prize1961 .
"""
EX = "http://example.org/"


@pytest.fixture(scope="module")
def prizes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("shared"), "prizes", TURTLE) as kg:
        yield kg


def test_who_shared_the_prize_with_someone(prizes: kgsvc.KG) -> None:
    award = f"<{EX}laureateAward>"
    query = f"SELECT ?x WHERE {{ <{EX}Ada> {award} ?p . ?x {award} ?p FILTER(?x != <{EX}Ada>) }}"
    expected = hand_answers(prizes, query, "prizes")
    assert expected == [f"{EX}Dee"]
    assert top_answers(prizes, "Who shared the Nobel Prize with Ada Quill?", "prizes") == expected


def test_who_worked_at_the_same_institution(prizes: kgsvc.KG) -> None:
    """A guard: main reads this one right here by the cosine (on the Nobel graph it read the co-laureates)."""
    query = f"SELECT ?x WHERE {{ <{EX}Dee> <{EX}memberOf> ?o . ?x <{EX}memberOf> ?o FILTER(?x != <{EX}Dee>) }}"
    expected = hand_answers(prizes, query, "prizes")
    assert expected == [f"{EX}Eli"]
    question = "Which other laureates worked at the same institution as Dee Marsh?"
    assert top_answers(prizes, question, "prizes") == expected


def test_did_they_share_a_prize(prizes: kgsvc.KG) -> None:
    assert prizes.ask("Did Bo Hart share his Nobel Prize with Eli Stone?", dataset="prizes").text.startswith("Yes")
    assert prizes.ask("Did Bo Hart share his Nobel Prize with Ada Quill?", dataset="prizes").text.startswith("No")


CITIES = (
    TURTLE
    + """
ex:City rdfs:label "City" .
ex:city rdfs:label "city" .
ex:birthPlace rdfs:label "birth place" .
ex:Tarn a ex:City ; rdfs:label "Tarn" .
ex:Lisk a ex:City ; rdfs:label "Lisk" .
ex:Orrin ex:city ex:Lisk .
ex:Vale ex:city ex:Tarn .
ex:Ada ex:birthPlace ex:Tarn .
ex:Bo ex:birthPlace ex:Lisk .
ex:Cy ex:birthPlace ex:Lisk .
ex:Dee ex:birthPlace ex:Tarn .
ex:Eli ex:birthPlace ex:Lisk .
"""
)


@pytest.fixture(scope="module")
def cities(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("shared-cities"), "prizes", CITIES) as kg:
        yield kg


def test_born_in_the_same_city(cities: kgsvc.KG) -> None:
    """2026-11-27 (Nobel n97): "the same *city*" names the class of the value shared, not the relation *city*
    (:attr:`kgsvc.qa.zeroshot.GraphLexicon.shared_classes`); main read the word as that relation and answered the
    people born in the city of Ada's institution."""
    born = f"<{EX}birthPlace>"
    query = f"SELECT ?x WHERE {{ <{EX}Ada> {born} ?c . ?x {born} ?c FILTER(?x != <{EX}Ada>) }}"
    expected = hand_answers(cities, query, "prizes")
    assert expected == [f"{EX}Dee"]
    for question in (
        "Which laureates were born in the same city as Ada Quill?",
        "Who was born in the same city as Ada Quill?",
    ):
        assert top_answers(cities, question, "prizes") == expected, question
