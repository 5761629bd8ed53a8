"""Filters of the grounded candidates that the reading of a question asks for (``keep`` callables for
:meth:`kgsvc.qa.rank.CandidateRanker.rank`), over one graph, with what they compute once per graph cached.

:class:`CandidateFilters` answers, for a :class:`~kgsvc.qa.candidates.CandidatePattern`, whether it

* ends at an instance of the class asked for ("which *institutions* …", :meth:`~CandidateFilters.ends_in`), or at
  a value of the graph's classification asked for ("which Nobel *fields* …", :meth:`~CandidateFilters.ends_among`);
* ends at a date or time, or at something else ("when …" / "where …", :meth:`~CandidateFilters.ends_at_time`);
* passes an instance of a class the question names before its last step ("when was X given *the Nobel Prize*",
  :meth:`~CandidateFilters.passes`), or reaches one by its first step from an entity ("the city of X's
  *institution*", :meth:`~CandidateFilters.first_step_into`);
* ends at a reason, a literal that reads "for …" ("What did X win the Nobel for?", "why …",
  :meth:`~CandidateFilters.ends_at_reason`);
* does not walk to a date or another literal and straight back ("X's *date of birth*" is not the people born that
  day, X's *country code* not the countries that share it, :meth:`~CandidateFilters.no_shared_literal`).

:meth:`kgsvc.qa.pipeline.QuestionAnswerer._grounded_pattern` applies them in tiers (all, then those of the answer's
type, then none), so a reading that no candidate fits never leaves a question without an answer.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Collection

from kgsvc.qa.aggregate import literal_parts, sampled_objects
from kgsvc.qa.candidates import Branch, CandidatePattern, branch_walk, candidate_ends, shares_value, steps_into
from kgsvc.qa.graph import QAGraph
from kgsvc.qa.rank import class_filter

__all__ = ["LITERAL_SAMPLE", "CandidateFilters", "Keep"]

#: A filter of candidates: ``True`` keeps the candidate.
Keep = Callable[[CandidatePattern], bool]
#: Ends of a step from an entity read to tell whether the step ends at dates or literals
#: (:meth:`CandidateFilters.no_shared_literal`).
LITERAL_SAMPLE = 64

_Steps = frozenset[tuple[int, bool]]
#: How a literal that states a reason opens (:meth:`CandidateFilters.ends_at_reason`).
_REASONS = ("for ", "in recognition of ", "because ")


class CandidateFilters:
    """The candidate filters over ``graph`` (module docstring); one per question answerer, so that the steps into
    dates and into each class's instances are computed once per graph."""

    def __init__(self, graph: QAGraph) -> None:
        self.graph = graph
        self._time_steps: tuple[_Steps, _Steps] | None = None
        self._class_steps: dict[frozenset[int], tuple[frozenset[int], _Steps]] = {}
        self._reason_steps: _Steps | None = None

    def ends_in(self, classes: Collection[int]) -> Keep:
        """The candidates whose answers include an instance of one of ``classes`` — whose last steps can end at one
        (:func:`~kgsvc.qa.rank.class_filter`, cheap, first) and whose end set holds one
        (:func:`~kgsvc.qa.candidates.candidate_ends`: "which institutions were the X laureates affiliated with" is not
        the laureates, though laureates and institutions share the step that ends at them)."""
        return self.ends_among(self.graph.instances(classes))

    def ends_among(self, nodes: frozenset[int]) -> Keep:
        """The candidates whose answers include one of ``nodes`` (as :meth:`ends_in`, for nodes of no class: the
        values of a classification, "which *fields* …")."""
        can_end = class_filter(self.graph, nodes)
        return lambda c: can_end(c) and not nodes.isdisjoint(candidate_ends(self.graph.snapshot, c))

    def ends_at_time(self, time: bool) -> Keep:
        """The candidates every branch of which ends with a step that can reach a date or time (``time``: "when …")
        or a node that is none ("where …"), by the steps into :meth:`QAGraph.times` and into the other nodes
        (:meth:`~kgsvc.qa.graph.RelationEnds.steps_into`).

        Notes
        -----
        O(distinct (relation, node) pairs) numpy once per graph, over the relations' ends the graph keeps
        (:meth:`QAGraph.relation_ends`; gathering every node's entries and sorting their keys took O(m log m)), then
        O(branches) per candidate.
        """
        if self._time_steps is None:
            is_time = self.graph.time_mask()
            ends = self.graph.relation_ends()
            self._time_steps = (frozenset(ends.steps_into(is_time)), frozenset(ends.steps_into(~is_time)))
        steps = self._time_steps[0 if time else 1]
        return lambda c: all(b.steps[-1] in steps for b in c.branches if b.steps)

    def ends_at_reason(self) -> Keep | None:
        """The candidates every branch of which ends with a relation whose objects read as reasons: most of
        :data:`LITERAL_SAMPLE` objects of the relation (evenly spaced) are literals that open with "for", "in
        recognition of" or "because" ("for their discoveries concerning …", a prize's motivation). ``None`` in a
        graph without such a relation (PathQuestion's "why did X die" asks for a *cause of death*, a node).

        Notes
        -----
        O(triples) once per graph (:func:`~kgsvc.qa.aggregate.sampled_objects`), then O(branches) per
        candidate."""
        if self._reason_steps is None:
            terms = self.graph.node_terms
            found: set[tuple[int, bool]] = set()
            for r, sample in sampled_objects(self.graph.snapshot, LITERAL_SAMPLE):
                parts = [literal_parts(str(terms[t])) for t in sample]
                # the lexical form may open with a quote of its own, escaped ('\\"for their discoveries …\\"')
                reasons = sum(p is not None and p[0].lstrip('"\\ ').casefold().startswith(_REASONS) for p in parts)
                if 2 * reasons > len(sample):
                    found.add((r, True))
            self._reason_steps = frozenset(found)
        steps = self._reason_steps
        if not steps:
            return None
        return lambda c: all(b.steps[-1] in steps for b in c.branches if b.steps)

    def passes(self, classes: frozenset[int]) -> Keep:
        """The candidates a branch of which walks through an instance of one of ``classes`` before its last step: by
        a step that can end at one (:func:`~kgsvc.qa.candidates.steps_into`, cheap, first) to a set of nodes that
        holds one (:func:`~kgsvc.qa.candidates.branch_walk`).

        Notes
        -----
        The instances and the steps into them are computed once per class set (O(their degrees)); then
        O(Σ degree of the nodes walked) per candidate that passes the first test."""
        found = self._class_steps.get(classes)
        if found is None:
            typed = self.graph.instances(classes)
            found = self._class_steps[classes] = (typed, frozenset(steps_into(self.graph.snapshot, typed)))
        typed, inner = found

        def through(branch: Branch) -> bool:
            if not any(step in inner for step in branch.steps[:-1]):
                return False
            walk = branch_walk(self.graph.snapshot, dataclasses.replace(branch, steps=branch.steps[:-1]))
            return any(step in inner and not typed.isdisjoint(ends) for step, ends in walk)

        return lambda c: any(through(b) for b in c.branches)

    def first_step_into(self, mention: int, classes: frozenset[int]) -> Keep:
        """The candidates with a branch from ``mention`` whose first step reaches an instance of one of ``classes``
        ("the city of X's *institution*": X's institution, one step from X). O(1) per candidate after the first test
        of each (anchor, step)."""
        typed = self.graph.instances(classes)
        reaches: dict[tuple[int, int, bool], bool] = {}

        def first_step(branch: Branch) -> bool:
            if branch.mention != mention or not branch.steps:
                return False
            key = (branch.anchor, *branch.steps[0])
            if key not in reaches:
                ends = self.graph.snapshot.neighbors_via(branch.anchor, branch.steps[0][0], outgoing=branch.steps[0][1])
                reaches[key] = not typed.isdisjoint(ends.tolist())
            return reaches[key]

        return lambda c: any(first_step(b) for b in c.branches)

    def no_shared_literal(self) -> Keep:
        """The candidates that do not walk to a date, a time or another literal and straight back by the same relation,
        from their entity or after other steps ("X's *date of birth*" is the date, not the people born that day, who
        are "born on the *same* day as X"; X's two-letter *country code* is the code, not the countries that share it,
        whose class the label's first word also names): for a question with no share cue. Whether a step ends at such
        values is read off the first :data:`LITERAL_SAMPLE` ends of the step from the first node it starts at, once
        per branch prefix."""
        graph = self.graph
        valued: dict[tuple[int, tuple[tuple[int, bool], ...]], bool] = {}

        def to_values(branch: Branch, k: int) -> bool:
            key = (branch.anchor, branch.steps[: k + 1])
            if key not in valued:
                start = branch.anchor  # the first node the step starts at: after the branch's first k steps
                for _, nodes in itertools.islice(branch_walk(graph.snapshot, branch), k):
                    start = min(nodes, default=-1)
                relation, outgoing = branch.steps[k]
                sample: list[int] = []
                if start >= 0:
                    sample = graph.snapshot.neighbors_via(start, relation, outgoing=outgoing)[:LITERAL_SAMPLE].tolist()
                valued[key] = any(graph.is_time(n) or str(graph.node_terms[n]).startswith('"') for n in sample)
            return valued[key]

        return lambda c: shares_value(c, to_values) is not True
