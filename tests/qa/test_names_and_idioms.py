"""Issue 16, 2026-11-27 (night): readings found on the ninth held-out Nobel batch (n231–n250), on a small graph of our
own in Turtle with the Nobel graph's untidy names, the bundled MiniLM, no exemplars, answers checked against
hand-written SPARQL. Each fails on the code before its change:

* a company written without its legal form ("Shimadzu" for *Shimadzu Corp.*, n236);
* a name with a parenthesised short form inside a longer label ("the Yukawa Institute for Theoretical Physics" for
  *Yukawa Institute for Theoretical Physics (YITP), Kyoto University*, n233: main linked "Yukawa", a family name, in
  the Nobel graph; in this small graph main finds it by vector);
* a place's qualifier written out after a comma ("Haverhill, Massachusetts" for *Haverhill, MA*, where
  *Massachusetts, MA* is a node too): one mention, not the town and the state (n235);
* idioms for dying and being born ("breathe their last", "end their days", "passed on", "came into the world":
  n232, n238, n243, n235; "passed on in Dublin" passes on main too in this small graph, where MiniLM reads it as
  *death place* with nothing close to compete, and not in the Nobel graph).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.qa.result import AnswerTerm
from tests.qa.conftest import indexed_turtle

TURTLE = """\
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:Laureate rdfs:label "Laureate" .
ex:Person rdfs:label "Person" .
ex:Organisation rdfs:label "Organisation" .
ex:City rdfs:label "City" .
ex:Country rdfs:label "Country" .
ex:birthPlace rdfs:label "birth place" .
ex:deathPlace rdfs:label "death place" .
ex:deathDate rdfs:label "death date" .
ex:familyName rdfs:label "family name" .
ex:country rdfs:label "country" .
ex:memberOf rdfs:label "member of" .
ex:nobelLaureates rdfs:label "nobel laureates" .

ex:Japan a ex:Country ; rdfs:label "Japan" .
ex:Haverhill a ex:City ; rdfs:label "Haverhill, MA" .
ex:Mass a ex:City ; rdfs:label "Massachusetts, MA" .
ex:Dublin a ex:City ; rdfs:label "Dublin" .
ex:Shimadzu a ex:Organisation ; rdfs:label "Shimadzu Corp." ; ex:country ex:Japan ; ex:nobelLaureates ex:Koi .
ex:Yitp a ex:Organisation ; rdfs:label "Yukawa Institute for Theoretical Physics (YITP), Kyoto University" ;
    ex:country ex:Japan ; ex:nobelLaureates ex:Hid .
ex:Koi a ex:Laureate, ex:Person ; rdfs:label "Koi Tana" ; ex:memberOf ex:Shimadzu ; ex:birthPlace ex:Mass .
ex:Hid a ex:Laureate, ex:Person ; rdfs:label "Hid Yuka" ; ex:familyName "Yukawa" ; ex:memberOf ex:Yitp ;
    ex:birthPlace ex:Haverhill ;
    ex:deathPlace ex:Dublin ; ex:deathDate "1981-09-08"^^xsd:date .
ex:Jim a ex:Laureate, ex:Person ; rdfs:label "Jim Roth" ; ex:birthPlace ex:Haverhill ; ex:deathPlace ex:Mass ;
    ex:deathDate "2001-01-01"^^xsd:date .
"""
EX = "http://example.org/"


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("names"), "names", TURTLE) as kg:
        yield kg


def _rows(kg: kgsvc.KG, query: str) -> list[str]:
    return sorted(str(row["x"].value) for row in kg.sparql(query, dataset="names").rows)


def _values(kg: kgsvc.KG, question: str) -> list[str]:
    """The answers tied at the best GSD."""
    answer = kg.ask(question, dataset="names")
    assert answer.grounded, answer.reason
    return sorted(a.value for a in answer.answers if a.gsd == answer.answers[0].gsd)


def test_a_company_without_its_legal_form(kg: kgsvc.KG) -> None:
    assert _values(kg, "Which Nobel laureates has Shimadzu produced?") == [f"{EX}Koi"]


def test_a_name_without_its_short_form_and_its_university(kg: kgsvc.KG) -> None:
    question = "Which nation has the Yukawa Institute for Theoretical Physics within its borders?"
    assert _values(kg, question) == [f"{EX}Japan"]


def test_a_place_s_qualifier_written_out_is_one_mention(kg: kgsvc.KG) -> None:
    expected = _rows(kg, f"SELECT ?x WHERE {{ ?x <{EX}birthPlace> <{EX}Haverhill> }}")
    assert expected == [f"{EX}Hid", f"{EX}Jim"]
    assert _values(kg, "Who was born in Haverhill, Massachusetts?") == expected  # main: people born in the state
    assert _values(kg, "Who came into the world in Haverhill, Massachusetts?") == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did Hid Yuka breathe their last?", ['"1981-09-08"^^<http://www.w3.org/2001/XMLSchema#date>']),
        ("Where did Hid Yuka end their days?", [f"<{EX}Dublin>"]),
        ("Who passed on in Dublin?", [f"<{EX}Hid>"]),
    ],
)
def test_idioms_of_dying(kg: kgsvc.KG, question: str, expected: list[str]) -> None:
    answer = kg.ask(question, dataset="names")
    assert answer.grounded, answer.reason
    assert [_n3(a) for a in answer.answers] == expected


def _n3(term: AnswerTerm) -> str:
    if term.kind == "uri":
        return f"<{term.value}>"
    return f'"{term.value}"^^<{term.datatype}>' if term.datatype else f'"{term.value}"'
