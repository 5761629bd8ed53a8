"""Ranking of grounded candidate patterns against a question (GraphRAFT arXiv 2504.05478 §4.2, with SimGRAG's
exemplars as votes and an order-aware alignment; DESIGN §5).

Each candidate (a relation path or two-entity conjunction that exists around the linked nodes,
:mod:`kgsvc.qa.candidates`) gets

    score = vote + w_align · P(signature | question) + w_sim · cos(masked question, verbalised candidate)
            + 0.3 · coverage + 0.05 · mention score − hop_penalty · extra hops − 2 · hop_penalty · detour
            [+ w_person · person-likeness of the answers, for "who" in a graph with no class near "person"]

where ``vote`` is the similarity-weighted share of the nearest exemplars (:mod:`kgsvc.qa.exemplars`) whose
pattern signature equals the candidate's (half the share of a voted signature whose last steps agree),
``P(signature | question)`` the posterior of the candidate's relation steps under the order-aware lexicon
(:mod:`kgsvc.qa.align`) with the votes as log prior, softmax-normalised over all candidates, and each candidate
reads the question with only *its own* mentions masked (a span it does not use stays a word of the question).
Vote and cosine are order-blind; the alignment is what orders "the mother of X 's son". A **detour** (a path that
only walks straight back along a triple somewhere, :class:`~kgsvc.qa.candidates.CandidatePattern`) pays for the
two steps of its there-and-back at the full hop penalty, exemplar votes or not: its ends are those of a path two
steps shorter, and it is what a question means only when nothing else fits ("which artists are on X 's label" =
X, its label's only artist).

Without exemplars the alignment is the zero-shot one of :mod:`kgsvc.qa.zeroshot` (``w_zero``), and a conjunction
may have one branch's first step, or both branches', stated by its entity alone ("the players of X **from Y**":
*from* is a function word, Y's name says *country*; "the *chemistry* prize": the node only prizes' *category*
points to; :meth:`CandidateRanker._named_branch_scores`). A question that coordinates two relation words
(:func:`coordinates`: "both *born* and *died* in X") also gets the conjunctions of two one-step branches from one
entity; an entity states no branch of such a conjunction.

"Who" asks for a person. A graph with a class near "person" answers it with that class (the pipeline's answer
filter); in a graph without one the names say it (:meth:`CandidateRanker.person_likeness`): "who is from
England" in WorldCup2014 reads *is in country* walked back (clubs) and *plays for country* walked back (players)
alike, word for word, and the players' names tip it.

In a graph with classes, a relation named after the class of what it points to (*city*, *country*) is said by an
entity of that class: "which institutions are located in Evanston" names no *city*, but Evanston is a City. A path
whose first step walks back such a relation from its entity is also read with the class written before the entity
("… located in the *city* X", :meth:`CandidateRanker._class_named_scores`), the better reading counting. The noun
after "same" / "share…" names the class of the value shared ("the same *institution* as X"): a path that walks a
relation and back through a value of another class is then dropped, when some such path passes one of that class
(:meth:`CandidateRanker.shared_instances`).

Entry point: :meth:`CandidateRanker.rank`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc.qa.align import RelationLexicon, question_tokens, reading_order
from kgsvc.qa.candidates import (
    Branch,
    CandidatePattern,
    branch_walk,
    enumerate_candidates,
    shares_value,
    step_share,
    steps_into,
    verbalise,
)
from kgsvc.qa.exemplars import MASK, ExemplarSet, Signature, Step, mask_question, relation_key
from kgsvc.qa.graph import QAGraph, spaced
from kgsvc.qa.link import STOPWORDS, LinkedSpan, fold
from kgsvc.qa.options import QAOptions
from kgsvc.qa.question_form import asks_who, asks_whose_noun
from kgsvc.qa.zeroshot import (
    FUNCTION_WORDS,
    OF_AGENT,
    OF_CLAUSE,
    OF_HOLDER,
    OF_MODIFIER,
    OF_PASSIVE,
    OF_PREDICATE,
    OF_SLOT,
    SHARE_CUES,
    GraphLexicon,
    answer_ranges,
    class_words,
    clause_heads,
    content_words,
    genitive_slots,
    holder_phrases,
    inverted,
    mark_steps,
    passive_agent,
    phrase_roles,
    phrasings,
    plain_cues,
    predicate_nouns,
    predicates,
    reversed_labels,
    split_co,
    split_grand,
    stem_match,
    verb_phrases,
)

__all__ = [
    "CLASS_MIN_COS",
    "CandidateRanker",
    "QuestionView",
    "RankedCandidate",
    "class_filter",
    "coordinates",
    "modified_classes",
    "nearest_classes",
    "vote_confidence",
]


_WORD = re.compile(r"\w+(?:[-.]\w+)*", re.UNICODE)

#: Least MiniLM cosine of a noun to a class label for the class to stand for the noun (:func:`nearest_classes`).
CLASS_MIN_COS = 0.5
#: The same for a class that the graph links to the class of the noun's modifier (:func:`modified_classes`).
LINKED_MIN_COS = 0.4
#: Least MiniLM cosine of a common noun to a category value for the noun to name it, and its least lead over the
#: relation's other values (:meth:`CandidateRanker.value_noun`).
VALUE_MIN_COS = 0.6
VALUE_MARGIN = 0.15

#: The branches of a conjunction that its entities may state alone (:meth:`CandidateRanker._named_branch_scores`).
_STATED: tuple[tuple[int, ...], ...] = ((0,), (1,), (0, 1))

#: Upper bound of a cosine of unit vectors (float32 rounding included), for :meth:`CandidateRanker._similarities`.
_MAX_COS = 1.0 + 1e-5

#: Candidates using every mention that are kept past ``QAOptions.embed_top`` (see :meth:`CandidateRanker.rank`).
_FULL_COVERAGE_KEPT = 3

#: The prior added to a candidate whose step at a mention is the relation the verb right before it names ("born in
#: X"; :meth:`CandidateRanker._adjacent_steps`): a tie-break between paths the order-blind lexicon scores alike, not
#: a reading of its own; and the least similarity of the verb to that relation.
ADJACENT_STEP = 0.05
ADJACENT_MIN = 0.5
#: A verb (or participle) and a preposition right before a mention: "born *in*", "directed *by*", "worked *at*".
_VERB_BEFORE = re.compile(r"\b([a-z]+)\s+(?:in|at|by|from|on|into|for|with)\s+(?:the\s+)?$")

#: What a label is read against in :meth:`CandidateRanker.person_likeness`, and how many labels a step or a class
#: reads (:meth:`CandidateRanker.instance_centroid`).
_PERSON_PROBES = ("a person's name", "the name of a thing or a place")
_LABEL_SAMPLE = 16
#: Fewest instances for a class to be read by its members' labels too (:meth:`CandidateRanker.instance_centroid`).
_CENTROID_MIN = 8
#: Most distinct objects of a relation read as a category's values (:meth:`CandidateRanker.category_values`).
_VALUES_MAX = 64
#: Neighbours read of each sampled instance in :meth:`CandidateRanker.linked_classes`.
_LINKED_SAMPLE = 64


@dataclass
class RankedCandidate:
    """A grounded candidate, its signature, its score (higher is better) and its verbalisation."""

    candidate: CandidatePattern
    signature: Signature
    score: float
    text: str
    parts: dict[str, float] = field(default_factory=dict)  # the score's terms (module docstring), for inspection


@dataclass(frozen=True)
class QuestionView:
    """The question as one group of candidates reads it (:meth:`CandidateRanker.view`)."""

    masked: str
    vector: npt.NDArray[np.float32]
    votes: dict[Signature, float]


@dataclass
class CandidateRanker:
    """Ranks the grounded candidates of one dataset (module docstring).

    Parameters
    ----------
    graph : QAGraph
        The dataset as the question path sees it (snapshot, relation labels, embedder).
    exemplars : ExemplarSet, optional
        The dataset's exemplars; without them there are no votes and no lexicon, only similarity.

    Notes
    -----
    The lexicon is learned from the exemplars on first use; verbalised texts' embeddings are cached.
    """

    graph: QAGraph
    exemplars: ExemplarSet | None = None
    _lexicon: RelationLexicon | None = field(default=None, repr=False)
    _text_vectors: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict, repr=False)
    _phrases: frozenset[str] | None = field(default=None, repr=False)  # folded relation labels, for reading_order
    _graph_lexicon: GraphLexicon | None = field(default=None, repr=False)
    _person: dict[tuple[int, bool], float] = field(default_factory=dict, repr=False)  # person_likeness by step
    _centroids: dict[tuple[int, ...], npt.NDArray[np.float32] | None] = field(default_factory=dict, repr=False)
    _relation_words: frozenset[str] | None = field(default=None, repr=False)
    _class_label_words: frozenset[str] | None = field(default=None, repr=False)
    _values: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]] | None = field(
        default=None, repr=False
    )
    _linked: dict[frozenset[int], frozenset[int]] = field(default_factory=dict, repr=False)  # linked_classes

    @property
    def graph_lexicon(self) -> GraphLexicon:
        """The zero-shot lexicon read off the graph's relation labels (:mod:`kgsvc.qa.zeroshot`; built once)."""
        if self._graph_lexicon is None:
            keys = sorted({relation_key(label) for label in self.graph.relation_labels})
            ranges = _AnswerRanges(self.graph)  # O(relations · triples): only for a question that reads them
            words = getattr(getattr(self.graph.embed, "__self__", None), "words", None)  # the embedder's vocabulary
            vocabulary = words() if callable(words) else frozenset()
            self._graph_lexicon = GraphLexicon(
                embed=self.graph.embed,
                labels=keys,
                ranges=ranges,
                vocabulary=vocabulary,
                schemes=_Schemes(self.graph),
                links=_Links(self.graph),
            )
        return self._graph_lexicon

    @property
    def lexicon(self) -> RelationLexicon | None:
        """The word ↔ relation-step lexicon learned from the exemplars (built once); ``None`` without exemplars."""
        if self._lexicon is None and self.exemplars is not None and len(self.exemplars):
            pairs = []
            for e, sig in zip(self.exemplars.exemplars, self.exemplars.signatures, strict=True):
                if sig is not None:
                    tokens, masks = question_tokens(e.masked())
                    pairs.append(([tokens[i] for i, _ in reading_order(tokens, masks)], sig))
            self._lexicon = RelationLexicon.train(pairs)
        return self._lexicon

    def vectors(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embeddings of ``texts`` (one row each), computed once per distinct text."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._text_vectors]
        if missing:
            for text, vector in zip(missing, self.graph.embed(missing), strict=True):
                self._text_vectors[text] = vector
        return np.stack([self._text_vectors[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)

    def instance_centroid(self, classes: Sequence[int]) -> npt.NDArray[np.float32] | None:
        """The unit mean embedding of up to 16 labels of the instances of ``classes`` (evenly spaced in id order),
        what a class is by its members ("Stanford University", "Berne University": *Organisation*); ``None`` for
        classes with fewer than :data:`_CENTROID_MIN` instances (a dataset node, a vocabulary class). Cached by
        classes; O(the classes' degrees) and 16 labels embedded, once."""
        key = tuple(sorted(classes))
        if key not in self._centroids:
            relation = self.graph.type_relation()
            edges = (
                []
                if relation is None
                else [self.graph.snapshot.neighbors_via(c, relation, outgoing=False) for c in key]
            )
            members = np.unique(np.concatenate(edges)) if edges else np.zeros(0, np.int64)
            centroid = None
            if members.size >= _CENTROID_MIN:
                mean = self._sample_vectors(members).mean(axis=0)
                centroid = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
            self._centroids[key] = centroid
        return self._centroids[key]

    def _sample_vectors(self, nodes: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float32]:
        """Embeddings of the labels of up to :data:`_LABEL_SAMPLE` of ``nodes`` (a non-empty increasing array),
        evenly spaced in id order, ``_`` read as a space."""
        return self.vectors(
            [self.graph.node_labels[n].replace("_", " ") for n in spaced(nodes, _LABEL_SAMPLE).tolist()]
        )

    @property
    def class_label_words(self) -> frozenset[str]:
        """The folded words of the graph's class labels (built once; empty without ``rdf:type`` classes)."""
        if self._class_label_words is None:
            labels = [fold(self.graph.node_labels[c]) for c in self.graph.classes()]
            self._class_label_words = frozenset(w for label in labels for w in label.split())
        return self._class_label_words

    @property
    def relation_words(self) -> frozenset[str]:
        """The folded words of the graph's relation labels (built once)."""
        if self._relation_words is None:
            self._relation_words = frozenset(w for label in self.graph.relation_labels for w in fold(label).split())
        return self._relation_words

    def category_values(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """``(nodes, relations, vectors)``: the objects of every relation but ``rdf:type`` whose objects are a
        handful of values (at least 2, at most :data:`_VALUES_MAX` and no more than the square root of its triples:
        genders, a prize's fields), each with its relation and its label's embedding. Once per ranker, O(distinct
        (relation, object) pairs) (:meth:`~kgsvc.qa.graph.QAGraph.relation_ends`) and the values' labels embedded."""
        if self._values is None:
            pair_relations, pair_tails, category = _handful_relations(self.graph)
            keep = category[pair_relations]
            nodes, owners = pair_tails[keep], pair_relations[keep]
            labels = [self.graph.node_labels[int(n)].replace("_", " ") for n in nodes]
            vectors = self.vectors(labels) if labels else np.zeros((0, 384), np.float32)
            self._values = nodes, owners, vectors
        return self._values

    def linked_classes(self, classes: Collection[int]) -> frozenset[int]:
        """The classes of the nodes the graph links to instances of ``classes`` (by any relation but ``rdf:type``),
        read from up to :data:`_LABEL_SAMPLE` instances and up to :data:`_LINKED_SAMPLE` neighbours of each, evenly
        spaced in the snapshot's order: what the graph says such things relate to (a prize: its laureates, their
        organisations). Cached by classes; O(the classes' degrees) to read the instances, then O(16 · 64 · log
        degree)."""
        key = frozenset(classes)
        found = self._linked.get(key)
        if found is None:
            relation, snapshot = self.graph.type_relation(), self.graph.snapshot
            members = (
                np.concatenate([snapshot.neighbors_via(c, relation, outgoing=False) for c in sorted(key)])
                if relation is not None and key
                else np.zeros(0, np.int64)
            )
            linked: set[int] = set()
            for node in spaced(members, _LABEL_SAMPLE).tolist():
                start, stop = int(snapshot.indptr[node]), int(snapshot.indptr[node + 1])
                around = np.asarray(snapshot.neighbors[start:stop])[
                    np.asarray(snapshot.relations[start:stop]) != relation
                ]
                for other in spaced(around, _LINKED_SAMPLE).tolist():
                    linked |= self.graph.types(int(other))
            found = self._linked[key] = frozenset(linked)
        return found

    def value_noun(self, noun: str) -> tuple[int, float] | None:
        """The category value (:meth:`category_values`) a common noun names, and the cosine: "women" ↔ *female*
        (MiniLM 0.70, *male* 0.48), "physicists" ↔ *physics* (0.75, *chemistry* 0.48), when the cosine is at least
        :data:`VALUE_MIN_COS` and ahead of every other value of the same relation by :data:`VALUE_MARGIN`
        ("scientists": *chemistry* 0.53, *physics* 0.52: none). ``None`` otherwise. One embedding (cached) and one
        product with the values' vectors."""
        nodes, relations, vectors = self.category_values()
        if nodes.size == 0:
            return None
        cosines = vectors @ self.vectors([noun])[0]
        best = int(np.argmax(cosines))
        rivals = cosines[(relations == relations[best]) & (nodes != nodes[best])]
        margin = float(cosines[best] - rivals.max(initial=-1.0))
        if float(cosines[best]) < VALUE_MIN_COS or margin < VALUE_MARGIN:
            return None
        return int(nodes[best]), float(cosines[best])

    def scheme_values(self, noun: str) -> frozenset[int]:
        """The values of the graph's one classification (:attr:`GraphLexicon.schemes
        <kgsvc.qa.zeroshot.GraphLexicon.schemes>`) when ``noun`` (folded) is a classifier noun that spells no relation
        label ("which *fields*" in a graph whose prizes have a *category*: physics, chemistry, …); empty otherwise,
        and in a graph with no or several classifications (which one the word means is not told by the word)."""
        lexicon = self.graph_lexicon
        if not lexicon.classifies(noun) or len(lexicon.schemes) != 1:  # the word first: the schemes scan the graph
            return frozenset()
        (key,) = lexicon.schemes
        nodes, relations, _ = self.category_values()
        owners = [r for r in np.unique(relations).tolist() if relation_key(self.graph.relation_labels[r]) == key]
        return frozenset(nodes[np.isin(relations, owners)].tolist())

    def person_likeness(self, step: tuple[int, bool]) -> float:
        """How much the nodes that ``step`` ``(relation, outgoing)`` ends at read as people by their names: the mean,
        over up to 16 of them evenly spaced in id order, of the cosine of the label to "a person's name" minus its
        cosine to "the name of a thing or a place". The bundled MiniLM reads names: WorldCup2014's players 0.19
        against their clubs 0.02; MetaQA's directors, writers and actors 0.23 against films 0.02-0.07 and tags
        0.13; PathQuestion's people 0.16-0.21 against places -0.03-0.05. A step whose ends are a handful of values
        (no more than the square root of its triples: genders, playing positions) names a category, not people:
        0. Computed once per step (its ends read from :meth:`~kgsvc.qa.graph.QAGraph.relation_ends`, 16 labels
        embedded, cached by text)."""
        found = self._person.get(step)
        if found is None:
            relation_ends = self.graph.relation_ends()
            ends = relation_ends.of(step[0], outgoing=step[1])
            found = 0.0
            if ends.size > 1 and ends.size > math.sqrt(int(relation_ends.triples[step[0]])):
                person, thing = self.vectors(list(_PERSON_PROBES))
                found = float((self._sample_vectors(ends) @ (person - thing)).mean())
            self._person[step] = found
        return found

    def rank(
        self,
        question: str,
        spans: Sequence[LinkedSpan],
        opts: QAOptions,
        extra: Sequence[CandidatePattern] = (),
        keep: Callable[[CandidatePattern], bool] | None = None,
        exact_top: int | None = None,
    ) -> list[RankedCandidate]:
        """The grounded candidates around the linked nodes of ``spans``, and ``extra`` ones (inferred), best
        first (module docstring); ``[]`` when there is none. With ``keep``, only the candidates it accepts are
        ranked (a constraint of the question, such as the class of what a count counts, applied before the cut to
        ``opts.embed_top`` by prior, not after it). With ``exact_top``, the list may stop after its first
        ``exact_top`` entries, which are those (and in the order, with the scores) of the full list: candidates
        that cannot reach them by similarity are not embedded (:meth:`_similarities`).

        Notes
        -----
        One masked-question embedding per distinct set of mentions the candidates use (1.06 per MetaQA question),
        one embedding per verbalised candidate among the ``opts.embed_top`` best by prior (cached by text).
        """
        anchors = [(i, n) for i, s in enumerate(spans) for n, _, _ in s.nodes[: opts.nodes_per_mention]]
        enumeration = enumerate_candidates(
            self.graph.snapshot,
            anchors,
            max_hops=opts.max_hops,
            backtrack=opts.node_reuse,
            one_anchor=coordinates(mask_question(question, [(s.start, s.end) for s in spans])),
        )
        candidates = [*enumeration.candidates, *extra]
        if not candidates:
            return []
        keys = [relation_key(label) for label in self.graph.relation_labels]
        # one candidate per (signature, mentions): anchors of one mention are merged in the match step
        best: dict[tuple[Signature, tuple[int, ...]], CandidatePattern] = {}
        for c in candidates:
            sig = c.signature(keys)
            key = (sig, tuple(b.mention for b in c.branches))
            if key not in best or (best[key].detour and not c.detour):  # another anchor's walk is no detour
                best[key] = c
        items = list(best.items())
        # A candidate is read against the question with only *its* mentions masked: a span it does not use
        # ("language" in "what is the primary language in X", a tag label) stays a word of the question, which
        # the exemplars and the alignment need to see.
        by_mentions = {frozenset(used) for (_, used), _ in items}
        masked_views = {m: self.view(question, spans, sorted(m), opts) for m in by_mentions}
        views = {used: masked_views[frozenset(used)] for (_, used), _ in items}
        n_spans = len(spans)
        item_votes = []
        # below a full set a signature the exemplars do not hold gets no share of their votes: twelve share their
        # last steps with many wrong paths ("directed by" ends half the paths of a film graph) and tipped near ties
        partial = opts.vote_full_at <= 0 or len(self.exemplars or ()) >= opts.vote_full_at
        for sig, used in (key for key, _ in items):
            votes = views[used].votes
            vote = votes.get(sig)
            if vote is None and partial:  # partial credit: the voted signature's last steps (what is asked) agree
                vote = 0.5 * max((v * _suffix_share(sig, s) for s, v in votes.items()), default=0.0)
            vote = vote or 0.0
            item_votes.append(vote)
        any_votes = any(v.votes for v in views.values())
        prior = (
            np.log(np.asarray(item_votes) + opts.align_vote_floor) if opts.align_vote_floor > 0 and any_votes else None
        )
        aligned = np.zeros(len(items), np.float64)
        if opts.w_align:
            raw = np.zeros(len(items), np.float64)
            for mentions, view in masked_views.items():
                at = [i for i, ((_, u), _) in enumerate(items) if frozenset(u) == mentions]
                raw[at] = self.alignment_scores(view.masked, [items[i][0][0] for i in at])
            aligned = _softmax(raw if prior is None else raw + prior) if self.lexicon is not None else aligned
            # a lexicon learned from a handful of exemplars is noise next to the graph's own labels: its weight
            # grows with the number of exemplars it was learned from
            aligned *= min(1.0, len(self.exemplars or ()) / opts.align_full_at) if opts.align_full_at > 0 else 1.0
        shared, shared_words = self.shared_instances(question)
        zero = np.zeros(len(items), np.float64)
        if opts.w_zero:
            # the class noun of "the same *city* as X" says what the value shared is, whatever relation shares it
            # and, unless an entity is that value ("shared *the 1973 physics prize*"), names no step of its own
            own = bool(shared_words) and bool(
                self.shared_instances(mask_question(question, [(s.start, s.end) for s in spans]))[1]
            )
            graph_lexicon = dataclasses.replace(
                self.graph_lexicon,
                shared_classes=shared_words,
                free=shared_words,
                shared_only=shared_words if own else frozenset(),
            )
            for mentions, view in masked_views.items():
                at = [i for i, ((_, u), _) in enumerate(items) if frozenset(u) == mentions]
                # the words of a linked mention this group leaves unused are still an entity's name where they are
                # written as one ("from Netherlands"; "born" in "who was born in X" is a word, though it links)
                names = frozenset(w for m in range(n_spans) if m not in mentions for w in name_words(spans[m].text))
                lexicon = dataclasses.replace(graph_lexicon, names=names)
                zero[at] = self.alignment_scores(view.masked, [items[i][0][0] for i in at], lexicon)
                # an entity states a branch of a conjunction with another entity, not one of its own two conditions
                conj = [i for i in at if len({b.mention for b in items[i][1].branches}) == 2]
                if conj:
                    zero[conj] = np.maximum(
                        zero[conj], self._named_branch_scores(view.masked, spans, [items[i][1] for i in conj], lexicon)
                    )
                # a path whose first step the entity's class names ("located in X", X a City: *city*)
                paths = [i for i in at if len(items[i][1].branches) == 1]
                if paths and self.graph.type_relation() is not None:
                    zero[paths] = np.maximum(
                        zero[paths],
                        self._class_named_scores(
                            view.masked, spans, sorted(mentions), [items[i] for i in paths], lexicon
                        ),
                    )
            zero /= graph_lexicon.beta
        # "who" in a graph with no class near "person" (with one, the pipeline keeps the answers of that class)
        who = opts.w_person > 0 and asks_who(question) and not asks_whose_noun(question)  # not "who was X's employer"
        who = who and not nearest_classes(self.graph, self, "person")
        priors = []
        parts: list[dict[str, float]] = []
        for (sig, used), vote, a, z in zip((key for key, _ in items), item_votes, aligned, zero, strict=True):
            person = opts.w_person * self.person_likeness(best[(sig, used)].branches[0].steps[-1]) if who else 0.0
            coverage = len(set(used)) / n_spans
            mention_score = sum(spans[m].score for m in set(used)) / n_spans
            hops = sum(len(p) for p in sig) - len(sig)
            penalty = opts.hop_penalty if not views[used].votes and not opts.w_zero else opts.hop_penalty / 5
            detour = 2 * opts.hop_penalty if best[(sig, used)].detour else 0.0
            parts.append(
                {
                    "vote": vote,
                    "coverage": 0.3 * coverage,
                    "align": opts.w_align * a,
                    "zero": opts.w_zero * z,
                    "person": person,
                }
            )
            priors.append(
                vote
                + person
                + 0.3 * coverage
                + 0.05 * mention_score
                - penalty * hops
                - detour
                + opts.w_align * a
                + opts.w_zero * z
            )
        if opts.w_zero:  # "the laureates *born in* X": the step at X is the one the verb before X names
            adjacent = self._adjacent_steps(question, spans, [c for _, c in items])
            for i, (_, c) in enumerate(items):
                if any(b.steps and b.steps[0][0] in adjacent.get(b.mention, ()) for b in c.branches):
                    priors[i] += ADJACENT_STEP
                    parts[i]["adjacent"] = ADJACENT_STEP
            # a step read off a word that another step's label already spells with another word of the question
            # ("place of X's death": *death place*, then *contained in place* or *death place* walked back for
            # "place") costs what a step no word names costs
            spent = math.log(self.graph_lexicon.miss) / self.graph_lexicon.beta * opts.w_zero
            words = {m: _content_counts(view.masked) for m, view in masked_views.items()}  # once per view
            for i, ((sig, used), _) in enumerate(items):
                if len(sig) == 1 and len(sig[0]) >= 2 and self._spoken_for(words[frozenset(used)], sig[0]):
                    priors[i] += spent
                    parts[i]["spoken_for"] = spent
        order = sorted(range(len(items)), key=lambda i: (-priors[i], sum(len(p) for p in items[i][0][0])))
        if keep is not None:
            order = [i for i in order if keep(items[i][1])]
        by = self._co_relations(question)

        def into_shared(branch: Branch, k: int) -> bool:  # "the same *institution* as X": the value shared is one
            prefix = dataclasses.replace(branch, steps=branch.steps[: k + 1])
            *_, (_, values) = branch_walk(self.graph.snapshot, prefix)  # O(Σ degree along the prefix)
            return not shared.isdisjoint(values)

        tests = [into_shared] if shared else []
        tests += [lambda branch, k: branch.steps[k][0] in by] if by else []  # "X's *co-winners*": what winners name
        for accepts in tests:  # when some candidate shares such a value, those that share another are dropped
            shares = {i: shares_value(items[i][1], accepts) for i in order}
            if any(shares.values()):
                order = [i for i in order if shares[i] is not False]
        top = order[: opts.embed_top]
        # the best few candidates that use every mention ("both X and Y") are always read against the question,
        # even when single-mention paths fill the cut by prior
        chosen = set(top)
        top += [i for i in order if len(set(items[i][0][1])) == n_spans and i not in chosen][:_FULL_COVERAGE_KEPT]
        texts = [verbalise(items[i][1], self.graph.relation_labels) for i in top]
        variants = [
            [text, *self.phrasings(items[i][1])] if opts.w_zero else [text] for i, text in zip(top, texts, strict=True)
        ]
        sims = self._similarities(
            variants, [views[items[i][0][1]].vector for i in top], [priors[i] for i in top], opts.w_sim, exact_top
        )
        ranked = []
        for pos, sim in sims.items():
            i = top[pos]
            (sig, used), c = items[i]
            terms = {**parts[i], "prior": priors[i], "sim": opts.w_sim * sim}
            ranked.append(RankedCandidate(c, sig, priors[i] + opts.w_sim * sim, texts[pos], terms))
        ranked.sort(key=lambda r: (-r.score, r.text))
        return ranked

    def _spoken_for(self, counts: Counter[str] | None, steps: Sequence[Step]) -> bool:
        """Whether the last step of the path ``steps`` is named only by words that an earlier step's label spells
        with one more word of the question: the path without that step, which the graph holds too, reads the same
        words. "place of X's death" spells *death place* whole, and a last step named by "place" alone (*contained
        in place*, *death place* walked back) reads a word twice. A step that some other word names by the lexicon's
        margin, a word written twice, and a question with a share cue ("the *same* place of death as X": ``counts``
        is ``None``, :func:`_content_counts`) keep the path; so does a relation walked there and back by one word
        ("In Mexico, which city has been the *birthplace* of the most laureates": born in Mexico, then where).

        Notes
        -----
        O(steps · words · label words) stem tests and contrasts, each cached by the lexicon.
        """
        if counts is None:
            return False
        lexicon = self.graph_lexicon
        spelt = [
            frozenset(w for w in counts if any(stem_match(w, part) for part in content_words(key))) for key, _ in steps
        ]
        b, (key, _) = len(steps) - 1, steps[-1]  # the last step: without it, the path is one the graph holds too
        named = {w for w in counts if w in spelt[b] or lexicon.contrast(w, key) >= lexicon.tau}
        return bool(named) and any(
            len(spelt[a]) >= 2 and named <= spelt[a] and all(counts[w] == 1 for w in named) for a in range(b)
        )

    def _adjacent_steps(
        self, question: str, spans: Sequence[LinkedSpan], candidates: Sequence[CandidatePattern]
    ) -> dict[int, frozenset[int]]:
        """Per mention written right after a verb and a preposition ("born *in* X", "directed *by* X", "died *at*
        X"): the relations, among the first steps the ``candidates`` take at it, that the verb names best (its
        :meth:`GraphLexicon.similarity`, at least :data:`ADJACENT_MIN`). Word order says which relation is at the
        entity where the lexicon alone, blind to order, ties two paths over the same two relations ("in which
        countries did the laureates *born in* X die": *birth place* at X, then *death place*, not the reverse).

        Notes
        -----
        O(mentions · distinct first steps) similarities, each cached by the lexicon.
        """
        labels, lexicon = self.graph.relation_labels, self.graph_lexicon
        out: dict[int, frozenset[int]] = {}
        for m, span in enumerate(spans):
            verb = _VERB_BEFORE.search(fold(question[: span.start]))
            if verb is None or verb.group(1) in STOPWORDS:
                continue
            firsts = {b.steps[0][0] for c in candidates for b in c.branches if b.mention == m and b.steps}
            sims = {r: lexicon.similarity(verb.group(1), relation_key(labels[r])) for r in firsts}
            best = max(sims.values(), default=0.0)
            if best >= ADJACENT_MIN:
                out[m] = frozenset(r for r, sim in sims.items() if sim == best)
        return out

    def _similarities(
        self,
        variants: Sequence[Sequence[str]],
        queries: Sequence[npt.NDArray[np.float32]],
        priors: Sequence[float],
        weight: float,
        best: int | None,
    ) -> dict[int, float]:
        """``max cos(query, text)`` over each candidate's texts (``variants[j]``, read against ``queries[j]``), by
        candidate position; with ``best``, only for the candidates that may still be among the ``best`` top scores
        ``priors[j] + weight · sim``.

        A cosine of unit vectors is at most 1, so a candidate whose ``prior + |weight|`` is below the ``best``-th
        score of the candidates read so far cannot reach the top ``best`` and its texts are not embedded: the
        candidates whose texts are cached are read first (free), then the best by prior, then every candidate
        that can still reach the bar, in one batch per round. The top ``best`` are those of reading them all
        (ties included: a candidate that can equal the bar is read).
        """
        sims: dict[int, float] = {}

        def read(positions: Sequence[int]) -> None:
            vectors = self.vectors([t for j in positions for t in variants[j]])
            offset = 0
            for j in positions:
                n = len(variants[j])
                sims[j] = float((vectors[offset : offset + n] @ queries[j]).max())
                offset += n

        if best is None or best < 1:
            read(range(len(variants)))
            return sims
        read([j for j, group in enumerate(variants) if all(t in self._text_vectors for t in group)])
        reach = abs(weight) * _MAX_COS
        while True:
            scores = sorted((priors[j] + weight * s for j, s in sims.items()), reverse=True)
            bar = scores[best - 1] if len(scores) >= best else -math.inf
            todo = [j for j in range(len(variants)) if j not in sims and priors[j] + reach >= bar]
            if not todo:
                return sims
            # nothing read yet: the best by prior first, to set a bar
            read(todo if len(scores) >= best else sorted(todo, key=lambda j: -priors[j])[: best - len(scores)])

    def view(self, question: str, spans: Sequence[LinkedSpan], used: Sequence[int], opts: QAOptions) -> QuestionView:
        """The question with the mentions ``used`` masked, its embedding, and the exemplar votes it gets: nearest
        exemplars (``opts.n_exemplars``), weighted by ``exp((cos - top cos) / vote_temperature)``, summed per gold
        signature and normalised."""
        masked = mask_question(question, [(spans[m].start, spans[m].end) for m in used])
        vector = self.graph.embed([masked])
        votes: dict[Signature, float] = {}
        if self.exemplars is not None and len(self.exemplars):
            near = self.exemplars.nearest(vector, opts.n_exemplars)[0]
            top_cos = max((cos for _, cos in near), default=0.0)
            # a handful of exemplars votes in proportion to its size: twelve only tip near ties
            size = min(1.0, len(self.exemplars) / opts.vote_full_at) if opts.vote_full_at > 0 else 1.0
            weights = [(i, cos, float(np.exp((cos - top_cos) / opts.vote_temperature))) for i, cos in near]
            total = sum(w for _, _, w in weights) or 1.0
            for i, cos, w in weights:
                voted = self.exemplars.signatures[i]
                if voted is not None:
                    votes[voted] = votes.get(voted, 0.0) + w * vote_confidence(cos, opts) * size / total
        return QuestionView(masked, vector[0], {sig: v for sig, v in votes.items() if v > 0})

    def _named_branch_scores(
        self, masked: str, spans: Sequence[LinkedSpan], candidates: Sequence[CandidatePattern], lexicon: GraphLexicon
    ) -> npt.NDArray[np.float64]:
        """Zero-shot log-likelihood of conjunctions whose branches' first steps are stated by their entities alone:
        "the players in X from Y" says *from* Y, a function word, and Y's name is what says the relation (a
        country); "which Harbour Institute laureates won the chemistry prize" names neither *member of* nor
        *category*. The best over the branches stated so of: the other steps aligned to the question's words, plus
        each stated branch's evidence for its first step (:meth:`_stated`): one branch stated by its entity's name
        or by the graph, or both branches stated by the graph (a country's name read as a relation about countries
        does not state a second branch: it would let a conjunction hide a hop that no word asks for).

        Notes
        -----
        Three alignments per conjunction (either branch stated, or both).
        """
        keys = [relation_key(label) for label in self.graph.relation_labels]
        words = question_tokens(masked)[0]
        read: list[Signature] = []
        anchored: list[list[bool]] = []
        named: list[float] = []
        for c in candidates:
            stated = [self._stated(spans, branch, keys, lexicon, words) for branch in c.branches]
            for which in _STATED:
                paths = [(branch.steps[j in which :], j not in which) for j, branch in enumerate(c.branches)]
                read.append(tuple(tuple((keys[r], out) for r, out in p) for p, _ in paths if p))
                anchored.append([at for p, at in paths if p])
                named.append(max(stated[which[0]]) if len(which) == 1 else sum(stated[j][1] for j in which))
        scores = self.alignment_scores(masked, read, lexicon, anchored) + np.asarray(named)
        out: npt.NDArray[np.float64] = scores.reshape(-1, len(_STATED)).max(axis=1)
        return out

    def _co_relations(self, question: str) -> frozenset[int]:
        """The relations a "co-" noun of the question names by the lexicon's margin τ ("co-*winners*" ↔ *laureate
        award*, *award*): co-winners share what they won, not any value; empty when none does ("co-laureates" in a
        graph whose labels spell "laureate" twice alike names none of them)."""
        words = [t[3:] for t in question_tokens(question)[0] if t.startswith("co-") and len(t) > 3]
        if not words:
            return frozenset()
        lexicon = self.graph_lexicon
        keys = [relation_key(label) for label in self.graph.relation_labels]
        return frozenset(r for r, key in enumerate(keys) for w in words if lexicon.contrast(w, key) >= lexicon.tau)

    def shared_instances(self, question: str) -> tuple[frozenset[int], frozenset[str]]:
        """The instances of the class a question says is shared, and the words that say it: the noun phrase right
        after "same" or "share…" ("worked at the same *institution* as X", "shared *the Nobel Prize* with X", "share
        *his Nobel Prize*"), by :func:`nearest_classes` (the phrase, else its last word); empty in a graph without
        such a class."""
        tokens = question_tokens(question)[0]
        cue = next((i for i, t in enumerate(tokens) if t == "same" or t.startswith("shar")), None)
        if cue is None or self.graph.type_relation() is None:
            return frozenset(), frozenset()
        words: list[str] = []
        for token in tokens[cue + 1 :]:
            if token in _SHARED_SKIP and not words:
                continue
            if token in FUNCTION_WORDS or token == MASK.casefold() or len(words) == 3:
                break
            words.append(token)
        for phrase in dict.fromkeys([" ".join(words), *words[-1:]]):
            classes = nearest_classes(self.graph, self, phrase) if phrase else frozenset()
            if classes:  # per question, as the pipeline reads the instances of the class it asks for
                return self.graph.instances(classes), frozenset(phrase.split())
        return frozenset(), frozenset()

    def _class_named_scores(
        self,
        masked: str,
        spans: Sequence[LinkedSpan],
        used: Sequence[int],
        items: Sequence[tuple[tuple[Signature, tuple[int, ...]], CandidatePattern]],
        lexicon: GraphLexicon,
    ) -> npt.NDArray[np.float64]:
        """Zero-shot log-likelihood of one-branch paths whose first step walks back a relation named after the class
        of the entity it starts from, read with that class written before the entity: "which institutions are
        located in Evanston" as "… located in the *city* X" when Evanston is a City, so that *city* walked back (the
        institutions whose city it is) is read as the phrase "the soccer club X" reads *plays in club*
        (:func:`~kgsvc.qa.zeroshot.phrase_roles`); ``-inf`` for every other path. ``used``: the mentions masked
        in ``masked``.

        Notes
        -----
        One alignment per (mention, class) read; the class of a mention's first linked node
        (:meth:`QAGraph.types`, O(degree)), as :meth:`_stated` reads that node.
        """
        scores = np.full(len(items), -np.inf)
        order = sorted(used, key=lambda m: spans[m].start)  # the masks of ``masked``, left to right
        readings: dict[str, list[int]] = {}
        for j, (_, candidate) in enumerate(items):
            branch = candidate.branches[0]
            relation, outgoing = branch.steps[0]
            noun = content_words(self.graph.relation_labels[relation])[-1:]
            if outgoing or not noun or branch.anchor != spans[branch.mention].nodes[0][0]:
                continue
            for cls in sorted(self.graph.types(branch.anchor)):
                label = " ".join(fold(self.graph.node_labels[cls]).split())
                words = content_words(label)
                if words and stem_match(words[-1], noun[0]):
                    text = _class_before(masked, order.index(branch.mention), label)
                    readings.setdefault(text, []).append(j)
                    break
        for text, at in readings.items():
            scores[at] = self.alignment_scores(text, [items[j][0][0] for j in at], lexicon)
        return scores

    def _stated(
        self,
        spans: Sequence[LinkedSpan],
        branch: Branch,
        keys: Sequence[str],
        lexicon: GraphLexicon,
        question: Sequence[str],
    ) -> tuple[float, float]:
        """Log-evidence that ``branch``'s entity states its first step by itself, each at least ``log(miss)``:
        **by name**, the best emission of a word of its name; **by the graph**, for the mention's first linked node
        (not a homonym with one ``sameAs`` edge) and a step that no word of the ``question`` names at the lexicon's
        margin ("born in Riga" words *born in*), the share of the node's edges that are that step
        (:func:`step_share`: a category node that only prizes point to states *category*)."""
        step = (keys[branch.steps[0][0]], branch.steps[0][1])
        name = max((lexicon.prob(w, step) for w in question_tokens(spans[branch.mention].text)[0]), default=0.0)
        share = 0.0
        if branch.anchor == spans[branch.mention].nodes[0][0] and all(lexicon.prob(w, step) < 1.0 for w in question):
            share = step_share(self.graph.snapshot, branch.anchor, branch.steps[0])
        return math.log(max(name, lexicon.miss)), math.log(max(share, lexicon.miss))

    def phrasings(self, candidate: CandidatePattern) -> list[str]:
        """Texts of ``candidate`` from its relation labels (:func:`kgsvc.qa.zeroshot.phrasings`), branch by
        branch; a conjunction's branch texts are joined with "and"."""
        labels = self.graph.relation_labels
        per_branch = [phrasings([(labels[r], out) for r, out in b.steps]) for b in candidate.branches]
        return [" and ".join(texts) for texts in zip(*per_branch, strict=True)]

    def alignment_scores(
        self,
        masked: str,
        signatures: Sequence[Signature],
        lexicon: RelationLexicon | None = None,
        anchored: Sequence[Sequence[bool]] | None = None,
    ) -> npt.NDArray[np.float64]:
        """Log-likelihood of each signature's relation steps under the order-aware lexicon (:mod:`kgsvc.qa.align`)
        given the words of ``masked``; zeros without exemplars. The ranking turns them into the posterior
        ``P(signature | question)`` with a softmax over all candidates, plus the exemplar votes as log prior. A
        conjunction's branches are scored as one step sequence, in the better of the two branch orders.
        With the zero-shot lexicon, the answer's class word (:func:`kgsvc.qa.zeroshot.phrase_roles`) explains at most
        a path's last step, and a word of an entity's noun phrase at most a first step, by spelling its label;
        ``anchored`` says per signature and path whether its first step is at its entity (default: all).

        Notes
        -----
        O(candidates · words · hops²) time; each distinct step path is aligned once per question view.
        """
        lexicon = lexicon or self.lexicon
        if lexicon is None or not signatures:
            return np.zeros(len(signatures), np.float64)
        tokens, masks = question_tokens(masked)
        if self._phrases is None:
            self._phrases = frozenset(" ".join(fold(label).split()) for label in self.graph.relation_labels)
        phrases = self._phrases | reversed_labels(tokens, self.graph.relation_labels)  # "the dates of death"
        readings = [reading_order(tokens, masks, phrases=phrases)]
        words = list(tokens)
        if isinstance(lexicon, GraphLexicon):  # "the directors of X actors", "the films of X released": the better
            # reading counts
            trailing = reading_order(tokens, masks, phrases=phrases, trailing=True, inverted=inverted(tokens))
            readings += [trailing] if trailing != readings[0] else []
            clauses = verb_phrases(tokens, masks)
            lexicon.prepare(
                tokens, sorted({s[0] for sig in signatures for p in sig for s in p}), [c for _, c in clauses]
            )
            starts = anchored or [[True] * len(sig) for sig in signatures]
            signatures = [
                tuple(mark_steps(path, anchored=a) for path, a in zip(sig, at, strict=True))
                for sig, at in zip(signatures, starts, strict=True)
            ]
            # the answer's class word explains at most the last step ("name a *player* who", its modifier in
            # "which *football* club" none), the words of an entity's noun phrase at most the first ("the *soccer
            # club* X"); an entity this view leaves unmasked has a noun phrase too
            names = lexicon.names
            entities = sorted({*masks, *(i for i, t in enumerate(tokens) if t in names)})
            # "was X a Nobel laureate", "win the Nobel Prize in X": a class, not the institutions' *nobel laureates*
            predicate = predicate_nouns(tokens, entities, self.class_label_words, self.relation_words)
            # "which *laureates* who died in X": a class the clause describes, not the institutions' laureates
            says, tau = lexicon.best_contrast, lexicon.tau
            predicate |= clause_heads(tokens, entities, self.class_label_words, lambda w: says(w) >= tau)
            free = class_words(tokens) | {tokens[i] for i in predicate}
            lexicon = dataclasses.replace(  # "which movies"; "both … and"
                lexicon, free=lexicon.free | free, plain=lexicon.plain | plain_cues(tokens)
            )
            roles = phrase_roles(tokens, entities, self.graph.relation_labels)
            for i in predicates(tokens, entities):  # "can be *described* by X": a verb, no noun of the phrase
                roles.setdefault(i, OF_PREDICATE)
            for i in predicate:
                roles[i] = OF_MODIFIER
            for i, role in roles.items():
                words[i] = tokens[i] + role
                agent = passive_agent(tokens, i, entities) if role == OF_PASSIVE else None
                if agent is not None and lexicon.best_contrast(tokens[agent]) >= lexicon.tau:
                    words[i] = tokens[i] + OF_AGENT + tokens[agent]  # "*starred* by X actors": the actors' step at X
            for i in genitive_slots(tokens, entities):  # "X 's *daughter* 's gender": a step MiniLM cannot place
                if i not in roles and lexicon.best_contrast(tokens[i]) < lexicon.tau:
                    words[i] = tokens[i] + OF_SLOT
            for i, noun in holder_phrases(tokens, entities):  # "movies *for* the writer of X": its relation walked back
                thing, named = lexicon.best_contrast(tokens[i - 1]), lexicon.best_contrast(tokens[noun])
                if i not in roles and thing < lexicon.tau <= named:
                    words[i] = tokens[i] + OF_HOLDER + tokens[noun]
        inputs = [[(words[i], g) for i, g in order] for order in readings]
        if isinstance(lexicon, GraphLexicon):  # "co-starred": the relation and its value shared, two words
            best = lexicon.best_contrast
            # "where does X 's son come from": the verb phrase read as one clause, a reading of its own for each
            # ending of the question it may be (the better reading counts)
            for k, clause in clauses:
                if lexicon.clause_names(clause, tokens[k:]):
                    said = clause + OF_CLAUSE
                    inputs.append([(said if i == k else words[i], g) for i, g in readings[0] if i <= k])
            inputs = [split_co(words_of, lambda w: best(w) > 0.0) for words_of in inputs]
            inputs = [split_grand(words_of, lambda w: best(w) > 0.0) for words_of in inputs]  # "grandparents"
        scorers = [lexicon.scorer(words_of) for words_of in inputs]
        scores = np.empty(len(signatures), np.float64)
        for i, sig in enumerate(signatures):
            orders = [sig] if len(sig) == 1 else [sig, tuple(reversed(sig))]
            scores[i] = max(score([s for path in o for s in path]) for o in orders for score in scorers)
        return scores


class _AnswerRanges(Mapping[tuple[str, bool], frozenset[str]]):
    """:func:`~kgsvc.qa.zeroshot.answer_ranges` of a graph, computed on first read (most questions never read
    them, and a new index version's first question would pay O(relations · triples) for them)."""

    def __init__(self, graph: QAGraph) -> None:
        self._graph = graph
        self._ranges: dict[tuple[str, bool], frozenset[str]] | None = None

    def _read(self) -> dict[tuple[str, bool], frozenset[str]]:
        if self._ranges is None:  # two threads may both compute it: the same value
            snapshot = self._graph.snapshot
            self._ranges = answer_ranges(
                [relation_key(label) for label in self._graph.relation_labels],
                snapshot.triple_heads,
                snapshot.triple_relations,
                snapshot.triple_tails,
            )
        return self._ranges

    def __getitem__(self, step: tuple[str, bool]) -> frozenset[str]:
        return self._read()[step]

    def __iter__(self) -> Iterator[tuple[str, bool]]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def _handful_relations(graph: QAGraph) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """``(pair_relations, pair_tails, handful)``: the distinct (relation, object) pairs of ``graph``, and per relation
    whether its objects are a handful of values (at least 2, at most :data:`_VALUES_MAX` and no more than the square
    root of its triples; ``rdf:type`` excepted). Read from :meth:`QAGraph.relation_ends
    <kgsvc.qa.graph.QAGraph.relation_ends>`: O(distinct pairs) once it is built."""
    ends, kind = graph.relation_ends(), graph.type_relation()
    (pair_relations, pair_tails), distinct, triples = ends.object_pairs(), ends.distinct_objects(), ends.triples
    handful = (distinct >= 2) & (distinct <= np.minimum(np.sqrt(triples), _VALUES_MAX))
    if kind is not None:
        handful[kind] = False
    return pair_relations, pair_tails, handful


class _Schemes(Collection[str]):
    """The keys of the relations whose objects are a handful of named things (:attr:`GraphLexicon.schemes
    <kgsvc.qa.zeroshot.GraphLexicon.schemes>`): at least 2 and at most :data:`_VALUES_MAX` distinct objects, no more
    than the square root of the relation's triples, every one an IRI or blank node; ``rdf:type`` excepted. Computed on
    first read: O(triples) numpy (:meth:`~kgsvc.qa.graph.QAGraph.relation_ends`), and a Python test of each value of
    the relations with few values."""

    def __init__(self, graph: QAGraph) -> None:
        self._graph = graph
        self._keys: frozenset[str] | None = None

    def _read(self) -> frozenset[str]:
        if self._keys is None:
            graph = self._graph
            pair_relations, pair_tails, scheme = _handful_relations(graph)
            few = scheme[pair_relations]  # only the values of relations with a handful of them are read
            for r, t in zip(pair_relations[few].tolist(), pair_tails[few].tolist(), strict=True):
                if str(graph.node_terms[t]).startswith('"'):
                    scheme[r] = False
            self._keys = frozenset(relation_key(graph.relation_labels[r]) for r in np.flatnonzero(scheme).tolist())
        return self._keys

    def __contains__(self, key: object) -> bool:
        return key in self._read()

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


class _Links(Mapping[str, frozenset[str]]):
    """The keys of the graph's link relations (:meth:`QAGraph.link_relations`), each with its objects' host words
    (:attr:`GraphLexicon.links <kgsvc.qa.zeroshot.GraphLexicon.links>`); read from the graph on first use."""

    def __init__(self, graph: QAGraph) -> None:
        self._graph = graph
        self._links: dict[str, frozenset[str]] | None = None

    def _read(self) -> dict[str, frozenset[str]]:
        if self._links is None:
            links: dict[str, frozenset[str]] = {}
            for r, words in self._graph.link_relations().items():
                key = relation_key(self._graph.relation_labels[r])
                links[key] = links.get(key, frozenset()) | words
            self._links = links
        return self._links

    def __getitem__(self, key: str) -> frozenset[str]:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


#: Words between a share cue and the noun of what is shared (:meth:`CandidateRanker.shared_instances`).
_SHARED_SKIP = frozenset({"the", "a", "an", "his", "her", "their", "its", "same"})


_MASK_WORD = re.compile(rf"(?<!\w){re.escape(MASK)}(?!\w)")


def _class_before(masked: str, k: int, label: str) -> str:
    """``masked`` with "the ``label``" written before its ``k``-th mask (after a "the" it has: "the USA" → "the
    country X").

    >>> _class_before("which clubs are in X ?", 0, "country")
    'which clubs are in the country X ?'
    """
    at = [m.start() for m in _MASK_WORD.finditer(masked)][k]
    head = masked[:at].rstrip()
    article = "" if head.casefold().endswith(" the") or head.casefold() == "the" else "the "
    return f"{head} {article}{label} {masked[at:]}".lstrip()


def _content_counts(masked: str) -> Counter[str] | None:
    """The content words of a masked question with their counts, for :meth:`CandidateRanker._spoken_for`; ``None``
    when it has a share cue (a word may then name a relation and its walk back)."""
    tokens, _ = question_tokens(masked)
    if SHARE_CUES.intersection(tokens):
        return None
    return Counter(t for t in tokens if t not in FUNCTION_WORDS and t != fold(MASK))


def coordinates(masked: str) -> bool:
    """Whether a question (its entities masked) coordinates two words that are no function words ("both *born*
    and *died* in X"): one entity may then stand under two conditions (the one-anchor conjunctions of
    :func:`~kgsvc.qa.candidates.enumerate_candidates`).

    >>> coordinates("Which laureates were both born and died in X?"), coordinates("who starred in X and Y")
    (True, False)
    """
    words = question_tokens(masked)[0]  # folded: the mask is "x", a function word
    return any(
        words[i] == "and" and words[i - 1] not in FUNCTION_WORDS and words[i + 1] not in FUNCTION_WORDS
        for i in range(1, len(words) - 1)
    )


def name_words(text: str) -> list[str]:
    """The folded words of a mention's ``text`` written as a name: with a capital, a digit or ``_``.

    >>> name_words("AFC_Ajax"), name_words("born"), name_words("2006 physics")
    (['afc ajax'], [], ['2006'])
    """
    words = [w for w in _WORD.findall(text) if any(c.isupper() or c.isdigit() or c == "_" for c in w)]
    return [fold(w) for w in words]


def vote_confidence(cos: float, opts: QAOptions) -> float:
    """How much an exemplar at cosine ``cos`` from the masked question votes: 0 up to ``opts.vote_min_cos``, 1 from
    ``opts.vote_full_cos`` on, linear between. A dozen exemplars then add evidence only where one reads like the
    question, instead of outvoting the zero-shot reading with the nearest of twelve unrelated ones.

    >>> vote_confidence(0.95, QAOptions()), vote_confidence(0.5, QAOptions())
    (1.0, 0.0)
    """
    span = max(opts.vote_full_cos - opts.vote_min_cos, 1e-9)
    return float(min(1.0, max(0.0, (cos - opts.vote_min_cos) / span)))


def _softmax(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    weights = np.exp(scores - scores.max())
    out: npt.NDArray[np.float64] = weights / weights.sum()
    return out


def _suffix_share(a: Signature, b: Signature) -> float:
    """Share of steps at the end of the paths that ``a`` and ``b`` have in common (single-path signatures)."""
    if len(a) != 1 or len(b) != 1:
        return 0.0
    x, y = a[0], b[0]
    n = 0
    while n < min(len(x), len(y)) and x[-1 - n] == y[-1 - n]:
        n += 1
    return n / max(len(x), len(y))


def class_filter(graph: QAGraph, typed: Collection[int]) -> Callable[[CandidatePattern], bool]:
    """A ``keep`` for :meth:`CandidateRanker.rank`: whether every branch's last step of a candidate can end at one
    of the ``typed`` nodes (the instances of the class a question names: "which *albums* …", "how many
    *laureates* …"), by :func:`~kgsvc.qa.candidates.steps_into`. O(the typed nodes' degrees) once."""
    steps = steps_into(graph.snapshot, typed)
    return lambda c: all(b.steps[-1] in steps for b in c.branches if b.steps)


def nearest_classes(
    graph: QAGraph,
    ranker: CandidateRanker,
    noun: str,
    *,
    exclude: Collection[int] = (),
    least: float = CLASS_MIN_COS,
) -> frozenset[int]:
    """The classes closest to ``noun`` by MiniLM cosine, when that is at least ``least`` ("institutions"
    → Organisation, "people" → Person); empty for a graph without classes. A class is read by its label and, since
    2026-11-27, by its members (:meth:`CandidateRanker.instance_centroid`): the larger cosine counts ("university"
    is 0.42 from the label *Organisation*, 0.43 from *City*, 0.77 from the organisations' names). Classes in
    ``exclude`` (and those sharing their label) are passed over. An agent noun is also read as its doer
    (:func:`agent_paraphrase`: "winners" as "someone who wins"), a class label's cosine to the doer counting where it
    reaches :data:`CLASS_MIN_COS` and is the larger: MiniLM puts "winners" nearer *Nobel Prize* (0.51) than *Person*
    (0.30), "someone who wins" at *Person* 0.53 (2026-11-29, fifth). One embedding per distinct text (cached by
    ``ranker``): on first use, each class label and 16 member labels of each class with enough members."""
    skip = {graph.node_labels[c] for c in exclude}
    by_label: dict[str, list[int]] = {}
    for c in graph.classes():
        if graph.node_labels[c] not in skip:
            by_label.setdefault(str(graph.node_labels[c]), []).append(c)
    if not by_label:
        return frozenset()
    labels = sorted(by_label)
    vectors = ranker.vectors([noun, *labels])
    cosines = vectors[1:] @ vectors[0]
    for at, label in enumerate(labels):
        centroid = ranker.instance_centroid(by_label[label])
        if centroid is not None:
            cosines[at] = max(float(cosines[at]), float(centroid @ vectors[0]))
    doer = agent_paraphrase(noun, ranker.graph_lexicon.vocabulary)
    if doer is not None:  # the doer's label cosine where it reaches CLASS_MIN_COS whatever ``least`` is
        as_doer = vectors[1:] @ ranker.vectors([doer])[0]
        cosines = np.maximum(cosines, np.where(as_doer >= CLASS_MIN_COS, as_doer, -1.0))
    best = int(np.argmax(cosines))
    if float(cosines[best]) < least:
        return frozenset()
    return frozenset(by_label[labels[best]])


def agent_paraphrase(noun: str, vocabulary: Collection[str]) -> str | None:
    """The doer an agent noun names: "someone who wins" for "winners" (the last word of ``noun`` less "-er(s)" /
    "-or(s)" and a doubled last letter) when that stem is a whole word of ``vocabulary`` (the embedder's, so that
    "numbers" and "members" have none); ``None`` otherwise. English only.

    >>> agent_paraphrase("winners", {"win"}), agent_paraphrase("the directors", {"direct"})
    ('someone who wins', 'someone who directs')
    >>> agent_paraphrase("members", {"win"}) is None, agent_paraphrase("laureates", {"laureate"}) is None
    (True, True)
    """
    words = noun.casefold().split()
    word = words[-1] if words else ""
    for suffix in ("ers", "ors", "er", "or"):
        stem = word[: -len(suffix)]
        if not word.endswith(suffix) or len(stem) < 3:
            continue
        stem = stem[:-1] if stem[-1] == stem[-2] else stem  # "winn" → "win"
        if stem in vocabulary:
            return f"someone who {stem}s"
    return None


def modified_classes(
    graph: QAGraph,
    ranker: CandidateRanker,
    head: str,
    head_classes: Collection[int],
    modifier: str,
    modifier_classes: Collection[int],
    phrase: str,
) -> frozenset[int]:
    """The classes of a noun ``head`` that ``modifier`` qualifies in ``phrase`` ("*Nobel Prize* winners", "winners
    *of the Nobel Peace Prize*"; the ``*_classes``: those of the words' own class mentions, if any): the head's own,
    else the class nearest to the head (:func:`nearest_classes`), unless that is the modifier's — a prize's winners
    are no prize — or there is none, when the nearest class to the whole phrase other than the modifier's ("Nobel
    Prize winners" → Laureate). That reading may also be a class the graph links to the modifier's
    (:meth:`CandidateRanker.linked_classes`) at a cosine of :data:`LINKED_MIN_COS`: the graph says what relates to
    a prize ("prize winners" → Laureate, 0.50)."""
    if head_classes:
        return frozenset(head_classes)
    own = nearest_classes(graph, ranker, head)
    named = frozenset(modifier_classes) or nearest_classes(graph, ranker, modifier)
    if own and not own & named:
        return own
    found = nearest_classes(graph, ranker, phrase, exclude=named)
    if found:
        return found
    linked = ranker.linked_classes(named) - named
    unlinked = [c for c in graph.classes() if c not in linked]
    return nearest_classes(graph, ranker, phrase, exclude=unlinked, least=LINKED_MIN_COS)
