"""Issue 16, 2026-11-27: the asked noun as a condition when it names a category value — "Which *women* won …" is
"which *female* …", "How many *physicists* …" (:meth:`kgsvc.qa.rank.CandidateRanker.value_noun`,
:meth:`kgsvc.qa.pipeline.QuestionAnswerer._value_noun`). main read "women" as the *gender* relation and answered
"male" and "female", or counted the genders (Nobel n43, n54). A small graph of our own in Turtle with the Nobel
graph's labels and its gender literals, the bundled MiniLM, no exemplars, answers checked against hand-written
SPARQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.qa.options import QAOptions
from kgsvc.qa.service import answerer_for
from tests.qa.conftest import hand_answers, indexed_turtle

PEOPLE = {  # name: (gender, prize)
    "Ada Quill": ("female", "P1"),
    "Bo Hart": ("male", "P1"),
    "Cy Hal": ("male", "P2"),
    "Dee Marsh": ("female", "P3"),
    "Eli Stone": ("male", "P4"),
    "Fay Lind": ("female", "P4"),
    "Gus Moor": ("male", "P5"),
}
PRIZES = {"P1": ("Nobel 1950 physics", "physics"), "P2": ("Nobel 1961 physics", "physics")}
PRIZES |= {"P3": ("Nobel 1962 chemistry", "chemistry"), "P4": ("Nobel 1970 chemistry", "chemistry")}
PRIZES |= {"P5": ("Nobel 1975 physics", "physics")}
TURTLE = "\n".join(
    [
        "@prefix ex: <http://example.org/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        'ex:Laureate rdfs:label "Laureate" . ex:NobelPrize rdfs:label "Nobel Prize" .',
        'ex:laureateAward rdfs:label "laureate award" . ex:gender rdfs:label "gender" .',
        'ex:category rdfs:label "category" .',
        *[f'ex:{field} rdfs:label "{field}" .' for field in ("physics", "chemistry")],
        *[f'ex:{p} a ex:NobelPrize ; rdfs:label "{label}" ; ex:category ex:{f} .' for p, (label, f) in PRIZES.items()],
        *[
            f'ex:{name.replace(" ", "_")} a ex:Laureate ; rdfs:label "{name}" ; ex:gender "{gender}" ; '
            f"ex:laureateAward ex:{prize} ."
            for name, (gender, prize) in PEOPLE.items()
        ],
    ]
)
EX = "http://example.org/"


@pytest.fixture(scope="module")
def prizes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("values"), "prizes", TURTLE) as kg:
        yield kg


def test_a_noun_names_a_value_of_a_category(prizes: kgsvc.KG) -> None:
    ranker = answerer_for(prizes, "prizes", QAOptions()).ranker
    graph = ranker.graph

    def named(noun: str) -> str | None:
        found = ranker.value_noun(noun)
        return None if found is None else graph.node_labels[found[0]]

    assert named("women") == "female" and named("men") == "male" and named("physicists") == "physics"
    assert named("scientists") is None and named("people") is None and named("laureates") is None


def test_which_women_won(prizes: kgsvc.KG) -> None:
    query = f'SELECT ?x WHERE {{ ?x <{EX}gender> "female" ; <{EX}laureateAward> ?p . ?p <{EX}category> <{EX}physics> }}'
    assert hand_answers(prizes, query, "prizes") == [f"{EX}Ada_Quill"]
    answer = prizes.ask("Which women won the Nobel Prize in physics?", dataset="prizes")
    assert answer.grounded and [a.value for a in answer.answers] == [f"{EX}Ada_Quill"]
    assert [(m.text, m.method) for m in answer.mentions][:1] == [("women", "value")]


def test_how_many_women_won(prizes: kgsvc.KG) -> None:
    """(main counted the physics laureates' genders: 2.)"""
    query = f'SELECT ?x WHERE {{ ?x <{EX}gender> "female" ; <{EX}laureateAward> ?p . ?p <{EX}category> <{EX}physics> }}'
    assert len(hand_answers(prizes, query, "prizes")) == 1
    answer = prizes.ask("How many women won the Nobel Prize in physics?", dataset="prizes")
    assert answer.grounded and answer.text.startswith("1")


def test_a_count_asked_after_its_set_with_a_value_as_predicate(prizes: kgsvc.KG) -> None:
    """2026-11-28, Nobel n247 ("Of the Nobel laureates born in Persia, how many were women?"): main read no count
    (the question does not open with "how many") and answered the genders; read as "how many … were women" without
    the predicate noun, it counts every physics laureate (4)."""
    query = f'SELECT ?x WHERE {{ ?x <{EX}gender> "female" ; <{EX}laureateAward> ?p . ?p <{EX}category> <{EX}physics> }}'
    assert len(hand_answers(prizes, query, "prizes")) == 1
    answer = prizes.ask("Of the laureates of the Nobel Prize in physics, how many were women?", dataset="prizes")
    assert answer.grounded and answer.text.startswith("1"), answer.text


def test_which_laureates_were_women(prizes: kgsvc.KG) -> None:
    """The noun a copula ends the question with is a condition like the asked noun (main: all three laureates)."""
    query = f'SELECT ?x {{ ?x <{EX}gender> "female" ; <{EX}laureateAward> ?p . ?p <{EX}category> <{EX}chemistry> }}'
    expected = hand_answers(prizes, query, "prizes")
    assert expected == [f"{EX}Dee_Marsh", f"{EX}Fay_Lind"]
    answer = prizes.ask("Which laureates of the Nobel Prize in chemistry were women?", dataset="prizes")
    assert answer.grounded and sorted(a.value for a in answer.answers) == expected


@pytest.mark.parametrize(("name", "expected"), [("Ada Quill", "true"), ("Bo Hart", "false")])
def test_was_someone_a_woman(prizes: kgsvc.KG, name: str, expected: str) -> None:
    """ "Was X a woman?" asks X's own gender (main: "a yes/no question needs two things", unsupported)."""
    node = f"<{EX}{name.replace(' ', '_')}>"
    assert prizes.sparql(f'ASK {{ {node} <{EX}gender> "female" }}', dataset="prizes").boolean is (expected == "true")
    answer = prizes.ask(f"Was {name} a woman?", dataset="prizes")
    assert answer.grounded and [a.value for a in answer.answers] == [expected]


def test_a_value_two_steps_away_is_no_no(prizes: kgsvc.KG) -> None:
    """ "Was Bo Hart a physicist?": *physics* is the category of his prize, two steps away, which the copula reading
    does not walk; it must not answer "no" by reading the value as one of his own."""
    answer = prizes.ask("Was Bo Hart a physicist?", dataset="prizes")
    assert not answer.grounded or [a.value for a in answer.answers] == ["true"]


def test_a_man_or_a_woman_is_a_lookup(prizes: kgsvc.KG) -> None:
    """ "Is X a man or a woman?" asks which one (PathQuestion's "is X 's child a man or a woman ?"): the predicate
    noun of a yes/no question is read only without "or"."""
    answer = prizes.ask("Is Ada Quill a man or a woman?", dataset="prizes")
    assert answer.grounded and [a.value for a in answer.answers] == ["female"], answer.text
