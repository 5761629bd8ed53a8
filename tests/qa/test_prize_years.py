"""Issue 16, 2026-11-27 (late): superlatives ranked by a value one step away from the things ranked, and a time clause
that names no step, found on the Nobel misses (n64, n89: "the first laureate … to win a Nobel Prize", "won the Nobel
Prize most recently" rank by the year of each one's prize, which the prize holds, not the laureate). A small graph of
our own in Turtle with the Nobel graph's shapes (prizes with a plain-string *year*, *laureate award* from people,
*award* from prizes to people and institutions), the bundled MiniLM, no exemplars, answers checked against hand-written
SPARQL.

main ranked only by the items' own values (:func:`kgsvc.qa.aggregate.comparable_relations`), so every one of these
was ranked by the birth date. Now the two-step values (:func:`kgsvc.qa.aggregate.comparable_paths`) compete too,
read against the cue's words without the noun of the things ranked ("the youngest *laureate*" spells the two-step
*laureate award year* but asks for an age); and "who …" ranks people only, not the institutions a prize also
names. "X's affiliation *when they won the Nobel Prize*" (n132) is X's affiliation: the clause dates it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import indexed_turtle

TURTLE = """\
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:NobelPrize rdfs:label "Nobel Prize" .
ex:Laureate rdfs:label "Laureate" .
ex:Person rdfs:label "Person" .
ex:Organisation rdfs:label "Organisation" .
ex:City rdfs:label "City" .
ex:laureateAward rdfs:label "laureate award" .
ex:award rdfs:label "award" .
ex:birthPlace rdfs:label "birth place" .
ex:birthDate rdfs:label "birth date" .
ex:year rdfs:label "year" .
ex:category rdfs:label "category" .
ex:memberOf rdfs:label "member of" .
ex:physics rdfs:label "physics" .

ex:Vell a ex:City ; rdfs:label "Vell" .
ex:Orrin a ex:Organisation ; rdfs:label "Orrin Institute" .
ex:P1950 a ex:NobelPrize ; rdfs:label "Nobel 1950 physics" ; ex:category ex:physics ; ex:year "1950" ;
    ex:award ex:Bea, ex:Orrin .
ex:P1955 a ex:NobelPrize ; rdfs:label "Nobel 1955 physics" ; ex:category ex:physics ; ex:year "1955" ;
    ex:award ex:Cato .
ex:P1960 a ex:NobelPrize ; rdfs:label "Nobel 1960 physics" ; ex:category ex:physics ; ex:year "1960" ;
    ex:award ex:Abe .

ex:Abe a ex:Laureate, ex:Person ; rdfs:label "Abe Rook" ; ex:laureateAward ex:P1960 ; ex:birthPlace ex:Vell ;
    ex:birthDate "1900-01-02"^^xsd:date .
ex:Bea a ex:Laureate, ex:Person ; rdfs:label "Bea Lorn" ; ex:laureateAward ex:P1950 ; ex:birthPlace ex:Vell ;
    ex:birthDate "1910-03-04"^^xsd:date ; ex:memberOf ex:Orrin .
ex:Cato a ex:Laureate, ex:Person ; rdfs:label "Cato Fenn" ; ex:laureateAward ex:P1955 ; ex:birthPlace ex:Vell ;
    ex:birthDate "1920-05-06"^^xsd:date .
ex:Orrin ex:birthPlace ex:Vell .
"""
EX = "http://example.org/"
BY_PRIZE = (
    f"SELECT ?x ?y WHERE {{ ?x <{EX}birthPlace> <{EX}Vell> ; <{EX}laureateAward> ?p . ?p <{EX}year> ?y }} ORDER BY ?y"
)
BY_BIRTH = f"SELECT ?x ?d WHERE {{ ?x <{EX}birthPlace> <{EX}Vell> ; <{EX}birthDate> ?d }} ORDER BY ?d"


@pytest.fixture(scope="module")
def prizes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("superlatives"), "prizes", TURTLE) as kg:
        yield kg


def _ordered(kg: kgsvc.KG, query: str) -> list[str]:
    """``?x`` of the rows of the hand-written ``query``, in its order."""
    return [str(row["x"].value) for row in kg.sparql(query, dataset="prizes").rows]


def _top(kg: kgsvc.KG, question: str) -> list[str]:
    answer = kg.ask(question, dataset="prizes")
    assert answer.grounded, answer.reason
    return [a.value for a in answer.answers]


def test_the_two_orders_differ(prizes: kgsvc.KG) -> None:
    by_prize = _ordered(prizes, BY_PRIZE)
    by_birth = _ordered(prizes, BY_BIRTH)
    assert by_prize == [f"{EX}Bea", f"{EX}Cato", f"{EX}Abe"]
    assert by_birth == [f"{EX}Abe", f"{EX}Bea", f"{EX}Cato"]


def test_won_most_recently_ranks_by_the_prize_s_year(prizes: kgsvc.KG) -> None:
    answer = prizes.ask("Which laureate born in Vell won the Nobel Prize most recently?", dataset="prizes")
    assert [a.value for a in answer.answers] == [_ordered(prizes, BY_PRIZE)[-1]]
    assert answer.pattern is not None and "year" in answer.pattern.sparql  # the year is read through the prize


@pytest.mark.parametrize(
    ("question", "rank"),
    [("Who is the youngest laureate born in Vell?", -1), ("Which laureate born in Vell was born first?", 0)],
)
def test_an_age_ranks_by_the_birth_date_though_the_noun_spells_the_prize(
    prizes: kgsvc.KG, question: str, rank: int
) -> None:
    assert _top(prizes, question) == [_ordered(prizes, BY_BIRTH)[rank]]


def test_who_ranks_people_not_the_institutions_a_prize_names(prizes: kgsvc.KG) -> None:
    # Orrin Institute holds the earliest prize too (its *award*) and has a birth place: only people are asked for
    assert _top(prizes, "Of the winners born in Vell, who received their prize earliest?") == [f"{EX}Bea"]


def test_a_time_clause_names_no_step(prizes: kgsvc.KG) -> None:
    """ "X's affiliation *when they won the Nobel Prize*" dates the affiliation (Nobel n132); main read "won" and
    "Nobel Prize" as two more steps, through the prize that also names the institution, to the prize's year."""
    expected = [f"{EX}Orrin"]
    assert _ordered(prizes, f"SELECT ?x WHERE {{ <{EX}Bea> <{EX}memberOf> ?x }}") == expected
    assert _top(prizes, "Could you tell me Bea Lorn's affiliation when they won the Nobel Prize?") == expected
