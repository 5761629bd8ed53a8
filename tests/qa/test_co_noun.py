"""Issue 16, 2026-11-27 (third held-out Nobel batch, n120): "On what dates did X's *co-winners* die?" — a co-winner
shares what winners are linked to (the prize), not any value (a death place). The noun after "co-" names the
relations by the graph lexicon's margin (:meth:`kgsvc.qa.rank.CandidateRanker._co_relations`), and a candidate that
shares a value through another relation is dropped when one shares it through them. main answered the death dates of
the people who died where X died. A small graph of our own in Turtle with the Nobel graph's labels, the bundled
MiniLM, no exemplars, answers checked against hand-written SPARQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import hand_answers, indexed_turtle

TURTLE = """\
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:laureateAward rdfs:label "laureate award" .
ex:deathPlace rdfs:label "death place" .
ex:deathDate rdfs:label "death date" .
ex:Laureate rdfs:label "Laureate" .
ex:NobelPrize rdfs:label "Nobel Prize" .
ex:City rdfs:label "City" .

ex:Tarn a ex:City ; rdfs:label "Tarn" .
ex:Lisk a ex:City ; rdfs:label "Lisk" .
ex:P1 a ex:NobelPrize ; rdfs:label "Nobel 1966 medicine" .
ex:P2 a ex:NobelPrize ; rdfs:label "Nobel 1970 physics" .
ex:P3 a ex:NobelPrize ; rdfs:label "Nobel 1975 chemistry" .
ex:Rous a ex:Laureate ; rdfs:label "Peyton Rous" ; ex:laureateAward ex:P1 ; ex:deathPlace ex:Tarn ;
    ex:deathDate "1970-02-16" .
ex:Huggins a ex:Laureate ; rdfs:label "Charles Huggins" ; ex:laureateAward ex:P1 ; ex:deathPlace ex:Lisk ;
    ex:deathDate "1997-01-12" .
ex:Alfven a ex:Laureate ; rdfs:label "Hannes Alfven" ; ex:laureateAward ex:P2 ; ex:deathPlace ex:Tarn ;
    ex:deathDate "1995-04-02" .
ex:Neel a ex:Laureate ; rdfs:label "Louis Neel" ; ex:laureateAward ex:P2 ; ex:deathPlace ex:Tarn ;
    ex:deathDate "2000-11-17" .
ex:Cornforth a ex:Laureate ; rdfs:label "John Cornforth" ; ex:laureateAward ex:P3 ; ex:deathPlace ex:Lisk ;
    ex:deathDate "2013-12-08" .
"""
EX = "http://example.org/"


@pytest.fixture(scope="module")
def prizes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("co"), "prizes", TURTLE) as kg:
        yield kg


def test_co_winners_share_the_prize(prizes: kgsvc.KG) -> None:
    query = (
        f"SELECT ?x WHERE {{ <{EX}Rous> <{EX}laureateAward> ?p . ?o <{EX}laureateAward> ?p . "
        f"?o <{EX}deathDate> ?x FILTER(?o != <{EX}Rous>) }}"
    )
    assert hand_answers(prizes, query, "prizes") == ["1997-01-12"]
    answer = prizes.ask("On what dates did Peyton Rous's co-winners die?", dataset="prizes")
    assert answer.grounded and [a.label for a in answer.answers] == ["1997-01-12"]
