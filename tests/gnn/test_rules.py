"""Name rules (kgsvc.gnn.rules): confidences counted by hand on a small graph, proposals, and the predictor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from kgsvc.gnn.calibration import Calibration
from kgsvc.gnn.model import answer_ranges
from kgsvc.gnn.predict import LinkPredictor
from kgsvc.gnn.rules import NameRules, name_groups
from kgsvc.index.snapshot import GraphSnapshot

# relations: 0 written_by, 1 directed_by, 2 has_tags
LABELS = ["F1", "F2", "F3", "F4", "Ann", "Bob", "Cy", "ann", "Dee"]
F1, F2, F3, F4, ANN, BOB, CY, ANN_TAG, DEE = range(9)
TRIPLES = np.array(
    [
        (F1, 0, ANN), (F1, 1, ANN),  # written and directed by Ann
        (F2, 0, BOB), (F2, 1, BOB),
        (F3, 0, CY), (F3, 1, DEE),  # written by Cy, directed by Dee: the rule is wrong here
        (F4, 0, BOB),  # directed_by missing: the rule proposes Bob
        (F4, 2, ANN_TAG),  # tagged "ann": Ann by name
    ],
    dtype=np.int64,
)  # fmt: skip


def _rules(min_support: int = 1) -> tuple[NameRules, GraphSnapshot]:
    h, r, t = TRIPLES.T
    snapshot = GraphSnapshot.from_triples(h, r, t, n_nodes=len(LABELS), n_relations=3)
    ranges = answer_ranges(torch.as_tensor(TRIPLES), len(LABELS), 3).numpy()
    return NameRules.learn(snapshot, LABELS, TRIPLES, ranges, min_support=min_support), snapshot


def test_confidences_are_the_share_of_typed_body_instances_that_hold() -> None:
    rules, _ = _rules()
    assert name_groups(LABELS).tolist()[ANN] == name_groups(LABELS).tolist()[ANN_TAG]
    assert rules.namesakes(ANN).tolist() == [ANN, ANN_TAG]
    # directed_by(a, c) <= written_by(a, j), c ~ j: instances (F1, Ann), (F1, ann), (F2, Bob), (F3, Cy), (F4, Bob);
    # "ann" (a tag) and Cy (a writer only) are no directors (type constraint); of the other 3, 2 are stored
    assert rules.confidence[1, 0] == pytest.approx(2 / 3)
    # written_by(a, c) <= directed_by(a, j), c ~ j: (F1, Ann) (F2, Bob) (F3, Dee: Dee wrote nothing, untyped) -> 2 / 2
    assert rules.confidence[0, 1] == pytest.approx(1.0)
    # directed_by(a, c) <= has_tags(a, j), c ~ j: (F4, Ann) only, not stored -> 0
    assert rules.confidence[1, 2] == 0.0
    strict, _ = _rules(min_support=5)
    assert (strict.confidence == 0).all()  # no rule has 5 instances


def test_proposals_combine_rules_by_noisy_or_and_skip_stored_answers() -> None:
    rules, _ = _rules()
    assert rules.propose(F4, 1) == {BOB: pytest.approx(2 / 3)}  # directed_by(F4, ?) from written_by(F4, Bob)
    # Ann is stored; the tag "ann" is proposed, and the type constraint (the caller's) removes it
    assert set(rules.propose(F1, 1)) == {ANN_TAG}
    # the inverse direction: directed_by⁻¹(Bob, ?) <= written_by⁻¹(Bob, F4) (confidence of (1 + R, 0 + R))
    r = 3
    proposed = rules.propose(BOB, 1 + r)
    assert set(proposed) == {F4} and proposed[F4] == pytest.approx(rules.confidence[1 + r, 0 + r])


def test_saved_rules_load_for_the_same_snapshot(tmp_path: Path) -> None:
    rules, snapshot = _rules()
    rules.save(tmp_path)
    loaded = NameRules.load(tmp_path, snapshot)
    assert loaded is not None and np.array_equal(loaded.confidence, rules.confidence)
    assert loaded.propose(F4, 1) == rules.propose(F4, 1)
    assert NameRules.load(tmp_path / "none", snapshot) is None
    with pytest.raises(ValueError, match="do not fit the snapshot"):
        NameRules(snapshot, rules.groups[:3], rules.confidence)


def test_the_predictor_takes_the_larger_of_model_and_rule_probability() -> None:
    rules, snapshot = _rules()
    ranges = answer_ranges(torch.as_tensor(TRIPLES), len(LABELS), 3).numpy()
    d = 4
    z = np.zeros((len(LABELS), d), dtype=np.float32)  # every logit 0: the model cannot tell candidates apart
    w, u = np.ones((6, d), dtype=np.float32), np.zeros((6, d), dtype=np.float32)
    calibration = Calibration(a=1.0, b=-3.0, samples=10, positives=1, threshold=0.01)
    plain = LinkPredictor(z, w, u, ranges, calibration, snapshot)
    with_rules = LinkPredictor(z, w, u, ranges, calibration, snapshot, rules=rules)
    model_only = plain.top_tails(F4, 1, k=3)
    assert {p.tail for p in model_only} == {ANN, BOB, DEE} and max(p.probability for p in model_only) < 0.1
    best, *rest = with_rules.top_tails(F4, 1, k=3)
    assert best.tail == BOB and best.probability == pytest.approx(2 / 3)  # the rule's
    assert {p.tail for p in rest} == {ANN, DEE} and all(p.probability < 0.1 for p in rest)  # the model's
    assert ANN_TAG not in {p.tail for p in with_rules.top_tails(F1, 1, k=5)}  # a tag is no director


def test_model_proposals_need_an_anchor_of_the_relations_domain() -> None:
    rules, snapshot = _rules()
    ranges = answer_ranges(torch.as_tensor(TRIPLES), len(LABELS), 3).numpy()
    z = np.ones((len(LABELS), 4), dtype=np.float32)
    w, u = np.ones((6, 4), dtype=np.float32), np.zeros((6, 4), dtype=np.float32)
    calibration = Calibration(a=1.0, b=0.0, samples=10, positives=1, threshold=0.0)
    predictor = LinkPredictor(z, w, u, ranges, calibration, snapshot, rules=rules)
    assert predictor.can_anchor(F4, 1)  # a film: films have directors
    assert not predictor.can_anchor(ANN, 1)  # a person is no film
    assert predictor.can_anchor(ANN, 1 + 3)  # … but directs films
    assert not predictor.can_anchor(ANN_TAG, 1 + 3)  # a tag directs nothing
    assert predictor.top_tails(ANN, 1, k=3) == []  # no model proposal, no rule fires
    assert [p.head for p in predictor.top_heads(1, ANN_TAG, k=3)] == [F1]  # only what the rules reach: Ann wrote F1
