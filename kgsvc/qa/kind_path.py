"""The question path for questions beyond lookups: counts, yes/no, orderings and comparisons (issue 17).

:meth:`kgsvc.qa.pipeline.QuestionAnswerer.ask` classifies the question after linking (:func:`kgsvc.qa.kinds.classify`)
and hands every kind but a plain lookup to :func:`answer_kind`. Each kind reuses the grounded candidates
(:mod:`kgsvc.qa.candidates`, ranked by :mod:`kgsvc.qa.rank` on the question without its kind words), the GSD matcher
for the evidence, and computes its value from that evidence; the SPARQL rendered with it
(:mod:`kgsvc.qa.aggregate`) computes the same value on the store:

* **count** — the chosen path's distinct answers (anchors excluded), matched with ``k`` raised to cover them all
  (at most ``MAX_EVIDENCE``): ``SELECT (COUNT(DISTINCT ?answer) …)``.
* **ask** — two mentions A, B: the best-ranked relation path from one of them whose ends hold a node of the other's
  type (``rdf:type``; without types, of its term kind). Yes when the other is one of its ends (evidence: the
  matched path to it; ``ASK { … }``), else "no: no such fact in the graph", with the path's actual answers as
  evidence. A yes/no question with one mention looks for the second among the labels of the ranked paths' ends
  that the question spells out.
* **ordering** — the chosen path's answers (entities) ranked by a literal attribute of theirs
  (:func:`kgsvc.qa.aggregate.pick_attribute`), matched as one pattern ``… ?answer –attribute→ ?value``; the best
  ``limit`` and the ties with the last of them: ``ORDER BY ASC|DESC(?key) LIMIT``. "X or Y" ranks the mentions.
* **comparison** — the attribute of two mentions compared (``ASK { … FILTER(?a < ?b) }``), or of one mention and a
  number or date of the question; a lookup or count with such a constant keeps the answers whose value passes
  (``FILTER``).
* **conjunction** ("both X and Y") — a lookup restricted to the two-entity conjunction candidates.
* **by a count** (``QuestionKind.counted``) — an ordering of the chosen path's answers, or of two mentions, by how
  many things of the counted noun's class each reaches by one relation step, or lies behind it on the path ("which
  category has the most laureates born in X"): ``… GROUP BY ?answer ORDER BY DESC(?count) LIMIT``; a yes/no
  comparison of two mentions' counts: ``ASK { {SELECT (COUNT …)} {SELECT (COUNT …)} FILTER(?na > ?nb) }``.
* **one entity's two values** ("did X die in the same city they were born in") — a yes/no question with one mention
  and a share cue: a value of one relation that is a value of another (``ASK { X r1 ?v . X r2 ?v }``).

A kind the path cannot answer — its words ask for arithmetic, or no relation, attribute or second mention fits —
gets ``grounded=False`` with "this kind of question is not supported: <why>", never an answer of another type.

Notes
-----
One private class (``_KindPath``) holds the question's state (spans, options, timings) for every kind, which is why
this module runs past 800 lines; the values and the SPARQL text live in :mod:`kgsvc.qa.aggregate`, the word rules
in :mod:`kgsvc.qa.kinds`.

The SPARQL's graph patterns are homomorphisms while the matcher maps pattern edges to distinct triples; the two
agree on every path of one or two hops (the anchors are excluded from the answers on both sides). A three-hop path
that walks one triple back and forth may give SPARQL more answers than the evidence: the count then says what the
evidence holds.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kgsvc.errors import MatchError
from kgsvc.index.labels import LABEL_PREDICATES
from kgsvc.qa.aggregate import (
    Attribute,
    age_at,
    ask_sparql,
    comparable_paths,
    comparable_relations,
    compare,
    constant_key,
    count_order_sparql,
    count_sparql,
    counts_by_step,
    greater_wins,
    in_period,
    life_span,
    literal_parts,
    order_sparql,
    own_dates,
    pick_attribute,
    year_constant,
)
from kgsvc.qa.candidates import Branch, CandidatePattern, branch_walk, candidate_ends, candidate_pattern
from kgsvc.qa.exemplars import mask_question, relation_key
from kgsvc.qa.kinds import QuestionKind, constants, cue_window, date_part, period, shown
from kgsvc.qa.link import LinkedSpan, TypeMention, fold
from kgsvc.qa.options import QAOptions
from kgsvc.qa.question_nouns import blank_spans, says_shared, unread_class_nouns
from kgsvc.qa.rank import RankedCandidate, class_filter, coordinates, modified_classes, nearest_classes
from kgsvc.qa.result import Answer, AnswerTerm, Evidence, PatternGraph, PatternTriple, Term
from kgsvc.qa.zeroshot import content_words, names_affiliation
from kgsvc.retrieval.pattern import Pattern, PatternEdge, PatternNode
from kgsvc.retrieval.result import Match

if TYPE_CHECKING:
    from kgsvc.qa.pipeline import QuestionAnswerer, _Chosen

__all__ = ["MAX_CLASS_ITEMS", "MAX_EVIDENCE", "SELECT_TOP", "answer_kind", "best_first"]

#: Most evidence subgraphs matched for a count, an ordering or a filter.
MAX_EVIDENCE = 1000
#: Most things of a class a filter with no entity to start from compares ("which laureates died in 1962").
MAX_CLASS_ITEMS = 20_000
#: Ranked candidates weighed for a count, an ordering or a filter (by rank, type fit and attribute).
SELECT_TOP = 8
_XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
_NOT_SUPPORTED = "this kind of question is not supported"


#: Words that make a comparison or superlative one of the span of a life ("who lived longer", "the longest-lived",
#: "the longer life"): :func:`~kgsvc.qa.aggregate.life_span`.
_LIFE = re.compile(r"\b(?:li(?:fe|ve|ves|ved|fespan|fetime)|outliv\w*|[a-z]+-lived)\b", re.I)


#: After an age cue, the event the age is taken at ("the oldest *when they won*", "older *at the time of* the
#: award"): :meth:`_KindPath.life`.
_AGE_AT = re.compile(r"\b(?:when|at\s+the\s+time\s+of|by\s+the\s+time|at\s+the\s+moment\s+of)\b", re.I)
#: "to <verb>" after a noun phrase ("the first laureate born in X *to win* a Nobel", "the youngest *to die*"): the
#: event a time or an age is taken at (:meth:`_KindPath.age_clause`); not "to the", "to be", "to have".
_TO_VERB = re.compile(
    r"\bto\s+(?!(?:the|a|an|be|been|have|has|his|her|its|their|this|that|these|those)\b)[a-z]+\b", re.I
)
#: "in the *city* where <clause>", "in the *country* his institution was in": the noun of the value asked about and
#: the relative clause that says the other way to it (:meth:`_KindPath.own_values`); the clause's words that name no
#: step, and the least similarity of its best word to a step of the path.
_WHERE_CLAUSE = re.compile(
    r"\b(?:in|at|of)\s+the\s+([a-z]+)\s+(?:where\s+|in\s+which\s+|that\s+|(?=(?:his|her|its|their|he|she|they)\s))"
    r"(.+?)\??$",
    re.I,
)
_CLAUSE_SKIP = frozenset(
    "he she it they his her its their him them was were is are when while had has have did".split()
)
CLAUSE_STEP_MIN = 0.5
#: "<verb> in the same year / month / day" about two mentions' dates (:meth:`_KindPath.same_date_part`), and the
#: characters of an ISO date each part compares.
_SAME_PART = re.compile(r"\b(?P<verb>[a-z]+)\s+(?:in|on|during)\s+the\s+same\s+(?P<part>year|month|day)\b", re.I)
_PART_WIDTH = {"year": 4, "month": 7, "day": 10}
#: Where the clause of an event ends (:meth:`_KindPath.age_clause`): a punctuation mark, or a word that opens the
#: phrase of the compared things ("the first to die *among* the laureates born in X").
_CLAUSE_END = re.compile(r"[,;?!]|\b(?:among|amongst|of|from|while|who|which|that|whose|born|between)\b", re.I)
#: Words that ask whether anything at all relates to the one entity named ("Did *any* laureate die in X?",
#: :meth:`_KindPath.anything_at`).
_ANY = re.compile(r"\b(?:any|anyone|anybody|anything|someone|somebody|ever)\b", re.I)
#: The least cosine of a compared mention's own words to the label of the date they name (:meth:`_KindPath.events`;
#: MiniLM: "died" ↔ *death date* 0.46, "born" ↔ *birth date* 0.56).
_EVENT_WORDS = 0.3
#: At most this many other things of the same classes are read to find the dates of a life
#: (:meth:`_KindPath.life_dates`).
_LIFE_PEERS = 500


class _Refused(Exception):
    """The kind cannot be answered here: the message says why (becomes the unsupported reason)."""


def answer_kind(
    qa: QuestionAnswerer,
    question: str,
    kind: QuestionKind,
    spans: Sequence[LinkedSpan],
    base: dict[str, Any],
    timings: dict[str, float],
    started: float,
    opts: QAOptions,
    types: Sequence[TypeMention] = (),
    exists: str = "",
) -> Answer:
    """The :class:`~kgsvc.qa.result.Answer` of a question of ``kind`` (module docstring).

    ``base`` holds the fields the pipeline has filled (question, dataset, strategy, mentions); ``timings`` gets
    ``pattern``, ``match``, ``answer`` and ``total``. ``types``: the question's class-noun mentions
    (:meth:`~kgsvc.qa.link.EntityLinker.link_types`). With ``exists``, the noun of "was any *woman* among …"
    (:attr:`~kgsvc.qa.question_form.Reworded.exists`), a count is answered yes or no: whether any counted item is one
    (:meth:`_KindPath.exists`).
    """
    if kind.constant is not None:  # the number is compared by value, not linked as a node
        spans = [s for s in spans if constants(s.text) != [s.text.strip()]]
    spans = [best_first(qa, s) for s in spans if not _a_word(qa, question, s) and not _names_counted(qa, kind, s)]
    path = _KindPath(qa, question, kind, list(spans), base, timings, started, opts, tuple(types))
    try:
        if kind.kind == "unsupported":
            raise _Refused(kind.reason or "its words ask for something the path cannot compute")
        if not spans and kind.over_a_class and kind.kind != "ordering":  # the things of the asked noun's class
            found = path.class_filtered(count=kind.kind == "count")
            return path.exists(found, exists) if exists and kind.kind == "count" else found
        if not spans and not kind.over_a_class:
            raise _Refused("it names no entity of the graph to start from, only a number or date")
        if kind.alive:
            return path.living()
        if kind.kind == "count":
            return path.exists(path.count(), exists) if exists else path.count()
        if kind.kind == "ask":
            return path.ask()
        if kind.kind == "ordering":
            if kind.counted:
                return path.ordering_by_count()
            return path.order_choice() if kind.choice else path.ordering()
        if kind.kind == "comparison":
            return path.comparison()
        return path.lookup()
    except _Refused as exc:
        return qa._fail({**base, "kind": kind.kind}, timings, started, "pattern", f"{_NOT_SUPPORTED}: {exc}")
    except MatchError as exc:
        reason = f"the pattern cannot be matched: {exc}"
        return qa._fail({**base, "kind": kind.kind}, timings, started, "matching", reason)


def typed_mentions(chosen: _Chosen) -> dict[int, frozenset[int]]:
    """The mention → classes of each node of ``chosen`` kept to a class one step from a linked entity
    (:meth:`~kgsvc.qa.pipeline.QuestionAnswerer._typed_steps`: "the same *city* as X"), read off ``chosen.typed``."""
    p = chosen.pattern
    out: dict[int, frozenset[int]] = {}
    for node, classes in chosen.typed.items():
        for e in p.edges:
            other = e.tail if e.head == node else e.head if e.tail == node else None
            if other in chosen.anchors:
                out[chosen.anchors[other]] = classes
    return out


@dataclasses.dataclass
class _KindPath:
    qa: QuestionAnswerer
    question: str
    kind: QuestionKind
    spans: list[LinkedSpan]
    base: dict[str, Any]
    timings: dict[str, float]
    started: float
    opts: QAOptions
    type_mentions: tuple[TypeMention, ...] = ()
    t0: float = dataclasses.field(default_factory=time.perf_counter)

    # -- shared --------------------------------------------------------------------------------------------------

    @property
    def words(self) -> str:
        """What the relation ranking reads: the question with its kind words blanked, and its class nouns that
        name no step (:func:`~kgsvc.qa.question_nouns.unread_class_nouns`: "how many *Nobel Prize* winners", "how many
        *prize* winners"), the one that ends the counted noun excepted ("how many *laureates*")."""
        noun = fold(self.kind.noun).split()
        other = tuple(t for t in self.type_mentions if not noun or noun[-1] not in fold(t.text).split())
        # a class noun before the counted noun's head modifies it ("how many *prize* winners"): no step either
        head = next((t for t in self.type_mentions if noun and noun[-1] in fold(t.text).split()), None)
        modifiers = tuple(
            t
            for t in other
            if head is not None
            and t.end <= head.start
            and not self.question[t.end : head.start].strip()
            and set(fold(t.text).split()) - {"the", "a", "an"} <= set(noun)
        )
        relations = self.qa.ranker.relation_words, self.graph.relation_labels
        unread = unread_class_nouns(self.question, self.spans, other, modifiers, *relations)
        if (age := self.age_clause()) is not None:  # "the oldest *when they won*": the event the age is taken at
            unread = [*unread, age]
        return blank_spans(self.kind.words or self.question, unread)

    def age_clause(self) -> tuple[int, int] | None:
        """Where "when …", "at the time of …" or "to <verb> …" after an age cue ("the oldest", "younger") is, or
        "to <verb> …" after a cue of time ("the first laureate born in X *to win a Nobel*"), to the end of its
        clause: the event an age or a time is taken at (:meth:`life`), not a step to the answers."""
        cue = self.kind.cue
        if self.kind.kind not in ("ordering", "comparison") or cue is None:
            return None
        after = self.kind.cue_at[1] if self.kind.cue_at else 0
        hint = cue.hint.split()
        if "age" in hint:
            at = _AGE_AT.search(self.question, after) or _TO_VERB.search(self.question, after)
        elif hint == ["date", "year"]:
            at = _TO_VERB.search(self.question, after)
        else:
            return None
        if at is None:
            return None
        end = _CLAUSE_END.search(self.question, at.end())
        return at.start(), end.start() if end else len(self.question)

    @property
    def graph(self) -> Any:
        return self.qa.graph

    def term(self, node: int) -> str:
        return str(self.graph.node_terms[node])

    def rterm(self, relation: int) -> str:
        return str(self.graph.relation_terms[relation])

    def ranked(
        self, text: str, spans: Sequence[LinkedSpan], keep: Callable[[CandidatePattern], bool] | None = None
    ) -> list[RankedCandidate]:
        return self.qa.ranker.rank(text, spans, self.opts, keep=keep)

    def chosen(self, ranked: RankedCandidate) -> _Chosen:
        from kgsvc.qa.pipeline import _Chosen

        c = ranked.candidate
        labels = [self.spans[b.mention].text for b in c.branches]
        pattern, names = candidate_pattern(c, labels, self.graph.relation_labels)
        anchors = {i: b.mention for i, b in enumerate(c.branches)}
        source = "candidate" if self.qa.exemplars is not None else "baseline"
        return _Chosen(pattern, names, anchors, source, ranked.score, ranked.signature, c)  # type: ignore[arg-type]

    def pinned_spans(self, candidate: CandidatePattern) -> list[LinkedSpan]:
        """The spans with each used mention reduced to the candidate's anchor node (no homonyms in the evidence)."""
        spans = list(self.spans)
        for b in candidate.branches:
            span = spans[b.mention]
            node = next((n for n in span.nodes if n[0] == b.anchor), (b.anchor, 1.0, 0.0))
            spans[b.mention] = dataclasses.replace(span, nodes=(node,))
        return spans

    def match(
        self, chosen: _Chosen, spans: Sequence[LinkedSpan], k: int, relations: set[int]
    ) -> tuple[list[tuple[Match, _Chosen]], bool]:
        """Matches of ``chosen`` using only ``relations`` (the chosen pattern's own, not its relaxations)."""
        opts = dataclasses.replace(self.opts, k=max(1, min(k, MAX_EVIDENCE)))
        matched, complete = self.qa._match(chosen, spans, opts)
        kept = [(m, s) for m, s in matched if all(t[1] in relations for t in m.triples)]
        return kept, complete

    def lines(
        self,
        candidate: CandidatePattern,
        answer: str = "?answer",
        typed: Mapping[int, frozenset[int]] | None = None,
    ) -> tuple[list[str], list[str]]:
        """The candidate's triple patterns (stored directions, its relations, its anchors), and a filter excluding
        the anchors from ``answer`` where a walk can come back to them; ``typed`` (mention → classes) constrains the
        node after the first step of that mention's branch (:func:`typed_mentions`)."""
        lines: list[str] = []
        hidden = 0
        for b in candidate.branches:
            previous = self.term(b.anchor)
            for i, (relation, outgoing) in enumerate(b.steps):
                if i == len(b.steps) - 1:
                    following = answer
                else:
                    hidden += 1
                    following = f"?x{hidden}"
                head, tail = (previous, following) if outgoing else (following, previous)
                lines.append(f"{head} {self.rterm(relation)} {tail} .")
                if i == 0 and typed and b.mention in typed and following != answer:
                    lines += self.type_lines(typed[b.mention], following)
                previous = following
        filters = []
        if len(candidate.branches) > 1 or any(len(b.steps) > 1 for b in candidate.branches):
            anchors = ", ".join(dict.fromkeys(self.term(b.anchor) for b in candidate.branches))
            filters.append(f"{answer} NOT IN ({anchors})")
        return lines, filters

    def evidence(self, matched: Sequence[tuple[Match, _Chosen]]) -> list[Evidence]:
        return [self.qa._evidence(rank, m, shape) for rank, (m, shape) in enumerate(matched, start=1)]

    def answer_term(self, node: int, gsd: float, support: int = 1, by: int | None = None) -> AnswerTerm:
        term = self.graph.node_term(node)
        ranked_by = self.graph.node_term(by) if by is not None else None
        return AnswerTerm(**term.model_dump(), gsd=gsd, support=support, ranked_by=ranked_by)

    def pattern_graph(self, chosen: _Chosen, sparql: str, **kind_fields: Any) -> PatternGraph:
        p = chosen.pattern
        triples = [
            PatternTriple(head=chosen.names[e.head], relation=e.label, tail=chosen.names[e.tail]) for e in p.edges
        ]
        answer = chosen.names[p.answer] if p.answer is not None else "?answer"
        return PatternGraph(
            triples=triples,
            answer=answer,
            source=chosen.source,
            sparql=sparql,
            score=chosen.score,
            kind=self.kind.kind,
            **kind_fields,
        )

    def done(self, pattern: PatternGraph, *, text: str, complete: bool = True, **fields: Any) -> Answer:
        self.timings["answer"] = time.perf_counter() - self.t0
        self.timings["total"] = time.perf_counter() - self.started
        base = {**self.base, "strategy": "grounded", "kind": self.kind.kind}
        return Answer(
            **base,
            grounded=True,
            text=text,
            pattern=pattern,
            sparql=pattern.sparql,
            timings=self.timings,
            complete=complete,
            **fields,
        )

    def relations_of(self, candidate: CandidatePattern) -> set[int]:
        return {r for b in candidate.branches for r, _ in b.steps}

    def skip_relations(self) -> list[int]:
        return [j for j, t in enumerate(self.graph.relation_terms) if t.strip("<>") in LABEL_PREDICATES]

    def attribute_text(self, *, items_noun: bool = True) -> str:
        """The cue's hint and the words around the cue (:func:`~kgsvc.qa.kinds.cue_window`); without
        ``items_noun``, less the words of the noun whose things are ranked: "the youngest *laureate*" names no
        attribute, and read it spells one through another relation (*laureate award* → *year*)."""
        dated = self.kind.constant is not None and period(self.kind.constant) is not None
        # "born in X and died in the 1970s": the two words before a decade say whose year it is
        window = cue_window(self.question, self.kind, [(s.start, s.end) for s in self.spans], width=2 if dated else 3)
        hint = self.kind.cue.hint if self.kind.cue is not None else "year" if dated else ""
        if not items_noun:
            noun = set(fold(self.kind.noun).split())
            window = " ".join(w for w in window.split() if fold(w) not in noun)
        return " ".join(f"{hint} {window}".split())

    # -- count ---------------------------------------------------------------------------------------------------

    def select(
        self,
        text: str,
        *,
        want_attribute: bool = False,
        conjunction: bool = False,
        typed: frozenset[int] | None = None,
        avoid: frozenset[int] = frozenset(),
    ) -> RankedCandidate:
        """The candidate that answers: among the ``SELECT_TOP`` best-ranked acceptable ones (a conjunction when
        asked for; for an attribute, ends that are entities with comparable values; with ``typed``, the nodes of
        the counted class, candidates whose last step reaches that class, ranked among themselves, and ends among
        ``typed``; none whose ends all lie in ``avoid``), the best by rank score plus the fit of the ends' types to
        the question's noun plus (``want_attribute``) the best attribute's score."""
        ranked = self.ranked(text, self.spans, class_filter(self.graph, typed) if typed is not None else None)
        self.timings["pattern"] = time.perf_counter() - self.t0
        scored: list[tuple[float, int, RankedCandidate]] = []
        for i, r in enumerate(ranked):
            if len(scored) >= SELECT_TOP:
                break
            c = r.candidate
            if conjunction and len(c.branches) < 2:
                continue
            ends = candidate_ends(self.graph.snapshot, c) - {b.anchor for b in c.branches}
            if typed is not None:
                ends &= typed
            if not ends or ends <= avoid:
                continue
            sample = sorted(ends)[:200]
            bonus = self.type_fit(sample)
            if want_attribute and self.spans_life():  # a life or an age: the ends have one, or are none
                if self.life(self.attributes_of(sample[:50])) is None:
                    continue
                bonus += 1.0
            elif want_attribute:
                if any(self.term(n).startswith('"') for n in sample[:50]):
                    continue
                attributes = comparable_relations(
                    self.graph.snapshot, self.graph.node_terms, sample, skip=self.skip_relations()
                )
                best = pick_attribute(
                    attributes, len(sample), self.attribute_text(), self.graph.relation_labels, self.graph.embed
                )
                if best is None:  # no value of their own: one a step away, as ranked_items reads ("their prize's year")
                    paths = comparable_paths(
                        self.graph.snapshot, self.graph.node_terms, sample[:50], skip=self.skip_relations()
                    )
                    best = pick_attribute(
                        paths, len(sample[:50]), self.attribute_text(), self.graph.relation_labels, self.graph.embed
                    )
                if best is None:
                    continue
                bonus += best.score
            scored.append((r.score + bonus, -i, r))
        if scored:
            return max(scored, key=lambda x: (x[0], x[1]))[2]
        if conjunction:
            raise _Refused("no two of the linked entities meet at a common answer")
        if want_attribute:
            raise _Refused("no relation path from the linked entities leads to things with comparable values")
        raise _Refused("no relation path around the linked entities fits the question")

    # -- the class of what is counted ----------------------------------------------------------------------------

    def counted_classes(self, noun: str | None = None) -> frozenset[int]:
        """The classes the question's noun names ("how many *laureates*", "how many *institutions*"): those of a
        class-noun mention that ends the noun (the linker's), else the classes closest to the noun
        (:func:`~kgsvc.qa.rank.nearest_classes`; for a class noun that modifies the head, "how many Nobel Prize
        *winners*", the head's, or the whole noun's other than the modifier's; likewise the last word of a noun of
        several words, "the youngest Nobel *winner*", and of a noun right after a linked entity, "the 1951 physics
        Nobel *winners*"); empty without a noun or without classes in the graph. ``noun``: another noun of the
        question read so (the counted noun of an ordering by a count), instead of the kind's."""
        written = self.kind.noun if noun is None else noun
        noun = " ".join(fold(written).split())
        if not noun:
            return frozenset()
        words = set(noun.split())
        mentions = [(set(fold(m.text).split()) - {"the", "a", "an"}, m.classes) for m in self.type_mentions]
        mentions = [(named, classes) for named, classes in mentions if classes and named and named <= words]
        head = [classes for named, classes in mentions if noun.split()[-1] in named]
        if head:
            return frozenset(head[0])
        if mentions:  # a class noun before the head modifies it ("how many *Nobel Prize* winners")
            named, classes = mentions[0]
            rest = " ".join(w for w in noun.split() if w not in named)
            return modified_classes(self.graph, self.qa.ranker, rest, (), " ".join(sorted(named)), classes, noun)
        *modifier, last = noun.split()
        if modifier:  # the last word is the head, the words before it modify it ("the youngest *Nobel* winner")
            return modified_classes(self.graph, self.qa.ranker, last, (), " ".join(modifier), (), noun)
        at = re.search(rf"\b{re.escape(written.strip())}\b", self.question)
        entity = next(
            (
                s
                for s in self.spans
                if at is not None and s.end <= at.start() and not self.question[s.end : at.start()].strip()
            ),
            None,
        )
        if entity is not None:  # an entity right before the noun modifies it ("the 1951 physics Nobel *winners*")
            types = self.graph.types(entity.nodes[0][0])
            phrase = fold(f"{entity.text} {noun}")
            return modified_classes(self.graph, self.qa.ranker, noun, (), fold(entity.text), types, phrase)
        return nearest_classes(self.graph, self.qa.ranker, noun)

    def type_lines(self, classes: frozenset[int], answer: str = "?answer") -> list[str]:
        """The SPARQL lines constraining ``answer`` to ``classes`` (several: through ``?class``, or ``?<var>_class``
        for another variable, so two typed nodes do not share one class)."""
        terms = sorted(self.term(c) for c in classes)
        if len(terms) == 1:
            return [f"{answer} a {terms[0]} ."]
        var = "?class" if answer == "?answer" else f"{answer}_class"
        return [f"{answer} a {var} .", f"VALUES {var} {{ {' '.join(terms)} }}"]

    def type_fit(self, nodes: Sequence[int]) -> float:
        """Cosine of the question's noun to the label of the commonest ``rdf:type`` of ``nodes`` (0 without)."""
        if not self.kind.noun:
            return 0.0
        counts: dict[int, int] = {}
        for n in nodes[:100]:
            for t in self.graph.types(n):
                counts[t] = counts.get(t, 0) + 1
        if not counts:
            return 0.0
        top = sorted(counts, key=lambda t: -counts[t])[:3]
        labels = [str(self.graph.node_labels[t]) for t in top]
        vectors = self.qa.ranker.vectors([self.kind.noun, *labels])
        return float(max((vectors[1:] @ vectors[0]).tolist()))

    def answers_of(self, matched: Sequence[tuple[Match, _Chosen]], exclude: set[int]) -> dict[int, list[float]]:
        stats: dict[int, list[float]] = {}
        for rank, (m, _) in enumerate(matched):
            if m.answer is None or m.answer in exclude:
                continue
            s = stats.setdefault(m.answer, [m.gsd, 0, rank])
            s[1] += 1
        return stats

    def count(self) -> Answer:
        if self.kind.constant is not None:
            return self.filtered(count=True)
        classes = self.counted_classes()
        typed = self.graph.instances(classes) if classes else None
        try:
            ranked = self.select(self.words, typed=typed)
        except _Refused:
            if typed is None:
                raise
            classes, typed = frozenset(), None  # no path reaches the class: count what the best path reaches
            ranked = self.select(self.words)
        none = self.none_counted(ranked, classes) if len(self.spans) == 1 else None
        if none is not None:
            return none
        c = ranked.candidate
        # "died in the same *city* as X", "share X's *city* of birth": X's value of that class, not its country too
        owned = [
            *self.qa._clause_classes(self.question, self.spans),
            *self.qa._genitive_classes(self.question, self.spans, self.type_mentions, classes),
        ]
        chosen = self.qa._typed_steps(self.chosen(ranked), owned)
        first = typed_mentions(chosen)
        ends = candidate_ends(self.graph.snapshot, c, first={m: self.graph.instances(k) for m, k in first.items()})
        anchors = {b.anchor for b in c.branches}
        t0 = time.perf_counter()
        matched, complete = self.match(chosen, self.pinned_spans(c), 4 * len(ends) + 10, self.relations_of(c))
        self.timings["match"] = time.perf_counter() - t0
        if typed is not None:  # only the items of the counted class, as the SPARQL's type line says
            ends &= typed
        # only matches that hold the pattern as the SPARQL states it: a match that swapped an anchor for a similar
        # node (GSD > 0: born in Stockholm, died in Uppsala) is evidence for a lookup, not an item of the count
        matched = [(m, s) for m, s in matched if m.answer in ends]
        stats = self.answers_of(matched, anchors)
        items = [self.answer_term(n, s[0], int(s[1])) for n, s in sorted(stats.items(), key=lambda kv: kv[1][2])]
        truth_set = ends - anchors
        complete = complete and set(stats) == truth_set
        lines, filters = self.lines(c, typed=first)
        if classes:
            lines += self.type_lines(classes)
        sparql = count_sparql(lines, filters=filters)
        n = len(items)
        answers = [_count_term(items)]
        named = _names([i.label for i in items])
        text = f"{'At least ' if not complete else ''}{n}" + (f" ({named})." if items else ".")
        return self.done(
            self.pattern_graph(chosen, sparql),
            text=text,
            answers=answers,
            items=items,
            evidence=self.evidence(matched),
            complete=complete,
        )

    def none_counted(self, chosen: RankedCandidate, classes: frozenset[int]) -> Answer | None:
        """0, for a count with one mention whose words name a relation into the entity that the graph does not hold
        there ("How many laureates died in X?" where none died in X: not the number *born* in X), or two relations
        no one thing holds both of ("how many were *born and died* in X", for a question that coordinates two
        words, :func:`~kgsvc.qa.rank.coordinates`). The one-step relations into the entity are ranked with the
        paths the graph holds, those it could hold as in :meth:`anything_at` and that things of the counted
        ``classes`` hold; ``None`` unless ``chosen`` (the count's own path) takes one step into the entity and one
        of them, held by nothing there, ranks above it, each of its relations named by a word the question writes
        besides the counted noun (by the lexicon's margin: in "how many *members* does X have" the blanked noun
        leaves nothing to name another relation by).

        Notes
        -----
        O(triples) once per graph for the relations' objects, then one ranking with one candidate per
        relation (and per pair of them, for a coordination).
        """
        span = self.spans[0]
        if not span.nodes or not all(len(b.steps) == 1 and not b.steps[0][1] for b in chosen.candidate.branches):
            return None  # a path of several steps, or out of the entity ("how many members does X have")
        anchor = span.nodes[0][0]
        typed = self.graph.instances(classes) if classes else None
        steps = self.steps_into(anchor, typed)
        could = [CandidatePattern((Branch(0, anchor, step),), 0) for step in steps]
        masked = mask_question(self.words, [(span.start, span.end)])
        if coordinates(masked):
            could += [
                CandidatePattern((Branch(0, anchor, a), Branch(0, anchor, b)), 0)
                for i, a in enumerate(steps)
                for b in steps[i + 1 :]
            ]
        ranked = self.qa.ranker.rank(self.words, [span], self.opts, could)
        top = next((r for r in ranked if r.candidate in could), None)
        if top is None or top.score <= chosen.score:
            return None
        lexicon = self.qa.ranker.graph_lexicon
        words = content_words(masked.replace("?", " "))
        for b in top.candidate.branches:  # each relation named by a word the question writes (not the counted noun)
            key = relation_key(self.graph.relation_labels[b.steps[0][0]])
            if not any(lexicon.contrast(w, key) >= lexicon.tau for w in words if w.isalpha()):
                return None
        ends = candidate_ends(self.graph.snapshot, top.candidate) - {anchor}
        if typed is not None:
            ends &= typed
        if ends:
            return None
        lines, filters = self.lines(top.candidate)
        if classes:
            lines += self.type_lines(classes)
        said = " and ".join(repr(self.graph.relation_labels[b.steps[0][0]]) for b in top.candidate.branches)
        said = f"both {said}" if len(top.candidate.branches) > 1 else said
        text = f"0: nothing has {said} {span.text!r} in the graph (what the graph holds, not a fact about the world)."
        return self.done(
            self.pattern_graph(self.chosen(top), count_sparql(lines, filters=filters)),
            text=text,
            answers=[_count_term([])],
            items=[],
            evidence=[],
        )

    def steps_into(self, anchor: int, holders: frozenset[int] | None = None) -> list[tuple[tuple[int, bool], ...]]:
        """The one-step walks into ``anchor`` by each relation that could hold it as its object, whether the graph
        holds it there or not: a relation some of whose sampled objects are like it (:meth:`fits`), and, with
        ``holders``, some of whose sampled subjects are among them (:meth:`~kgsvc.qa.graph.QAGraph.relation_objects`).
        """
        skip = set(self.skip_relations())
        return [
            ((relation, False),)
            for relation, objects in self.graph.relation_objects()
            if relation not in skip
            and self.fits(set(objects), {anchor})
            and (holders is None or not holders.isdisjoint(self.graph.relation_subjects(relation)))
        ]

    def exists(self, counted: Answer, noun: str) -> Answer:
        """A count's answer as the yes/no answer of whether any counted item is what ``noun`` names ("Was any *woman*
        among the winners of X?", counted as "how many woman among the winners of X?"); a failed count as it is.

        The noun is read as a category value (a span read off it, "woman" → *female*) or as a class. When the
        count's pattern holds the value, yes is a count above zero; when it counted values rather than things (the
        winners' genders), whether the value is among them. Otherwise the graph is asked directly: the items that
        reach the value by one of the relations that end at it (*gender*), in one step when any item has such a
        relation at all, else through one node (a laureate's *award* has the *category* "physics"). A class is
        tested on the items' types. ``_Refused`` when the noun is neither (the count would answer whether the set is
        empty, another question) or when no item has a relation that could hold the value.
        """
        if not counted.grounded or not counted.answers:
            return counted
        members = [n for t in counted.items if (n := self.node_of(t)) is not None]
        value = next((s for s in self.spans if s.method == "value" and s.text == noun), None)
        if value is not None:
            node = value.nodes[0][0]
            term = self.graph.node_term(node)
            if counted.pattern is not None and any(noun in (t.head, t.tail) for t in counted.pattern.triples):
                holders = [i.label for i in counted.items]
            elif not members:  # the count counted values (their genders), not things: is the value one of them?
                holders = [i.label for i in counted.items if (i.kind, i.value) == (term.kind, term.value)]
            else:
                holders = [self.graph.node_labels[m] for m in self.reaching(members, node)]
            noun = term.label
        else:
            classes = self.counted_classes(noun)
            if not classes:
                raise _Refused(f"{noun!r} names no value or class of the graph to look for among them")
            typed = self.graph.instances(classes)
            holders = [self.graph.node_labels[m] for m in members if m in typed]
        truth, n = bool(holders), len(counted.items)
        said = f"{len(holders)} of {n}: {_names(holders)}" if truth else f"none of the {n} is {noun}"
        text = f"{'Yes' if truth else 'No'} ({said})."
        return counted.model_copy(update={"kind": "ask", "truth": truth, "answers": [_yes_no(truth)], "text": text})

    def node_of(self, term: AnswerTerm) -> int | None:
        """The node id of an answer term that is a resource (a literal has none)."""
        text = f"<{term.value}>" if term.kind == "uri" else f"_:{term.value}" if term.kind == "bnode" else None
        node: int | None = None if text is None else self.graph.node_id(text)
        return node

    def reaching(self, members: Sequence[int], value: int) -> list[int]:
        """The ``members`` that reach ``value`` by a relation that ends at it: in one step when any member has such a
        relation, else through one node (:meth:`exists`). ``_Refused`` when no member has one within two steps.
        O(sum of the members' degrees × the degrees of their neighbours)."""
        snapshot = self.graph.snapshot
        lo, hi = int(snapshot.indptr[value]), int(snapshot.indptr[value + 1])
        ending = set(np.asarray(snapshot.relations[lo:hi])[~np.asarray(snapshot.outgoing[lo:hi])].tolist())

        def ends(node: int) -> tuple[bool, bool]:  # (has a relation that ends at the value, reaches the value)
            a, b = int(snapshot.indptr[node]), int(snapshot.indptr[node + 1])
            out = np.asarray(snapshot.outgoing[a:b]) & np.isin(np.asarray(snapshot.relations[a:b]), list(ending))
            return bool(out.any()), bool((np.asarray(snapshot.neighbors[a:b])[out] == value).any())

        first = [(m, *ends(m)) for m in members]
        if any(has for _, has, _ in first):
            return [m for m, _, reaches in first if reaches]
        holders, seen = [], False
        for m in members:
            a, b = int(snapshot.indptr[m]), int(snapshot.indptr[m + 1])
            steps = [ends(int(x)) for x in np.asarray(snapshot.neighbors[a:b])[np.asarray(snapshot.outgoing[a:b])]]
            seen = seen or any(has for has, _ in steps)
            if any(reaches for _, reaches in steps):
                holders.append(m)
        if not seen:
            label = self.graph.node_labels[value]
            raise _Refused(f"none of them has a relation that could hold {label!r}")
        return holders

    # -- lookup with a filter or a conjunction -------------------------------------------------------------------

    def lookup(self) -> Answer:
        if self.kind.constant is not None:
            return self.filtered(count=False)
        ranked = self.select(self.words, conjunction=True)
        c = ranked.candidate
        chosen = self.chosen(ranked)
        anchors = {b.anchor for b in c.branches}
        t0 = time.perf_counter()
        matched, complete = self.match(chosen, self.pinned_spans(c), self.opts.k, self.relations_of(c))
        self.timings["match"] = time.perf_counter() - t0
        if not matched:
            return self.qa._fail(self.base, self.timings, self.started, "matching", "no subgraph matches the pattern")
        stats = self.answers_of(matched, anchors)
        answers = [self.answer_term(n, s[0], int(s[1])) for n, s in sorted(stats.items(), key=lambda kv: kv[1][2])]
        lines, filters = self.lines(c)
        sparql = "SELECT DISTINCT ?answer WHERE {\n" + "\n".join(f"  {x}" for x in lines)
        sparql += "".join(f"\n  FILTER({f})" for f in filters) + "\n}"
        return self.done(
            self.pattern_graph(chosen, sparql),
            text=_names([a.label for a in answers]) + ".",
            answers=answers,
            evidence=self.evidence(matched),
            complete=complete,
        )

    def extended(self, chosen: _Chosen, attribute: Attribute) -> _Chosen:
        """``chosen`` with the edge ``?answer –attribute→ ?value`` (through ``?x_via`` for a two-step attribute:
        "which laureate of X *won the Nobel Prize most recently*" ranks by the year of each one's prize); ``?value``
        is the new answer node, and ``chosen``'s answer node stays the item's."""
        p = chosen.pattern
        assert p.answer is not None
        labels = self.graph.relation_labels
        nodes, edges, names, subject = list(p.nodes), list(p.edges), [*chosen.names], p.answer
        if attribute.via is not None:
            nodes.append(PatternNode("UNKNOWN node", False))
            edges.append(PatternEdge(subject, len(nodes) - 1, labels[attribute.via], True))
            names.append("?x_via")
            subject = len(nodes) - 1
        nodes.append(PatternNode("UNKNOWN value", False))
        edges.append(PatternEdge(subject, len(nodes) - 1, labels[attribute.relation], True))
        names.append("?value")
        return dataclasses.replace(chosen, pattern=Pattern(tuple(nodes), tuple(edges), len(nodes) - 1), names=names)

    def ranked_items(
        self, candidate: CandidatePattern, chosen: _Chosen, k_items: int, typed: frozenset[int] | None = None
    ) -> tuple[Attribute, _Chosen, list[tuple[Match, _Chosen]], bool]:
        """The attribute the question ranks or filters the candidate's answers by (those among ``typed`` when
        given: the class of the noun, or people for "who"), ``chosen`` extended to it, and the matches of that."""
        ends = candidate_ends(self.graph.snapshot, candidate)
        anchors = {b.anchor for b in candidate.branches}
        items = sorted(ends - anchors if typed is None else (ends - anchors) & typed)
        attributes = self.constant_attributes(items)  # the items' own values, and one step away (their prize's year)
        years = self.kind.constant is not None and year_constant(self.kind.constant)
        attribute = self.life(attributes) or pick_attribute(
            attributes,
            len(items),
            self.attribute_text(items_noun=False),
            self.graph.relation_labels,
            self.graph.embed,
            need_years=years and self.kind.kind != "ordering",
        )
        if attribute is None:
            raise _Refused("the answers have no date or number to compare")
        extended = self.extended(chosen, attribute)
        t0 = time.perf_counter()
        relations = self.relations_of(candidate) | {attribute.relation}
        if attribute.via is not None:
            relations.add(attribute.via)
        n_values = sum(len(v) for v in attribute.values.values())
        matched, complete = self.match(extended, self.pinned_spans(candidate), 4 * n_values + k_items, relations)
        self.timings["match"] = time.perf_counter() - t0
        item_node = chosen.pattern.answer
        assert item_node is not None
        matched = [
            (m, s)
            for m, s in matched
            if len(m.node_map) == len(extended.pattern.nodes)
            and m.node_map[item_node] not in anchors
            and (typed is None or m.node_map[item_node] in typed)
            and m.triples[-1][1] == attribute.relation
        ]
        return attribute, extended, matched, complete

    def passes(self, attribute: Attribute) -> tuple[Callable[[int], bool], str, str]:
        """The test a value node passes against the question's constant (its cue's comparison; equality without a
        cue: "died *in* 1962"; a year in the decade: "*in the* 1940s"), the SPARQL filter on ``?value``, and its
        operator."""
        cue, constant = self.kind.cue, self.kind.constant
        assert constant is not None
        part = date_part(constant)
        if part is not None:  # "born in February", "on July 19", "in May 1997": those characters of the date
            if attribute.kind != "date" or cue is not None:
                raise _Refused(f"{shown(constant)!r} can only be matched against dates")
            at, fixed = part

            def on_day(value: int) -> bool:
                parts = literal_parts(self.term(value))
                return parts is not None and parts[0][at - 1 : at - 1 + len(fixed)] == fixed

            return on_day, f'SUBSTR(STR(?value), {at}, {len(fixed)}) = "{fixed}"', "="
        parsed = constant_key(constant, attribute.kind)
        if parsed is None:
            raise _Refused(f"{constant!r} cannot be compared with the values of the answers")
        bound, years = parsed
        greater = None if cue is None else greater_wins(cue, attribute.kind)
        length = _length(constant)
        test_key = _key_test(bound, greater, length)

        def test(value: int) -> bool:
            key = attribute.key_of(self.term(value), years=years)
            return key is not None and test_key(key)

        key = attribute.key_sparql("?value", years=years)
        whole = years or attribute.kind == "year"
        return test, *_sparql_test(key, bound, greater, length, whole, attribute.kind)

    def filtered(self, *, count: bool) -> Answer:
        # "peace *laureates* born in February": the things of the noun's class are filtered, not the prizes the
        # entity's step reaches (with their laureates' dates one step further); any path where none reaches the class
        classes = self.counted_classes()
        typed = self.graph.instances(classes) if classes else None
        try:
            ranked = self.select(self.words, want_attribute=True, typed=typed)
        except _Refused:
            if typed is None:
                raise
            ranked, typed = self.select(self.words, want_attribute=True), None
        c = ranked.candidate
        chosen = self.chosen(ranked)
        attribute, extended, matched, complete = self.ranked_items(c, chosen, self.opts.k, typed)
        test, condition, operator = self.passes(attribute)
        item_node, value_node = chosen.pattern.answer, len(extended.pattern.nodes) - 1
        assert item_node is not None
        besides = self.kind.besides
        kept = [(m, s) for m, s in matched if test(m.node_map[value_node]) and m.node_map[item_node] not in besides]
        stats: dict[int, tuple[float, int]] = {}
        for m, _ in kept:
            item = m.node_map[item_node]
            if item not in stats or m.gsd < stats[item][0]:
                stats[item] = (m.gsd, m.node_map[value_node])
        items = [self.answer_term(n, g, by=v) for n, (g, v) in stats.items()]
        lines, filters = self.lines(c)
        lines += self.attribute_lines("?answer", "?value", attribute, "?x_via")
        fields = {"order_by": self.graph.relation_labels[attribute.relation], "operator": operator}
        filters += [condition, *self.besides_filter()]
        return self.filtered_answer(extended, lines, filters, fields, items, self.evidence(kept), count, complete)

    def class_items(self, classes: frozenset[int]) -> list[int]:
        """The things of ``classes`` a question with no entity compares or ranks, in id order (at most
        :data:`MAX_CLASS_ITEMS`)."""
        items = sorted(self.graph.instances(classes)) if classes else []
        if not items:
            raise _Refused("it names no entity of the graph to start from, and no class whose things to compare")
        if len(items) > MAX_CLASS_ITEMS:
            raise _Refused(f"it compares more than {MAX_CLASS_ITEMS} things of one class")
        return items

    def class_filtered(self, *, count: bool) -> Answer:
        """A lookup or count of the things of the question's class noun whose date or number passes the constant
        ("which laureates were born before 1850", "how many laureates died in 1962"): no entity to start from, the
        class's instances (at most :data:`MAX_CLASS_ITEMS`) are the items; the evidence is each kept item's value,
        matched for the first ``k`` of them."""
        from kgsvc.qa.pipeline import _Chosen

        classes = self.counted_classes()
        items = self.class_items(classes)
        constant = self.kind.constant
        assert constant is not None
        attribute = pick_attribute(
            self.constant_attributes(items),
            len(items),
            self.attribute_text(items_noun=False),
            self.graph.relation_labels,
            self.graph.embed,
            need_years=year_constant(constant),
        )
        if attribute is None:
            raise _Refused("the things it names have no date or number to compare")
        test, condition, operator = self.passes(attribute)
        kept = {
            item: value
            for item in items
            if item not in self.kind.besides
            for value, _ in attribute.values.get(item, [])
            if test(value)
        }
        t0 = time.perf_counter()
        matched = [m for item in list(kept)[: self.opts.k] for m in self.attribute_matches(item, attribute)[:1]]
        self.timings["match"] = time.perf_counter() - t0
        gsd = {m.node_map[0]: m.gsd for m, _ in matched}
        items_found = [self.answer_term(item, gsd.get(item, 0.0), by=value) for item, value in kept.items()]
        via = [PatternNode("UNKNOWN node", False)] if attribute.via is not None else []
        nodes = (PatternNode("UNKNOWN answer", False), *via, PatternNode("UNKNOWN value", False))
        labels = self.graph.relation_labels
        steps = [labels[attribute.via]] if attribute.via is not None else []
        edges = tuple(
            PatternEdge(i, i + 1, label, True) for i, label in enumerate([*steps, labels[attribute.relation]])
        )
        names = ["?answer", *(["?x_via"] if via else []), "?value"]
        shape = _Chosen(Pattern(nodes, edges, len(nodes) - 1), names, {}, "baseline", None)
        lines = [*self.type_lines(classes), *self.attribute_lines("?answer", "?value", attribute, "?x_via")]
        fields = {"order_by": labels[attribute.relation], "operator": operator}
        evidence = self.evidence([(m, shape) for m, _ in matched])
        filters = [condition, *self.besides_filter()]
        return self.filtered_answer(shape, lines, filters, fields, items_found, evidence, count, True)

    def besides_filter(self) -> list[str]:
        """The SPARQL filter that keeps :attr:`~kgsvc.qa.kinds.QuestionKind.besides` out of the answers."""
        if not self.kind.besides:
            return []
        return [f"?answer NOT IN ({', '.join(self.graph.node_terms[n] for n in sorted(self.kind.besides))})"]

    def filtered_answer(
        self,
        extended: _Chosen,
        lines: list[str],
        filters: list[str],
        kind_fields: dict[str, str],
        items: list[AnswerTerm],
        evidence: list[Evidence],
        count: bool,
        complete: bool,
    ) -> Answer:
        """The answer of a lookup or count filtered by the question's constant (``kind_fields``: the relation
        compared, ``order_by``, and the ``operator``)."""
        cue, constant, label = self.kind.cue, self.kind.constant, kind_fields["order_by"]
        named = _names([f"{i.label} ({i.ranked_by.label if i.ranked_by else ''})" for i in items])
        if count:
            sparql = count_sparql(lines, filters=filters)
            n = len(items)
            answers = [_count_term(items)]
            text = f"{n}" + (f" ({named})." if items else ".")
            return self.done(
                self.pattern_graph(extended, sparql, **kind_fields),
                text=text,
                answers=answers,
                items=items,
                evidence=evidence,
                complete=complete,
            )
        sparql = "SELECT DISTINCT ?answer WHERE {\n" + "\n".join(f"  {x}" for x in lines)
        sparql += "".join(f"\n  FILTER({f})" for f in filters) + "\n}"
        if not items:
            text = f"None: no answer in the graph has a {label} {cue.word if cue else 'in'} {shown(constant or '')}."
        else:
            text = f"{named}."
        return self.done(
            self.pattern_graph(extended, sparql, **kind_fields),
            text=text,
            answers=items,
            items=items,
            evidence=evidence,
            complete=complete,
        )

    # -- ordering ------------------------------------------------------------------------------------------------

    def ordering(self) -> Answer:
        cue = self.kind.cue
        assert cue is not None
        # "the youngest Nobel *winner*": things of that class are ranked; "who …" asks for the class nearest to
        # "person" (the kind's noun), not the institutions a prize also names
        classes = self.counted_classes()
        typed = self.graph.instances(classes) if classes else None
        try:
            ranked = self.select(self.words, want_attribute=True, typed=typed)
        except _Refused:
            if not classes:
                raise
            ranked, typed = self.select(self.words, want_attribute=True), None
        c = ranked.candidate
        chosen = self.chosen(ranked)
        attribute, extended, matched, complete = self.ranked_items(c, chosen, self.opts.k, typed)
        greater = greater_wins(cue, attribute.kind)
        item_node, value_node = chosen.pattern.answer, len(extended.pattern.nodes) - 1
        assert item_node is not None
        best: dict[int, tuple[float, int, float]] = {}  # item -> (key, value node, gsd)
        for m, _ in matched:
            item, value = m.node_map[item_node], m.node_map[value_node]
            key = attribute.key_at(item, value, self.term(value))
            if key is None:
                continue
            if item not in best or compare(key, best[item][0], greater):
                best[item] = (key, value, m.gsd)
        if not best:
            raise _Refused("no answer has a value to rank by")
        order = sorted(best, key=lambda n: (-best[n][0] if greater else best[n][0], self.term(n)))
        limit = self.kind.limit
        cut = best[order[min(limit, len(order)) - 1]][0]
        top = [n for n in order if (best[n][0] >= cut if greater else best[n][0] <= cut)]
        items = [self.answer_term(n, best[n][2], by=best[n][1]) for n in order]
        answers = items[: len(top)]
        lines, filters = self.lines(c)
        lines += self.attribute_lines("?answer", "?value", attribute, "?x_via")
        sparql = order_sparql(lines, attribute, descending=greater, limit=limit, filters=filters)
        label = attribute.label(self.graph.relation_labels)
        shown = [
            f"{a.label} ({_value_text(label, attribute, best[n][0], a)})" for a, n in zip(answers, order, strict=False)
        ]
        tie = " (tied)" if len(answers) > limit else ""
        rest = [
            f"{a.label} ({a.ranked_by.label if a.ranked_by else ''})" for a in items[len(answers) : len(answers) + 4]
        ]
        text = _names(shown) + tie + (f"; then {', '.join(rest)}" if rest else "") + "."
        place = {n: i for i, n in enumerate(order)}  # evidence in ranked order, the best first
        evidence = self.evidence(sorted(matched, key=lambda p: place.get(p[0].node_map[item_node], len(order))))
        return self.done(
            self.pattern_graph(extended, sparql, order_by=label, descending=greater, limit=limit),
            text=text,
            answers=answers,
            items=items,
            evidence=evidence,
            complete=complete,
        )

    def counts(self, items: Sequence[int]) -> tuple[tuple[int, bool], dict[int, int], frozenset[int]]:
        """How many things of the counted noun's class (:attr:`QuestionKind.counted`, read as
        :meth:`counted_classes` reads a noun) each of ``items`` reaches by one relation step
        (:func:`~kgsvc.qa.aggregate.counts_by_step`): the step, the counts (items that reach none left out, as a
        SPARQL ``GROUP BY`` has no row for them) and the counted classes. The step is the one whose label reads most
        like the counted noun and the words after it ("laureates *born* in X"), among those that reach such things
        from at least a third as many items as the step that reaches them from the most (the cities laureates died in
        are half as many as those they were born in)."""
        noun, at = self.kind.counted, self.kind.cue_at
        assert at is not None
        classes = self.counted_classes(noun)
        steps = counts_by_step(self.graph.snapshot, items, self.graph.instances(classes) if classes else None)
        if not steps:
            raise _Refused(f"nothing it names has {noun} to count")
        widest = max(len(per_item) for per_item in steps.values())
        usable = [step for step, per_item in steps.items() if 3 * len(per_item) >= widest]
        said = " ".join(f"{noun} {self.question[at[1] :]}".replace("?", " ").split())
        vectors = self.qa.ranker.vectors([said, *(self.graph.relation_labels[r] for r, _ in usable)])
        cosines = (vectors[1:] @ vectors[0]).tolist()
        step = max(zip(usable, cosines, strict=True), key=lambda sc: (sc[1], -sc[0][0], sc[0][1]))[0]
        return step, steps[step], classes

    def counting_lines(self, step: tuple[int, bool], classes: frozenset[int], item: str = "?answer") -> list[str]:
        """The SPARQL lines from ``item`` to a ``?counted`` thing by ``step``, of ``classes`` when given."""
        relation, outgoing = step
        head, tail = (item, "?counted") if outgoing else ("?counted", item)
        return [f"{head} {self.rterm(relation)} {tail} .", *(self.type_lines(classes, "?counted") if classes else [])]

    def count_terms(self, counts: dict[int, int], gsd: dict[int, float] | None = None) -> dict[int, AnswerTerm]:
        """Each counted item as an answer term ranked by its count (an ``xsd:integer`` literal)."""
        out = {}
        for n, k in counts.items():
            number = Term(kind="literal", value=str(k), label=str(k), datatype=_XSD_INTEGER)
            term = self.graph.node_term(n).model_dump()
            out[n] = AnswerTerm(**term, gsd=(gsd or {}).get(n, 0.0), ranked_by=number)
        return out

    def ordering_by_count(self) -> Answer:
        """ "Which institution in X has the most *Nobel laureates*" (the chosen path's answers, of the class of the
        question's noun), "which institution has the most laureates" (no entity: every thing of that class,
        :meth:`class_items`) or "which can claim more laureates, A or B" (the two mentions): ranked by :meth:`counts`.
        The best ``limit`` and the ties with the last of them are the answers."""
        cue, noun = self.kind.cue, self.kind.counted
        assert cue is not None
        chosen: _Chosen | None = None
        matched: list[tuple[Match, _Chosen]] = []
        complete = True
        if self.kind.choice:
            if len(self.spans) < 2:
                raise _Refused("a choice needs two entities of the graph to compare")
            items = [s.nodes[0][0] for s in self.pair()]
            lines: list[str] = [f"VALUES ?answer {{ {' '.join(self.term(n) for n in items)} }}"]
            filters: list[str] = []
        elif not self.spans:  # "which institution has the most laureates": every thing of the asked class
            classes = self.counted_classes()
            items = self.class_items(classes)
            lines, filters = self.type_lines(classes), []
        else:
            classes = self.counted_classes()
            typed = self.graph.instances(classes) if classes else None
            counted_classes = self.counted_classes(noun)  # things are not ranked by how many of their own kind
            avoid = self.graph.instances(counted_classes) if counted_classes else frozenset()
            try:
                ranked = self.select(self.words, typed=typed, avoid=avoid)
            except _Refused:
                if typed is None:
                    raise
                ranked, classes, typed = self.select(self.words, avoid=avoid), frozenset(), None
            c = ranked.candidate
            chosen = self.chosen(ranked)
            ends = candidate_ends(self.graph.snapshot, c) - {b.anchor for b in c.branches}
            items = sorted(ends if typed is None else ends & typed)[:MAX_EVIDENCE]
            lines, filters = self.lines(c)
            lines += self.type_lines(classes) if classes else []
            t0 = time.perf_counter()
            k = self.opts.k + len(items)
            matched, complete = self.match(chosen, self.pinned_spans(c), k, self.relations_of(c))
            self.timings["match"] = time.perf_counter() - t0
        on_path = self.counts_on_path(c, items) if chosen is not None else None
        if on_path is not None:  # "which field has the most laureates born in X": counted along the path
            at, counts, counted = on_path
            step = c.branches[0].steps[at]
            counting, counted_var = "", f"?x{at + 1}"
            lines += self.type_lines(counted, counted_var) if counted else []
        else:
            step, counts, counted = self.counts(items)
            counting, counted_var = "\n  ".join(self.counting_lines(step, counted)), "?counted"
        if not counts:
            raise _Refused(f"no answer has {noun} to count")
        most = cue.number_greater  # "most", "more", "the largest number of"
        order = sorted(counts, key=lambda n: (-counts[n] if most else counts[n], self.term(n)))
        cut = counts[order[min(self.kind.limit, len(order)) - 1]]
        top = [n for n in order if (counts[n] >= cut if most else counts[n] <= cut)]
        place = {n: i for i, n in enumerate(order)}
        matched = sorted((p for p in matched if p[0].answer in place), key=lambda p: place[p[0].answer or 0])
        gsd: dict[int, float] = {}
        for m, _ in matched:
            gsd.setdefault(m.answer or 0, m.gsd)
        terms = self.count_terms(counts, gsd)
        items_out = [terms[n] for n in order]
        answers = items_out[: len(top)]
        sparql = count_order_sparql(
            lines, counting, descending=most, limit=self.kind.limit, filters=filters, counted=counted_var
        )
        label = self.graph.relation_labels[step[0]]
        shown = [f"{a.label} ({a.ranked_by.label if a.ranked_by else 0} {noun})" for a in answers]
        tie = " (tied)" if len(answers) > self.kind.limit else ""
        rest = [f"{a.label} ({a.ranked_by.label if a.ranked_by else 0})" for a in items_out[len(answers) :][:4]]
        text = _names(shown) + tie + (f"; then {', '.join(rest)}" if rest else "") + "."
        kind_fields = {"order_by": label, "descending": most, "limit": self.kind.limit}
        if chosen is not None:
            pattern = self.pattern_graph(chosen, sparql, **kind_fields)
        else:
            head, tail = ("?answer", "?counted") if step[1] else ("?counted", "?answer")
            triples = [PatternTriple(head=head, relation=label, tail=tail)]
            pattern = PatternGraph(
                triples=triples, answer="?answer", source="candidate", sparql=sparql, kind="ordering", **kind_fields
            )
        return self.done(
            pattern, text=text, answers=answers, items=items_out, evidence=self.evidence(matched), complete=complete
        )

    def counts_on_path(
        self, candidate: CandidatePattern, items: Sequence[int]
    ) -> tuple[int, dict[int, int], frozenset[int]] | None:
        """When things of the counted noun's class lie on the chosen one-branch path, between its entity and its
        answers ("which *field* has the most laureates born in X": X ← *birth place* ← laureate → … → field): the
        position (the step after which they are reached, the nearest to the answers), how many distinct ones lead to
        each answer, and the class; ``None`` otherwise (what is counted is one step beyond the answers).

        Notes
        -----
        One walk from each counted node at that position to the answers (O(Σ degree along the rest of the path)).
        """
        classes = self.counted_classes(self.kind.counted)
        if not classes or len(candidate.branches) != 1:
            return None
        branch, snapshot = candidate.branches[0], self.graph.snapshot
        counted = self.graph.instances(classes)
        reached = [found for _, found in branch_walk(snapshot, branch)]
        at = next((k for k in range(len(reached) - 2, -1, -1) if reached[k] & counted), None)
        if at is None:
            return None
        wanted = set(items)
        per_item: dict[int, set[int]] = {}
        for origin in sorted(reached[at] & counted):
            nodes = {origin}
            for relation, outgoing in branch.steps[at + 1 :]:
                nodes = {n for m in nodes for n in snapshot.neighbors_via(m, relation, outgoing=outgoing).tolist()}
            for item in nodes & wanted:
                per_item.setdefault(item, set()).add(origin)
        return at, {item: len(origins) for item, origins in per_item.items()}, classes

    def value_matches(self, mention: int, node: int, attribute: Attribute) -> list[tuple[Match, _Chosen]]:
        """The evidence ``node –attribute→ ?value`` (through ``?x1`` for a two-step attribute) for the mention."""
        spans = list(self.spans)
        spans[mention] = dataclasses.replace(spans[mention], nodes=((node, 1.0, 0.0),))
        return self.attribute_matches(node, attribute, spans, mention)

    def attribute_matches(
        self, node: int, attribute: Attribute, spans: Sequence[LinkedSpan] = (), mention: int | None = None
    ) -> list[tuple[Match, _Chosen]]:
        """The evidence ``node –attribute→ ?value`` (through ``?x1`` for a two-step attribute), ``node`` pinned as
        the span ``spans[mention]`` (a span of its own label without one)."""
        from kgsvc.qa.pipeline import _Chosen

        labels = self.graph.relation_labels
        if mention is None:
            text = str(self.graph.node_labels[node])
            spans, mention = [LinkedSpan(text, 0, 0, "class", 1.0, ((node, 1.0, 0.0),))], 0
        text = spans[mention].text
        if attribute.via is None:
            nodes: tuple[PatternNode, ...] = (PatternNode(text, True), PatternNode("UNKNOWN value", False))
            edges: tuple[PatternEdge, ...] = (PatternEdge(0, 1, labels[attribute.relation], True),)
            names = [text, "?value"]
            relations = {attribute.relation}
        else:
            nodes = (PatternNode(text, True), PatternNode("UNKNOWN node", False), PatternNode("UNKNOWN value", False))
            edges = (
                PatternEdge(0, 1, labels[attribute.via], True),
                PatternEdge(1, 2, labels[attribute.relation], True),
            )
            names = [text, "?x1", "?value"]
            relations = {attribute.via, attribute.relation}
        chosen = _Chosen(Pattern(nodes, edges, len(nodes) - 1), names, {0: mention}, "candidate", None)
        matched, _ = self.match(chosen, spans, 4 * len(attribute.values.get(node, [])) + 2, relations)
        return [(m, s) for m, s in matched if m.node_map[0] == node]

    def spans_life(self) -> bool:
        """Whether the comparison or ordering is of a span of a life or an age at an event (:meth:`life`)."""
        if self.kind.kind not in ("ordering", "comparison") or self.kind.cue is None:
            return False
        return self.age_clause() is not None or _LIFE.search(self.question) is not None

    def life(self, attributes: Sequence[Attribute]) -> Attribute | None:
        """The span of a life (:func:`~kgsvc.qa.aggregate.life_span`) when a comparative or superlative is about
        one (:data:`_LIFE`); where :meth:`age_clause` finds an event, its date or year (the one the clause's words
        name, one step away as readily as the item's own): the age at it (:func:`~kgsvc.qa.aggregate.age_at`) after
        an age cue ("the oldest *when they won*"), the time itself after a cue of time ("the first … *to win*");
        else ``None``."""
        if not self.spans_life():
            return None
        at = self.age_clause()
        if at is None:
            return life_span(attributes)
        aged = "age" in self.kind.cue.hint.split() if self.kind.cue is not None else False
        own = own_dates(attributes)
        if aged and not own:
            return None
        opened = min(
            own, key=lambda a: sum(min(k for _, k in v) for v in a.values.values()) / len(a.values), default=None
        )
        events = [a for a in attributes if a.kind in ("date", "year") and (a is not opened or not aged)]
        clause = blank_spans(self.question, [(s.start, s.end) for s in self.spans])[at[0] : at[1]]
        n = len({i for a in attributes for i in a.values})
        # an event is as often a thing's date one step away (a prize's year) as the item's own
        labels, embed = self.graph.relation_labels, self.graph.embed
        event = pick_attribute(events, n, clause, labels, embed, two_step_penalty=0.0)
        if event is None or not aged or opened is None:
            return event  # "the first … to win": the time of the event itself
        return age_at(opened, event)

    def life_dates(self, nodes: Sequence[int]) -> Attribute:
        """The two date relations that open and close a life (:func:`~kgsvc.qa.aggregate.life_span`), read from
        ``nodes`` and from other things of their classes (at most :data:`_LIFE_PEERS`): the living have no date that
        closes a life, so the nodes alone may not show it."""
        peers = sorted({c for n in nodes for c in self.graph.types(n)})
        others = sorted(self.graph.instances(peers) - set(nodes))[:_LIFE_PEERS] if peers else []
        span = life_span(comparable_relations(self.graph.snapshot, self.graph.node_terms, [*nodes, *others]))
        if span is None:
            raise _Refused("the graph holds no pair of dates that open and close a life")
        return span

    def is_living(self, node: int, span: Attribute) -> bool:
        """Whether ``node`` has the date that opens a life and none that closes it."""
        snapshot = self.graph.snapshot
        assert span.since is not None

        def holds(relation: int) -> bool:
            return len(snapshot.neighbors_via(node, relation, outgoing=True)) > 0

        return holds(span.since) and not holds(span.relation)

    def living(self) -> Answer:
        """ "is X still alive", "which … are still living", "how many … are still alive": the entity, or the answers
        of the question without those words, kept where :meth:`is_living` (the SPARQL says the same with a ``FILTER
        NOT EXISTS`` on the date that closes a life)."""
        if self.kind.kind == "ask":
            node = self.spans[0].nodes[0][0] if self.spans and self.spans[0].nodes else None
            if node is None or len(self.spans) > 1:
                raise _Refused("'alive' is asked of one entity of the graph")
            span = self.life_dates([node])
            truth = self.is_living(node, span)
            subject = self.term(node)
            lines = [f"{subject} {self.rterm(span.since or 0)} ?opened ."]
            sparql = ask_sparql(lines, filters=[f"NOT EXISTS {{ {subject} {self.rterm(span.relation)} ?closed }}"])
            label = self.graph.node_labels[node]
            said = "no" if truth else "a"
            text = f"{'Yes' if truth else 'No'} ({label} has {said} {self.graph.relation_labels[span.relation]})."
            chosen = self.alive_shape()
            return self.done(
                self.pattern_graph(chosen, sparql), text=text, truth=truth, answers=[_yes_no(truth)], items=[]
            )
        if self.kind.kind == "count":
            found = self.count()
        else:  # the question without the words, on the whole lookup path
            found = self.qa.ask(self.kind.words, **vars(self.opts)).model_copy(update={"question": self.question})
        if not found.grounded:
            return found
        terms = found.items if self.kind.kind == "count" else found.answers
        held = [(t, n) for t in terms if (n := self.node_of(t)) is not None]
        if not held:
            return found
        span = self.life_dates([n for _, n in held])
        kept = [t for t, n in held if self.is_living(n, span)]
        lines = [
            f"?answer {self.rterm(span.since or 0)} ?opened .",
            f"FILTER NOT EXISTS {{ ?answer {self.rterm(span.relation)} ?closed }}",
        ]
        assert found.sparql is not None and found.pattern is not None
        end = found.sparql.rindex("\n}")
        sparql = found.sparql[:end] + "".join(f"\n  {x}" for x in lines) + found.sparql[end:]
        pattern = found.pattern.model_copy(update={"sparql": sparql})
        closed = self.graph.relation_labels[span.relation]
        if self.kind.kind == "count":
            n = len(kept)
            answers = [_count_term(kept)]
            text = f"{n} (of {len(terms)}, those with no {closed}" + (
                f": {_names([i.label for i in kept])})." if kept else ")."
            )
            return found.model_copy(
                update={"answers": answers, "items": kept, "text": text, "pattern": pattern, "sparql": sparql}
            )
        text = f"{_names([i.label for i in kept])}." if kept else f"None: each of the {len(terms)} has a {closed}."
        return found.model_copy(update={"answers": kept, "text": text, "pattern": pattern, "sparql": sparql})

    def alive_shape(self) -> _Chosen:
        """The pattern of "is X alive": X alone."""
        from kgsvc.qa.pipeline import _Chosen

        text = self.spans[0].text
        return _Chosen(Pattern((PatternNode(text, True),), (), None), [text], {0: 0}, "candidate", None)

    def attribute_lines(self, subject: str, value: str, attribute: Attribute, middle: str) -> list[str]:
        """SPARQL triple patterns from ``subject`` to ``value`` along the attribute (through ``middle``; and to
        ``{value}_from`` for a span)."""
        relation = self.rterm(attribute.relation)
        opened = [f"{subject} {self.rterm(attribute.since)} {value}_from ."] if attribute.since is not None else []
        if attribute.via is None:
            return [*opened, f"{subject} {relation} {value} ."]
        return [*opened, f"{subject} {self.rterm(attribute.via)} {middle} .", f"{middle} {relation} {value} ."]

    def attributes_of(self, nodes: Sequence[int]) -> list[Attribute]:
        """The direct and two-step attributes of ``nodes``."""
        skip = self.skip_relations()
        snapshot, terms = self.graph.snapshot, self.graph.node_terms
        return [
            *comparable_relations(snapshot, terms, nodes, skip=skip),
            *comparable_paths(snapshot, terms, nodes, skip=skip),
        ]

    def constant_attributes(self, items: Sequence[int]) -> list[Attribute]:
        """The attributes of ``items`` a constant of the question can filter: the dates only when no cue compares
        ("died *in* 1962": :meth:`~kgsvc.qa.pipeline.QuestionAnswerer._year_of_date` read the verb as a date's),
        dates and years for a decade or century ("won in the 1910s": the year of the prize)."""
        attributes = self.attributes_of(items)
        if self.kind.cue is not None:
            return attributes
        kinds = ("date", "year") if period(self.kind.constant or "") is not None else ("date",)
        return [a for a in attributes if a.kind in kinds]

    def compared(self) -> tuple[list[int], Attribute, dict[int, list[tuple[Match, _Chosen]]]]:
        """The best node of each compared mention (:meth:`pair`), the attribute they share (:meth:`shared_attribute`),
        and each one's value evidence."""
        nodes, attribute = self.shared_attribute()
        t0 = time.perf_counter()
        evidence = {i: self.value_matches(i, n, attribute) for i, n in enumerate(nodes)}
        self.timings["match"] = time.perf_counter() - t0
        return nodes, attribute, evidence

    def shared_attribute(self) -> tuple[list[int], Attribute]:
        """The best node of each compared mention (:meth:`pair`) and the attribute they share."""
        nodes = [self.valued(s) for s in self.pair() if s.nodes]
        attributes = self.attributes_of(nodes)
        shared = [a for a in attributes if all(n in a.values for n in nodes)]
        self.timings["pattern"] = time.perf_counter() - self.t0
        attribute = self.life(shared) or pick_attribute(
            shared, len(nodes), self.attribute_text(), self.graph.relation_labels, self.graph.embed
        )
        if attribute is None:
            raise _Refused("the compared entities share no date or number to compare")
        return nodes, attribute

    def events(self, nodes: Sequence[int]) -> tuple[Attribute, Attribute] | None:
        """The date each of two compared mentions' own words name, when they name two different ones ("Did X *die*
        before Y *was born*?", "Had X already *died* by the time Y *was born*?": X's death date, Y's birth date): the
        words after each mention up to the other mention or the end of the question, the comparison's cue left
        out, each read by :func:`~kgsvc.qa.aggregate.pick_attribute` among that node's own dates (its cosine at least
        :data:`_EVENT_WORDS`). ``None`` when one mention has no such words after it ("Was X born before Y?", "before
        Y won the Nobel": a prize's year is not Y's own date) or both name the same date."""
        spans = self.pair()
        if len(spans) < 2 or len(nodes) < 2:
            return None
        cue = self.kind.cue.word if self.kind.cue is not None else ""
        picked = []
        for i, (span, node) in enumerate(zip(spans, nodes, strict=False)):
            stop = spans[1].start if i == 0 and spans[1].start > span.end else len(self.question)
            words = re.findall(r"[^\W\d_]+", fold(self.question[span.end : stop]).replace(fold(cue), " "))
            dates = [a for a in self.attributes_of([node]) if a.kind == "date" and a.via is None]
            if not words or not dates:
                return None
            best = pick_attribute(dates, 1, " ".join(words), self.graph.relation_labels, self.graph.embed)
            if best is None or best.score - 0.2 < _EVENT_WORDS:  # the words name no date of its own ("won")
                return None
            picked.append(best)
        if picked[0].relation == picked[1].relation:
            return None
        return picked[0], picked[1]

    def pair(self) -> list[LinkedSpan]:
        """The two compared mentions: those either side of "or" when the question has one, else the first two."""
        at = [m.start() for m in re.finditer(r"\bor\b", self.question)]
        if at and len(self.spans) > 2:
            before = [s for s in self.spans if s.end <= at[-1]]
            after = [s for s in self.spans if s.start >= at[-1]]
            if before and after:
                return [before[-1], after[0]]
        return self.spans[:2]

    def valued(self, span: LinkedSpan) -> int:
        """The first node of ``span`` that has a date or number to compare (else its first node)."""
        for n, _, _ in span.nodes[: self.opts.nodes_per_mention]:
            if comparable_relations(self.graph.snapshot, self.graph.node_terms, [n], skip=self.skip_relations()):
                return n
        return span.nodes[0][0]

    def order_choice(self) -> Answer:
        cue = self.kind.cue
        assert cue is not None
        if len(self.spans) < 2:
            raise _Refused("a choice needs two entities of the graph to compare")
        nodes, attribute, found = self.compared()
        greater = greater_wins(cue, attribute.kind)
        best: dict[int, tuple[float, int, float]] = {}
        for i, n in enumerate(nodes):
            for m, _ in found[i]:
                key = attribute.key_at(n, m.node_map[-1], self.term(m.node_map[-1]))
                if key is not None and (n not in best or compare(key, best[n][0], greater)):
                    best[n] = (key, m.node_map[-1], m.gsd)
        if len(best) < 2:
            raise _Refused("the compared entities share no date or number to compare")
        order = sorted(best, key=lambda n: (-best[n][0] if greater else best[n][0], self.term(n)))
        items = [self.answer_term(n, best[n][2], by=best[n][1]) for n in order]
        top = [a for a, n in zip(items, order, strict=True) if best[n][0] == best[order[0]][0]]
        values = " ".join(self.term(n) for n in nodes)
        lines = [f"VALUES ?answer {{ {values} }}", *self.attribute_lines("?answer", "?value", attribute, "?x1")]
        sparql = order_sparql(lines, attribute, descending=greater, limit=1)
        label = attribute.label(self.graph.relation_labels)
        text = (
            _names([a.label for a in top])
            + (" (tied)" if len(top) > 1 else "")
            + ": "
            + ", ".join(
                f"{a.label} {_value_text(label, attribute, best[n][0], a)}" for a, n in zip(items, order, strict=True)
            )
            + "."
        )
        chosen = found[0][0][1] if found[0] else found[1][0][1]
        matched = [p for i in range(len(nodes)) for p in found[i]]
        return self.done(
            self.pattern_graph(chosen, sparql, order_by=label, descending=greater, limit=1),
            text=text,
            answers=top,
            items=items,
            evidence=self.evidence(matched),
        )

    # -- comparison (yes/no) -------------------------------------------------------------------------------------

    def compare_counts(self) -> Answer:
        """ "Were more *laureates* born in X than in Y?": yes when the first mention's count (:meth:`counts`) is
        greater ("more") or smaller ("fewer", "less") than the second's."""
        cue = self.kind.cue
        assert cue is not None
        if len(self.spans) < 2:
            raise _Refused("a comparison of counts needs two entities of the graph")
        nodes = [s.nodes[0][0] for s in self.pair()]
        step, counts, counted = self.counts(nodes)
        first, second = (counts.get(n, 0) for n in nodes)
        greater = cue.word.lower() == "more"
        truth = first > second if greater else first < second
        lines = [
            *(x.replace("?counted", "?a") for x in self.counting_lines(step, counted, self.term(nodes[0]))),
            *(x.replace("?counted", "?b") for x in self.counting_lines(step, counted, self.term(nodes[1]))),
        ]
        sparql = (
            "ASK {\n  { SELECT (COUNT(DISTINCT ?a) AS ?na) WHERE { " + " ".join(lines[: len(lines) // 2]) + " } }\n"
            "  { SELECT (COUNT(DISTINCT ?b) AS ?nb) WHERE { " + " ".join(lines[len(lines) // 2 :]) + " } }\n"
            f"  FILTER(?na {'>' if greater else '<'} ?nb)\n}}"
        )
        label = self.graph.relation_labels[step[0]]
        terms = self.count_terms({n: counts.get(n, 0) for n in nodes})
        said = "; ".join(f"{terms[n].label}: {counts.get(n, 0)} {self.kind.counted}" for n in nodes)
        head, tail = ("?answer", "?counted") if step[1] else ("?counted", "?answer")
        pattern = PatternGraph(
            triples=[PatternTriple(head=head, relation=label, tail=tail)],
            answer="?answer",
            source="candidate",
            sparql=sparql,
            kind="comparison",
            order_by=label,
            operator=">" if greater else "<",
        )
        return self.done(
            pattern,
            text=f"{'Yes' if truth else 'No'} ({said}).",
            truth=truth,
            answers=[_yes_no(truth)],
            items=[terms[n] for n in nodes],
        )

    def comparison(self) -> Answer:
        cue = self.kind.cue
        if self.kind.tally:
            return self.compare_tally()
        if self.kind.counted:
            return self.compare_counts()
        if self.kind.constant is not None or len(self.spans) < 2:
            return self.compare_constant()
        assert cue is not None
        nodes, attribute = self.shared_attribute()
        greater = greater_wins(cue, attribute.kind)
        each = (self.events(nodes) if attribute.kind == "date" else None) or (attribute, attribute)
        t0 = time.perf_counter()
        found = {i: self.value_matches(i, n, each[i]) for i, n in enumerate(nodes)}
        self.timings["match"] = time.perf_counter() - t0
        keys = {
            i: [
                (k, m)
                for m, _ in found[i]
                if (k := each[i].key_at(nodes[i], m.node_map[-1], self.term(m.node_map[-1]))) is not None
            ]
            for i in range(2)
        }
        if not keys[0] or not keys[1]:
            raise _Refused("the compared entities share no date or number to compare")
        truth = any(compare(a, b, greater) for a, _ in keys[0] for b, _ in keys[1])
        operator = ">" if greater else "<"
        lines = [
            *self.attribute_lines(self.term(nodes[0]), "?a", each[0], "?ma"),
            *self.attribute_lines(self.term(nodes[1]), "?b", each[1], "?mb"),
        ]
        filters = [f"{each[0].key_sparql('?a')} {operator} {each[1].key_sparql('?b')}"]
        sparql = ask_sparql(lines, filters=filters)
        label = " / ".join(dict.fromkeys(a.label(self.graph.relation_labels) for a in each))
        items = [self.answer_term(nodes[i], m.gsd, by=m.node_map[-1]) for i in range(2) for _, m in keys[i]]
        said = "; ".join(
            f"{a.label}: {_value_text(each[i].label(self.graph.relation_labels), each[i], k, a)}"
            for a, (i, k) in zip(items, [(i, k) for i in range(2) for k, _ in keys[i]], strict=True)
        )
        text = f"{'Yes' if truth else 'No'} ({said})."
        chosen = found[0][0][1]
        matched = [p for i in range(2) for p in found[i]]
        return self.done(
            self.pattern_graph(chosen, sparql, order_by=label, operator=operator),
            text=text,
            truth=truth,
            answers=[_yes_no(truth)],
            items=items,
            evidence=self.evidence(matched),
        )

    def compare_tally(self) -> Answer:
        """ "Has X won the Nobel *more than once*?", "Is X tied to *more than one* institution?": the number of X's
        values by the best-ranked path from X (the question's words less the cue and the number;
        things of the noun's class where it names one), X itself not counted, compared with the constant ("at least
        two" is "more than one"); the SPARQL counts them in a subquery."""
        cue, constant = self.kind.cue, self.kind.constant
        assert cue is not None and constant is not None
        span = self.spans[0]
        noun = set(fold(self.kind.noun).split())
        named = next((t for t in self.type_mentions if t.classes and noun & set(fold(t.text).split())), None)
        classes = frozenset(named.classes) if named is not None else None
        keep = class_filter(self.graph, self.graph.instances(classes)) if classes else None
        # the class noun is a filter, not a step ("more than one *Nobel Prize*" is no *nobel laureates*)
        words = self.words if named is None else blank_spans(self.words, [(named.start, named.end)])
        r = next((r for r in self.ranked(words, self.spans[:1], keep) if len(r.candidate.branches) == 1), None)
        if r is None:
            raise _Refused(f"no relation path from {span.text!r} reaches anything to count")
        c = r.candidate
        counted = candidate_ends(self.graph.snapshot, c) - {c.branches[0].anchor}
        if classes:
            counted &= self.graph.instances(classes)
        self.timings["pattern"] = time.perf_counter() - self.t0
        bound, greater = int(constant), cue.number_greater
        truth = len(counted) > bound if greater else len(counted) < bound
        lines, filters = self.lines(c)
        if classes:
            lines += self.type_lines(classes)
        subquery = count_sparql(lines, filters=filters).replace("\n", " ")
        sparql = f"ASK {{\n  {{ {subquery} }}\n  FILTER(?count {'>' if greater else '<'} {bound})\n}}"
        chosen = self.chosen(r)
        t0 = time.perf_counter()
        matched, complete = self.match(chosen, self.pinned_spans(c), self.opts.k, self.relations_of(c))
        self.timings["match"] = time.perf_counter() - t0
        said = _names([str(self.graph.node_labels[n]) for n in sorted(counted)])
        than = f"{'more' if greater else 'fewer'} than {bound}"
        text = f"{'Yes' if truth else 'No'} ({span.text}: {len(counted)}, {said}; {than})."
        return self.done(
            self.pattern_graph(chosen, sparql),
            text=text,
            truth=truth,
            answers=[_yes_no(truth)],
            evidence=self.evidence(matched),
            complete=complete,
        )

    def compare_constant(self) -> Answer:
        cue, constant = self.kind.cue, self.kind.constant
        if constant is None or not self.spans or not self.spans[0].nodes:
            raise _Refused("a comparison needs two entities, or an entity and a number or date")
        node = self.valued(self.spans[0])
        years = year_constant(constant)
        self.timings["pattern"] = time.perf_counter() - self.t0
        attribute = pick_attribute(
            self.attributes_of([node]),
            1,
            self.attribute_text(),
            self.graph.relation_labels,
            self.graph.embed,
            need_years=years,
        )
        if attribute is None:
            raise _Refused(f"{self.spans[0].text!r} has no date or number to compare with {constant}")
        parsed = constant_key(constant, attribute.kind)
        if parsed is None:
            raise _Refused(f"{constant!r} cannot be compared with {attribute.label(self.graph.relation_labels)}")
        bound, as_years = parsed
        t0 = time.perf_counter()
        found = self.value_matches(0, node, attribute)
        self.timings["match"] = time.perf_counter() - t0
        keys = [
            (k, m) for m, _ in found if (k := attribute.key_of(self.term(m.node_map[-1]), years=as_years)) is not None
        ]
        if not keys:
            raise _Refused(f"{self.spans[0].text!r} has no value to compare with {constant}")
        greater = None if cue is None else greater_wins(cue, attribute.kind)  # no cue: "was X born in 1942?"
        length = _length(constant)
        test_key = _key_test(bound, greater, length)
        truth = any(test_key(k) for k, _ in keys)
        key = attribute.key_sparql("?a", years=as_years)
        whole = as_years or attribute.kind == "year"
        condition, operator = _sparql_test(key, bound, greater, length, whole, attribute.kind)
        lines = self.attribute_lines(self.term(node), "?a", attribute, "?m")
        sparql = ask_sparql(lines, filters=[condition])
        label = attribute.label(self.graph.relation_labels)
        items = [self.answer_term(node, m.gsd, by=m.node_map[-1]) for _, m in keys]
        said = "; ".join(f"{a.label}: {label} {a.ranked_by.label if a.ranked_by else ''}" for a in items)
        word = cue.word if cue is not None else "in"
        text = f"{'Yes' if truth else 'No'} ({said}; {word} {constant}: {'yes' if truth else 'no'})."
        return self.done(
            self.pattern_graph(found[0][1], sparql, order_by=label, operator=operator),
            text=text,
            truth=truth,
            answers=[_yes_no(truth)],
            items=items,
            evidence=self.evidence(found),
        )

    # -- ask -----------------------------------------------------------------------------------------------------

    def anything_at(self) -> Answer | None:
        """A yes/no question with one mention that asks whether anything at all relates to it as the question says
        ("Did *any* Nobel laureate die in X?", "Did *anyone* die in X?", "Has a laureate *ever* …"): the one-step
        relations into the entity are ranked, those the graph holds there and those it could hold (a relation some of
        whose objects are like the entity: :meth:`fits` on a sample of them,
        :meth:`~kgsvc.qa.graph.QAGraph.relation_objects`), so that what is asked is read from the question's words
        and not from what the entity happens to have (X has a *birth place* of someone, the question asks for a
        death). Yes when the best-ranked one holds at the entity, for an instance of
        the class the question names if it names one the entity is not of ("Nobel *laureate*"), no otherwise.
        ``None`` without such a word before the mention (:data:`_ANY`; "Does X have *any* children?" asks of X's own
        values) or a linked node, or when nothing is ranked.

        Notes
        -----
        O(triples) once per graph for the relations' objects, then one ranking with one candidate per
        relation."""
        span = self.spans[0]
        if not span.nodes or not _ANY.search(self.question[: span.start]):
            return None  # "Does X have any children?" asks of X's own values
        anchor = span.nodes[0][0]
        could = [CandidatePattern((Branch(0, anchor, step),), 0) for step in self.steps_into(anchor)]
        ranked = self.qa.ranker.rank(
            self.words, [span], self.opts, could, keep=lambda c: len(c.branches) == 1 and len(c.branches[0].steps) == 1
        )
        if not ranked:
            return None
        best = ranked[0]
        self.timings["pattern"] = time.perf_counter() - self.t0
        ends = candidate_ends(self.graph.snapshot, best.candidate)
        own = self.graph.types(anchor)
        classes = next(
            (frozenset(t.classes) for t in self.type_mentions if t.classes and not own & set(t.classes)), None
        )
        held = ends & self.graph.instances(classes) if classes else ends
        lines, _ = self.lines(best.candidate, "?x")
        if classes:
            lines += self.type_lines(classes, "?x")
        relation = self.graph.relation_labels[best.candidate.branches[0].steps[0][0]]
        chosen = self.chosen(best)
        matched: list[tuple[Match, _Chosen]] = []
        complete = True
        if held:
            t0 = time.perf_counter()
            c = best.candidate
            matched, complete = self.match(chosen, self.pinned_spans(c), self.opts.k, self.relations_of(c))
            matched = [(m, shape) for m, shape in matched if m.answer in held]
            self.timings["match"] = time.perf_counter() - t0
            facts = "; ".join(_triples_text(e) for e in self.evidence(matched)[:1])
            text = f"Yes (the graph holds it{': ' + facts if facts else ''})."
        else:
            subject = f"no {_names([self.graph.node_labels[k] for k in sorted(classes)])}" if classes else "nothing"
            text = (
                f"No: {subject} has {relation!r} {span.text!r} in the graph (this is what the graph holds, not a fact"
                " about the world)."
            )
        return self.done(
            self.pattern_graph(chosen, ask_sparql(lines)),
            text=text,
            truth=bool(held),
            answers=[_yes_no(bool(held))],
            evidence=self.evidence(matched),
            complete=complete,
        )

    def second_mention(self) -> LinkedSpan:
        """A yes/no question with one mention: the end of a ranked path whose label the question spells out."""
        words = f" {' '.join(fold(self.question).replace('?', ' ').split())} "
        first = self.spans[0]
        for r in self.ranked(self.question, self.spans[:1])[:10]:
            for node in sorted(candidate_ends(self.graph.snapshot, r.candidate))[:500]:
                label = " ".join(fold(self.graph.node_labels[node]).split())
                at = words.find(f" {label} ")
                if label and at >= 0 and fold(first.text).find(label) < 0:
                    return LinkedSpan(label, at, at + len(label), "exact", 1.0, ((node, 1.0, 0.0),))
        raise _Refused(f"a yes/no question needs two things of the graph to relate; only {first.text!r} was found")

    def same_values(self) -> Answer | None:
        """A yes/no question with one mention and a share cue, about two of its own values ("Did X die in the same
        city they were born in?", "Was X born in the same country where she died?"): the best ranked path (of the
        first ten) that leaves the entity by one relation and comes back by another (*death place* → ← *birth
        place*) says which two; the answer is yes when a value of the one is a value of the other, of the class the
        share cue names where it names one ("the same *city*"). ``None`` when no such path is ranked.

        Notes
        -----
        O(degree) per path tried: the two relations' values of the entity (:meth:`GraphSnapshot.neighbors_via`).
        """
        if not says_shared(self.question):
            return None
        node = self.spans[0].nodes[0][0]
        snapshot = self.graph.snapshot
        shared, _ = self.qa.ranker.shared_instances(self.question)
        for r in self.ranked(self.question, self.spans[:1])[:10]:
            branch = r.candidate.branches[0]
            if len(r.candidate.branches) != 1 or len(branch.steps) != 2:
                continue
            (first, out), (second, back) = branch.steps
            if first == second or out == back:
                continue
            one = set(snapshot.neighbors_via(node, first, outgoing=out).tolist())
            other = set(snapshot.neighbors_via(node, second, outgoing=not back).tolist())
            if shared:
                one, other = one & shared, other & shared
            if not one and not other:
                continue
            both = sorted(one & other)
            x, lines = self.term(node), []
            for relation, forward in ((first, out), (second, not back)):
                head, tail = (x, "?v") if forward else ("?v", x)
                lines.append(f"{head} {self.rterm(relation)} {tail} .")
            label = self.graph.relation_labels
            said = f"{label[first]}: {_names([self.graph.node_labels[v] for v in sorted(one)])}; "
            said += f"{label[second]}: {_names([self.graph.node_labels[v] for v in sorted(other)])}"
            values = both or sorted(one | other)
            chosen = self.chosen(r)
            assert chosen.pattern.answer is not None
            names = list(chosen.names)
            names[chosen.pattern.answer] = self.spans[0].text  # the path comes back to the entity
            return self.done(
                self.pattern_graph(dataclasses.replace(chosen, names=names), ask_sparql(lines)),
                text=f"{'Yes' if both else 'No'} ({said}).",
                truth=bool(both),
                answers=[_yes_no(bool(both))],
                items=[self.answer_term(v, 0.0) for v in values],
            )
        return None

    def own_values(self) -> Answer | None:
        """A yes/no question with one mention about one of its values and a value it reaches through a relative
        clause ("Did X die in the city where his institution was?", "… in the city where he was working when he
        won?"): the relation of the best ranked one-step path from X (*death place*), the class the noun before the
        clause names (:func:`~kgsvc.qa.rank.nearest_classes`: "the *city*"), and, among the one- and two-step paths
        from X to things of that class (X –a→ v, X –a→ m –b→ v; a another relation), the one the clause's words name
        best (:meth:`~kgsvc.qa.zeroshot.GraphLexicon.similarity`, at least :data:`CLAUSE_STEP_MIN`: "his
        *institution*" by the class of m, "he was *working*" by :func:`~kgsvc.qa.zeroshot.names_affiliation` →
        *member of*, then *city*; the shorter of two paths named alike). Yes when a value of the first is a value of
        the path. ``None`` without such a clause, class or path (the question is refused as before).

        Notes
        -----
        O(Σ degree of X's out-neighbours) for the two-step paths; one similarity per clause word and relation.
        """
        m = _WHERE_CLAUSE.search(self.question)
        if m is None:
            return None
        classes = nearest_classes(self.graph, self.qa.ranker, m.group(1))
        within = self.graph.instances(classes) if classes else frozenset()
        node = best_first(self.qa, self.spans[0]).nodes[0][0]
        snapshot = self.graph.snapshot
        first = next(
            (
                r.candidate.branches[0].steps[0]
                for r in self.ranked(self.question, self.spans[:1])[:10]
                if len(r.candidate.branches) == 1 and r.candidate.branches[0].steps[0][1]
            ),
            None,
        )
        if first is None or not within:
            return None
        values = set(snapshot.neighbors_via(node, first[0], outgoing=True).tolist()) & within
        reached: dict[tuple[int, ...], set[int]] = {}
        middles: dict[tuple[int, ...], set[int]] = {}
        for a, middle in snapshot.out_edges(node):
            if a == first[0]:
                continue
            if middle in within:
                reached.setdefault((a,), set()).add(middle)  # "where he was born": one step
            for b, end in snapshot.out_edges(middle):
                if end in within and end != node:
                    reached.setdefault((a, b), set()).add(end)
                    middles.setdefault((a, b), set()).add(middle)
        words = [w for w in fold(m.group(2)).split() if w.isalpha() and w not in _CLAUSE_SKIP]
        lexicon, keys = self.qa.ranker.graph_lexicon, [relation_key(x) for x in self.graph.relation_labels]
        # "where his *institution* was": a word naming the class of the middle things names the path
        named = frozenset().union(*(nearest_classes(self.graph, self.qa.ranker, w) for w in words)) - classes

        def score(path: tuple[int, ...]) -> tuple[float, int]:
            said = max((lexicon.similarity(w, keys[r]) for w in words for r in path), default=0.0)
            typed = any(self.graph.types(x) & named for x in middles.get(path, ()))
            works = any(names_affiliation(w, keys[r]) for w in words for r in path)  # "where he was *working*"
            return (1.0 if typed or works else said), -len(path)  # the shorter path of two the clause names alike

        best = max(reached, key=score, default=None)
        if best is None or score(best)[0] < CLAUSE_STEP_MIN or not values:
            return None
        other = reached[best]
        both = sorted(values & other)
        x, label, names = self.term(node), self.graph.relation_labels, self.graph.node_labels
        hops = [(x, "?v")] if len(best) == 1 else [(x, "?m"), ("?m", "?v")]
        mention = self.spans[0].text
        lines = [f"{x} {self.rterm(first[0])} ?v ."]
        lines += [f"{head} {self.rterm(r)} {tail} ." for r, (head, tail) in zip(best, hops, strict=True)]
        triples = [PatternTriple(head=mention, relation=label[first[0]], tail="?v")]
        triples += [
            PatternTriple(head=mention if head == x else head, relation=label[r], tail=tail)
            for r, (head, tail) in zip(best, hops, strict=True)
        ]
        said = f"{label[first[0]]}: {_names([names[v] for v in sorted(values)])}; "
        said += f"{' → '.join(label[r] for r in best)}: {_names([names[v] for v in sorted(other)])}"
        pattern = PatternGraph(triples=triples, answer="?v", source="baseline", sparql=ask_sparql(lines), kind="ask")
        return self.done(
            pattern,
            text=f"{'Yes' if both else 'No'} ({said}).",
            truth=bool(both),
            answers=[_yes_no(bool(both))],
            items=[self.answer_term(v, 0.0) for v in (both or sorted(values | other))],
        )

    def same_date_part(self) -> Answer | None:
        """A yes/no question about a part of two mentions' dates ("Were X and Y born in the same year?", "Did X and Y
        die in the same month?"; :data:`_SAME_PART`): the date relation the verb names (the closest of the graph's
        date relations, at least ``YEAR_VERB_MIN``: :meth:`QuestionAnswerer.closest_date`), each entity's one value
        of it, compared on the part named (the year: characters 1–4; the month: 1–7; the day: the date). ``None``
        without such words, such a relation, or one value for each (the question goes on as before: a shared value).
        """
        from kgsvc.qa.pipeline import YEAR_VERB_MIN  # it imports this module

        m = _SAME_PART.search(self.question)
        if m is None or len(self.spans) < 2:
            return None
        sim, relation = self.qa.closest_date(fold(m.group("verb")))
        if sim < YEAR_VERB_MIN:
            return None
        width = _PART_WIDTH[m.group("part").lower()]
        found: list[tuple[LinkedSpan, int, str]] = []
        for span in self.spans[:2]:
            node = best_first(self.qa, span).nodes[0][0]
            dates = self.qa.dates_of(node, relation)
            if len(dates) != 1:
                return None
            found.append((span, node, dates.pop()))
        truth = found[0][2][:width] == found[1][2][:width]
        label = self.graph.relation_labels[relation]
        lines = [
            f"{self.term(node)} {self.rterm(relation)} ?{v} ." for (_, node, _), v in zip(found, "ab", strict=True)
        ]
        same = f"SUBSTR(STR(?a), 1, {width}) = SUBSTR(STR(?b), 1, {width})"
        triples = [
            PatternTriple(head=span.text, relation=label, tail=f"?{v}")
            for (span, _, _), v in zip(found, "ab", strict=True)
        ]
        said = "; ".join(f"{self.graph.node_labels[node]}: {label} {date}" for _, node, date in found)
        sparql = ask_sparql(lines, filters=[same])
        pattern = PatternGraph(triples=triples, answer="?a", source="baseline", sparql=sparql, kind="ask")
        return self.done(
            pattern,
            text=f"{'Yes' if truth else 'No'} ({said}).",
            truth=truth,
            answers=[_yes_no(truth)],
            items=[self.answer_term(node, 0.0) for _, node, _ in found],
        )

    def ask(self) -> Answer:
        if (part := self.same_date_part()) is not None:
            return part
        if len(self.spans) < 2 and (same := self.same_values()) is not None:
            return same
        if len(self.spans) == 1 and (anything := self.anything_at()) is not None:
            return anything
        if len(self.spans) < 2:
            try:
                self.spans = [self.spans[0], self.second_mention()]
            except _Refused:
                if (own := self.own_values()) is None:
                    raise
                return own
        spans = self.spans[:2]
        classes = set(self.graph.classes())
        for entity, named in ((0, 1), (1, 0)):  # "Was X a Nobel laureate?": X's rdf:type
            if spans[named].nodes and all(n in classes for n, _, _ in spans[named].nodes):
                if spans[entity].nodes and spans[entity].nodes[0][0] not in classes:
                    return self.ask_class(spans[entity], spans[named])
        targets = {
            0: {n for n, _, _ in spans[1].nodes[: self.opts.nodes_per_mention]},
            1: {n for n, _, _ in spans[0].nodes[: self.opts.nodes_per_mention]},
        }
        ranked = self.ranked(self.question, spans)
        self.timings["pattern"] = time.perf_counter() - self.t0
        chosen_rank: RankedCandidate | None = None
        hit: int | None = None
        # "Has anyone born in X won the physics Nobel?": someone unnamed meets both, by a step and by two; a path from
        # one that misses the other is no "no" while such a meeting ranks below it
        anyone = _ANYONE.search(self.question) is not None
        for i, r in enumerate(ranked):
            if chosen_rank is not None and i >= _ANYONE_SCAN:
                break
            c = r.candidate
            if (
                len(c.branches) == 2
                and {b.mention for b in c.branches} == {0, 1}
                and (_one_step_each(c) or (anyone and _within_two(c)))
            ):
                return self.ask_met(r)  # the two meet at a node ("is X a laureate *in medicine*": X's prize's field)
            if len(c.branches) != 1:
                continue
            ends = candidate_ends(self.graph.snapshot, c)
            target = targets[c.branches[0].mention]
            if not self.fits(ends, target) or (chosen_rank is not None and not target & ends):
                continue
            found = sorted(target & ends)
            chosen_rank, hit = r, (found[0] if found else None)
            if found or not anyone:
                break
        if chosen_rank is None:
            raise _Refused(
                f"no relation path from {spans[0].text!r} or {spans[1].text!r} leads to things like the other"
            )
        c = chosen_rank.candidate
        mention = c.branches[0].mention
        other = 1 - mention
        chosen = self.chosen(chosen_rank)
        lines, filters = self.lines(c)
        t0 = time.perf_counter()
        if hit is not None:
            pinned = self.pinned_spans(c)
            pinned[other] = dataclasses.replace(spans[other], nodes=((hit, 1.0, 0.0),))
            p = chosen.pattern
            assert p.answer is not None
            nodes = list(p.nodes)
            nodes[p.answer] = PatternNode(spans[other].text, True)
            names = list(chosen.names)
            names[p.answer] = spans[other].text
            pinned_chosen = dataclasses.replace(
                chosen,
                pattern=Pattern(tuple(nodes), p.edges, p.answer),
                names=names,
                anchors={**chosen.anchors, p.answer: other},
            )
            matched, complete = self.match(pinned_chosen, pinned, self.opts.k, self.relations_of(c))
            matched = [(m, s) for m, s in matched if m.answer == hit]
            lines = [x.replace("?answer", self.term(hit)) for x in lines]
            sparql = ask_sparql(lines)
            self.timings["match"] = time.perf_counter() - t0
            facts = "; ".join(_triples_text(e) for e in self.evidence(matched)[:3])
            text = "Yes (the graph holds it" + (f": {facts}" if facts else "") + ")."
            return self.done(
                self.pattern_graph(pinned_chosen, sparql),
                text=text,
                truth=True,
                answers=[_yes_no(True)],
                items=[self.answer_term(hit, matched[0][0].gsd if matched else 0.0)],
                evidence=self.evidence(matched),
                complete=complete,
            )
        matched, complete = self.match(chosen, self.pinned_spans(c), self.opts.k, self.relations_of(c))
        self.timings["match"] = time.perf_counter() - t0
        target_terms = ", ".join(self.term(n) for n in sorted(targets[mention]))
        sparql = ask_sparql(
            [x.replace("?answer", "?other") for x in lines] + [f"VALUES ?other {{ {target_terms} }}"],
            filters=[f.replace("?answer", "?other") for f in filters],
        )
        anchors = {b.anchor for b in c.branches}
        stats = self.answers_of(matched, anchors)
        holds = [self.answer_term(n, s[0], int(s[1])) for n, s in sorted(stats.items(), key=lambda kv: kv[1][2])]
        said = _names([h.label for h in holds])
        text = (
            f"No: no such fact in the graph (this is what the graph holds, not a fact about the world; "
            f"for {spans[mention].text!r} it has {said} there)."
        )
        return self.done(
            self.pattern_graph(chosen, sparql),
            text=text,
            truth=False,
            answers=[_yes_no(False)],
            items=holds,
            evidence=self.evidence(matched),
            complete=complete,
        )

    def ask_class(self, entity: LinkedSpan, named: LinkedSpan) -> Answer:
        """Yes when the entity's ``rdf:type`` is one of the classes the other mention names ("Was X a Nobel
        laureate?", the class *Laureate*); no otherwise, with the classes it has."""
        from kgsvc.qa.pipeline import _Chosen

        kind = self.graph.type_relation()
        assert kind is not None  # a class mention implies classes
        node, wanted = entity.nodes[0][0], [n for n, _, _ in named.nodes]
        held = sorted(self.graph.types(node) & set(wanted))
        target = held[0] if held else wanted[0]
        label = self.graph.relation_labels[kind]
        pattern = Pattern(
            (PatternNode(entity.text, True), PatternNode(named.text, True)), (PatternEdge(0, 1, label, True),), 1
        )
        chosen = _Chosen(pattern, [entity.text, named.text], {0: 0, 1: 1}, "candidate", None)
        pinned = [
            dataclasses.replace(entity, nodes=((node, 1.0, 0.0),)),
            dataclasses.replace(named, nodes=((target, 1.0, 0.0),)),
        ]
        t0 = time.perf_counter()
        matched, complete = self.match(chosen, pinned, 1, {kind}) if held else ([], True)
        self.timings["match"] = time.perf_counter() - t0
        terms = " ".join(self.term(c) for c in wanted)
        sparql = ask_sparql([f"{self.term(node)} {self.rterm(kind)} ?class .", f"VALUES ?class {{ {terms} }}"])
        if held:
            text = f"Yes (the graph types {entity.text!r} as {self.graph.node_labels[target]})."
        else:
            has = _names([str(self.graph.node_labels[c]) for c in sorted(self.graph.types(node))]) or "no class"
            text = f"No: the graph does not type {entity.text!r} as {named.text!r} (it has {has})."
        return self.done(
            self.pattern_graph(chosen, sparql),
            text=text,
            truth=bool(held),
            answers=[_yes_no(bool(held))],
            evidence=self.evidence(matched),
            complete=complete,
        )

    def ask_met(self, ranked: RankedCandidate) -> Answer:
        """Yes, by a conjunction candidate that ranks above every path from one mention to the other: one step from
        each meets at a node ("is X a nobel laureate in *medicine*": X → *laureate award* → prize ← *category* ←
        medicine). Candidates are enumerated on the graph, so the meeting node exists; the evidence is its match. (A
        branch of two steps is not taken from a named subject: X's institution's prizes are not X's; it is where the
        subject is "anyone", :data:`_ANYONE`.)"""
        c = ranked.candidate
        chosen = self.chosen(ranked)
        lines, filters = self.lines(c)
        t0 = time.perf_counter()
        matched, complete = self.match(chosen, self.pinned_spans(c), self.opts.k, self.relations_of(c))
        self.timings["match"] = time.perf_counter() - t0
        facts = "; ".join(_triples_text(e) for e in self.evidence(matched)[:3])
        return self.done(
            self.pattern_graph(chosen, ask_sparql(lines, filters=filters)),
            text="Yes (the graph holds it" + (f": {facts}" if facts else "") + ").",
            truth=True,
            answers=[_yes_no(True)],
            evidence=self.evidence(matched),
            complete=complete,
        )

    def fits(self, ends: set[int], targets: set[int]) -> bool:
        """Whether ``ends`` hold things like ``targets``: a shared ``rdf:type``, else the same term kind."""
        if not ends:
            return False
        sample = sorted(ends)[:200]
        target_types = set().union(*(self.graph.types(t) for t in targets)) if targets else set()
        if target_types:
            return any(self.graph.types(n) & target_types for n in sample) or bool(ends & targets)
        literal = {self.term(t).startswith('"') for t in targets}
        return any(self.term(n).startswith('"') in literal for n in sample)


def _a_word(qa: QuestionAnswerer, question: str, span: LinkedSpan) -> bool:
    """A lower-case span that links only literals ("born" → the family name "Born") is a word, not a mention; not a
    noun read as a category value ("*women*" ↔ "female")."""
    if span.method == "value":
        return False
    text = question[span.start : span.end]
    literal = all(qa.graph.node_terms[n].startswith('"') for n, _, _ in span.nodes)
    return literal and text == text.lower() and not constants(text)


def _one_step_each(candidate: CandidatePattern) -> bool:
    return all(len(b.steps) == 1 for b in candidate.branches)


#: An indefinite subject ("Has *anyone* born in X won the physics Nobel?", "Did *any laureate* …"): the two named
#: things are conditions on someone unnamed, who may reach either by two steps (a thing's class or field), unlike a
#: named subject, whose institution's prizes are not its own.
_ANYONE = re.compile(
    r"^\W*(?:has|have|had|did|does|do|is|are|was|were)\s+(?:there\s+)?(?:any|some)(?:one|body|\s)", re.IGNORECASE
)


#: How far down the ranking an "anyone" question looks for a meeting or a path that hits, past a path that misses.
_ANYONE_SCAN = 12


def _within_two(candidate: CandidatePattern) -> bool:
    """One branch of one step and the other of at most two."""
    lengths = sorted(len(b.steps) for b in candidate.branches)
    return lengths[0] == 1 and lengths[-1] <= 2


def _names_counted(qa: QuestionAnswerer, kind: QuestionKind, span: LinkedSpan) -> bool:
    """A span inside the counted noun phrase of an ordering by a count whose nodes are all classes ("the most *Nobel*
    laureates" linked to the class *Nobel Prize*): it names what is counted, no entity to start from (an entity
    there is a condition: "the most *NIST* researchers")."""
    if not kind.counted or kind.cue_at is None or not span.nodes:
        return False
    start, end = kind.cue_at
    classes = set(qa.graph.classes())
    return start <= span.start and span.end <= end and all(n in classes for n, _, _ in span.nodes)


def best_first(qa: QuestionAnswerer, span: LinkedSpan) -> LinkedSpan:
    """The span with its equally close nodes ordered by degree, most first: of two nodes named "Albert Einstein"
    the one the graph says things about, not a bare ``owl:sameAs`` target. A span that links only literals (not a
    number) names the entities that hold them ("Arrhenius" → the laureate whose family name it is); a category value
    ("women" ↔ "female") is kept as it is."""
    if not span.nodes or span.method == "value":
        return span
    graph = qa.graph
    if all(graph.node_terms[n].startswith('"') for n, _, _ in span.nodes) and not constants(span.text):
        holders: dict[int, tuple[int, float, float]] = {}
        for n, score, distance in span.nodes:
            start, stop = int(graph.snapshot.indptr[n]), int(graph.snapshot.indptr[n + 1])
            for m, out in zip(
                graph.snapshot.neighbors[start:stop].tolist(), graph.snapshot.outgoing[start:stop].tolist(), strict=True
            ):
                if not out and m not in holders and len(holders) < 20:
                    holders[m] = (m, score, distance)
        if holders:
            span = dataclasses.replace(span, nodes=tuple(holders.values()))
    best = min(d for _, _, d in span.nodes)
    close = [n for n in span.nodes if n[2] <= best + 1e-9]
    rest = [n for n in span.nodes if n[2] > best + 1e-9]
    close.sort(key=lambda n: -qa.graph.snapshot.degree(n[0]))
    return dataclasses.replace(span, nodes=(*close, *rest))


def _names(labels: Sequence[str]) -> str:
    shown = list(labels[:10])
    if len(labels) > 10:
        shown.append(f"{len(labels) - 10} more")
    if not shown:
        return "nothing"
    if len(shown) == 1:
        return shown[0]
    return f"{', '.join(shown[:-1])} and {shown[-1]}"


def _triples_text(evidence: Evidence) -> str:
    return ", ".join(f"{t.head.label} {t.relation.label} {t.tail.label}" for t in evidence.triples)


def _value_text(label: str, attribute: Attribute, key: float, item: AnswerTerm) -> str:
    """How an item's value reads in an answer's text: the attribute and the value ranked by, after the years of a
    span (a life, an age at an event)."""
    value = f"{label} {item.ranked_by.label if item.ranked_by else ''}"
    return f"{key / 365.2425:.1f} years, {value}" if attribute.since is not None else value


def _count_term(items: Sequence[AnswerTerm]) -> AnswerTerm:
    """The answer of a count: the number of ``items``, with their best GSD and each one's support."""
    n = len(items)
    number = Term(kind="literal", value=str(n), label=str(n), datatype=_XSD_INTEGER)
    return AnswerTerm(**number.model_dump(), gsd=min((i.gsd for i in items), default=0.0), support=n)


def _yes_no(truth: bool) -> AnswerTerm:
    value = "true" if truth else "false"
    return AnswerTerm(
        kind="literal",
        value=value,
        label="yes" if truth else "no",
        datatype="http://www.w3.org/2001/XMLSchema#boolean",
        gsd=0.0,
    )


def _length(constant: str) -> int:
    """The years a period constant spans ("1940s": 10, "1800s": 100); 0 for a year, number or date."""
    span = period(constant)
    return 0 if span is None else span[1]


def _key_test(bound: float, greater: bool | None, length: int) -> Callable[[float], bool]:
    """The test of a value's key against a constant's: its comparison (``greater``), equality without one; for a
    period of ``length`` years from ``bound`` (a decade or century), its years, or, compared, before its first year or
    after its last ("after the 1950s")."""
    if length and greater is None:
        return lambda key: in_period(key, bound, length)
    if length and greater:
        return lambda key: key >= bound + length
    if greater is None:
        return lambda key: key == bound
    return lambda key: compare(key, bound, greater)


def _sparql_test(key: str, bound: float, greater: bool | None, length: int, whole: bool, kind: str) -> tuple[str, str]:
    """The SPARQL filter of :func:`_key_test` on the expression ``key`` (``whole``: years, written as integers),
    and its operator (``=`` for equality and for a period)."""
    literal = str(int(bound)) if whole else _sparql_number(bound, kind)
    if length and greater is None:
        return f"{key} >= {literal} && {key} < {int(bound) + length}", "="
    if length and greater:
        return f"{key} >= {int(bound) + length}", ">"
    operator = "=" if greater is None else ">" if greater else "<"
    return f"{key} {operator} {literal}", operator


def _sparql_number(key: float, kind: str) -> str:
    if kind == "date":
        import datetime as dt

        return f'"{dt.date.fromordinal(int(key)).isoformat()}"^^<http://www.w3.org/2001/XMLSchema#date>'
    return f'"{key!r}"^^<http://www.w3.org/2001/XMLSchema#double>'
