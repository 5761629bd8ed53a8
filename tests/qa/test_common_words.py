"""Issue 16, 2026-11-26 (nob): a lower-case word of a cased question is no name, and "when" / "where" ask for a
time / something that is none. In "When were the co-medallists of Ada Quell born?" the linker linked "co" (of
"co-medallists") to a country code "CO" and "born" to the family name "Born" (case folding made them equal), and
the ranking read "born" as *birth place* walked there and back (the people born where Ada was: no time at all).
A small real embedded KG written here (people named by given + family name, as an untidy graph does), the bundled
MiniLM, no exemplars; the answers are checked against hand-written SPARQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import indexed_turtle

NS = "https://kgsvc.local/medals/"
GRAPH = f"""@prefix : <{NS}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Person rdfs:label "Person" . :Medal rdfs:label "Medal" . :City rdfs:label "City" . :Country rdfs:label "Country" .
:medal rdfs:label "medal award" . :birthPlace rdfs:label "birth place" . :birthDate rdfs:label "birth date" .
:year rdfs:label "year" . :countryCode rdfs:label "country code" . :country rdfs:label "country" .
:Colombia a :Country ; rdfs:label "Colombia" ; :countryCode "CO" .
:Latvia a :Country ; rdfs:label "Latvia" ; :countryCode "LV" .
:Riga a :City ; rdfs:label "Riga" ; :country :Latvia .
:Bogota a :City ; rdfs:label "Bogota" ; :country :Colombia .
:M1 a :Medal ; rdfs:label "Medal 1961 chess" ; :year "1961" .
:M2 a :Medal ; rdfs:label "Medal 1975 chess" ; :year "1975" .
:Ada_Quell a :Person ; foaf:givenName "Ada" ; foaf:familyName "Quell" ; :medal :M1 ; :birthPlace :Riga ;
    :birthDate "1920-04-02"^^xsd:date .
:Ivo_Marsh a :Person ; foaf:givenName "Ivo" ; foaf:familyName "Marsh" ; :medal :M1 ; :birthPlace :Bogota ;
    :birthDate "1918-11-30"^^xsd:date .
:Kurt_Born a :Person ; foaf:givenName "Kurt" ; foaf:familyName "Born" ; :medal :M2 ; :birthPlace :Riga ;
    :birthDate "1931-06-15"^^xsd:date .
:Uma_Berg a :Person ; foaf:givenName "Uma" ; foaf:familyName "Berg" ; :medal :M2 ; :birthPlace :Riga ;
    :birthDate "1933-01-09"^^xsd:date .
:Eli_Roth a :Person ; foaf:givenName "Eli" ; foaf:familyName "Roth" ; :medal :M2 ; :birthPlace :Riga ;
    :birthDate "1940-08-21"^^xsd:date .
"""
PREFIX = f"PREFIX : <{NS}> "


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("medals"), "medals", GRAPH) as kg:
        yield kg


def _hand(kg: kgsvc.KG, query: str) -> set[str]:
    return {str(row["x"].value) for row in kg.sparql(PREFIX + query, dataset="medals").rows}


def test_lower_case_words_of_a_cased_question_are_no_names(kg: kgsvc.KG) -> None:
    """The words "co" and "born" link only by case folding ("CO", "Born"); the question writes names with capitals."""
    answer = kg.ask("When were the co-medallists of Ada Quell born?", dataset="medals")
    assert [m.text for m in answer.mentions] == ["Ada Quell"]


def test_a_capitalised_name_still_links(kg: kgsvc.KG) -> None:
    answer = kg.ask("Where was Born born?", dataset="medals")
    assert [m.text for m in answer.mentions] == ["Born"]


def test_when_asks_for_a_time(kg: kgsvc.KG) -> None:
    """The co-medallists' birth dates (medal award → ← medal award → birth date), not the people born where Ada
    Quell was (birth place → ← birth place: no time among its answers)."""
    expected = _hand(
        kg, "SELECT ?x WHERE { :Ada_Quell :medal ?m . ?o :medal ?m . ?o :birthDate ?x FILTER(?o != :Ada_Quell) }"
    )
    assert len(expected) == 1
    answer = kg.ask("When were the co-medallists of Ada Quell born?", dataset="medals")
    assert answer.grounded
    assert [a.value for a in answer.answers] == sorted(expected)


def test_where_asks_for_no_time(kg: kgsvc.KG) -> None:
    expected = _hand(kg, "SELECT ?x WHERE { ?p :medal :M2 ; :birthPlace ?x }")
    answer = kg.ask("Where were the winners of the Medal 1975 chess born?", dataset="medals")
    assert answer.grounded
    assert {a.value for a in answer.answers} == expected
