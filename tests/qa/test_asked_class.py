"""Issue 16, 2026-11-26: a class noun after "which" that the linker reads as a common noun with no class of the
graph ("which *institution* …" where the class is labelled Institute) asks for the class whose label is closest to
it, as a count's noun does (:func:`kgsvc.qa.rank.nearest_classes`): "Which institution was Ada Quell working at when
she won the prize?" ranks only the paths whose answers include an Institute, not the prize that "won the prize"
names; "who" asks for the class nearest to "person". The graph and KG of :mod:`tests.qa.test_two_conditions`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import indexed_turtle
from tests.qa.test_two_conditions import GRAPH, NS


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("asked"), "laureates", GRAPH) as kg:
        yield kg


def test_the_asked_common_noun_stands_for_the_nearest_class(kg: kgsvc.KG) -> None:
    answer = kg.ask("Which institution was Ada Quell working at when she won the prize?", dataset="laureates")
    assert answer.grounded
    assert [a.value for a in answer.answers] == [f"{NS}Harbour_Institute"]


def test_the_asked_class_is_among_the_answers(kg: kgsvc.KG) -> None:
    """Institutes win prizes too, so the step back from a prize to its winners can end at an Institute; the
    winners of this prize are no institute, and the path to their institutes is the one asked for."""
    answer = kg.ask("Which institutes were the winners of the Prize 1961 physics members of?", dataset="laureates")
    assert answer.grounded
    assert [a.value for a in answer.answers] == [f"{NS}Harbour_Institute"]


def test_who_asks_for_a_person(kg: kgsvc.KG) -> None:
    """The prize went to a laureate and to an institute: "who" keeps the person (the class nearest to "person")."""
    answer = kg.ask("Who won the Prize 1975 chemistry?", dataset="laureates")
    assert answer.grounded
    assert [a.value for a in answer.answers] == [f"{NS}Uma_Berg"]
