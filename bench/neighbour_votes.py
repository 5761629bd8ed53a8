"""How much of MetaQA-half's removed facts could a graph predictor recover? A neighbour-vote baseline.

Issue 7 asks inferred edges to add 10 points of strict Hits@1 on MetaQA-half 1-hop questions; the R-GCN with name
rules adds 4 (docs/benchmarks.md). This script asks a simpler question of the same half KB (the harness's split:
``numpy.random.default_rng(0).permutation``, first half kept): for a film that lost **every** value of a relation,
how often is the value most common among its *neighbour films* — films that share a director, writer or actor
with it, the length-3 path rule ``r(f, c) ⇐ b(f, y) ∧ b(f′, y) ∧ r(f′, c)`` of rule miners (AMIE) — one of the
removed values? Beside it, the relation's most frequent kept value (the prior). Printed per relation: films that
lost every value, films the vote covers (some neighbour has a value), the vote's Hits@1 on those, the prior's.

Then the same vote on the 200 questions of ``kgsvc eval metaqa --split 1-hop --drop 0.5`` (the harness's seeded
sample) whose topic keeps a fact but no gold answer: how many it would get right.

Usage: ``python bench/neighbour_votes.py`` (a few seconds, no model).
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from kgsvc.eval.data import metaqa_kb, metaqa_questions
from kgsvc.eval.harness import ordered

BRIDGES = ("directed_by", "written_by", "starred_actors")
TARGETS = ("release_year", "has_genre", "in_language", "directed_by", "written_by", "starred_actors", "has_tags")

Edges = dict[tuple[str, str], set[str]]


def half_kb() -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """The MetaQA KB and its kept half, as ``kgsvc eval --drop 0.5`` splits it."""
    kb = metaqa_kb()
    keep = np.sort(np.random.default_rng(0).permutation(len(kb))[: round(len(kb) * 0.5)])
    return kb, [kb[i] for i in keep]


def vote(edges: Edges, film: str, relation: str, bridges: tuple[str, ...]) -> Counter[str]:
    """Values of ``relation`` among the films sharing a ``bridges`` neighbour with ``film``, one vote per path."""
    votes: Counter[str] = Counter()
    for bridge in bridges:
        if bridge == relation:
            continue
        for y in edges.get((film, bridge), ()):
            for other in edges.get((y, "~" + bridge), ()):
                if other != film:
                    votes.update(edges.get((other, relation), ()))
    return votes


def main() -> None:
    kb, kept = half_kb()
    edges: Edges = defaultdict(set)
    for h, r, t in kept:
        edges[(h, r)].add(t)
        edges[(t, "~" + r)].add(h)
    kept_set = set(kept)
    print(f"MetaQA KB {len(kb):,} triples, {len(kept):,} kept\n")
    print("| relation | films that lost every value | covered by the vote | vote Hits@1 (covered) | prior Hits@1 |")
    print("|---|---:|---:|---:|---:|")
    for relation in TARGETS:
        lost: dict[str, set[str]] = defaultdict(set)
        for h, r, t in kb:
            if r == relation and (h, r, t) not in kept_set and not edges.get((h, relation)):
                lost[h].add(t)
        prior = Counter(t for _, r, t in kept if r == relation).most_common(1)[0][0]
        covered = right = 0
        for film, gold in lost.items():
            votes = vote(edges, film, relation, BRIDGES)
            if votes:
                covered += 1
                right += votes.most_common(1)[0][0] in gold
        prior_right = sum(prior in gold for gold in lost.values())
        print(
            f"| {relation} | {len(lost):,} | {covered:,} | {right / max(covered, 1):.1%} | "
            f"{prior_right / max(len(lost), 1):.1%} ({prior}) |"
        )

    relations_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    for h, r, t in kb:
        relations_of[(h, t)].add(r)
    outcome: Counter[str] = Counter()
    for question in ordered(metaqa_questions(1), "random", 0)[:200]:
        topic = question.topic[0] if question.topic else None
        asked = set().union(*(relations_of.get((topic, a), set()) for a in question.answers)) if topic else set()
        if len(asked) != 1:
            outcome["not a film → value question with one relation"] += 1
            continue
        relation = asked.pop()
        gold = {a.lower() for a in question.answers}
        if {c.lower() for c in edges.get((topic, relation), ())} & gold:
            outcome["a gold answer is stored"] += 1
        elif not any(edges.get((topic, bridge)) for bridge in BRIDGES):
            outcome[f"no director, writer or actor left ({relation})"] += 1
        else:
            votes = vote(edges, topic, relation, BRIDGES)
            verdict = "no vote" if not votes else "right" if votes.most_common(1)[0][0].lower() in gold else "wrong"
            outcome[f"vote {verdict} ({relation})"] += 1
    print("\nThe 200-question sample (1-hop, random, seed 0):\n")
    for key, count in sorted(outcome.items()):
        print(f"- {key}: {count}")


if __name__ == "__main__":
    main()
