"""Train the R-GCN + DistMult link predictor (:mod:`kgsvc.gnn.model`) from a graph snapshot.

Entry point: :func:`train_gnn`. Steps:

1. **Split** the snapshot's triples (seeded, :func:`kgsvc.gnn.split.split_edges`) into train / valid / test;
   only training triples carry messages, so held-out edges are truly unseen.
2. **Train** with Adam and 1-N scoring (Dettmers et al. 2018 §4; "1vsAll" in Ruffinelli et al. 2020): every
   training triple ``(h, r, t)`` gives a tail query ``(h, r, ?)`` with answer ``t`` and a head query
   ``(t, r + R, ?)`` (inverse relation) with answer ``h``; each query is scored against **every** candidate
   answer of its relation at once, and the loss is the softmax cross-entropy of its answer among those
   type-constrained candidates
   (:func:`kgsvc.gnn.model.answer_ranges` of the training triples; label smoothing ``label_smoothing``) + ``reg``
   · mean of the squared decoder relation vectors. A step takes ``batch_size`` queries: the encoder runs once,
   and the (queries × candidates) logits are formed and back-propagated per relation in chunks of 2,048 queries
   into the encoder output, so memory stays O(2048 · n) whatever the batch size.
3. **Early stopping** every ``eval_every`` epochs on filtered MRR over (at most ``max_eval``) validation triples;
   training stops after ``patience`` evaluations without improvement, or at ``epochs``; the best state is kept.
4. **Report** filtered MRR / Hits@k on the test triples (valid when there is no test split) beside a random
   ranking baseline scored the same way, **calibrate** logits on the validation triples
   (:mod:`kgsvc.gnn.calibration`) and choose the **proposal threshold** there (the calibrated probability
   that maximises F1 of the validation queries' best proposals, :func:`kgsvc.gnn.calibration.choose_threshold`),
   and **write** the output folder atomically (:mod:`kgsvc.gnn.artifacts`).

Batching rule: message passing is always **full-batch** (the encoder runs over the whole training graph at every
step: O(L·(|E|·d + n·d²)) time, O(L·(|E| + n)·d) memory — about 0.5 GB for MetaQA's 43k nodes and 130k message
edges at d = 64), while the queries are processed in mini-batches of ``batch_size``, each scored against its
relation's candidates (at most n nodes): O(batch_size · n · d) time per step. Neighbour-sampled
mini-batches (``LinkNeighborLoader``) need ``pyg-lib`` or ``torch-sparse``, which are not installed here; graphs
whose estimated activation memory exceeds ``max_memory_bytes`` are refused with a clear error instead.

Jobs: ``progress`` is called after every epoch; ``should_cancel`` is checked before every epoch and, when true,
the epoch's checkpoint is already on disk and :class:`TrainingCancelled` is raised. With ``checkpoint_dir`` each
epoch is checkpointed (model, optimiser, RNG, early-stopping state; ``os.replace`` of a temp file), and a later
call with the same folder, snapshot and config resumes from the last finished epoch. Runs on CUDA when
``torch.cuda.is_available()`` (or the given ``device``), else CPU.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from kgsvc.errors import KgsvcError
from kgsvc.gnn import artifacts
from kgsvc.gnn.calibration import Calibration, choose_threshold, fit_platt, logsumexp
from kgsvc.gnn.metrics import KnownTriples, ranking_metrics
from kgsvc.gnn.model import GNNConfig, RGCNDistMult, answer_ranges, message_graph
from kgsvc.gnn.rules import NameRules
from kgsvc.gnn.split import EdgeSplit, split_edges, split_held_out
from kgsvc.gnn.warm import WarmStart, warm_start
from kgsvc.index.snapshot import GraphSnapshot

__all__ = ["TrainProgress", "TrainResult", "TrainingCancelled", "train_gnn"]

log = logging.getLogger(__name__)

CHECKPOINT = "checkpoint.pt"
_BYTES_PER_ACTIVATION = 4 * 6  # float32 message + gradient + dropout mask + aggregation buffers, measured roughly
_CHUNK = 2048  # queries whose (chunk × n_nodes) logits are materialised at once


class TrainingCancelled(KgsvcError):
    """Training stopped because ``should_cancel`` returned true; ``epoch`` epochs are done and checkpointed."""

    def __init__(self, message: str, *, epoch: int) -> None:
        super().__init__(message)
        self.epoch = epoch


@dataclass(frozen=True)
class TrainProgress:
    """Reported after each epoch: ``valid_mrr`` is ``None`` when the epoch had no evaluation."""

    epoch: int
    epochs: int
    loss: float
    valid_mrr: float | None
    best_mrr: float


@dataclass(frozen=True)
class TrainResult:
    """What :func:`train_gnn` wrote: the output folder and its ``metrics.json`` content."""

    output: Path
    metrics: dict[str, Any] = field(default_factory=dict)


def _fingerprint(
    snapshot: GraphSnapshot, config: GNNConfig, features: npt.NDArray[np.floating] | None, warm: WarmStart | None
) -> str:
    digest = hashlib.blake2b(digest_size=16)
    if warm is not None:
        digest.update(f"warm:{warm.model}".encode())
    arrays = [snapshot.triple_heads, snapshot.triple_relations, snapshot.triple_tails]
    for array in arrays if features is None else [*arrays, features]:
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(f"{snapshot.n_nodes}/{snapshot.n_relations}".encode())
    digest.update(json.dumps(config.to_dict(), sort_keys=True).encode())
    return digest.hexdigest()


class _Scorer:
    """Numpy scoring functions over fixed embeddings (for :func:`ranking_metrics` and calibration)."""

    def __init__(self, model: RGCNDistMult, z: torch.Tensor) -> None:
        self.model, self.z = model, z

    def tails(self, heads: npt.NDArray[np.int64], relations: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        h, r = torch.as_tensor(heads, device=self.z.device), torch.as_tensor(relations, device=self.z.device)
        return self.model.score_tails(self.z, h, r).detach().float().cpu().numpy()

    def heads(self, tails: npt.NDArray[np.int64], relations: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        t, r = torch.as_tensor(tails, device=self.z.device), torch.as_tensor(relations, device=self.z.device)
        return self.model.score_heads(self.z, r, t).detach().float().cpu().numpy()


def _random_scorer(n_nodes: int, seed: int) -> Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], Any]:
    rng = np.random.default_rng(seed)
    return lambda anchors, relations: rng.random((anchors.shape[0], n_nodes))


def calibration_set(
    scorer: _Scorer, valid: npt.NDArray[np.int64], train: KnownTriples, held: KnownTriples, *, top_k: int = 10
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """(log-softmax score, label) of the top-``top_k`` non-training proposals of every validation query (see
    :mod:`kgsvc.gnn.calibration`): two (queries × top_k) arrays, each row best first."""
    logits: list[npt.NDArray[np.float64]] = []
    labels: list[npt.NDArray[np.int64]] = []
    for start in range(0, valid.shape[0], 256):
        h, r, t = valid[start : start + 256].T
        for scores, anchors, known, truth in (
            (scorer.tails(h, r), h, train.tails, held.tails),
            (scorer.heads(t, r), t, lambda a, b: train.heads(b, a), lambda a, b: held.heads(b, a)),
        ):
            scores = scores.astype(np.float64)
            for i, (anchor, relation) in enumerate(zip(anchors, r, strict=True)):
                row = scores[i]
                row[known(int(anchor), int(relation))] = -np.inf
                row = row - logsumexp(row)  # query-normalised: log-softmax over the non-stored candidates
                top = np.argpartition(-row, top_k)[:top_k]
                top = top[np.argsort(-row[top], kind="stable")]
                logits.append(row[top])
                labels.append(np.isin(top, truth(int(anchor), int(relation))).astype(np.int64))
    return np.stack(logits), np.stack(labels)


def _check_memory(snapshot: GraphSnapshot, config: GNNConfig, limit: int) -> None:
    estimate = config.layers * (2 * snapshot.n_edges + snapshot.n_nodes) * config.dim * _BYTES_PER_ACTIVATION
    if estimate > limit:
        raise ValueError(
            f"full-batch R-GCN over {snapshot.n_nodes} nodes / {snapshot.n_edges} triples at dim {config.dim} needs "
            f"about {estimate / 2**30:.1f} GiB, over max_memory_bytes={limit / 2**30:.1f} GiB; lower dim or layers "
            "(neighbour-sampled training needs pyg-lib, not installed)"
        )


def train_gnn(
    snapshot: GraphSnapshot,
    output: Path,
    *,
    config: GNNConfig | None = None,
    checkpoint_dir: Path | None = None,
    progress: Callable[[TrainProgress], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    device: str | None = None,
    max_memory_bytes: int = 8 * 2**30,
    threads: int | None = None,
    features: npt.NDArray[np.floating] | None = None,
    labels: Sequence[str] | None = None,
    warm: WarmStart | None = None,
) -> TrainResult:
    """Train on ``snapshot`` and write the model folder ``output`` (replaced atomically); see the module docstring.

    Parameters
    ----------
    snapshot : GraphSnapshot
        The graph; node ids of the embeddings are its node ids.
    output : Path
        Folder to (re)place with ``model.pt``, ``node_embeddings.npy``, ``relation_embeddings.npy``,
        ``metrics.json`` and the node embeddings in Qdrant (:mod:`kgsvc.gnn.artifacts`).
    config : GNNConfig, optional
        Model and training options (defaults: :class:`GNNConfig`).
    checkpoint_dir : Path, optional
        Folder for ``checkpoint.pt``, written after every epoch; an existing checkpoint is resumed.
    progress : callable, optional
        Called with a :class:`TrainProgress` after every epoch.
    should_cancel : callable, optional
        Checked before every epoch; true raises :class:`TrainingCancelled` (the checkpoint is kept).
    device : str, optional
        ``"cuda"``, ``"cpu"``, …; default CUDA when available.
    max_memory_bytes : int
        Refuse graphs whose estimated full-batch activation memory is larger.
    threads : int, optional
        CPU threads for torch during this call (restored after). On shared machines 1 is much faster than
        several: intra-op threads spin on busy cores (measured on WC2014: docs/benchmarks-history.md).
    features : (n_nodes × f) array, optional
        Node input features (e.g. the label embeddings of the index; :class:`kgsvc.gnn.model.RGCNDistMult`).
        They are part of the checkpoint fingerprint, not of the saved model: pass the same ones to resume.
    labels : sequence of str, optional
        Node labels (snapshot ids): with them, name rules (:mod:`kgsvc.gnn.rules`) are learned on the training
        triples and saved with the model, and the predictor proposes what they reach too.
    warm : WarmStart, optional
        Start from the previous index version's model (:mod:`kgsvc.gnn.warm`) and train at most
        ``config.finetune_epochs`` epochs; ``metrics["warm_start"]`` records it.

    Returns
    -------
    TrainResult

    Raises
    ------
    TrainingCancelled
        When ``should_cancel`` returned true; ``output`` is untouched.
    ValueError
        When the snapshot is too small or too large, or a checkpoint belongs to another snapshot or config.

    Notes
    -----
    Per epoch O(⌈m / batch_size⌉ · L · (|E|·d + n·d²)) time; each evaluation O(max_eval · n · d).
    """
    config = config or GNNConfig()
    if warm is not None:
        config = dataclasses.replace(config, epochs=min(config.epochs, config.finetune_epochs))
    _check_memory(snapshot, config, max_memory_bytes)
    previous_threads = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        return _train(
            snapshot, Path(output), config, checkpoint_dir, progress, should_cancel, device, features, labels, warm
        )
    finally:
        torch.set_num_threads(previous_threads)


def _train(
    snapshot: GraphSnapshot,
    output: Path,
    config: GNNConfig,
    checkpoint_dir: Path | None,
    progress: Callable[[TrainProgress], None] | None,
    should_cancel: Callable[[], bool] | None,
    device: str | None,
    features: npt.NDArray[np.floating] | None,
    labels: Sequence[str] | None,
    warm: WarmStart | None,
) -> TrainResult:
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    started = time.perf_counter()
    if warm is not None and warm.held_out is not None:
        split = split_held_out(snapshot, warm.held_out)
    else:
        split = split_edges(
            snapshot, valid_fraction=config.valid_fraction, test_fraction=config.test_fraction, seed=config.seed
        )
    fingerprint = _fingerprint(snapshot, config, features, warm)
    torch.manual_seed(config.seed)
    x = None if features is None else torch.as_tensor(np.asarray(features, dtype=np.float32))
    train = torch.as_tensor(split.train, device=dev)
    ranges = answer_ranges(train, snapshot.n_nodes, snapshot.n_relations)
    model = RGCNDistMult(snapshot.n_nodes, snapshot.n_relations, config, x, ranges).to(dev)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    candidates = [torch.nonzero(row).squeeze(1) for row in ranges]
    position = torch.cumsum(ranges, dim=1) - 1  # position[r, c]: index of c among the candidates of r
    edge_index, edge_type = message_graph(train[:, 0], train[:, 1], train[:, 2], snapshot.n_relations)
    inverse = torch.stack([train[:, 2], train[:, 1] + snapshot.n_relations, train[:, 0]], dim=1)
    queries = torch.cat([train, inverse])  # (anchor, relation, answer): tail queries, then head queries
    known_all = KnownTriples(split.all, snapshot.n_relations)
    valid_eval = split.valid[: config.max_eval]
    generator = torch.Generator().manual_seed(config.seed)

    state: dict[str, Any] = {"epoch": 0, "best_mrr": -1.0, "best_state": None, "bad": 0, "done": False, "history": []}
    if warm is not None:
        copied = warm_start(model, warm, config)
        state["warm_start"] = {"from": str(warm.model), "nodes_copied": copied, "nodes": snapshot.n_nodes}
    path = Path(checkpoint_dir) / CHECKPOINT if checkpoint_dir is not None else None
    if path is not None and path.exists():
        saved = torch.load(path, map_location=dev, weights_only=True)
        if saved["fingerprint"] != fingerprint:
            raise ValueError(f"checkpoint {path} belongs to another snapshot or config; remove it to start over")
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        generator.set_state(saved["generator"])
        state = saved["state"]
        log.info("resuming GNN training from %s at epoch %d", path, state["epoch"])

    while not state["done"]:
        if should_cancel is not None and should_cancel():
            raise TrainingCancelled(f"GNN training cancelled after epoch {state['epoch']}", epoch=state["epoch"])
        epoch = state["epoch"] + 1
        model.train()
        order = torch.randperm(queries.shape[0], generator=generator).to(dev)
        losses = []
        for start in range(0, queries.shape[0], config.batch_size):
            optimizer.zero_grad()
            picked = order[start : start + config.batch_size]
            edges, types = edge_index, edge_type
            if config.mask_targets:
                edges, types = _messages(edge_index, edge_type, picked, train.shape[0])
            losses.append(_step(model, edges, types, queries[picked], candidates, position, config))
            optimizer.step()
        valid_mrr = None
        if epoch % config.eval_every == 0 or epoch == config.epochs:
            valid_mrr = _evaluate(model, edge_index, edge_type, valid_eval, known_all)["mrr"]
            if valid_mrr > state["best_mrr"]:
                state["best_mrr"], state["bad"] = valid_mrr, 0
                state["best_state"] = copy.deepcopy(model.state_dict())
            else:
                state["bad"] += 1
        state["epoch"] = epoch
        state["history"].append({"epoch": epoch, "loss": float(np.mean(losses)), "valid_mrr": valid_mrr})
        state["done"] = epoch >= config.epochs or state["bad"] >= config.patience
        if path is not None:
            _save_checkpoint(path, model, optimizer, generator, state, fingerprint)
        if progress is not None:
            progress(TrainProgress(epoch, config.epochs, float(np.mean(losses)), valid_mrr, state["best_mrr"]))

    train_seconds = time.perf_counter() - started
    if state["best_state"] is not None:
        model.load_state_dict(state["best_state"])
    rules = None
    if labels is not None:
        rules = NameRules.learn(snapshot, labels, split.train, ranges.cpu().numpy())
    return _finish(
        model, snapshot, split, config, output, state, edge_index, edge_type, known_all, train_seconds, dev, rules
    )


def _messages(
    edge_index: torch.Tensor, edge_type: torch.Tensor, picked: torch.Tensor, m: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The message graph without the triples of the queries ``picked`` (query ``q`` asks triple ``q mod m``, whose
    messages are edges ``q mod m`` and ``q mod m + m``): a target edge never carries its own answer."""
    keep = torch.ones(2 * m, dtype=torch.bool, device=edge_index.device)
    triples = picked % m
    keep[triples] = False
    keep[triples + m] = False
    return edge_index[:, keep], edge_type[keep]


def _step(
    model: RGCNDistMult,
    edge_index: torch.Tensor,
    edge_type: torch.Tensor,
    batch: torch.Tensor,
    candidates: list[torch.Tensor],
    position: torch.Tensor,
    config: GNNConfig,
) -> float:
    """Gradients of one 1-N step over ``batch`` (queries × (anchor, relation, answer)); returns its loss.

    The encoder runs once; per relation, the logits against its ``candidates`` are built chunk by chunk against a
    detached copy of the encoder output, whose accumulated gradient is then sent back through the encoder (same
    gradient as one big batch, less memory).
    """
    z = model.encode(edge_index, edge_type)
    leaf = z.detach().requires_grad_()
    total = 0.0
    for relation in torch.unique(batch[:, 1]).tolist():
        group = batch[batch[:, 1] == relation]
        ends = leaf[candidates[relation]]
        for start in range(0, group.shape[0], _CHUNK):
            anchors, relations, answers = group[start : start + _CHUNK].T
            logits = model.queries(leaf, anchors, relations) @ ends.T
            targets = position[relation, answers]
            loss = torch.nn.functional.cross_entropy(logits, targets, label_smoothing=config.label_smoothing)
            loss = loss * (anchors.shape[0] / batch.shape[0])
            loss.backward(retain_graph=True)
            total += float(loss.item())
    reg = config.reg * (model.relation.pow(2).mean() + model.prior.pow(2).mean())
    reg.backward()  # type: ignore[no-untyped-call]
    z.backward(leaf.grad)  # type: ignore[no-untyped-call]
    return total + float(reg.item())


def _evaluate(
    model: RGCNDistMult,
    edge_index: torch.Tensor,
    edge_type: torch.Tensor,
    triples: npt.NDArray[np.int64],
    known: KnownTriples,
) -> dict[str, float]:
    model.eval()
    with torch.no_grad():
        scorer = _Scorer(model, model.encode(edge_index, edge_type))
        return ranking_metrics(scorer.tails, scorer.heads, triples, known)


def _save_checkpoint(
    path: Path,
    model: RGCNDistMult,
    optimizer: torch.optim.Optimizer,
    generator: torch.Generator,
    state: dict[str, Any],
    fingerprint: str,
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    payload = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "generator": generator.get_state(),
        "state": state,
        "fingerprint": fingerprint,
    }
    torch.save(payload, tmp)
    tmp.replace(path)


def _finish(
    model: RGCNDistMult,
    snapshot: GraphSnapshot,
    split: EdgeSplit,
    config: GNNConfig,
    output: Path,
    state: dict[str, Any],
    edge_index: torch.Tensor,
    edge_type: torch.Tensor,
    known_all: KnownTriples,
    train_seconds: float,
    dev: torch.device,
    rules: NameRules | None,
) -> TrainResult:
    model.eval()
    with torch.no_grad():
        z = model.encode(edge_index, edge_type)
    scorer = _Scorer(model, z)
    report = split.test if split.test.shape[0] else split.valid
    report = report[: max(config.max_eval, 1)]
    held = np.concatenate([split.valid, split.test])
    logits, labels = calibration_set(
        scorer,
        split.valid[: config.max_eval],
        KnownTriples(split.train, snapshot.n_relations),
        KnownTriples(held, snapshot.n_relations),
    )
    calibration: Calibration | None
    try:
        finite = np.isfinite(logits)  # a relation with fewer than top_k candidates pads its row with -inf
        fitted = fit_platt(logits[finite], labels[finite])
        best = finite[:, 0]
        calibration = choose_threshold(fitted, fitted.probability(logits[best, 0]), labels[best, 0])
    except ValueError as exc:
        log.warning("GNN calibration skipped: %s", exc)
        calibration = None
    metrics: dict[str, Any] = {
        "config": config.to_dict(),
        "device": str(dev),
        "n_nodes": snapshot.n_nodes,
        "n_relations": snapshot.n_relations,
        "features": None if model.project is None else model.project.in_features,  # input feature width
        "split": {"train": len(split.train), "valid": len(split.valid), "test": len(split.test)},
        "epochs": state["epoch"],
        "best_valid_mrr": state["best_mrr"],
        "history": state["history"],
        "held_out": {
            "split": "test" if split.test.shape[0] else "valid",
            **ranking_metrics(scorer.tails, scorer.heads, report, known_all),
        },
        "random_baseline": ranking_metrics(
            _random_scorer(snapshot.n_nodes, config.seed),
            _random_scorer(snapshot.n_nodes, config.seed + 1),
            report,
            known_all,
        ),
        "calibration": None if calibration is None else vars(calibration),
        "name_rules": None if rules is None else int((rules.confidence > 0).sum()),  # rules with confidence > 0
        "warm_start": state.get("warm_start"),
        "train_seconds": train_seconds,
    }
    with artifacts.replace_folder(output) as folder:
        torch.save({"model": model.state_dict(), "config": config.to_dict()}, folder / artifacts.MODEL)
        embeddings = z.float().cpu().numpy()
        np.save(folder / artifacts.NODE_EMBEDDINGS, embeddings, allow_pickle=False)
        artifacts.write_node_vectors(folder, embeddings)
        if rules is not None:
            rules.save(folder)
        for name, values in ((artifacts.RELATION_EMBEDDINGS, model.relation), (artifacts.RELATION_PRIORS, model.prior)):
            np.save(folder / name, values.detach().float().cpu().numpy(), allow_pickle=False)
        np.save(folder / artifacts.RELATION_RANGES, model.ranges.cpu().numpy(), allow_pickle=False)
        flags = np.concatenate([np.zeros(len(split.valid), np.int64), np.ones(len(split.test), np.int64)])
        held_out = np.concatenate([np.concatenate([split.valid, split.test]), flags[:, None]], axis=1)
        np.save(folder / artifacts.HELD_OUT, held_out, allow_pickle=False)
        (folder / artifacts.METRICS).write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    return TrainResult(output=Path(output), metrics=metrics)
