"""Issue 16, 2026-11-26: what the zero-shot reading charges and credits, on two small graphs of our own (real
MiniLM embeddings, no exemplars).

* an entity's name does not stand for a relation: "which player in Ajaccio Reds is from Norway" is both
  conditions (a conjunction), not the path that walks from the club to its players' countries because "Norway"
  reads like *country*;
* a relation word left unread costs a path: "the sex of X 's mother" is two steps, not the one that "mother" names.
"""

from __future__ import annotations

import pytest

from kgsvc.qa.pipeline import QuestionAnswerer
from tests.qa.conftest import top_signature, zero_shot_answerer

CLUBS = [
    ("Ivo Brandt", "plays_in_club", "Ajaccio Reds"),
    ("Ivo Brandt", "plays_for_country", "Norway"),
    ("Ivo Brandt", "plays_position", "Goalkeeper"),
    ("Pim Stok", "plays_in_club", "Ajaccio Reds"),
    ("Pim Stok", "plays_for_country", "Denmark"),
    ("Pim Stok", "plays_position", "Forward"),
    ("Lars Oben", "plays_in_club", "Ajaccio Reds"),
    ("Lars Oben", "plays_for_country", "Norway"),
    ("Lars Oben", "plays_position", "Forward"),
    ("Ned Quill", "plays_in_club", "Porto Azul"),
    ("Ned Quill", "plays_for_country", "Norway"),
    ("Ned Quill", "plays_position", "Defender"),
    ("Ajaccio Reds", "is_in_country", "Denmark"),
    ("Porto Azul", "is_in_country", "Chile"),
]

FAMILY = [
    ("Anne Vale", "parents", "Hugo Vale"),
    ("Anne Vale", "parents", "Mara Vale"),
    ("Hugo Vale", "children", "Anne Vale"),
    ("Mara Vale", "children", "Anne Vale"),
    ("Hugo Vale", "spouse", "Mara Vale"),
    ("Mara Vale", "spouse", "Hugo Vale"),
    ("Hugo Vale", "gender", "male"),
    ("Mara Vale", "gender", "female"),
    ("Anne Vale", "gender", "female"),
    ("Hugo Vale", "profession", "sculptor"),
    ("Mara Vale", "profession", "physician"),
    ("Hugo Vale", "nationality", "Estonia"),
    ("Mara Vale", "nationality", "Latvia"),
    ("Anne Vale", "place_of_birth", "Tartu"),
]


@pytest.fixture(scope="module")
def clubs() -> QuestionAnswerer:
    return zero_shot_answerer(CLUBS, "clubs")


@pytest.fixture(scope="module")
def family() -> QuestionAnswerer:
    return zero_shot_answerer(FAMILY, "family")


@pytest.mark.parametrize(
    "question",
    ["which player in Ajaccio Reds is from Norway", "name a player who plays at Forward from Norway"],
)
def test_both_conditions_not_a_path_that_reads_the_name_as_a_relation(clubs: QuestionAnswerer, question: str) -> None:
    signature = top_signature(clubs, question)
    assert len(signature) == 2  # a conjunction of the two mentions
    assert ("plays for country", False) in {path[0] for path in signature}


def test_the_conjunction_answers(clubs: QuestionAnswerer) -> None:
    answer = clubs.ask("which player in Ajaccio Reds is from Norway")
    best = answer.answers[0].gsd
    assert {a.label for a in answer.answers if a.gsd == best} == {"Ivo Brandt", "Lars Oben"}


@pytest.mark.parametrize(
    ("question", "steps"),
    [
        ("the sex of Anne Vale 's mother", [("parents", True), ("gender", True)]),
        ("the work of Anne Vale 's parent", [("parents", True), ("profession", True)]),
    ],
)
def test_a_relation_word_left_unread_costs_the_shorter_path(
    family: QuestionAnswerer, question: str, steps: list[tuple[str, bool]]
) -> None:
    assert top_signature(family, question) == (tuple(steps),)
