"""Issue 16, 2026-11-27: a class is read by its members' names as well as by its label
(:meth:`kgsvc.qa.rank.CandidateRanker.instance_centroid`; a small graph of our own in Turtle with the Nobel graph's
class labels, the bundled MiniLM, no exemplars, answers checked against hand-written SPARQL).

"What university did X work for?": the label *Organisation* is 0.42 from "university" by MiniLM cosine, below
:data:`~kgsvc.qa.rank.CLASS_MIN_COS`, and *City* is as close, so main asked for no class and answered X's prize (the
1-hop path "won" reads best). The organisations' names ("Orrin University", "Vale Institute of Technology") are
what a university is: their mean embedding is far closer, and the question keeps to the paths that end at one.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.qa.options import QAOptions
from kgsvc.qa.rank import CLASS_MIN_COS, nearest_classes
from kgsvc.qa.service import answerer_for
from tests.qa.conftest import hand_answers, indexed_turtle, top_answers

ORGANISATIONS = [
    "Orrin University",
    "Vale Institute of Technology",
    "Harrow College",
    "Tarn University",
    "Lisk Polytechnic Institute",
    "Marsh Medical School",
    "Quill Research Laboratory",
    "Hale State University",
]
PEOPLE = ["Ada Quill", "Bo Hart", "Cy Lund", "Dee Marsh", "Eli Stone", "Fay Orme", "Gus Vane", "Hal Tye"]


def _turtle(namespace: str = "http://example.org/") -> str:
    lines = [
        f"@prefix ex: <{namespace}> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        'ex:Organisation rdfs:label "Organisation" .',
        'ex:Laureate rdfs:label "Laureate" .',
        'ex:NobelPrize rdfs:label "Nobel Prize" .',
        'ex:memberOf rdfs:label "member of" .',
        'ex:laureateAward rdfs:label "laureate award" .',
    ]
    for i, (org, person) in enumerate(zip(ORGANISATIONS, PEOPLE, strict=True)):
        lines += [
            f'ex:org{i} a ex:Organisation ; rdfs:label "{org}" .',
            f'ex:prize{i} a ex:NobelPrize ; rdfs:label "Nobel {1950 + i} physics" .',
            f'ex:p{i} a ex:Laureate ; rdfs:label "{person}" ; ex:memberOf ex:org{i} ; ex:laureateAward ex:prize{i} .',
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("members"), "members", _turtle()) as kg:
        yield kg


def test_a_noun_far_from_the_class_label_is_near_its_members(kg: kgsvc.KG) -> None:
    qa = answerer_for(kg, "members", QAOptions())
    graph, ranker = qa.graph, qa.ranker
    word, label = ranker.vectors(["university", "Organisation"])
    assert float(word @ label) < CLASS_MIN_COS  # the label alone does not stand for the noun
    organisation = {c for c in graph.classes() if graph.node_labels[c] == "Organisation"}
    assert nearest_classes(graph, ranker, "university") == organisation
    assert nearest_classes(graph, ranker, "laureates") != organisation


def test_what_university_did_someone_work_for(kg: kgsvc.KG) -> None:
    query = "SELECT ?x WHERE { <http://example.org/p3> <http://example.org/memberOf> ?x }"
    expected = hand_answers(kg, query, "members")
    assert expected == ["http://example.org/org3"]
    assert top_answers(kg, "What university did Dee Marsh work for?", "members") == expected


def test_a_type_relation_numbered_zero_is_read(tmp_path_factory: pytest.TempPathFactory) -> None:
    """With ``https`` IRIs ``rdf:type`` sorts first among the relations: id 0 is a type relation too."""
    with indexed_turtle(tmp_path_factory.mktemp("zero"), "zero", _turtle("https://example.org/")) as kg:
        qa = answerer_for(kg, "zero", QAOptions())
        assert qa.graph.type_relation() == 0
        organisation = {c for c in qa.graph.classes() if qa.graph.node_labels[c] == "Organisation"}
        assert nearest_classes(qa.graph, qa.ranker, "university") == organisation
