from __future__ import annotations

import numpy as np
import pytest

from kgsvc.gnn.calibration import Calibration, choose_threshold, fit_platt, logsumexp
from kgsvc.gnn.metrics import KnownTriples, ranking_metrics

TRIPLES = np.array([[0, 0, 1], [0, 0, 2], [3, 1, 1], [4, 0, 2]])
N = 6


def _oracle(truth: np.ndarray, *, tails: bool):
    """Scores 1 for the true answer of each query's own held-out triple, 0 elsewhere."""

    def score(anchors: np.ndarray, relations: np.ndarray) -> np.ndarray:
        out = np.zeros((len(anchors), N))
        for i, (a, r) in enumerate(zip(anchors, relations, strict=True)):
            for h, rr, t in truth:
                if rr == r and (h if tails else t) == a:
                    out[i, t if tails else h] = 1.0
        return out

    return score


def test_filtered_ranks_of_an_oracle_and_a_constant_scorer() -> None:
    known = KnownTriples(TRIPLES, 2)
    assert known.tails(0, 0).tolist() == [1, 2] and known.heads(0, 2).tolist() == [0, 4]
    # the oracle marks every true answer: other true answers are filtered, so every rank is 1
    perfect = ranking_metrics(_oracle(TRIPLES, tails=True), _oracle(TRIPLES, tails=False), TRIPLES, known)
    assert perfect["mrr"] == 1.0 and perfect["hits@1"] == 1.0 and perfect["queries"] == 8

    def constant(anchors: np.ndarray, relations: np.ndarray) -> np.ndarray:
        return np.zeros((len(anchors), N))

    # a constant scorer ties with every unfiltered candidate: mean rank 1 + (candidates - 1) / 2
    flat = ranking_metrics(constant, constant, TRIPLES[:1], known)
    # (0, 0, ?): tail 2 is filtered, the 4 other nodes tie with target 1; (?, 0, 1): the 5 other nodes tie with 0
    tail_rank, head_rank = 1 + 4 / 2, 1 + 5 / 2
    assert flat["mrr"] == pytest.approx((1 / tail_rank + 1 / head_rank) / 2)
    with pytest.raises(ValueError, match="at least one held-out triple"):
        ranking_metrics(constant, constant, np.zeros((0, 3), dtype=np.int64), known)


def test_platt_fit_recovers_a_known_logistic_curve() -> None:
    rng = np.random.default_rng(0)
    scores = rng.normal(size=20000)
    labels = rng.random(20000) < 1 / (1 + np.exp(-(2.0 * scores - 1.0)))
    calibration = fit_platt(scores, labels.astype(int))
    assert calibration.a == pytest.approx(2.0, abs=0.1) and calibration.b == pytest.approx(-1.0, abs=0.1)
    assert calibration.logit_for(0.5) == pytest.approx(-calibration.b / calibration.a)
    assert logsumexp(np.array([0.0, -np.inf, np.log(3.0)])) == pytest.approx(np.log(4.0))
    with pytest.raises(ValueError, match="both true and false"):
        fit_platt([0.1, 0.2], [1, 1])


def test_threshold_maximises_f1_of_the_best_proposals() -> None:
    """Best proposals sorted by probability: right, right, wrong, right, wrong, wrong (6 queries). Accepting the
    top j gives F1 = 2·hits / (j + 6): 2/7, 4/8, 4/9, 6/10, 6/11, 6/12 — the best cut keeps four, at p = 0.5."""
    base = Calibration(a=1.0, b=0.0, samples=6, positives=3)
    chosen = choose_threshold(base, [0.9, 0.8, 0.7, 0.5, 0.3, 0.1], [1, 1, 0, 1, 0, 0])
    assert chosen.threshold == 0.5 and (chosen.a, chosen.b) == (1.0, 0.0)
    with pytest.raises(ValueError, match="at least one correct"):
        choose_threshold(base, [0.9, 0.1], [0, 0])
