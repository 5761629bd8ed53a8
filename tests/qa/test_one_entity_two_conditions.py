"""Issue 16, 2026-11-26 (nob): one entity under two conditions. "Which painters were both born and died in Riga?"
is the painters with *birth place* Riga and *death place* Riga: a conjunction of two one-step branches from the
same linked node. Before, conjunctions paired two different mentions only, and "both" read as a share cue made a
walk there and back through another relation ("died in Riga and share a birth date with …") the best reading.
A small real embedded KG written here, the bundled MiniLM, no exemplars; the answers are checked against
hand-written SPARQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import indexed_turtle

NS = "https://kgsvc.local/painters/"
GRAPH = f"""@prefix : <{NS}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Painter rdfs:label "Painter" . :City rdfs:label "City" .
:birthPlace rdfs:label "birth place" . :deathPlace rdfs:label "death place" . :birthDate rdfs:label "birth date" .
:Riga a :City ; rdfs:label "Riga" . :Oslo a :City ; rdfs:label "Oslo" . :Turku a :City ; rdfs:label "Turku" .
:Ada_Quell a :Painter ; rdfs:label "Ada Quell" ; :birthPlace :Riga ; :deathPlace :Riga ;
    :birthDate "1901-02-03"^^xsd:date .
:Ivo_Marsh a :Painter ; rdfs:label "Ivo Marsh" ; :birthPlace :Riga ; :deathPlace :Oslo ;
    :birthDate "1901-02-03"^^xsd:date .
:Uma_Berg a :Painter ; rdfs:label "Uma Berg" ; :birthPlace :Oslo ; :deathPlace :Riga ;
    :birthDate "1910-05-06"^^xsd:date .
:Eli_Roth a :Painter ; rdfs:label "Eli Roth" ; :birthPlace :Riga ; :deathPlace :Riga ;
    :birthDate "1920-07-08"^^xsd:date .
:Ola_Sand a :Painter ; rdfs:label "Ola Sand" ; :birthPlace :Turku ; :deathPlace :Riga ;
    :birthDate "1920-07-08"^^xsd:date .
"""
PREFIX = f"PREFIX : <{NS}> "


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("painters"), "painters", GRAPH) as kg:
        yield kg


def test_one_entity_under_two_conditions(kg: kgsvc.KG) -> None:
    hand = "SELECT ?x WHERE { ?x :birthPlace :Riga ; :deathPlace :Riga }"
    expected = {str(row["x"].value) for row in kg.sparql(PREFIX + hand, dataset="painters").rows}
    assert len(expected) == 2  # and each condition alone holds more painters
    answer = kg.ask("Which painters were both born and died in Riga?", dataset="painters")
    assert answer.grounded and answer.pattern is not None
    assert sorted(t.relation for t in answer.pattern.triples) == ["birth place", "death place"]
    best = answer.answers[0].gsd
    assert {a.value for a in answer.answers if a.gsd == best} == expected


def test_one_condition_stays_one_step(kg: kgsvc.KG) -> None:
    """Without two coordinated relation words no conjunction of one entity is made."""
    answer = kg.ask("Which painters were born in Riga?", dataset="painters")
    assert answer.pattern is not None
    assert [t.relation for t in answer.pattern.triples] == ["birth place"]
