"""The job functions behind kgsvc's asynchronous work. Celery tasks in ``workers/`` and the in-process
dispatcher both call these, so the two modes run the same code.

Every job takes ids and plain options (never objects) and is idempotent: running it twice, or again after
it was killed half-way, converges to the state of one uninterrupted run.

* :func:`ingest` — load a file into a dataset (RDF set semantics make a re-run add nothing twice);
* :func:`build_index` — build the dataset's index version for its current data, unless one is complete already;
* :func:`embed_chunks` — help a build embed its texts (chunks persisted, so a killed helper loses one chunk);
* :func:`ask_batch` — answer many questions, writing the answers to the job row;
* :func:`train_gnn` — train the GNN link predictor on a graph snapshot (cancellable, resumable, atomic output);
  its held-out scores are also recorded on the index version it was trained for.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgsvc.errors import DatasetError, IndexError_
from kgsvc.schemas import JobInfo

if TYPE_CHECKING:
    from kgsvc.sdk.embedded import KG

__all__ = ["EMBED_HELPERS", "REGISTRY_NAMES", "ask_batch", "build_index", "embed_chunks", "ingest", "train_gnn"]

log = logging.getLogger(__name__)

#: The job names, shared by the in-process dispatcher and the Celery tasks.
REGISTRY_NAMES = ("kgsvc.ingest", "kgsvc.build_index", "kgsvc.ask_batch", "kgsvc.train_gnn", "kgsvc.embed_chunks")


def ingest(
    kg: KG,
    *,
    dataset: str,
    path: str,
    job_id: str | None = None,
    format: str | None = None,
    base_iri: str | None = None,
) -> dict[str, Any]:
    """Load ``path`` into ``dataset`` under job ``job_id`` (a new job row when ``None``); returns the load result."""
    result = kg.load(Path(path), dataset=dataset, format=format, base_iri=base_iri, job_id=job_id)
    return result.model_dump(mode="json")


#: ``kgsvc.embed_chunks`` helper tasks a distributed build queues for its embedding plan (idle workers take them;
#: one that finds nothing left to do returns at once).
EMBED_HELPERS = 8


def build_index(kg: KG, *, dataset: str, store_version: int | None = None) -> int | None:
    """Bring the dataset's indexes up to date with its data, as a ``build_index`` job row (so ``kgsvc jobs`` and
    ``GET /jobs`` show it, its progress following the build's stages and embedded chunks); returns the current
    index version.

    Does nothing when the newest complete version already covers ``store_version`` (or the dataset's current
    data version when ``None``) — so duplicate events and retries are cheap. With ``Settings.gnn_train`` it then
    queues the GNN training of that version (:meth:`KG.submit_train_gnn`, which skips a version already trained).
    With a Celery broker, the texts to embed are shared with other workers: :data:`EMBED_HELPERS`
    ``kgsvc.embed_chunks`` tasks are queued on the build's embedding plan (:mod:`kgsvc.index.chunks`).
    """
    current = kg.catalog.current_index_version(dataset)
    wanted = kg.catalog.get(dataset).store_version if store_version is None else store_version
    if current is not None and current.store_version >= wanted:
        version: int | None = current.version  # covered already: no build, no job row
    else:
        helpers = None
        if kg.settings.broker_url is not None:

            def helpers(plan: Path) -> None:
                for _ in range(EMBED_HELPERS):
                    kg.dispatcher.submit("kgsvc.embed_chunks", plan=str(plan))

        from kgsvc.index.build import build_index as build

        job = kg.catalog.create_job("build_index", dataset=dataset, params={"store_version": wanted})
        with kg.catalog.running(job) as update:
            shown = [0.0]

            def progress(share: float) -> None:  # the job row follows the build (a write per 1 % at most)
                if share - shown[0] >= 0.01:
                    shown[0] = share
                    update(progress=round(share, 3))

            version = build(
                kg.store,
                kg.catalog,
                kg.settings,
                dataset,
                store_version=store_version,
                helpers=helpers,
                progress=progress,
            )
            update(counts={"index_version": version})
    if version is not None and kg.settings.gnn_train:
        kg.submit_train_gnn(dataset, version=version)
    return version


def embed_chunks(kg: KG, *, plan: str) -> int:
    """Embed the chunks of the embedding plan in folder ``plan`` that no process has taken (a build's helper);
    returns how many this call embedded (0 when the build finished meanwhile)."""
    from kgsvc.index.chunks import work_on_plan

    try:
        return work_on_plan(Path(plan), device=kg.settings.embedding_device)
    except FileNotFoundError:  # the plan is complete and was deleted
        return 0


def ask_batch(
    kg: KG, *, job_id: str, dataset: str, questions: list[str], options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Answer ``questions`` one by one, recording progress and the answers on job ``job_id``."""
    answers: list[dict[str, Any]] = []
    with kg.catalog.running(job_id) as update:
        for i, question in enumerate(questions):
            answer = kg.ask(question, dataset=dataset, **(options or {}))
            answers.append(answer.model_dump(mode="json"))
            update(progress=(i + 1) / len(questions), counts={"answered": i + 1})
        update(counts={"answers": [a.get("text") for a in answers]})
    return answers


#: Share of a new version's nodes that must be in the previous version for its GNN to start from the old model.
WARM_MIN_SHARE = 0.9


def _warm_start(previous: Path, current: Path) -> Any:
    """The warm start from the index version folder ``previous`` to ``current``, or ``None`` (module docs)."""
    from kgsvc.gnn.warm import WarmStart
    from kgsvc.index.build import GNN_FOLDER, version_terms

    try:
        (old_nodes, old_relations), (new_nodes, new_relations) = version_terms(previous), version_terms(current)
        warm = WarmStart.from_terms(previous / GNN_FOLDER, old_nodes, new_nodes, old_relations, new_relations)
    except (IndexError_, FileNotFoundError):
        return None  # no trained model there, or the previous version was removed meanwhile
    return warm if warm.kept_share >= WARM_MIN_SHARE else None


def train_gnn(
    kg: KG,
    *,
    job_id: str,
    snapshot: str,
    output: str,
    checkpoint: str | None = None,
    options: dict[str, Any] | None = None,
    threads: int | None = None,
    features: str | None = None,
    warm_from: str | None = None,
) -> dict[str, Any]:
    """Train the GNN link predictor (:func:`kgsvc.gnn.train.train_gnn`) as job ``job_id``; returns its metrics.

    ``snapshot`` is a graph-snapshot folder, ``output`` the model folder (replaced only on success), ``checkpoint``
    the resume folder (default ``<output>.checkpoint``), ``options`` :class:`kgsvc.gnn.model.GNNConfig` fields,
    ``threads`` the torch CPU threads (see :func:`kgsvc.gnn.train.train_gnn`), ``features`` an index version
    folder whose node label embeddings become the node input features
    (:func:`kgsvc.index.build.node_label_vectors`) and whose node labels give the name rules
    (:func:`kgsvc.index.build.node_labels`, :mod:`kgsvc.gnn.rules`); ``None``: neither. Progress goes to the job
    row after every epoch; setting the row's state to ``cancelled`` (before or during the run) stops training before
    the next epoch (checkpoint kept, so a re-run resumes) and returns ``{"cancelled": True}``. A failure or
    cancellation leaves ``output`` as it was. ``warm_from`` is the previous index version folder: when its GNN is
    trained and at least :data:`WARM_MIN_SHARE` of this version's nodes were in it, training starts from that model
    and runs at most ``finetune_epochs`` epochs (:mod:`kgsvc.gnn.warm`); otherwise from scratch.
    """
    from kgsvc.db.models import JobState
    from kgsvc.gnn.model import GNNConfig
    from kgsvc.gnn.train import TrainingCancelled
    from kgsvc.gnn.train import train_gnn as train
    from kgsvc.index.build import node_label_vectors, node_labels
    from kgsvc.index.snapshot import GraphSnapshot

    config = GNNConfig.from_dict(options or {})
    warm = None if warm_from is None or features is None else _warm_start(Path(warm_from), Path(features))
    if kg.catalog.job(job_id).state == JobState.CANCELLED:
        return {"cancelled": True}
    kg.catalog.update_job(job_id, state=JobState.RUNNING)

    def progress(p: Any) -> None:
        kg.catalog.update_job(job_id, progress=p.epoch / p.epochs, counts={"epoch": p.epoch, "best_mrr": p.best_mrr})

    def cancelled() -> bool:
        return kg.catalog.job(job_id).state == JobState.CANCELLED

    try:
        result = train(
            GraphSnapshot.load(Path(snapshot)),
            Path(output),
            config=config,
            checkpoint_dir=Path(checkpoint) if checkpoint else Path(output + ".checkpoint"),
            progress=progress,
            should_cancel=cancelled,
            threads=threads,
            features=None if features is None else node_label_vectors(Path(features)),
            labels=None if features is None else node_labels(Path(features)),
            warm=warm,
        )
    except TrainingCancelled:
        log.info("GNN training job %s cancelled", job_id)
        return {"cancelled": True}
    except BaseException as exc:
        kg.catalog.update_job(job_id, state=JobState.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    kg.catalog.update_job(
        job_id, state=JobState.SUCCEEDED, progress=1.0, counts={"held_out": result.metrics["held_out"]}
    )
    _record_on_version(kg, kg.catalog.job(job_id), result.metrics)
    return result.metrics


def _record_on_version(kg: KG, job: JobInfo, metrics: dict[str, Any]) -> None:
    """Copy the held-out scores to the index version the job trained for (``params["index_version"]``, as
    :meth:`KG.submit_train_gnn` sets it), under ``metrics["gnn"]``; skipped when the dataset was dropped meanwhile."""
    version = job.params.get("index_version")
    if job.dataset is None or version is None:
        return
    keys = ("held_out", "random_baseline", "epochs", "train_seconds")
    summary = {key: metrics[key] for key in keys if key in metrics}
    try:
        kg.catalog.add_index_metrics(job.dataset, int(version), {"gnn": summary})
    except (DatasetError, IndexError_):
        log.info("index version %s of %s is gone; its GNN metrics stay in gnn/metrics.json", version, job.dataset)
