"""Grounded candidate patterns: the patterns that actually exist around the linked entities (GraphRAFT §4.2).

GraphRAFT enumerates, from the database, the finite set of queries around the question's entities and lets
the model choose only among them, so the chosen query is executable and grounded by construction. Here the
candidates are enumerated on the graph snapshot (never by SPARQL round trips), in two templates:

* **paths** — from one linked node, relation paths of 1–``max_hops`` hops, each step a relation walked in stored
  direction (``outgoing``) or against it. A path is a **walk**, read as SPARQL reads its pattern (homomorphism):
  it may revisit nodes, the start node included ("the nationality of X 's daughter 's mother" walks X → daughter →
  X → nationality), walk straight back along the triple it just came by, and go round a self-loop, in either
  direction, as often as the hop limit allows ("the tracks of the tracks of X 's tracks" = X when X's only track
  is X itself); PathQuestion's gold answers are exactly the ends of such walks. Its end set may contain the start
  node. With ``backtrack=False`` (the injective matcher of ``QAOptions.node_reuse=False``) a path is instead a
  non-backtracking walk that takes a self-loop only in its stored direction, as before walks were matched;
* **conjunctions** — two linked nodes of different mentions, a branch from each, meeting at a node other than
  both: one hop each, or (since 2026-11-26) one of them two hops, at most ``max_hops`` steps in all ("which
  laureates born in X won the prize in *physics*": born in X; won a prize whose category is physics). A two-hop
  branch starts with the step that most of its anchor's edges are (an attribute's value, named without its
  relation) and is one that some walk takes without going straight back. On request (``one_anchor``, since
  2026-11-26 (nob): the question coordinates two relation words), also two different one-step branches from one
  linked node ("which laureates were both *born* and *died* in X").

A candidate is identified by its branches ``(anchor node, steps)``; its **signature** (relation keys instead of
ids, anchors dropped) is what exemplars vote on (:func:`kgsvc.qa.exemplars.signature` gives the same for an
exemplar's pattern). :func:`candidate_pattern` turns a candidate into a :class:`~kgsvc.retrieval.Pattern` whose
answer node is the path's end (or the meeting node).

Entry point: :func:`enumerate_candidates`.

Notes
-----
Expansion works on node *sets* per signature (vectorised CSR gathers), so the cost is bounded by the number of
CSR entries read, not by the number of paths: a set expansion reading more than ``max_entries`` entries is
skipped and the enumeration is flagged ``truncated``. The snapshot stores a self-loop once, as an outgoing entry;
walks also take it as an incoming one. With ``backtrack=False``, "not straight back" is exact where the set two
steps back is one node (always so for the start node: ``r →`` then ``← r`` never returns to it); elsewhere a
backtracking walk may add ends, and the GSD match of the chosen pattern (distinct triples) decides.

A candidate's pattern (:func:`candidate_pattern`) is its walk with a fresh variable per step; the directed matcher
with triple and node reuse (:func:`kgsvc.retrieval.top_k_subgraphs`) matches exactly the walks enumerated here,
one stored triple per step, the same triple for several steps where the walk goes back or round a loop.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kgsvc import interrupt
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.qa.exemplars import Signature
from kgsvc.retrieval.pattern import Pattern, PatternEdge, PatternNode

__all__ = [
    "Branch",
    "CandidatePattern",
    "Enumeration",
    "branch_walk",
    "candidate_ends",
    "candidate_pattern",
    "enumerate_candidates",
    "enumerate_paths",
    "reverse",
    "shares_value",
    "step_share",
    "steps_into",
    "verbalise",
    "walk_nodes",
]

RelStep = tuple[int, bool]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Branch:
    """One relation path from ``anchor`` (a KG node linked from mention ``mention``)."""

    mention: int
    anchor: int
    steps: tuple[RelStep, ...]


@dataclass(frozen=True, slots=True)
class CandidatePattern:
    """A grounded candidate: one branch (path) or two (conjunction) ending at the answer; ``n_answers`` ends.

    ``detour`` marks a path whose every walk goes straight back along a triple somewhere (no non-backtracking walk
    has its steps): its ends are those of the walk without the there-and-back pair, two steps shorter.
    """

    branches: tuple[Branch, ...]
    n_answers: int
    detour: bool = False

    @property
    def kind(self) -> str:
        return "conjunction" if len(self.branches) > 1 else f"path{len(self.branches[0].steps)}"

    def signature(self, relation_keys: Sequence[str]) -> Signature:
        """Relation keys per branch, sorted (comparable with an exemplar's signature)."""
        return tuple(sorted(tuple((relation_keys[r], out) for r, out in b.steps) for b in self.branches))


@dataclass(frozen=True, slots=True)
class Enumeration:
    """The candidates around a set of anchors; ``truncated`` when an expansion was skipped for size."""

    candidates: list[CandidatePattern]
    truncated: bool


def _gather(snapshot: GraphSnapshot, nodes: I64, max_entries: int, loops_both_ways: bool) -> tuple[I64, I64] | None:
    """The CSR entries of ``nodes`` as keys ``2·rel + outgoing`` and ends; with ``loops_both_ways`` a self-loop
    (stored once, outgoing) is also read as an incoming entry."""
    starts = snapshot.indptr[nodes]
    lens = snapshot.indptr[nodes + 1] - starts
    total = int(lens.sum())
    if total > max_entries:
        return None
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total, dtype=np.int64)
    key = snapshot.relations[offsets].astype(np.int64) * 2 + snapshot.outgoing[offsets].astype(np.int64)
    neighbors = snapshot.neighbors[offsets].astype(np.int64)
    if loops_both_ways:
        loops = neighbors == np.repeat(nodes, lens)
        if loops.any():
            key = np.concatenate([key, key[loops] ^ 1])
            neighbors = np.concatenate([neighbors, neighbors[loops]])
    return key, neighbors


def _groups(key: I64, neighbors: I64) -> list[tuple[RelStep, I64]]:
    if key.size == 0:
        return []
    order = np.lexsort((neighbors, key))
    key, neighbors = key[order], neighbors[order]
    keep = np.ones(key.shape[0], dtype=bool)
    keep[1:] = (key[1:] != key[:-1]) | (neighbors[1:] != neighbors[:-1])
    key, neighbors = key[keep], neighbors[keep]
    bounds = np.flatnonzero(np.diff(key)) + 1
    out = []
    for k, ends in zip(key[np.r_[0, bounds]].tolist(), np.split(neighbors, bounds), strict=True):
        out.append(((k >> 1, bool(k & 1)), ends))
    return out


def steps_into(snapshot: GraphSnapshot, nodes: Collection[int] | np.ndarray) -> set[RelStep]:
    """The steps ``(relation, outgoing)`` that end at one of ``nodes`` (ids, or an increasing int64 array of them)
    from somewhere in the graph: each entry of a node's CSR slice read the other way, and a self-loop both ways.
    O(the nodes' degrees).

    A path whose last step is not among them cannot end at one of ``nodes`` (the class filter of
    :func:`kgsvc.qa.rank.class_filter`).
    """
    ids = nodes if isinstance(nodes, np.ndarray) else np.fromiter(sorted(nodes), dtype=np.int64, count=len(nodes))
    gathered = _gather(snapshot, ids, int(snapshot.indptr[-1]), True)
    assert gathered is not None  # the cap is every entry of the graph
    return {(k >> 1, not (k & 1)) for k in np.unique(gathered[0]).tolist()}


def branch_walk(
    snapshot: GraphSnapshot, branch: Branch, *, cap: int = 50_000, first: Collection[int] | None = None
) -> Iterator[tuple[RelStep, set[int]]]:
    """The nodes ``branch`` reaches, step by step: each step with the set of nodes at its end under SPARQL semantics
    (every walk, backtracking included); a set growing past ``cap`` nodes stops growing. With ``first``, the first
    step's end is kept to those nodes (a typed node: "the same *city* as X").

    O(Σ degree of the nodes walked)."""
    current = {branch.anchor}
    for i, step in enumerate(branch.steps):
        following: set[int] = set()
        for node in current:
            following.update(snapshot.neighbors_via(node, step[0], outgoing=step[1]).tolist())
            if len(following) > cap:
                break
        if i == 0 and first is not None:
            following.intersection_update(first)
        yield step, following
        current = following


def candidate_ends(
    snapshot: GraphSnapshot,
    candidate: CandidatePattern,
    *,
    cap: int = 50_000,
    first: Mapping[int, Collection[int]] | None = None,
) -> set[int]:
    """The answer nodes of ``candidate`` under SPARQL semantics (every walk, backtracking included), anchors of a
    conjunction excluded; a set growing past ``cap`` nodes stops growing. ``first`` keeps the first step's end of the
    branch from a mention (its key) to the nodes it maps to (:func:`branch_walk`).

    O(Σ degree of the nodes walked).
    """
    sets = []
    for branch in candidate.branches:
        reached = {branch.anchor}
        for _step, found in branch_walk(snapshot, branch, cap=cap, first=(first or {}).get(branch.mention)):
            reached = found
        sets.append(reached)
    ends = set.intersection(*sets)
    if len(sets) > 1:
        ends -= {b.anchor for b in candidate.branches}
    return ends


def shares_value(candidate: CandidatePattern, accepts: Callable[[Branch, int], bool]) -> bool | None:
    """Whether ``candidate`` shares a value in a way ``accepts`` takes: a branch that walks a relation and straight
    back along it (… → *r* → value ← *r* ← …), at its entity (X → *r* → value ← *r* ← answer) or after other steps
    (X → *same as* → Y → *r* → value ← *r* ← answer); ``accepts(branch, k)`` is asked of the value reached by the
    branch's first ``k + 1`` steps, for each such pair at steps ``k, k + 1``. ``None`` when no branch shares a
    value."""
    found: bool | None = None
    for branch in candidate.branches:
        for k in range(len(branch.steps) - 1):
            if branch.steps[k + 1] == reverse(branch.steps[k]):
                found = bool(found) or accepts(branch, k)
    return found


def step_share(snapshot: GraphSnapshot, node: int, step: RelStep) -> float:
    """The share of ``node``'s CSR entries that walk ``step`` ``(relation, outgoing)`` away from it: how surely the
    graph attaches the node by that relation (1.0 for a category node that only prizes point to). 0 for a node
    without entries. O(log degree)."""
    degree = snapshot.degree(node)
    if degree == 0:
        return 0.0
    start, stop = snapshot.relation_range(node, step[0])
    return int(np.count_nonzero(snapshot.outgoing[start:stop] == step[1])) / degree


def reverse(step: RelStep) -> RelStep:
    """The step that walks the same relation the other way."""
    return step[0], not step[1]


def enumerate_paths(
    snapshot: GraphSnapshot, anchor: int, *, max_hops: int = 3, max_entries: int = 200_000, backtrack: bool = True
) -> tuple[dict[tuple[RelStep, ...], I64], bool]:
    """Every relation walk of 1..``max_hops`` steps from ``anchor`` with its set of end nodes (module docstring;
    ``backtrack=False``: non-backtracking walks only).

    Returns
    -------
    paths : dict
        ``steps -> sorted unique end node ids`` (non-empty); steps are ``(relation id, outgoing)``.
    truncated : bool
        ``True`` when an expansion read more than ``max_entries`` CSR entries and was skipped.

    Notes
    -----
    Breadth first over node sets: each path's end set is expanded once, so the time is O(Σ entries read),
    at most ``max_entries`` per expansion. With ``backtrack=False`` a step that reverses the previous one drops the
    node the walk came from when the set two steps back is that one node (module docstring).
    """
    paths: dict[tuple[RelStep, ...], I64] = {}
    truncated = False
    start = np.asarray([anchor], dtype=np.int64)
    # (steps, end set, the set one step earlier)
    frontier: list[tuple[tuple[RelStep, ...], I64, I64 | None]] = [((), start, None)]
    for _ in range(max_hops):
        following: list[tuple[tuple[RelStep, ...], I64, I64 | None]] = []
        for steps, nodes, before in frontier:
            interrupt.check("the enumeration of relation paths")  # a question past its deadline (POST /ask)
            gathered = _gather(snapshot, nodes, max_entries, backtrack)
            if gathered is None:
                truncated = True
                continue
            for step, ends in _groups(*gathered):
                if not backtrack and steps and step == reverse(steps[-1]) and before is not None and before.size == 1:
                    ends = ends[ends != before[0]]  # straight back along the triple just walked
                if ends.size == 0:
                    continue
                path = (*steps, step)
                paths[path] = ends
                following.append((path, ends, nodes))
        frontier = following
    return paths, truncated


def enumerate_candidates(
    snapshot: GraphSnapshot,
    anchors: Sequence[tuple[int, int]],
    *,
    max_hops: int = 3,
    conjunctions: bool = True,
    max_entries: int = 200_000,
    backtrack: bool = True,
    one_anchor: bool = False,
) -> Enumeration:
    """The grounded candidate patterns around ``anchors`` (module docstring).

    Parameters
    ----------
    snapshot : GraphSnapshot
        The dataset's graph.
    anchors : sequence of (mention index, node id)
        Linked nodes; conjunctions pair anchors of different mentions.
    max_hops : int, default 3
        Longest path.
    conjunctions : bool, default True
        Also enumerate two-anchor conjunctions.
    max_entries : int
        Size cap per set expansion (module docstring).
    backtrack : bool, default True
        Walks may go straight back and round self-loops both ways (module docstring); ``False`` for an injective
        matcher.
    one_anchor : bool, default False
        Also enumerate the conjunctions of two different one-step branches from one anchor ("which laureates were
        both born and died in X"; :func:`_one_anchor_conjunctions`).

    Returns
    -------
    Enumeration
        Paths first (by anchor, then steps), then conjunctions; deterministic. With ``backtrack`` a path that no
        non-backtracking walk has is marked ``detour``.

    Notes
    -----
    With ``backtrack`` the paths are enumerated twice (with and without backtracking) to mark the detours. A pair
    of anchors costs one sorted-set intersection per pair of their branches (:func:`_conjunctions`).
    """
    candidates: list[CandidatePattern] = []
    truncated = False
    arms: dict[int, list[tuple[tuple[RelStep, ...], I64]]] = {}
    for mention, anchor in anchors:
        paths, cut = enumerate_paths(snapshot, anchor, max_hops=max_hops, max_entries=max_entries, backtrack=backtrack)
        plain = paths
        if backtrack:  # which paths some non-backtracking walk also has (the others are detours)
            plain, _ = enumerate_paths(snapshot, anchor, max_hops=max_hops, max_entries=max_entries, backtrack=False)
        truncated |= cut
        for steps in sorted(paths, key=lambda s: (len(s), s)):
            branch = Branch(mention, anchor, steps)
            candidates.append(CandidatePattern((branch,), int(paths[steps].shape[0]), steps not in plain))
        arms[anchor] = _arms(snapshot, anchor, paths, plain)
    if conjunctions:
        for i, (m1, a1) in enumerate(anchors):
            for m2, a2 in anchors[i + 1 :]:
                if m1 == m2 or a1 == a2:
                    continue
                candidates += _conjunctions((m1, a1), (m2, a2), arms[a1], arms[a2], max_hops)
        if one_anchor:
            for mention, anchor in anchors:
                candidates += _one_anchor_conjunctions(mention, anchor, arms[anchor])
    return Enumeration(candidates, truncated)


def _one_anchor_conjunctions(
    mention: int, anchor: int, arms: Sequence[tuple[tuple[RelStep, ...], I64]]
) -> list[CandidatePattern]:
    """The conjunctions of two different one-step branches from one anchor whose ends meet at a node other than
    the anchor: one entity under two conditions ("born and died in X": ``← birth place`` and ``← death place``).
    O(k²) sorted-set intersections for the anchor's k one-step arms."""
    steps = [(s, e) for s, e in arms if len(s) == 1]
    out = []
    for i, (s1, e1) in enumerate(steps):
        for s2, e2 in steps[i + 1 :]:
            common = np.intersect1d(e1, e2, assume_unique=True)
            common = common[common != anchor]
            if common.size:
                branches = (Branch(mention, anchor, s1), Branch(mention, anchor, s2))
                out.append(CandidatePattern(branches, int(common.size)))
    return out


#: Longest branch of a conjunction ("which *physics* laureates were born in X": a laureate's prize's category).
CONJUNCTION_ARM_HOPS = 2


def _arms(
    snapshot: GraphSnapshot,
    anchor: int,
    paths: dict[tuple[RelStep, ...], I64],
    plain: dict[tuple[RelStep, ...], I64],
) -> list[tuple[tuple[RelStep, ...], I64]]:
    """The branches a conjunction may use from ``anchor``, with their end sets: every one-step path, and the longer
    ones up to :data:`CONJUNCTION_ARM_HOPS` whose first step is **most of the anchor's edges**
    (:func:`step_share` above one half: a value of an attribute, such as a prize category that only prizes point
    to, which the question names without its relation — "the prize in physics") and that some walk takes without
    going straight back (``plain``: a there-and-back arm only restates a shorter one)."""
    return [
        (steps, ends)
        for steps, ends in sorted(paths.items(), key=lambda item: (len(item[0]), item[0]))
        if len(steps) == 1
        or (len(steps) <= CONJUNCTION_ARM_HOPS and steps in plain and step_share(snapshot, anchor, steps[0]) > 0.5)
    ]


def _conjunctions(
    first: tuple[int, int],
    second: tuple[int, int],
    arms1: Sequence[tuple[tuple[RelStep, ...], I64]],
    arms2: Sequence[tuple[tuple[RelStep, ...], I64]],
    max_hops: int,
) -> list[CandidatePattern]:
    """The conjunctions of two anchors ``(mention, node)``: a branch from each, at most ``max_hops`` steps in all
    (two one-step branches always), whose ends meet at a node other than both anchors (the answers).
    O(|arms1| · |arms2|) sorted-set intersections."""
    (m1, a1), (m2, a2) = first, second
    out = []
    for s1, e1 in arms1:
        for s2, e2 in arms2:
            if len(s1) + len(s2) > max(2, max_hops):
                continue
            common = np.intersect1d(e1, e2, assume_unique=True)
            common = common[(common != a1) & (common != a2)]
            if common.size:
                out.append(CandidatePattern((Branch(m1, a1, s1), Branch(m2, a2, s2)), int(common.size)))
    return out


def candidate_pattern(
    candidate: CandidatePattern, anchor_labels: Sequence[str], relation_labels: Sequence[str]
) -> tuple[Pattern, list[str]]:
    """The :class:`Pattern` of a candidate, and the name of each pattern node (``?x1``…, ``?answer``, labels).

    Node 0.. are the anchors (known), then the intermediate variables, the answer last (unknown). Edges follow
    the stored direction of each step, so the rendered pattern reads like the KG.
    """
    nodes: list[PatternNode] = []
    names: list[str] = []
    edges: list[PatternEdge] = []
    for _branch, label in zip(candidate.branches, anchor_labels, strict=True):
        nodes.append(PatternNode(label, True))
        names.append(label)
    chains = [[b, *walked] for b, walked in enumerate(walk_nodes(candidate))]
    for hidden in range(1, sum(len(chain) for chain in chains) - len(chains) + 1):
        nodes.append(PatternNode(f"UNKNOWN node {hidden}", False))
        names.append(f"?x{hidden}")
    nodes.append(PatternNode("UNKNOWN answer", False))
    names.append("?answer")
    answer = len(nodes) - 1
    for branch, chain in zip(candidate.branches, chains, strict=True):
        sequence = [*chain, answer]
        for (relation, outgoing), a, b in zip(branch.steps, sequence, sequence[1:], strict=False):
            head, tail = (a, b) if outgoing else (b, a)
            edges.append(PatternEdge(head, tail, relation_labels[relation], True))
    return Pattern(tuple(nodes), tuple(edges), answer), names


def walk_nodes(candidate: CandidatePattern) -> list[list[int]]:
    """For each branch of ``candidate``, the pattern nodes its steps pass before the answer, numbered as
    :func:`candidate_pattern` numbers them (the anchors first, then each branch's intermediate nodes in order).

    >>> walk_nodes(CandidatePattern((Branch(0, 7, ((1, True), (2, True))), Branch(1, 8, ((3, False),))), 4))
    [[2], []]
    """
    chains, hidden = [], len(candidate.branches)
    for branch in candidate.branches:
        chains.append(list(range(hidden, hidden + len(branch.steps) - 1)))
        hidden += len(branch.steps) - 1
    return chains


def verbalise(
    candidate: CandidatePattern, relation_labels: Sequence[str], anchor_labels: Sequence[str] | None = None
) -> str:
    """A short text of the candidate, e.g. ``Joel Zwick ← directed by ← ? → in language → ?``.

    Without ``anchor_labels`` the anchors are left out (the text then depends only on the signature, so its
    embedding can be cached across questions).
    """
    parts = []
    for i, branch in enumerate(candidate.branches):
        words = [anchor_labels[i]] if anchor_labels is not None else []
        for relation, outgoing in branch.steps:
            label = relation_labels[relation]
            words.append(f"{label} →" if outgoing else f"← {label}")
        parts.append(" ".join(words))
    return " ; ".join(parts)
