"""``kgsvc.KG``: the embedded SDK — one data dir holds the store, the metadata database and the indexes.

>>> import tempfile, kgsvc
>>> with kgsvc.KG.open(tempfile.mkdtemp()) as kg:
...     _ = kg.load(kgsvc.sample_path(), dataset="sample")
...     kg.sparql("ASK { ?s ?p ?o }", dataset="sample").boolean
True
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

from kgsvc import faults, interrupt, jobs, recovery, torch_threads
from kgsvc.catalog import Catalog, DatasetChanged
from kgsvc.db import open_database
from kgsvc.dispatch import CeleryDispatcher, Dispatcher, InProcessDispatcher
from kgsvc.errors import DatasetError, IndexError_, IngestError, Interrupted, KgsvcError, LinkError
from kgsvc.gnn import artifacts
from kgsvc.index.build import GNN_FOLDER, build_index, remove_dataset_indexes
from kgsvc.index.dataset_index import DatasetIndex, open_index
from kgsvc.ingest import load_file
from kgsvc.ingest.loader import detect_format
from kgsvc.ingest.subjects import data_quads, file_graphs, file_subjects, update_subjects
from kgsvc.qa.pipeline import QAOptions
from kgsvc.qa.result import Answer
from kgsvc.qa.service import answerer_for
from kgsvc.schemas import DatasetInfo, DatasetStats, JobInfo, LoadResult, RdfTerm, SimilarNode, SparqlResult
from kgsvc.settings import Settings
from kgsvc.store import (
    DATASET_GRAPH_PREFIX,
    EmbeddedStore,
    QuerySolutions,
    RdfFormat,
    Store,
    dataset_of_graph,
    format_from_name,
    open_store,
    to_result,
)
from kgsvc.store.graph_scope import update_scope
from kgsvc.store.sparql_limits import sparql_depth, sparql_operators

__all__ = ["KG"]

log = logging.getLogger(__name__)


class KG:
    """The embedded knowledge-graph service.

    Open it with :meth:`KG.open`; the constructor does no I/O. Methods mirror :class:`kgsvc.Client`.
    """

    def __init__(
        self, settings: Settings, store: Store, catalog: Catalog, dispatcher: Dispatcher | None = None
    ) -> None:
        self.settings = settings
        self.store = store
        self.catalog = catalog
        self._stop = threading.Event()
        self._abandoned = False
        self.dispatcher: Dispatcher = dispatcher or InProcessDispatcher(self._job_registry(), stop_event=self._stop)
        #: What startup recovery found and did when :meth:`open` opened the data dir (:mod:`kgsvc.recovery`).
        self.recovery: recovery.RecoveryReport | None = None
        self._indexes: dict[str, DatasetIndex] = {}
        self._indexes_lock = threading.Lock()

    def _job_registry(self) -> dict[str, Callable[..., Any]]:
        return {
            "kgsvc.ingest": functools.partial(jobs.ingest, self),
            "kgsvc.build_index": functools.partial(jobs.build_index, self),
            "kgsvc.ask_batch": functools.partial(jobs.ask_batch, self),
            "kgsvc.train_gnn": functools.partial(jobs.train_gnn, self),
            "kgsvc.embed_chunks": functools.partial(jobs.embed_chunks, self),
        }

    @classmethod
    def open(cls, data_dir: str | Path | None = None, *, settings: Settings | None = None) -> KG:
        """Open (creating if needed) the data dir: store, migrated metadata database, index folder.

        ``data_dir`` overrides ``settings.data_dir``; settings default to the ``KGSVC_*`` environment. A data dir
        left by a process that died is recovered first (:func:`kgsvc.recovery.recover`; the report is
        :attr:`recovery`): counts follow the store, dead jobs and builds end failed, orphaned files are deleted, and
        with ``auto_index`` the stale indexes get a build queued.
        """
        settings = settings or Settings()
        if data_dir is not None:
            settings = settings.model_copy(update={"data_dir": Path(data_dir).expanduser().resolve()})
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        torch_threads.configure(settings.torch_threads)  # before any model loads (applied lazily: no torch import)
        store = open_store(settings)
        catalog = Catalog(store, open_database(settings.sqlalchemy_url), index_dir=settings.index_dir)
        dispatcher = None
        if settings.broker_url is not None:
            dispatcher = CeleryDispatcher(settings.broker_url, settings.result_backend)
        kg = cls(settings, store, catalog, dispatcher)
        if settings.auto_index:
            catalog.subscribe(kg._schedule_index)
        faults.arm(store.path if isinstance(store, EmbeddedStore) else None)
        try:
            kg.recovery = recovery.recover(
                catalog, settings, queue_build=kg._queue_build if settings.auto_index else None
            )
        except BaseException:  # release the store's LOCK; the marker stays, so the next open recovers again
            kg.stop()
            kg._release(keep_marker=True)
            raise
        return kg

    def _queue_build(self, dataset: str) -> None:
        self.dispatcher.submit("kgsvc.build_index", dataset=dataset, store_version=None)

    def _schedule_index(self, event: DatasetChanged) -> None:
        """The auto-index listener: queue ``kgsvc.build_index`` for the changed dataset and its data version."""
        self.dispatcher.submit("kgsvc.build_index", dataset=event.dataset, store_version=event.store_version)

    def stop(self, timeout: float | None = 5.0) -> bool:
        """Stop the work in progress for a quick, clean :meth:`close` (``kgsvc serve`` and the CLI on SIGTERM).

        Queued jobs are dropped, and the running job stops at its next safe point (:mod:`kgsvc.interrupt`: between
        index build stages and embedding batches, between chunks of a load), failing the way a rejected input
        fails. Waits up to ``timeout`` seconds for it and returns whether it stopped. A job that did not (stuck in
        code with no stop check, such as loading a model) is abandoned: :meth:`close` then releases what it can
        without waiting for it, and leaves the store to the process's exit (the OS releases its ``LOCK``) and the
        data dir to the next :meth:`open`'s recovery. What is dropped is picked up by that open too: stale
        indexes are rebuilt, never-started load jobs end failed.
        """
        self._stop.set()
        stopped = self.dispatcher.stop(timeout)
        self._abandoned = self._abandoned or not stopped
        return stopped

    def close(self) -> None:
        """Wait for the jobs submitted in this process, then release everything (the store's ``LOCK`` too).

        Interrupted while waiting (SIGTERM in the CLI), it stops the running job (:meth:`stop`), closes all the
        same, and re-raises.
        """
        try:
            if not self._abandoned:
                self.dispatcher.wait()
        except BaseException:
            self.stop()
            raise
        finally:
            self._release()

    def _release(self, *, keep_marker: bool = False) -> None:
        self.dispatcher.close(wait=not self._abandoned)
        self._drop_indexes()
        if self._abandoned:  # the job may still use the store: no close, and the marker stays for recovery
            log.warning("closing %s with a job that did not stop; the next open recovers", self.settings.data_dir)
            self.catalog.sessions.kw["bind"].dispose()
            return
        self.store.close()
        self.catalog.sessions.kw["bind"].dispose()
        if not keep_marker:
            recovery.close_marker(self.settings, self.store)

    def __enter__(self) -> KG:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        if exc_type is not None and issubclass(exc_type, Interrupted | KeyboardInterrupt):
            self.stop()
        self.close()

    # -- data -------------------------------------------------------------------------------------------------

    def load(
        self,
        path: str | Path,
        *,
        dataset: str,
        format: str | None = None,
        base_iri: str | None = None,
        progress: Callable[[int, int | None], None] | None = None,
        replace: bool = False,
        job_id: str | None = None,
        name_predicates: Sequence[str] | None = None,
        graph: str | None = None,
    ) -> LoadResult:
        """Load one file into ``dataset`` (created if new); all or nothing.

        The file's triples (and a TriG / N-Quads file's default graph) go to the dataset's graph; a named graph of a
        file of quads stays that named graph, which the dataset then owns (its endpoint's named graphs,
        :mod:`kgsvc.api.scope`) — or the load fails with ``DatasetError`` before anything is written when
        another dataset owns it. ``graph`` (an IRI) loads the file's triples into that named graph of the dataset
        instead of its default graph (the Graph Store Protocol's ``?graph=``), which the dataset then owns too.

        Relative IRIs of an RDF file resolve against ``base_iri``, by default the base kgsvc mints the
        dataset's IRIs under: ``https://kgsvc.local/{dataset}/`` (or the dataset's own ``base_iri``).
        ``name_predicates`` (IRIs), when given, become the dataset's configured name predicates
        (:meth:`set_name_predicates`) before the index is rebuilt.

        ``job_id`` names an existing job row to run under (as :meth:`submit_load` makes); else one is made.

        ``replace=True`` replaces the triples of the dataset's graph (or of ``graph``) with the file's in one update
        (the Graph Store Protocol's PUT): the file is first loaded into a staging graph, so a rejected file changes
        nothing.

        Raises
        ------
        IngestError
            Malformed, empty, binary or unknown-format input; the dataset is unchanged (a dataset the load
            created is removed again).
        """
        path = Path(path)
        created = not self.catalog.exists(dataset)
        info = self.catalog.create(dataset, base_iri=base_iri, name_predicates=name_predicates, exist_ok=True)
        entity_base = info.base_iri or base_iri or f"https://kgsvc.local/{dataset}/"
        job = job_id or self.catalog.create_job("ingest", dataset=dataset, params={"file": str(path), "format": format})
        home = graph or info.graph  # where the file's triples go
        target = f"{recovery.STAGING_GRAPH_PREFIX}{uuid.uuid4().hex}" if replace else home
        if graph is not None:  # the index reads the default graph only: no subject of it changes
            self.catalog.intend_change(dataset, set())
            subjects: set[str] | None = set()
        else:
            subjects = None if replace else self._load_subjects(path, dataset, format, base_iri, entity_base)
        removed = 0

        def checked(done: int, total: int | None) -> None:
            interrupt.check(f"the load of {path.name} into {dataset!r}")  # KG.stop: fail like a rejected file
            if progress is not None:
                progress(done, total)

        # the bulk path into an empty dataset is not one transaction: should this process die before the file is all
        # in the store, startup recovery drops the graph again, as the loader does for a rejected file
        rollback = not replace and graph is None and info.triples == 0 and path.is_file()
        rollback = rollback and path.stat().st_size > self.settings.bulk_threshold_bytes
        with self._dropped_on_failure(dataset, created), self.catalog.running(job) as update:
            if rollback:
                update(counts={recovery.ROLLBACK_ON_CRASH: True})
            named = self._file_graphs(path, format, base_iri or entity_base) | ({graph} if graph else set())
            named -= {info.graph}
            claimed = self.catalog.claim_graphs(dataset, named)  # released again if the load fails
            try:
                report = load_file(
                    self.store,
                    path,
                    graph=target,
                    fmt=format,
                    base_iri=base_iri,
                    entity_base=entity_base,
                    bulk_threshold=self.settings.bulk_threshold_bytes,
                    bulk_piece_bytes=self.settings.bulk_piece_bytes,
                    progress=checked,
                    named=named - {target},
                )
                if rollback:  # all in the store: from here recovery keeps it and counts it
                    update(counts={recovery.ROLLBACK_ON_CRASH: False})
                if replace:
                    removed = self.store.count(home)
                    self.store.update(f"DROP SILENT GRAPH <{home}> ; ADD SILENT GRAPH <{target}> TO GRAPH <{home}>")
            except BaseException:
                self.catalog.release_graphs(dataset, claimed)
                raise
            finally:
                if replace:
                    self.store.drop(target)
            faults.kill_point("load-stored")
            update(counts={"triples_added": report.triples_added, "bytes": report.bytes_read, "bulk": report.bulk})
        version = self.catalog.mark_changed(
            dataset,
            cause="replace" if replace else "load",
            triples_added=report.triples_added,
            triples_removed=removed,
            triples=report.triples_total if graph is None else None,
            subjects=None if report.bulk and graph is None else subjects,
        )
        return LoadResult(
            dataset=dataset,
            job_id=job,
            triples_added=report.triples_added,
            triples_total=report.triples_total,
            bytes_read=report.bytes_read,
            seconds=report.seconds,
            bulk=report.bulk,
            format=report.format,
            store_version=version,
        )

    @contextlib.contextmanager
    def _dropped_on_failure(self, dataset: str, created: bool) -> Iterator[None]:
        """Remove ``dataset`` again when the block fails and ``created`` says the block's caller made it."""
        try:
            yield
        except BaseException:
            if created and self.catalog.exists(dataset):
                self.catalog.drop(dataset)
            raise

    def _file_graphs(self, path: Path, format: str | None, base_iri: str) -> set[str]:
        """The named graphs of a file of quads (TriG, N-Quads…), which the dataset it loads into owns from then on;
        empty for a file that does not parse (the load then reports what is wrong)."""
        try:
            return file_graphs(path, detect_format(path, format), base_iri=base_iri)
        except (OSError, IngestError):
            return set()

    def _load_subjects(
        self, path: Path, dataset: str, format: str | None, base_iri: str | None, entity_base: str
    ) -> set[str] | None:
        """The subjects of a file at most ``bulk_threshold_bytes`` long, written to the change log of the next
        data version before the load (so a load that dies half-way leaves them there); ``None`` for a larger file
        (logged as not known: bulk loads are not atomic) or one that does not parse (the load then reports what is
        wrong and changes nothing)."""
        try:
            if path.stat().st_size > self.settings.bulk_threshold_bytes:
                self.catalog.intend_change(dataset, None)  # a bulk load killed half-way: the next build is full
                return None
            subjects = file_subjects(path, detect_format(path, format), base_iri=base_iri, entity_base=entity_base)
        except (OSError, IngestError):
            return None  # the (all-or-nothing) load fails the same way and changes nothing
        self.catalog.intend_change(dataset, subjects)
        return subjects

    def submit_load(
        self, path: str | Path, *, dataset: str, format: str | None = None, base_iri: str | None = None
    ) -> JobInfo:
        """Queue the load of ``path`` (a path the workers can read) and return its job at once.

        Poll :meth:`job` for its state; in the embedded mode it runs on a background thread.
        """
        path = Path(path).resolve()
        self.catalog.create(dataset, base_iri=base_iri, exist_ok=True)
        job_id = self.catalog.create_job("ingest", dataset=dataset, params={"file": str(path), "format": format})
        self.dispatcher.submit(
            "kgsvc.ingest", job_id=job_id, dataset=dataset, path=str(path), format=format, base_iri=base_iri
        )
        return self.catalog.job(job_id)

    def submit_ask_batch(self, questions: Sequence[str], *, dataset: str, **options: Any) -> JobInfo:
        """Queue ``questions`` about ``dataset`` as one ``ask_batch`` job and return it at once.

        The job row's progress counts the questions answered; when it has succeeded its ``counts["answers"]``
        holds the answer texts in question order (the full answers are the Celery task's result). ``options``
        are :meth:`ask` options. Raises ``DatasetError`` if the dataset is unknown.
        """
        questions = list(questions)
        self.catalog.get(dataset)
        job_id = self.catalog.create_job("ask_batch", dataset=dataset, params={"questions": len(questions)})
        self.dispatcher.submit(
            "kgsvc.ask_batch", job_id=job_id, dataset=dataset, questions=questions, options=options or None
        )
        return self.catalog.job(job_id)

    def submit_train_gnn(self, dataset: str, *, version: int | None = None) -> JobInfo | None:
        """Queue the GNN training of an index version (default: the current one) and return its job, or ``None``
        when that version already has a trained model.

        The model is written to the version's ``gnn/`` folder (:mod:`kgsvc.index.build`) with
        ``Settings.gnn_options`` and the version's node label embeddings as node input features, starting from the
        newest earlier version's model when the graph changed little (:func:`kgsvc.jobs.train_gnn`);
        ``ask(..., infer=True)`` uses it once the job has succeeded. Raises
        ``DatasetError`` if the dataset is unknown, ``IndexError_`` if it has no complete index version.
        """
        if version is None:
            version = self.index(dataset).version

        def trained(v: int) -> bool:
            return (self.catalog.index_path(dataset, v) / GNN_FOLDER / artifacts.METRICS).exists()

        if trained(version):
            return None
        folder = self.catalog.index_path(dataset, version)
        earlier = [
            v.version for v in self.catalog.index_versions(dataset) if v.version < version and trained(v.version)
        ]
        job_id = self.catalog.create_job("train_gnn", dataset=dataset, params={"index_version": version})
        self.dispatcher.submit(
            "kgsvc.train_gnn",
            job_id=job_id,
            snapshot=str(folder / "snapshot"),
            output=str(folder / GNN_FOLDER),
            options=dict(self.settings.gnn_options) or None,
            features=str(folder),
            warm_from=str(self.catalog.index_path(dataset, earlier[-1])) if earlier else None,
        )
        return self.catalog.job(job_id)

    def wait(self, timeout: float | None = None) -> None:
        """Wait until the jobs submitted in this process have finished (embedded mode)."""
        self.dispatcher.wait(timeout)

    def sparql(self, query: str, *, dataset: str | None = None) -> SparqlResult:
        """Run a SPARQL query; with ``dataset`` its graph is the default graph and its named graphs are the ones it
        owns (as at its endpoint), else the default graph is the union of all graphs.

        Raises ``QueryError`` for a malformed query or one over ``max_result_rows``; ``DatasetError`` if unknown.
        """
        if dataset is not None:
            graph = self.catalog.get(dataset).graph
            result = self.store.query(query, default_graph=[graph], named_graphs=self.catalog.named_graphs(dataset))
        else:
            result = self.store.query(query, union_default_graph=True)
        return to_result(result, max_rows=self.settings.max_result_rows)

    def update(self, update: str, *, base_iri: str | None = None) -> list[str]:
        """Run a SPARQL update (all or nothing); returns the datasets whose data changed. Relative IRIs in it
        resolve against ``base_iri`` (``None``: they are an error).

        Dataset graphs are named ``<urn:kgsvc:dataset:NAME>`` in the update text. The datasets an update may
        change are read from its text (:func:`kgsvc.store.graph_scope.update_scope`): those owning a graph it
        writes, their default graph or a named graph of theirs; when they cannot be read (``DROP ALL``,
        ``GRAPH ?g`` in a template, …) every dataset counts. A named graph of a dataset that the update dropped is
        no longer the dataset's. Each of them whose triple count (all its graphs) moved,
        or that an update deleting and inserting may have changed at the same count, gets a dataset-changed
        event (and so an index build).

        Raises
        ------
        DatasetError
            The update names the graph of a dataset that does not exist: create the dataset first (``kgsvc load``,
            ``POST /datasets``). Nothing is written.
        """
        scope = update_scope(update, base=base_iri)
        unknown = sorted(
            name for name in map(dataset_of_graph, scope.writes) if name is not None and not self.catalog.exists(name)
        )
        if unknown:
            raise DatasetError(
                f"unknown dataset {unknown[0]!r}: the update writes its graph <{DATASET_GRAPH_PREFIX}{unknown[0]}>, "
                "but no dataset of that name exists; create it first (kgsvc load, or POST /datasets)",
                dataset=unknown[0],
            )
        if scope.every_write:
            names = [d.name for d in self.catalog.list()]
        else:
            names = sorted(set(self.catalog.graph_owners(scope.writes).values()))
        graphs = {n: [self.catalog.get(n).graph, *self.catalog.named_graphs(n)] for n in names}
        # one INSERT DATA / DELETE DATA: what changed is counted on its quads (O(quads)), not on the graphs (O(graph))
        quads = data_quads(update)
        present = self._present(quads) if quads is not None else None
        # else (not one INSERT/DELETE DATA, or its quads too large for the text limits) the graphs are counted
        before = {n: [self.store.count(g) for g in graphs[n]] for n in names} if present is None else {}
        subjects = update_subjects(update)  # None: not one INSERT/DELETE DATA, the index builds in full
        for name in names:
            self.catalog.intend_change(name, None if subjects is None else subjects.get(name, set()))
        self.store.update(update, base_iri=base_iri)
        if scope.every_write:
            self._drop_orphan_graphs()
        # a named graph the update dropped is no longer the dataset's (another may claim it); listing the store's
        # graphs only when some dataset here has named graphs
        stored = set(self.store.graphs()) if any(len(g) > 1 for g in graphs.values()) else set()
        # the same texts as before the update: within the limits again
        now = self._present(quads) if quads is not None and present is not None else None
        changed = []
        for name in names:
            self.catalog.release_graphs(name, [g for g in graphs[name][1:] if g not in stored])
            if present is not None and now is not None:
                deltas = [now.get(g, 0) - present.get(g, 0) for g in graphs[name]]
                count: dict[str, int | None] = {"triples": None, "triples_delta": deltas[0]}
            else:
                counts = [self.store.count(g) for g in graphs[name]]
                deltas = [a - b for a, b in zip(counts, before[name], strict=True)]
                count = {"triples": counts[0], "triples_delta": None}  # the dataset's own graph's count
            if any(deltas) or scope.replaces:
                self.catalog.mark_changed(
                    name,
                    cause="update",
                    triples_added=max(0, sum(deltas)),
                    triples_removed=max(0, -sum(deltas)),
                    **count,
                    subjects=None if subjects is None else subjects.get(name, set()),
                )
                changed.append(name)
        return changed

    def _present(self, quads: Sequence[tuple[str, str, str, str]]) -> dict[str, int] | None:
        """Graph IRI -> how many of ``quads`` the store holds in it, or ``None`` when a quad alone is too large for
        the store's SPARQL text limits (:mod:`kgsvc.store.sparql_limits`; a literal full of brackets). ``VALUES``
        queries in batches that stay within the limits (a large ``INSERT DATA`` is counted in several); O(quads)
        index look-ups. The same quads give the same answer (``None`` or not) before and after an update."""
        budget = self.store.sparql_max_operators // 2  # the rest for the query around the rows
        batches: list[list[str]] = [[]]
        weight = 0.0
        for g, s, p, o in quads:
            row = f"(<{g}> {s} {p} {o})"
            cost = sparql_operators(row)
            if cost > budget or sparql_depth(row) + 2 > self.store.sparql_max_depth:  # the row sits 2 deep
                return None
            if weight + cost > budget:
                batches.append([])
                weight = 0.0
            batches[-1].append(row)
            weight += cost
        counts: dict[str, int] = {}
        for rows in filter(None, batches):
            values = " ".join(rows)
            query = (
                f"SELECT ?g (COUNT(*) AS ?n) WHERE {{ VALUES (?g ?s ?p ?o) {{ {values} }} GRAPH ?g {{ ?s ?p ?o }} }} "
                "GROUP BY ?g"
            )
            for row in cast(QuerySolutions, self.store.query(query)):
                counts[str(row[0].value)] = counts.get(str(row[0].value), 0) + int(row[1].value)
        return counts

    def _drop_orphan_graphs(self) -> None:
        """Remove dataset graphs that an update with variable graphs wrote for datasets that do not exist."""
        for graph in self.store.graphs():
            name = dataset_of_graph(graph)
            if name is not None and not self.catalog.exists(name):
                log.warning("removing graph <%s>: an update wrote it, but dataset %r does not exist", graph, name)
                self.store.drop(graph)

    def dump(self, dataset: str, *, format: str = "nt", graph: str | None = None) -> bytes:
        """Serialise the triples of a dataset's graph, or of its named graph ``graph`` (``nt``, ``ttl``, ``rdf``,
        ``jsonld``, …).

        Raises ``DatasetError`` if the dataset is unknown or ``graph`` is not a named graph of it.
        """
        fmt = format_from_name(format)
        if not isinstance(fmt, RdfFormat):
            raise ValueError(f"cannot write a dataset as {format!r}: expected nt, ttl, rdf, jsonld, n3, nq or trig")
        if graph is not None and graph not in self.catalog.named_graphs(dataset):
            raise DatasetError(f"graph <{graph}> is not a named graph of dataset {dataset!r}", dataset=dataset)
        return self.store.dump(graph or self.catalog.get(dataset).graph, fmt)

    # -- catalog ----------------------------------------------------------------------------------------------

    def datasets(self) -> list[DatasetInfo]:
        return self.catalog.list()

    def stats(self, dataset: str) -> DatasetStats:
        return self.catalog.stats(dataset)

    def set_name_predicates(self, dataset: str, predicates: Sequence[str]) -> DatasetInfo:
        """Configure the predicates (IRIs, most preferred first) that name the nodes of ``dataset``; empty: back to
        ``Settings.name_predicates`` and discovery (:mod:`kgsvc.index.names`). The dataset counts as changed, so
        its index is rebuilt (at once with ``auto_index``).

        Raises
        ------
        DatasetError
            When the dataset is unknown or a predicate is not an absolute IRI.
        """
        info = self.catalog.set_name_predicates(dataset, predicates)
        self.catalog.mark_changed(dataset, cause="names")
        return info

    def drop(self, dataset: str) -> None:
        """Remove a dataset with its graph, metadata and indexes. Raises ``DatasetError`` if unknown."""
        if not self.catalog.exists(dataset):
            raise DatasetError(f"unknown dataset {dataset!r}", dataset=dataset)
        self._drop_indexes(dataset)
        remove_dataset_indexes(self.settings, self.catalog, dataset)
        self.catalog.drop(dataset)

    # -- indexes ----------------------------------------------------------------------------------------------

    def build_index(self, dataset: str, *, store_version: int | None = None) -> int | None:
        """Build the dataset's index version for its current data, in the calling thread; returns the current
        version. Does nothing when the newest complete version covers ``store_version`` (default: the
        dataset's data version). Raises ``DatasetError`` if unknown, ``IndexError_`` if the build failed.
        """
        return build_index(self.store, self.catalog, self.settings, dataset, store_version=store_version)

    def index(self, dataset: str) -> DatasetIndex:
        """The loaded current index version of ``dataset`` (cached; reopened when a newer one is current).

        Raises ``IndexError_`` naming the dataset when no version is complete yet.
        """
        current = self.catalog.current_index_version(dataset)
        with self._indexes_lock:
            cached = self._indexes.get(dataset)
            if cached is not None and current is not None and cached.version == current.version:
                return cached
            fresh = open_index(self.settings, self.catalog, dataset)
            self._indexes[dataset] = fresh
        # the replaced version is not closed here: a query on another thread may still use it; it closes when
        # the last reference goes (its files stay until the next version completes, see kgsvc.index.build)
        return fresh

    def preload(self) -> list[str]:
        """Load what the first question would: the embedding model, and for every dataset with a complete index
        version its index, its question answerer and one question's code path (a warm-up ask whose answer is
        discarded). ``kgsvc serve`` calls it before it answers ``/health``; returns the datasets made ready.
        """
        from kgsvc.index.embed import Embedder

        Embedder(self.settings.embedding_model, device=self.settings.embedding_device).encode(["warm up"])
        ready = []
        for info in self.datasets():
            if self.catalog.current_index_version(info.name) is None:
                continue
            try:
                self.ask("what is this", dataset=info.name)
            except KgsvcError:
                pass  # a question it cannot ground still loaded the index and the answerer
            ready.append(info.name)
        return ready

    def ask(self, question: str, *, dataset: str, **options: Any) -> Answer:
        """Answer ``question`` from ``dataset`` with evidence and SPARQL (DESIGN §5; :mod:`kgsvc.qa.pipeline`).

        ``options`` are :class:`kgsvc.qa.pipeline.QAOptions` fields (``strategy``, ``k``, ``verbalise``, …).
        Raises ``DatasetError`` if unknown, ``IndexError_`` if no index version is complete, ``TypeError`` for
        an unknown option, ``ValueError`` for an empty question.
        """
        opts = QAOptions.from_kwargs(**options)
        return answerer_for(self, dataset, opts).ask(question, **options)

    # -- exemplars -------------------------------------------------------------------------------------------

    def exemplars(self, dataset: str) -> list[dict[str, Any]]:
        """The dataset's user-supplied exemplars (question → pattern; :mod:`kgsvc.qa.exemplar_store`) as JSON
        objects. Raises ``DatasetError`` if the dataset is unknown."""
        from kgsvc.qa.exemplar_store import exemplar_path, list_exemplars

        self.catalog.get(dataset)
        return [e.to_json() for e in list_exemplars(exemplar_path(self.settings.data_dir, dataset))]

    def add_exemplars(self, dataset: str, exemplars: Sequence[dict[str, Any]]) -> int:
        """Add exemplars (objects with ``question``, ``entities``, ``triples``, ``answer``; one with a question
        already there replaces it); the next ``ask`` uses them. Returns how many the dataset has now.

        Raises ``DatasetError`` if the dataset is unknown, ``ValueError`` naming an invalid exemplar (nothing is
        added then).
        """
        from kgsvc.qa.exemplar_store import add_exemplars, exemplar_path, parse_exemplars

        self.catalog.get(dataset)
        parsed = parse_exemplars(exemplars)
        return len(add_exemplars(exemplar_path(self.settings.data_dir, dataset), parsed))

    def remove_exemplars(self, dataset: str, questions: Sequence[str]) -> int:
        """Remove the exemplars with these question texts; returns how many were removed.

        Raises ``DatasetError`` if the dataset is unknown.
        """
        from kgsvc.qa.exemplar_store import exemplar_path, remove_exemplars

        self.catalog.get(dataset)
        return remove_exemplars(exemplar_path(self.settings.data_dir, dataset), questions)

    def similar(self, term: str, *, dataset: str, k: int = 10, literals: bool = False) -> list[SimilarNode]:
        """The ``k`` nodes of ``dataset`` nearest to ``term`` by GNN embedding, nearest first
        (:meth:`kgsvc.gnn.predict.LinkPredictor.similar`: cosine of the R-GCN node embeddings, stored in Qdrant);
        literal nodes (labels, years, …) only with ``literals=True``.

        ``term`` is an IRI (``http://…`` or ``<http://…>``) or any N-Triples term text. Raises ``DatasetError`` if
        the dataset is unknown, ``IndexError_`` if it has no complete index version or its current version has no
        trained GNN (see :meth:`submit_train_gnn`), ``LinkError`` if the term is not a node of the graph,
        ``ValueError`` if ``k < 1``.
        """
        graph = answerer_for(self, dataset, QAOptions()).graph
        if graph.predictor is None:
            raise IndexError_(
                f"dataset {dataset!r} has no trained GNN for its current index version "
                "(with KGSVC_GNN_TRAIN=true one is trained after every index build)",
                dataset=dataset,
            )
        text = term if term[:1] in ("<", '"', "_") else f"<{term}>"
        node = graph.node_id(text)
        if node is None:
            raise LinkError(f"{term!r} is not a node of dataset {dataset!r}")
        wanted = k
        while True:  # fetch more until k nodes of the wanted kinds are found or the graph is exhausted
            hits = graph.predictor.similar(node, k=wanted)
            kept = [(n, d) for n, d in hits if literals or not graph.node_terms[n].startswith('"')]
            if len(kept) >= k or len(hits) < wanted:
                break
            wanted *= 4
        result = []
        for other, distance in kept[:k]:
            found = graph.node_term(other)
            rdf = RdfTerm(type=found.kind, value=found.value, datatype=found.datatype, lang=found.lang)
            result.append(SimilarNode(term=rdf, label=found.label, distance=distance))
        return result

    def _drop_indexes(self, dataset: str | None = None) -> None:
        with self._indexes_lock:
            names = [dataset] if dataset is not None else list(self._indexes)
            dropped = [self._indexes.pop(name) for name in names if name in self._indexes]
        for index in dropped:
            index.close()

    def job(self, job_id: str) -> JobInfo:
        return self.catalog.job(job_id)

    def jobs(self, *, dataset: str | None = None) -> list[JobInfo]:
        return self.catalog.jobs(dataset=dataset)

    def on_change(self, listener: Callable[[DatasetChanged], None]) -> None:
        """Subscribe to dataset-changed events."""
        self.catalog.subscribe(listener)
