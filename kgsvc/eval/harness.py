"""The evaluation harness behind ``kgsvc eval`` (issue 4 item 6; SimGRAG arXiv 2412.15272 §6, Table 4).

For one benchmark split it builds the KB graph (:meth:`kgsvc.qa.graph.QAGraph.from_triples`), an exemplar pool
from questions of the same benchmark that are **never scored**, asks each scored question with its topic-entity
brackets stripped, and reports the measures below.

**Which questions.** Each split's questions are put in a seeded random order (``sample="random"``, the default;
``numpy.random.default_rng(seed).permutation``): the first ``limit`` of that order are scored, the next
``pool_size`` of every split sharing the KB become exemplars (gold patterns from :mod:`kgsvc.eval.gold`). A random
sample matters: MetaQA's 1-hop dev file is sorted by question type (its first 905 questions are all "what movies
did X act in"), so "the first N" measures one template, with exemplars of other templates. ``sample="first"``
keeps the file order (the protocol of the numbers recorded before 2026-11-24).

**Which exemplars** (``exemplars``): ``"0"`` — none, the zero-shot setting a new user starts in; ``"12"`` — the
benchmark's fixed, committed set of twelve (``kgsvc/eval/exemplars/<benchmark>.jsonl``, written once from the KB
files, see the README there); ``"pool"`` — ``pool_size`` gold exemplars per split from unscored questions.
**Twins** never count: a scored question and an exemplar with the same topic entities and relation chain (a
relation named ``… inverse`` read as its base relation walked backwards), or the same text, are twins. With the
pool the twin is dropped from the pool; with the fixed set (which must not change) the scored question is dropped
and the next one of the sample scored instead. The report says how many (``extra["twins"]``).

Measures:

* **strict Hits@1** — the top-ranked answer equals a gold answer after folding (case, accents, ``_``, spaces);
  when the top answer is tied with others (same GSD, same number of supporting subgraphs: the path cannot tell
  them apart) the question scores the share of gold answers in the tie, the expected value of a random pick;
* **lenient Hits@1** (the papers' metric) — a gold answer is a case-insensitive substring of the answer text;
* **ceiling** — the share of questions whose gold answer is reachable in the KB along the gold relation chain
  from the topic entity (the MetaQA KB here is about 96 % of the original);
* **errors by stage** — a wrong answer is charged to ``linking`` (the topic entity is not among the linked
  nodes), ``pattern`` (the pattern's signature differs from the gold one), ``matching`` (no gold answer among the
  matched answers) or ``answer`` (a gold answer was matched but not ranked first); a failed ask to its stage;
* **latency** p50 / p95 per stage and end to end.

Entry points: :func:`run_eval` (returns an :class:`EvalReport`), :func:`splits` (the split names).
A question that raises a kgsvc error counts as wrong (stage ``error``), logged with its traceback.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kgsvc.errors import KgsvcError
from kgsvc.eval import data
from kgsvc.eval.gold import gold_exemplar
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.qa.exemplars import Exemplar, ExemplarSet, relation_key, signature
from kgsvc.qa.graph import Embed, QAGraph, load_embedder
from kgsvc.qa.link import fold
from kgsvc.qa.pipeline import QAOptions, QuestionAnswerer
from kgsvc.qa.result import Answer

if TYPE_CHECKING:
    from kgsvc.gnn.model import GNNConfig

__all__ = [
    "BENCHMARKS",
    "EXEMPLAR_SETTINGS",
    "EvalReport",
    "QuestionResult",
    "fixed_exemplars",
    "normalise",
    "run_eval",
    "splits",
    "twin_key",
]

log = logging.getLogger(__name__)

#: benchmark → split → (KB loader, question loader, dataset kind for gold patterns)
BENCHMARKS: dict[str, dict[str, tuple[Callable[[], list[tuple[str, str, str]]], Callable[[], list[data.Question]]]]] = {
    "metaqa": {f"{h}-hop": (data.metaqa_kb, functools.partial(data.metaqa_questions, h)) for h in (1, 2, 3)},
    "pq": {f"{h}H": (functools.partial(data.pq_kb, h), functools.partial(data.pq_questions, h)) for h in (2, 3)},
    "wc2014": {k: (data.wc2014_kb, functools.partial(data.wc2014_questions, k)) for k in ("1hop", "2hop", "conj")},
}
_STAGES = ("link", "pattern", "match", "answer", "total")
#: ``--exemplars``: none, the fixed committed twelve, or the pool of unscored benchmark questions.
EXEMPLAR_SETTINGS = ("0", "12", "pool")
FIXED_EXEMPLARS = Path(__file__).resolve().parent / "exemplars"


def splits(benchmark: str) -> list[str]:
    """The split names of ``benchmark``; ``ValueError`` for an unknown one."""
    if benchmark not in BENCHMARKS:
        raise ValueError(f"benchmark must be one of {sorted(BENCHMARKS)}, got {benchmark!r}")
    return list(BENCHMARKS[benchmark])


def normalise(text: str) -> str:
    """The strict-match key: folded (case, accents, ``_``), whitespace collapsed.

    >>> normalise("United_Kingdom ") == normalise("united kingdom")
    True
    """
    return " ".join(fold(text).split())


@dataclass
class QuestionResult:
    """One scored question: what was asked, the gold, what came back, and how it was judged."""

    question: str
    gold: list[str]
    qtype: str
    answers: list[str]
    text: str
    strict: float  # 1 / 0, or the share of gold answers in a tie at the top
    lenient: bool
    reachable: bool
    stage: str | None
    strategy: str
    timings: dict[str, float]
    pattern: list[list[str]] | None = None
    reason: str | None = None


@dataclass
class EvalReport:
    """Results of one split; :meth:`markdown` renders the report."""

    benchmark: str
    split: str
    results: list[QuestionResult]
    n_exemplars: int
    options: dict[str, Any]
    setup_s: float
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Counts and rates (strict, lenient, ceiling), errors by stage, latency percentiles (ms)."""
        n = len(self.results) or 1
        latency = {}
        for stage in _STAGES:
            values = [r.timings[stage] for r in self.results if stage in r.timings]
            if values:
                latency[stage] = {
                    "p50_ms": 1000 * float(np.percentile(values, 50)),
                    "p95_ms": 1000 * float(np.percentile(values, 95)),
                }
        return {
            "benchmark": self.benchmark,
            "split": self.split,
            "n": len(self.results),
            "strict_hits1": sum(r.strict for r in self.results) / n,
            "lenient_hits1": sum(r.lenient for r in self.results) / n,
            "ceiling": sum(r.reachable for r in self.results) / n,
            "errors": dict(Counter(r.stage for r in self.results if r.strict < 1 and r.stage)),
            "latency": latency,
            "exemplars": self.n_exemplars,
            "exemplar_setting": self.extra.get("exemplars", "pool"),
            "twins": self.extra.get("twins", 0),
            "setup_s": self.setup_s,
            "options": self.options,
        }

    def markdown(self) -> str:
        """A short markdown report of :meth:`summary`."""
        s = self.summary()
        lines = [
            f"### {self.benchmark} {self.split} (n = {s['n']}, exemplars {s['exemplar_setting']}: {s['exemplars']}"
            + f", {s['twins']} twins dropped"
            + (", similarity baseline" if self.options.get("w_zero") == 0 else "")
            + (f", {self.extra['sample']} sample" if self.extra.get("sample") else "")
            + (f", {100 * self.extra['drop']:g}% of the KB removed" if self.extra.get("drop") else "")
            + (", inferred edges on" if self.options.get("infer") else "")
            + ")",
            "",
            "| strict Hits@1 | lenient Hits@1 | ceiling |",
            "|---|---|---|",
            f"| {100 * s['strict_hits1']:.1f} | {100 * s['lenient_hits1']:.1f} | {100 * s['ceiling']:.1f} |",
            "",
            "Errors by stage (strict): " + (", ".join(f"{k} {v}" for k, v in sorted(s["errors"].items())) or "none"),
            "",
            "| stage | p50 ms | p95 ms |",
            "|---|---|---|",
        ]
        for stage, v in s["latency"].items():
            lines.append(f"| {stage} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} |")
        return "\n".join(lines)

    def write(self, folder: Path) -> Path:
        """Write ``<benchmark>-<split>.jsonl`` (one object per question) and ``.md``; returns the markdown path."""
        folder.mkdir(parents=True, exist_ok=True)
        tag = (f"-drop{round(100 * self.extra['drop'])}pct" if self.extra.get("drop") else "") + (
            "-infer" if self.options.get("infer") else ""
        )
        tag += f"-ex{self.extra.get('exemplars', 'pool')}" + ("-baseline" if self.options.get("w_zero") == 0 else "")
        stem = folder / f"{self.benchmark}-{self.split}{tag}"
        with stem.with_suffix(".jsonl").open("w", encoding="utf-8") as handle:
            for r in self.results:
                handle.write(json.dumps(r.__dict__, ensure_ascii=False) + "\n")
        stem.with_suffix(".json").write_text(json.dumps(self.summary(), indent=2), encoding="utf-8")
        md = stem.with_suffix(".md")
        md.write_text(self.markdown() + "\n", encoding="utf-8")
        return md


SAMPLES = ("random", "first")


def ordered(questions: Sequence[data.Question], sample: str, seed: int) -> list[data.Question]:
    """``questions`` in the order the harness takes them: seeded random (``"random"``) or file order (``"first"``).

    >>> qs = [data.Question(str(i), ("a",)) for i in range(5)]
    >>> [q.text for q in ordered(qs, "first", 0)], sorted(q.text for q in ordered(qs, "random", 0))
    (['0', '1', '2', '3', '4'], ['0', '1', '2', '3', '4'])
    """
    if sample not in SAMPLES:
        raise ValueError(f"sample must be one of {SAMPLES}, got {sample!r}")
    if sample == "first":
        return list(questions)
    return [questions[i] for i in np.random.default_rng(seed).permutation(len(questions))]


def twin_key(ex: Exemplar) -> tuple[frozenset[str], object]:
    """What makes two exemplars twins: their topic entities (folded) and relation chain (:func:`signature`, a
    relation ``r inverse`` read as ``r`` walked backwards).

    >>> a = Exemplar("q", ("Mexico",), (("Mexico", "plays_for_country_inverse", "?x"),), "?x")
    >>> b = Exemplar("p", ("mexico",), (("?x", "plays_for_country", "Mexico"),), "?x")
    >>> twin_key(a) == twin_key(b)
    True
    """

    def key(name: str) -> str:
        return relation_key(name).removesuffix(" inverse")

    triples = [(t, r, h) if relation_key(r).endswith(" inverse") else (h, r, t) for h, r, t in ex.triples]
    return frozenset(normalise(e) for e in ex.entities), signature(triples, ex.answer, key=key)


def fixed_exemplars(benchmark: str) -> list[Exemplar]:
    """The committed twelve exemplars of ``benchmark`` (``kgsvc/eval/exemplars/<benchmark>.jsonl``)."""
    from kgsvc.qa.exemplars import read_exemplars

    path = FIXED_EXEMPLARS / f"{benchmark}.jsonl"
    if not path.exists():
        raise ValueError(f"no fixed exemplar set for {benchmark!r}; expected one of {sorted(BENCHMARKS)}")
    return read_exemplars(path)


def _is_twin(ex: Exemplar, keys: set[tuple[frozenset[str], object]], texts: set[str]) -> bool:
    return twin_key(ex) in keys or normalise(ex.question) in texts


def _exemplar_pool(benchmark: str, split: str, scored: int, size: int, sample: str, seed: int) -> list[Exemplar]:
    """Exemplars of questions ``scored .. scored + size`` (in :func:`ordered` order) of every split sharing
    ``split``'s KB: never the scored ones. Logs a warning when ``split`` itself has fewer than ``size`` questions
    left after the scored ones (its templates then lack exemplars, and pattern accuracy drops with them)."""
    pool: list[Exemplar] = []
    for name, (_, load_questions) in BENCHMARKS[benchmark].items():
        if benchmark == "pq" and name != split:
            continue  # PQ-2H and PQ-3H have different KBs
        questions = ordered(load_questions(), sample, seed)
        left = questions[scored : scored + size]
        if name == split and len(left) < size:
            log.warning(
                "%s %s has %d questions and %d are scored: %d are left as exemplars of its own templates "
                "(%d wanted); score fewer questions for a fair measurement",
                benchmark,
                split,
                len(questions),
                min(scored, len(questions)),
                len(left),
                size,
            )
        for q in left:
            try:
                pool.append(gold_exemplar(q, benchmark))
            except ValueError:
                log.debug("no gold pattern for question type %r", q.qtype)
    return pool


def _gold(q: data.Question, benchmark: str) -> Exemplar | None:
    try:
        return gold_exemplar(q, benchmark)
    except ValueError:
        return None


def _reachable(graph: QAGraph, ex: Exemplar, gold: Sequence[str], label_nodes: dict[str, list[int]]) -> bool:
    """Whether a gold answer is reached from the topic entities along the gold pattern's paths (the ceiling)."""
    keys = {relation_key(label): r for r, label in enumerate(graph.relation_labels)}
    sets = []
    for entity in ex.entities:
        frontier = set(label_nodes.get(normalise(entity), []))
        for key, outgoing in _path(ex.triples, entity, ex.answer):
            r = keys.get(key)
            if r is None:
                return False
            frontier = _step(graph.snapshot, frontier, r, outgoing)
        sets.append(frontier)
    if not sets:
        return False
    wanted = {normalise(g) for g in gold}
    return any(normalise(graph.node_labels[n]) in wanted for n in set.intersection(*sets))


def _path(triples: Sequence[tuple[str, str, str]], start: str, answer: str) -> list[tuple[str, bool]]:
    adjacent: dict[str, list[tuple[str, tuple[str, bool]]]] = {}
    for h, r, t in triples:
        adjacent.setdefault(h, []).append((t, (relation_key(r), True)))
        adjacent.setdefault(t, []).append((h, (relation_key(r), False)))
    previous: dict[str, tuple[str, tuple[str, bool]] | None] = {start: None}
    queue = [start]
    while queue:
        current = queue.pop(0)
        for other, step in adjacent.get(current, []):
            if other not in previous:
                previous[other] = (current, step)
                queue.append(other)
    steps = []
    at = answer
    while (link := previous.get(at)) is not None:
        at, step = link
        steps.append(step)
    return list(reversed(steps))


def _step(snapshot: GraphSnapshot, nodes: set[int], relation: int, outgoing: bool) -> set[int]:
    out: set[int] = set()
    for v in nodes:
        out.update(snapshot.neighbors_via(v, relation, outgoing=outgoing).tolist())
    return out


def tie_credit(answer: Answer, gold: set[str]) -> float:
    """Strict Hits@1 of ``answer`` against the folded ``gold`` labels: the share of gold answers among the answers
    tied with the top one (same GSD and support); 1 or 0 without a tie.

    >>> from kgsvc.qa.result import AnswerTerm
    >>> top = [AnswerTerm(kind="uri", value=f"u{i}", label=l, gsd=0.0) for i, l in enumerate("abc")]
    >>> tie_credit(Answer(question="q", dataset="d", strategy="grounded", grounded=True, text="", answers=top), {"b"})
    0.3333333333333333
    """
    if not answer.answers:
        return 0.0
    first = answer.answers[0]
    tie = [a for a in answer.answers if abs(a.gsd - first.gsd) <= 1e-9 and a.support == first.support]
    return sum(normalise(a.label) in gold for a in tie) / len(tie)


def _judge(answer: Answer, q: data.Question, ex: Exemplar | None, reachable: bool) -> QuestionResult:
    gold = {normalise(g) for g in q.answers}
    labels = [a.label for a in answer.answers]
    strict = tie_credit(answer, gold)
    text = answer.text.casefold() if answer.grounded else ""
    lenient = any(g.casefold() in text for g in q.answers) or strict > 0
    stage: str | None = None
    pattern = None
    if answer.pattern is not None:
        pattern = [[t.head, t.relation, t.tail] for t in answer.pattern.triples]
    if strict < 1:
        if not answer.grounded:
            stage = answer.failed_stage or "error"
        elif ex is not None:
            topics = {normalise(e) for e in ex.entities}
            linked = {normalise(c.term.label) for m in answer.mentions for c in m.candidates}
            got = None
            if answer.pattern is not None:
                triples = [(t.head, t.relation, t.tail) for t in answer.pattern.triples]
                got = signature(triples, answer.pattern.answer)
            if not topics <= linked:
                stage = "linking"
            elif got != signature(ex.triples, ex.answer):
                stage = "pattern"
            elif not any(normalise(a) in gold for a in labels):
                stage = "matching"
            else:
                stage = "answer"
        else:
            stage = "answer"
    return QuestionResult(
        question=q.text,
        gold=list(q.answers),
        qtype=q.qtype,
        answers=labels[:10],
        text=answer.text,
        strict=strict,
        lenient=lenient,
        reachable=reachable,
        stage=stage,
        strategy=answer.strategy,
        timings=dict(answer.timings),
        pattern=pattern,
        reason=answer.reason,
    )


def _drop_facts(graph: QAGraph, kb: Sequence[tuple[str, str, str]], drop: float) -> tuple[QAGraph, int]:
    """``graph`` (built from all of ``kb``) with a seeded share ``drop`` of its facts removed; returns it and the
    number of facts kept.

    The MetaQA-half setting of EmbedKGQA (Saxena et al., ACL 2020): facts are removed, the **entity set stays
    the KB's** — every node keeps its id and label (so linking still finds an entity that lost every fact), only
    the snapshot's triples are the kept ones (``numpy.random.default_rng(0).permutation``, first ``1 − drop``).
    """
    keep = np.sort(np.random.default_rng(0).permutation(len(kb))[: round(len(kb) * (1.0 - drop))])
    nodes = {label: i for i, label in enumerate(graph.node_labels)}
    relations: dict[str, int] = {}
    for _, r, _ in kb:
        relations.setdefault(r, len(relations))  # QAGraph.from_triples numbers relations in this order
    ids = np.array([(nodes[kb[i][0]], relations[kb[i][1]], nodes[kb[i][2]]) for i in keep], dtype=np.int64)
    snapshot = GraphSnapshot.from_triples(
        ids[:, 0], ids[:, 1], ids[:, 2], n_nodes=graph.snapshot.n_nodes, n_relations=graph.snapshot.n_relations
    )
    return dataclasses.replace(graph, snapshot=snapshot), len(keep)


def run_eval(
    benchmark: str,
    split: str,
    *,
    limit: int = 200,
    pool_size: int = 600,
    llm: Any = None,
    embed: Embed | None = None,
    options: QAOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    drop: float = 0.0,
    gnn: Path | None = None,
    gnn_config: GNNConfig | None = None,
    gnn_features: bool = True,
    sample: str = "random",
    seed: int = 0,
    exemplar_setting: str = "pool",
) -> EvalReport:
    """Evaluate ``limit`` questions of ``benchmark``/``split``, a seeded random sample by default (module docstring).

    Parameters
    ----------
    benchmark, split : str
        See :data:`BENCHMARKS` (``metaqa``: ``1-hop``…; ``pq``: ``2H``, ``3H``; ``wc2014``: ``1hop``, ``2hop``,
        ``conj``).
    limit : int
        Scored questions: the first ``limit`` in :func:`ordered` order.
    pool_size : int
        Exemplars taken per split from the unscored questions.
    sample, seed : str, int
        ``"random"`` (seeded by ``seed``) or ``"first"`` (file order), see :func:`ordered`.
    exemplar_setting : {"0", "12", "pool"}
        Which exemplars the question path gets, twins removed (module docstring).
    llm : LLM, optional
        Passed to the pipeline.
    embed : callable, optional
        The embedder; default the bundled MiniLM.
    drop : float
        Share of the KB's facts removed (seeded, ``numpy.random.default_rng(0)``) while every entity and its label
        is kept: 0.5 is the MetaQA-half setting of EmbedKGQA (Saxena et al. 2020) — an incomplete KG
        (:func:`_drop_facts`).
    gnn : Path, optional
        A GNN model folder for inferred edges (issue 7): trained on this (possibly reduced) graph with
        ``gnn_config`` (a :class:`kgsvc.gnn.model.GNNConfig`) when it holds no model yet, then attached as the
        graph's predictor; ask with ``options.infer`` to use it. With ``gnn_features`` the model's node input
        features are the embeddings of the node labels (the same embedder as linking), so an entity that lost
        every fact still starts from its name. The node labels always give the model its name rules
        (:mod:`kgsvc.gnn.rules`).

    Raises
    ------
    ValueError
        For an unknown benchmark, split, sample or exemplar setting, or ``limit < 1``.
    """
    if split not in splits(benchmark):
        raise ValueError(f"split must be one of {splits(benchmark)} for {benchmark}, got {split!r}")
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    started = time.perf_counter()
    embed = embed or load_embedder()
    load_kb, load_questions = BENCHMARKS[benchmark][split]
    kb = load_kb()
    if drop and not 0.0 < drop < 1.0:
        raise ValueError(f"drop must be in [0, 1), got {drop}")
    graph = QAGraph.from_triples(
        kb, base_iri=f"https://kgsvc.local/{benchmark}/", embed=embed, name=f"{benchmark}-{split}"
    )
    kb_triples = len(kb)
    if drop:
        graph, kb_triples = _drop_facts(graph, kb, drop)
    gnn_seconds = 0.0
    if gnn is not None:
        from kgsvc.gnn import artifacts
        from kgsvc.gnn.predict import LinkPredictor
        from kgsvc.gnn.train import train_gnn

        if not (gnn / artifacts.METRICS).exists():
            t0 = time.perf_counter()
            features = graph.embed(list(graph.node_labels)) if gnn_features else None
            labels = list(graph.node_labels)  # the name rules (kgsvc.gnn.rules)
            train_gnn(graph.snapshot, gnn, config=gnn_config, threads=1, features=features, labels=labels)
            gnn_seconds = time.perf_counter() - t0
        graph.predictor = LinkPredictor.load(gnn, graph.snapshot)
    if exemplar_setting not in EXEMPLAR_SETTINGS:
        raise ValueError(f"exemplars must be one of {EXEMPLAR_SETTINGS}, got {exemplar_setting!r}")
    everything = ordered(load_questions(), sample, seed)
    twins = 0
    pool: list[Exemplar] = []
    if exemplar_setting == "12":
        pool = fixed_exemplars(benchmark)
        keys, texts = {twin_key(e) for e in pool}, {normalise(e.question) for e in pool}
        questions: list[data.Question] = []
        for q in everything:
            if len(questions) == limit:
                break
            gold = _gold(q, benchmark)
            if normalise(q.text) in texts or (gold is not None and twin_key(gold) in keys):
                twins += 1
                continue
            questions.append(q)
    else:
        questions = everything[:limit]
        if exemplar_setting == "pool":
            golds = [g for q in questions if (g := _gold(q, benchmark)) is not None]
            keys, texts = {twin_key(g) for g in golds}, {normalise(q.text) for q in questions}
            full = _exemplar_pool(benchmark, split, limit, pool_size, sample, seed)
            pool = [e for e in full if not _is_twin(e, keys, texts)]
            twins = len(full) - len(pool)
    exemplars = ExemplarSet.build(pool, embed)
    options = options or QAOptions()
    qa = QuestionAnswerer(graph, llm=llm, exemplars=exemplars, options=options)
    _ = qa.linker, graph.relation_vectors()
    label_nodes: dict[str, list[int]] = {}
    for n, label in enumerate(graph.node_labels):
        label_nodes.setdefault(normalise(label), []).append(n)
    setup = time.perf_counter() - started
    results = []
    for i, q in enumerate(questions):
        ex = _gold(q, benchmark)
        reachable = ex is not None and _reachable(graph, ex, q.answers, label_nodes)
        try:
            answer = qa.ask(q.text)
        except KgsvcError:
            log.exception("question %r failed", q.text)
            results.append(
                QuestionResult(
                    q.text, list(q.answers), q.qtype, [], "", False, False, reachable, "error", options.strategy, {}
                )
            )
            continue
        results.append(_judge(answer, q, ex, reachable))
        if progress is not None:
            progress(i + 1, len(questions))
    extra = {
        "sample": sample if sample == "first" else f"random (seed {seed})",
        "drop": drop,
        "kb_triples": kb_triples,
        "gnn": str(gnn) if gnn else None,
        "gnn_train_s": round(gnn_seconds, 1),
        "exemplars": exemplar_setting,
        "twins": twins,
    }
    return EvalReport(benchmark, split, results, len(exemplars), dict(options.__dict__), setup, extra)
