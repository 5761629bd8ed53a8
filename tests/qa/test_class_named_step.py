"""Issue 16, 2026-11-27: in a graph with classes, a relation named after the class of the entity it points to is
read as said by that entity ("which institutions are located in Evanston": Evanston is a City, and *city* walked
back is where an institution is; a small graph of our own in Turtle, as DBpedia writes such data, the bundled MiniLM,
no exemplars, answers checked against hand-written SPARQL).

No word of "located in X" spells *city*; MiniLM puts "located" nearer *birth place* and *contained in place* than
*city* (contrast −0.115), so main read the place's country and answered every institution of the country. The
question is now also read with the entity's class before it ("… located in the *city* X"), the reading "who plays
at the soccer club X" already has (:meth:`kgsvc.qa.rank.CandidateRanker._class_named_scores`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import hand_answers, indexed_turtle, top_answers

TURTLE = """\
@prefix ex: <http://example.org/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:City rdfs:label "City" .
ex:Country rdfs:label "Country" .
ex:Organisation rdfs:label "Organisation" .
ex:Person rdfs:label "Person" .
ex:city rdfs:label "city" .
ex:country rdfs:label "country" .
ex:containedInPlace rdfs:label "contained in place" .
ex:birthPlace rdfs:label "birth place" .
ex:memberOf rdfs:label "member of" .

ex:Ardmere a ex:City ; rdfs:label "Ardmere" ; ex:containedInPlace ex:Velland .
ex:Brisk a ex:City ; rdfs:label "Brisk" ; ex:containedInPlace ex:Velland .
ex:Velland a ex:Country ; rdfs:label "Velland" .

ex:LakeInstitute a ex:Organisation ; rdfs:label "Lake Institute" ; ex:city ex:Ardmere ; ex:country ex:Velland .
ex:ArdmereCollege a ex:Organisation ; rdfs:label "Ardmere College" ; ex:city ex:Ardmere ; ex:country ex:Velland .
ex:BriskLabs a ex:Organisation ; rdfs:label "Brisk Labs" ; ex:city ex:Brisk ; ex:country ex:Velland .
ex:NorthAcademy a ex:Organisation ; rdfs:label "North Academy" ; ex:city ex:Brisk ; ex:country ex:Velland .

ex:Ola a ex:Person ; rdfs:label "Ola Berg" ; ex:birthPlace ex:Ardmere ; ex:memberOf ex:BriskLabs .
ex:Tove a ex:Person ; rdfs:label "Tove Lind" ; ex:birthPlace ex:Ardmere ; ex:memberOf ex:LakeInstitute .
ex:Ruth a ex:Person ; rdfs:label "Ruth Sand" ; ex:birthPlace ex:Brisk ; ex:memberOf ex:NorthAcademy .
"""


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("places"), "places", TURTLE) as kg:
        yield kg


def test_located_in_a_city_walks_back_the_relation_named_after_the_city(places: kgsvc.KG) -> None:
    expected = hand_answers(
        places, "SELECT ?x WHERE { ?x <http://example.org/city> <http://example.org/Ardmere> }", "places"
    )
    assert len(expected) == 2
    assert top_answers(places, "Which institutions are located in Ardmere?", "places") == expected


def test_a_count_of_what_is_located_in_a_city(places: kgsvc.KG) -> None:
    answer = places.ask("How many institutions are located in Brisk?", dataset="places")
    assert [a.value for a in answer.answers] == ["2"]


def test_a_word_that_names_another_relation_keeps_it(places: kgsvc.KG) -> None:
    """ "born in X": *birth place* is named by "born", the class reading does not outweigh it."""
    query = "SELECT ?x WHERE { ?x <http://example.org/birthPlace> <http://example.org/Ardmere> }"
    assert top_answers(places, "Who was born in Ardmere?", "places") == hand_answers(places, query, "places")
