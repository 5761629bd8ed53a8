"""Platt scaling of DistMult logits into the probability that a *proposed missing edge* is true.

How the calibration set is built (the setting the predictor is used in): for every validation triple
``(h, r, t)`` — an edge the model never saw — the tail query ``(h, r, ?)`` and the head query ``(?, r, t)`` each
propose their ``top_k`` candidates that are not training triples (stored edges are never proposed). A candidate
is labelled 1 when it completes a held-out true triple (valid or test) and 0 otherwise. The feature is the
query-normalised score ``s = f(h, r, c) − log Σ_{c'} exp f(h, r, c')`` (log-softmax over the query's non-stored
candidates ``c'``): raw DistMult logits differ in scale between queries (a 4-valued attribute versus a
1,000-candidate head query), and fitting them pooled gave a *negative* slope on WorldCup2014. A logistic curve
``p(s) = σ(a · s + b)`` is fitted to (``s``, label) by maximum likelihood (Platt 1999). ``p`` then estimates
the precision of proposals with score ``s``; a threshold on ``p`` is a precision target.

The **proposal threshold** is chosen on the same held-out queries (:func:`choose_threshold`): among each query's
*best* proposal, accepting those with ``p ≥ τ`` has precision P(τ) (share of accepted ones that are held-out
edges) and recall R(τ) (share of queries answered by a held-out edge); ``τ`` maximises F1 = 2PR / (P + R). It is
stored with the calibration and is the default threshold of :mod:`kgsvc.gnn.predict` and of ``ask(infer=True)``.

Caveat: labels count only the held-out edges as true; a candidate that is true in the world but in neither the
graph nor the held-out split is counted false, so ``p`` is a lower estimate of precision.

References
----------
.. [1] J. Platt. "Probabilistic Outputs for Support Vector Machines and Comparisons to Regularized Likelihood
   Methods." Advances in Large Margin Classifiers, 1999.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Calibration", "choose_threshold", "fit_platt", "logsumexp"]


def logsumexp(values: npt.NDArray[np.floating]) -> float:
    """``log Σ exp(values)`` of a 1-D array, stable; ``-inf`` entries count as 0 (all ``-inf`` gives ``-inf``)."""
    top = float(np.max(values))
    if not np.isfinite(top):
        return top
    return top + float(np.log(np.sum(np.exp(values - top))))


@dataclass(frozen=True)
class Calibration:
    """``probability(s) = 1 / (1 + exp(-(a · s + b)))``; ``samples`` / ``positives`` describe the fit set;
    ``threshold`` is the proposal threshold chosen on held-out queries (:func:`choose_threshold`)."""

    a: float
    b: float
    samples: int
    positives: int
    threshold: float = 0.5

    def probability(self, logits: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Calibrated probabilities of raw DistMult logits (same shape)."""
        x = self.a * np.asarray(logits, dtype=np.float64) + self.b
        return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)))  # σ(x) without overflow

    def logit_for(self, probability: float) -> float:
        """The raw logit at which the calibrated probability equals ``probability`` (in (0, 1)); ``a`` must be > 0."""
        if not 0.0 < probability < 1.0:
            raise ValueError(f"probability must lie in (0, 1), got {probability}")
        if self.a <= 0:
            raise ValueError(f"calibration slope a={self.a} is not positive: scores do not order true edges first")
        return float((np.log(probability / (1.0 - probability)) - self.b) / self.a)


def fit_platt(logits: npt.ArrayLike, labels: npt.ArrayLike, *, steps: int = 200) -> Calibration:
    """Fit ``σ(a · s + b)`` to binary ``labels`` by maximum likelihood (L-BFGS on the two parameters).

    Raises
    ------
    ValueError
        When the inputs differ in length, are empty, or hold only one class.
    """
    import torch  # training-time only: keeps the predictor importable without torch

    s = torch.as_tensor(np.asarray(logits, dtype=np.float64))
    y = torch.as_tensor(np.asarray(labels, dtype=np.float64))
    if s.shape != y.shape or s.ndim != 1 or s.numel() == 0:
        raise ValueError(f"logits and labels must be 1-D of one length, got {tuple(s.shape)}, {tuple(y.shape)}")
    positives = int(y.sum().item())
    if positives in (0, y.numel()):
        raise ValueError(f"calibration needs both true and false candidates, got {positives} of {y.numel()} true")
    scale = float(s.std().item()) or 1.0
    params = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([params], max_iter=steps, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(params[0] * s / scale + params[1], y)
        loss.backward()  # type: ignore[no-untyped-call]
        return loss

    optimizer.step(closure)  # type: ignore[no-untyped-call]
    a, b = params.detach().tolist()
    return Calibration(a=a / scale, b=b, samples=int(y.numel()), positives=positives)


def choose_threshold(calibration: Calibration, probabilities: npt.ArrayLike, correct: npt.ArrayLike) -> Calibration:
    """``calibration`` with ``threshold`` set to the F1-maximising cut of held-out best proposals (module docstring).

    ``probabilities[i]`` is the calibrated probability of query ``i``'s best proposal, ``correct[i]`` whether it
    is a held-out true edge. Ties in F1 keep the higher threshold.

    Raises
    ------
    ValueError
        When the inputs differ in length, are empty, or no proposal is correct.

    Notes
    -----
    O(q log q) for q queries.
    """
    p = np.asarray(probabilities, dtype=np.float64).ravel()
    y = np.asarray(correct, dtype=np.float64).ravel()
    if p.shape != y.shape or p.size == 0 or y.sum() == 0:
        raise ValueError(f"need one correctness flag per probability and at least one correct, got {p.size}/{y.size}")
    order = np.argsort(-p, kind="stable")
    hits = np.cumsum(y[order])
    precision, recall = hits / np.arange(1, p.size + 1), hits / p.size
    f1 = np.where(hits > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0.0)
    best = int(np.argmax(f1))
    return dataclasses.replace(calibration, threshold=float(p[order][best]))
