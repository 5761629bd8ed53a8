"""Issue 16, 2026-11-26: a participle before "by" whose agent is a noun phrase of the chain is a step walked back
(a small real embedded KG written here, the bundled MiniLM, no exemplars; answers checked against hand-written
SPARQL).

In "the directors of the films *written* by the writer of X" the question names *written by* twice: "writer" is the
step from X to its writer, "written" the step from the writer to their films. The alignment let both words explain
the one step X → *written by*, and the path one step short ("the films directed by X's writer") tied the right one
and won by its shorter length: 107 of the 151 points MetaQA 3-hop lost (1,000 questions, no exemplars). Read away
from X, the agent comes before the participle, so a relation whose label writes the participle before "by" is walked
back there (kgsvc.qa.zeroshot.OF_PASSIVE); "directed by the X *director*" likewise (the agent is X's director).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.qa.align import question_tokens
from kgsvc.qa.exemplars import MASK
from kgsvc.qa.zeroshot import OF_PASSIVE, OF_PASSIVE_ASKED, OF_VERB, phrase_roles
from tests.qa.conftest import hand_answers, indexed_turtle, top_answers

NS = "https://kgsvc.local/films/"
FILMS = f"""@prefix : <{NS}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:writtenBy rdfs:label "written by" . :directedBy rdfs:label "directed by" . :starred rdfs:label "starred actors" .
:genre rdfs:label "has genre" .
:Night_Harbour rdfs:label "Night Harbour" ; :writtenBy :Ada_Vell ; :directedBy :Tom_Reis ; :starred :Ivy_Lund ;
    :genre :Noir .
:Salt_Road rdfs:label "Salt Road" ; :writtenBy :Ada_Vell ; :directedBy :Ben_Kraft ; :starred :Rob_Tan ;
    :genre :Western .
:Glass_Tide rdfs:label "Glass Tide" ; :writtenBy :Cy_Moor ; :directedBy :Tom_Reis ; :starred :Ivy_Lund ;
    :genre :Noir .
:Quiet_Bay rdfs:label "Quiet Bay" ; :writtenBy :Eva_Dorn ; :directedBy :Ada_Vell ; :starred :Rob_Tan ;
    :genre :Drama .
:Ada_Vell rdfs:label "Ada Vell" . :Eva_Dorn rdfs:label "Eva Dorn" . :Cy_Moor rdfs:label "Cy Moor" .
:Tom_Reis rdfs:label "Tom Reis" . :Ben_Kraft rdfs:label "Ben Kraft" . :Ivy_Lund rdfs:label "Ivy Lund" .
:Rob_Tan rdfs:label "Rob Tan" . :Noir rdfs:label "Noir" . :Western rdfs:label "Western" . :Drama rdfs:label "Drama" .
"""
PREFIX = f"PREFIX : <{NS}> "


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("films"), "films", FILMS) as kg:
        yield kg


def _hand(kg: kgsvc.KG, query: str) -> list[str]:
    return hand_answers(kg, PREFIX + query, "films")


def _top(kg: kgsvc.KG, question: str) -> list[str]:
    return top_answers(kg, question, "films")


#: The evidence is a subgraph match: distinct pattern variables are distinct nodes, so the films reached back from
#: Night Harbour's writer or director are the *other* films (``FILTER``).
DIRECTORS_OF_FILMS_BY_ITS_WRITER = (
    "SELECT DISTINCT ?x WHERE { :Night_Harbour :writtenBy ?w . ?f :writtenBy ?w ; :directedBy ?x . "
    "FILTER (?f != :Night_Harbour) }"
)


@pytest.mark.parametrize(
    ("question", "query"),
    [
        # one step short, each: the film Night Harbour's writer directed; Night Harbour's own writer
        ("who are the directors of the films written by the writer of Night Harbour", DIRECTORS_OF_FILMS_BY_ITS_WRITER),
        ("the films written by the writer of Night Harbour were directed by who", DIRECTORS_OF_FILMS_BY_ITS_WRITER),
        (
            "who wrote the films directed by the Night Harbour director",
            "SELECT DISTINCT ?x WHERE { :Night_Harbour :directedBy ?d . ?f :directedBy ?d ; :writtenBy ?x . "
            "FILTER (?f != :Night_Harbour) }",
        ),
    ],
)
def test_a_participle_before_by_is_walked_back_from_its_agent(films: kgsvc.KG, question: str, query: str) -> None:
    expected = _hand(films, query)
    assert expected  # the hand-written query finds them: Ben Kraft; Cy Moor
    assert _top(films, question) == expected


def test_the_roles() -> None:
    def roles(question: str) -> dict[str, str]:
        tokens, masks = question_tokens(question.replace("X", MASK))
        return {tokens[i]: role for i, role in phrase_roles(tokens, masks, ["directed by"]).items()}

    assert roles("the films written by the writer of X")["written"] == OF_PASSIVE
    assert roles("the films directed by the X director")["directed"] == OF_PASSIVE
    assert roles("the films directed by X")["directed"] == OF_VERB + "by"  # X is the agent: the step at X
    assert roles("the films of X were directed by who")["directed"] == OF_PASSIVE_ASKED  # the agent is the answer
