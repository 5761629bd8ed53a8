"""The question path: link → pattern → GSD match → grounded answer (DESIGN §5; SimGRAG arXiv 2412.15272 §3–4).

Entry point: :class:`QuestionAnswerer` and its :meth:`~QuestionAnswerer.ask`, which returns an
:class:`~kgsvc.qa.result.Answer`.

1. **Link** (:mod:`kgsvc.qa.link`): question spans → candidate nodes (exact / normalised, fuzzy, vector).
2. **Pattern**, by one of two strategies (``QAOptions.strategy``):

   * ``grounded`` (default, GraphRAFT §4.2): the relation paths (1–3 hops) and two-entity conjunctions that
     exist around the linked nodes are enumerated on the snapshot (:mod:`kgsvc.qa.candidates`) and ranked
     against the question by exemplar votes, an order-aware alignment and similarity (:mod:`kgsvc.qa.rank`).
     With ``llm_choice`` the LLM picks among the top candidates by constrained choice.
   * ``pattern`` (SimGRAG §4.1 with GraphRAFT's constraints): the LLM writes the pattern as JSON under a schema
     built for this question — relations only from the dataset's vocabulary, constants only from linked
     mentions, variables ``?x1..?x3`` and ``?answer``. The grounded strategy is its fallback
     (``strategy = "pattern+fallback"``).

3. **Match** (:func:`kgsvc.retrieval.top_k_subgraphs`): top-k subgraphs by GSD. Known nodes are the linked
   nodes of their mention (distance = label distance of the link), known relations the ``relation_k`` nearest
   relation labels by L2 of MiniLM embeddings (SimGRAG §5.1). With ``node_reuse`` (the default) matching has
   SPARQL's semantics, homomorphism: two pattern variables may bind one node and two pattern triples one stored
   triple, so a walk may come back through a node, the linked one included, go straight back over the triple it
   came by, or round a self-loop, exactly as the rendered SPARQL reads; without it the map is injective and the
   SPARQL says so with ``FILTER``s. A grounded candidate is matched **directed** (each triple runs from its
   pattern edge's head to its tail, as the SPARQL reads it); an LLM pattern in either direction (DESIGN §6: the
   model may get a direction wrong).
4. **Answer**: the answer node's bindings over the matches of the chosen pattern itself (those using the best
   match's relations: the relaxed relations the GSD admits fill ``k`` but are other patterns), ranked by (best
   GSD, more supporting subgraphs, first rank). The text names them (template); with ``verbalise`` and an LLM the
   text is generated under a regular expression that admits only the evidence's answer labels (SimGRAG §4.4 with
   constrained output).

**Kinds** (issue 17): after linking, :func:`kgsvc.qa.kinds.classify` reads what the question computes; counts,
yes/no questions, orderings, comparisons and filtered lookups are answered by :mod:`kgsvc.qa.kind_path` (COUNT,
ASK, ORDER BY … LIMIT, FILTER), and a kind the path cannot compute is refused as not supported.

**Inferred edges** (issue 7; ``infer=True``, off by default): when the graph has a GNN link predictor
(:mod:`kgsvc.gnn.predict`, trained on this snapshot), each linked node also gets one-hop candidates for the
(relation, direction) pairs it has *no* stored edge of — outgoing ``(node, r, ?)`` and incoming ``(?, r, node)`` —
where the predictor proposes ends with calibrated probability ≥ ``infer_threshold`` (default: the threshold
chosen on held-out edges at training time); they are ranked with the others. When one is chosen, its evidence is
the proposed edges, marked ``inferred`` with their probability, at ``GSD = infer_penalty · (1 − probability)`` (a
stored one-hop match of a known relation has GSD 0), and the answers say they rest on inferred edges. Stored
evidence is never mixed with inferred evidence in one answer.

Every failure is an honest :class:`~kgsvc.qa.result.Answer` with ``grounded=False``, the ``failed_stage`` and
the reason: no linkable mention, a mention matching no entity of the dataset, no pattern, no match.

"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import re
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from kgsvc import interrupt
from kgsvc.errors import LLMError, MatchError
from kgsvc.gnn.predict import Prediction
from kgsvc.index.labels import LABEL_PREDICATES
from kgsvc.qa.aggregate import date_relations, literal_parts
from kgsvc.qa.candidates import Branch, CandidatePattern, branch_walk, candidate_pattern, verbalise, walk_nodes
from kgsvc.qa.coordination import Clauses, Coordination, joined, split_attributes, split_clauses
from kgsvc.qa.exemplars import ExemplarSet, Signature, mask_question, relation_key
from kgsvc.qa.graph import QAGraph
from kgsvc.qa.keeps import CandidateFilters
from kgsvc.qa.kinds import (
    KIND_SCHEMA,
    QuestionKind,
    answer_noun,
    classify,
    date_part,
    from_spec,
    period,
    year_within,
)
from kgsvc.qa.link import STOPWORDS, EntityLinker, LabelIndex, LinkedSpan, LinkResult, TypeMention, fold
from kgsvc.qa.options import QAOptions
from kgsvc.qa.question_form import Reworded, as_question, asks_who, asks_whose_noun
from kgsvc.qa.question_nouns import (
    ASKED_COPULA,
    ASKED_NOUN,
    ASKED_PREDICATE,
    OF_PHRASE,
    PREDICATE_NOUN,
    asked_head_words,
    asks_for,
    asks_reason,
    asks_time,
    blank_spans,
    clause_nouns,
    genitive_nouns,
    heads,
    modifying_mentions,
    modifying_word,
    next_word,
    owned_noun_asked,
    passed_classes,
    same_nouns,
    says_shared,
    time_clauses,
    unread_class_nouns,
    won_something,
)
from kgsvc.qa.rank import CandidateRanker, RankedCandidate, modified_classes, nearest_classes
from kgsvc.qa.render import match_sparql, pattern_sparql
from kgsvc.qa.result import (
    Answer,
    AnswerTerm,
    Evidence,
    EvidenceNode,
    EvidenceTriple,
    LinkCandidate,
    Mention,
    PatternGraph,
    PatternTriple,
)
from kgsvc.qa.zeroshot import stem_match
from kgsvc.retrieval.candidates import Candidates, candidate_set
from kgsvc.retrieval.pattern import Pattern, PatternEdge, PatternNode
from kgsvc.retrieval.result import Match
from kgsvc.retrieval.search import top_k_subgraphs

__all__ = ["MAX_MENTIONS", "MAX_QUESTION_CHARS", "QAOptions", "QuestionAnswerer", "walks_back"]

#: The longest question read: a question is a sentence or two, and the readings' patterns are bounded by it.
MAX_QUESTION_CHARS = 1000
#: The most entity mentions a question is read with: a natural question names a few, while 1,000 characters of one
#: name repeated linked 166 mentions and took 11 s to rank (a view and an alignment per mention).
MAX_MENTIONS = 16

log = logging.getLogger(__name__)

FailedStage = Literal["linking", "pattern", "matching", "answer"]
#: The least similarity of a verb to a date relation's label for "<verb> in <year>" to filter by the date's year
#: (:meth:`QuestionAnswerer._year_of_date`).
YEAR_VERB_MIN = 0.5
#: The words before an entity that make a part of its date the question's constant: "<verb> in the same year as",
#: "the same month as"; "share(s/d) a birthday / birth year with". Not "on the same day as": the same date, a value
#: shared (:meth:`kgsvc.qa.rank.CandidateRanker.shared_instances`).
_SAME_DATE = re.compile(
    r"\b(?:(?P<verb>[a-z]+)\s+)?(?:(?:in|on|during)\s+)?the\s+same\s+(?P<part>year|month)\s+as\s*$"
    r"|\bshare[sd]?\s+(?:a|the|their|his|her)\s+"
    r"(?P<thing>birthday|birth\s*date|date\s+of\s+birth|birth\s+year|year\s+of\s+birth)\s+with\s*$",
    re.IGNORECASE,
)
#: "the same <noun> (as) the <word> (is in)": a value of an entity named before, by a word of its name ("the same city
#: the *university* is in", "the same country as the *university*"; :meth:`QuestionAnswerer._same_as_named`), and
#: the most values it may stand for.
_SAME_AS_NAMED = re.compile(
    r"\bthe\s+same\s+(?P<noun>[a-z]+)\s+(?:as\s+|that\s+|where\s+|in\s+which\s+)?the\s+(?P<head>[a-z]+)"
    r"(?:\s+(?:is|was|are|were)(?:\s+(?:located\s+|based\s+)?(?:in|at))?)?(?=\W*$|\W)",
    re.IGNORECASE,
)
#: The same without "same", with the clause's verb and preposition ending the question: "born in the *city* the
#: *university* is in?".
_VALUE_OF_NAMED = re.compile(
    r"\bthe\s+(?P<noun>[a-z]+)\s+the\s+(?P<head>[a-z]+)\s+(?:is|was|are|were)\s+(?:located\s+|based\s+)?(?:in|at)"
    r"(?=\W*$)",
    re.IGNORECASE,
)
_SAME_VALUES_MOST = 2
#: An IRI written in a question, in angle brackets or bare, without the punctuation that ends the sentence.
_WRITTEN_IRI = re.compile(r"<?(https?://[^\s<>\"]+?)>?(?=[?.,;:!)]*(?:\s|$))")
_CAPITALISED = re.compile(r"(?<![\w])([A-Z][\w'.-]*(?:\s+(?:of|the|de|la|von|van|[A-Z][\w'.-]*))*)")


@dataclass
class _Chosen:
    pattern: Pattern
    names: list[str]
    anchors: dict[int, int]  # pattern node -> mention index
    source: Literal["llm", "candidate", "baseline"]
    score: float | None
    signature: Signature | None = None
    candidate: CandidatePattern | None = None
    kind_spec: dict[str, Any] | None = None  # the kind an LLM pattern declares (kgsvc.qa.kinds.from_spec)
    typed: dict[int, frozenset[int]] = field(default_factory=dict)  # pattern node -> classes, one of which it is of


@dataclass
class QuestionAnswerer:
    """Answers questions over one dataset (module docstring).

    Parameters
    ----------
    graph : QAGraph
        The dataset as the question path sees it.
    llm : object, optional
        An ``LLM`` (``choose``, ``generate_json``, ``generate``); without it the pipeline is LLM-free.
    exemplars : ExemplarSet, optional
        The dataset's exemplars (few-shot examples and votes).
    options : QAOptions
        Defaults for every :meth:`ask`.

    Notes
    -----
    The constructor does no work; label index and relation embeddings are built on the first question.
    """

    graph: QAGraph
    llm: Any = None
    exemplars: ExemplarSet | None = None
    options: QAOptions = field(default_factory=QAOptions)
    _linker: EntityLinker | None = field(default=None, repr=False)
    _ranker: CandidateRanker | None = field(default=None, repr=False)
    _earlier_labels: LabelIndex | None = field(default=None, repr=False)
    _earlier_version: int | None = field(default=None, repr=False)
    _filters: CandidateFilters | None = field(default=None, repr=False)
    _date_relations: list[int] | None = field(default=None, repr=False)

    # -- setup ---------------------------------------------------------------------------------------------------

    def follow(self, earlier: QuestionAnswerer) -> None:
        """Let this answerer's label index reuse the folded labels of ``earlier``'s (the answerer of the previous
        index version of the same dataset), so that a new version's first question folds only its new labels."""
        if earlier._linker is not None:
            self._earlier_labels = earlier._linker.index
            self._earlier_version = earlier.graph.version

    @property
    def linker(self) -> EntityLinker:
        """The entity linker over the graph's node labels (built once)."""
        if self._linker is None:
            rate = self.exemplars.common_rate if self.exemplars is not None and len(self.exemplars) else None
            graph = self.graph
            earlier, self._earlier_labels = self._earlier_labels, None
            classes, degree = graph.classes(), graph.degrees()
            index = None
            changes = graph.node_changes
            if earlier is not None and changes is not None and changes[0] == self._earlier_version:
                # a version patched from the earlier one: a layer over its label index, not a walk of every label
                index = LabelIndex.extend(
                    earlier, graph.node_labels, remap=changes[1], touched=changes[2], classes=classes, degree=degree
                )
            if index is None:
                index = LabelIndex.build(graph.node_labels, classes=classes, degree=degree, previous=earlier)
            self._linker = EntityLinker(
                index,
                embed=graph.embed if graph.search_nodes is not None else None,
                search=graph.search_nodes,
                common_rate=rate,
                context=self._type_words if graph.type_relation() is not None else None,
            )
        return self._linker

    def _type_words(self, node: int) -> str:
        """The labels of ``node``'s types (the linker's homonym context)."""
        return " ".join(self.graph.node_labels[t] for t in sorted(self.graph.types(node)))

    def _asked_classes(
        self, question: str, spans: Sequence[LinkedSpan], types: Sequence[TypeMention]
    ) -> tuple[list[int], list[TypeMention]]:
        """The classes the question asks for: those of the noun right after "which" / "what" (:meth:`_noun_classes`:
        "which *institution*", "which Nobel Prize *winners*"); for a question that asks "who" / "whom"
        (:func:`~kgsvc.qa.question_form.asks_who`), the class nearest to "person" (none in a graph without classes,
        or without one close to it), and, when a word after the first entity says it shares something, the entity's
        classes: who shares with it may be of its kind ("Whom did <an organisation> share its Nobel with?"; not "who
        shared a prize with someone from <an organisation>"). Second, the class mentions that only modify the asked
        noun ("which *Nobel Prize* winners"): they name no relation to walk."""
        asked: list[int] = []
        modifiers: list[TypeMention] = []
        for i, t in enumerate(types):
            if asks_for(question, t.start, spans) and not heads(question, t, modifiers):
                classes, modifier = self._noun_classes(question, t, types[i + 1 :], spans)
                asked.extend(sorted(classes))
                modifiers.extend([modifier] if modifier is not None else [])
        owned = owned_noun_asked(question, spans, types) if not asked else None
        if owned is not None:  # "What is X's birth *country*?"
            asked = sorted(owned.classes)
        if not asked and asks_who(question) and not asks_whose_noun(question):
            asked = sorted(nearest_classes(self.graph, self.ranker, "person"))
            sharer = next((s for s in spans if s.nodes and s.method != "value"), None)  # not "who of the *women* …"
            if asked and sharer is not None and says_shared(question[sharer.end :]):
                # "Whom did the Friends Service Council share its Nobel with?": one of its kind, an organisation too
                asked += sorted(self.graph.types(sharer.nodes[0][0]))
        return list(dict.fromkeys(asked)), modifiers

    def _noun_classes(
        self, question: str, noun: TypeMention, after: Sequence[TypeMention], spans: Sequence[LinkedSpan]
    ) -> tuple[frozenset[int], TypeMention | None]:
        """The classes a noun phrase opening with the mention ``noun`` names (``after``: the type mentions after it;
        ``spans``: the linked entities), and ``noun`` itself when it is a class noun that modifies the next one.

        A noun right before another noun modifies it ("*Nobel Prize* winners", "*prize* winners"), and so does an
        "of" phrase after a common noun, naming a class or an entity of one ("winners *of the Nobel Peace Prize*",
        "winners *of the 1924 Nobel Prize in Literature*"): the head noun's class mention counts, else the class
        label nearest to the head (:func:`~kgsvc.qa.rank.nearest_classes`), unless that is the class the modifier
        names — a prize's winners are not prizes — when it is the nearest class to the whole phrase other than the
        modifier's ("Nobel Prize winners" → Laureate). A word between "which" / "what" and the noun modifies it
        likewise ("which *Nobel* winners", :func:`~kgsvc.qa.question_nouns.modifying_word`)."""
        following = after[0] if after else None
        entity = next((s for s in spans if s.start >= noun.end), None)
        adjacent = following is not None and not question[noun.end : following.start].strip()
        if not noun.classes and not adjacent and self._names_relation_after(question, noun):
            return frozenset(), None  # "which prize *categories*": the values of a relation, of no class
        if self._spells_relation(question, noun):
            return frozenset(), None  # "what *country code*": a relation's label, not the class *country*
        if following is not None and adjacent:
            head, modifier, phrase = following, noun, question[noun.start : following.end]
        elif following is not None and not noun.classes and OF_PHRASE.fullmatch(question[noun.end : following.start]):
            head, modifier, phrase = noun, following, question[noun.start : following.end]
        elif entity is not None and not noun.classes and OF_PHRASE.fullmatch(question[noun.end : entity.start]):
            types = tuple(sorted(self.graph.types(entity.nodes[0][0])))
            head, phrase = noun, question[noun.start : entity.end]
            modifier = TypeMention(entity.text, entity.start, entity.end, types)
        elif not noun.classes and (word := modifying_word(question[: noun.start], spans)) is not None:
            # "which *Nobel* winners": the word before the noun modifies it, as a class noun would
            head, phrase = noun, question[word.start(1) : noun.end]
            modifier = TypeMention(word.group(1), word.start(1), word.end(1), ())
        else:
            return frozenset(noun.classes) or nearest_classes(self.graph, self.ranker, fold(noun.text)), None
        classes = modified_classes(
            self.graph,
            self.ranker,
            fold(head.text),
            head.classes,
            fold(modifier.text),
            modifier.classes,
            fold(phrase),
        )
        return classes, noun if modifier is noun else None

    def _genitive_classes(
        self, question: str, spans: Sequence[LinkedSpan], types: Sequence[TypeMention], asked: Collection[int]
    ) -> list[tuple[int, frozenset[int]]]:
        """For each noun a linked entity's genitive names (:func:`~kgsvc.qa.question_nouns.genitive_nouns`), the
        entity's index in ``spans`` and the noun's classes (a noun that is no class label: its nearest class), unless
        they are what the question asks for ("what is X's *institution*" ends there)."""
        found = []
        for mention, t in genitive_nouns(question, spans, types):
            classes = frozenset(t.classes) or nearest_classes(self.graph, self.ranker, fold(t.text))
            if classes and classes.isdisjoint(asked):
                found.append((mention, classes))
        return found

    def _clause_classes(self, question: str, spans: Sequence[LinkedSpan]) -> list[tuple[int, frozenset[int]]]:
        """For each relative clause whose subject is a linked entity (:func:`~kgsvc.qa.question_nouns.clause_nouns`:
        "born in the *town* X died in") and each value shared with one (:func:`~kgsvc.qa.question_nouns.same_nouns`:
        "died in the same *city* as X"), the entity's index in ``spans`` and the classes nearest to the noun: the
        one step from the entity reaches one of them."""
        found = []
        for mention, noun in [*clause_nouns(question, spans), *same_nouns(question, spans)]:
            classes = nearest_classes(self.graph, self.ranker, noun)
            if classes:
                found.append((mention, classes))
        return found

    def _typed_steps(self, chosen: _Chosen, owned: Sequence[tuple[int, frozenset[int]]]) -> _Chosen:
        """``chosen`` with the node one step from each entity of ``owned`` kept to the instances of its classes ("the
        *town* X died in", "X's *city* of birth": X's death place the town, not its country too), when that node is
        no anchor and not the answer and some instance is one step from the entity; ``chosen`` otherwise."""
        p, snapshot = chosen.pattern, self.graph.snapshot
        typed = dict(chosen.typed)
        for mention, classes in owned:
            anchor = next((v for v, m in chosen.anchors.items() if m == mention), None)
            edges = [e for e in p.edges if anchor in (e.head, e.tail)]
            if anchor is None or len(edges) != 1 or chosen.candidate is None:
                continue
            middle = edges[0].tail if edges[0].head == anchor else edges[0].head
            if middle in chosen.anchors or middle == p.answer:
                continue
            instances = self.graph.instances(classes)
            branch = next((b for b in chosen.candidate.branches if b.mention == mention), None)
            if branch is None or not branch.steps:
                continue
            relation, outgoing = branch.steps[0]
            reached = snapshot.neighbors_via(branch.anchor, relation, outgoing=outgoing).tolist()
            if instances.isdisjoint(reached):
                continue
            typed[middle] = classes
        return _with_typed(chosen, typed)

    def _passed_steps(self, chosen: _Chosen, through: Sequence[frozenset[int]]) -> _Chosen:
        """``chosen`` with the first node on its way to the answer that can be an instance of each class set of
        ``through`` kept to those instances ("the DBpedia links of the *cities* they died in": their death places
        that are cities, not their countries too), when that node is no anchor, not the answer and not typed yet.

        Notes
        -----
        O(Σ degree of the nodes walked) (:func:`~kgsvc.qa.candidates.branch_walk`)."""
        candidate = chosen.candidate
        assert candidate is not None
        typed = dict(chosen.typed)
        for classes in through:
            instances = self.graph.instances(classes)
            for branch, chain in zip(candidate.branches, walk_nodes(candidate), strict=True):
                walk = branch_walk(self.graph.snapshot, dataclasses.replace(branch, steps=branch.steps[:-1]))
                node = next(
                    (v for v, (_, ends) in zip(chain, walk, strict=False) if not instances.isdisjoint(ends)), None
                )
                if node is not None and node not in typed:
                    typed[node] = classes
                    break
        return _with_typed(chosen, typed)

    def _spells_relation(self, question: str, noun: TypeMention) -> bool:
        """Whether ``noun`` and the word after it spell a relation's whole label ("what two-letter *country code*"
        with a relation *country code*): the question asks for that relation's values, whatever class the first
        word names."""
        word = next_word(question, noun.end)
        if word is None:
            return False
        phrase = relation_key(f"{noun.text.split()[-1]} {word}")  # "the *country* code"
        return any(relation_key(label) == phrase for label in self.graph.relation_labels)

    def _names_relation_after(self, question: str, noun: TypeMention) -> bool:
        """Whether the word right after ``noun`` spells a word of a relation label ("which *prize* categories" with a
        relation *category*): for a noun that is no class label itself (read by its nearest class), that word is
        the head of the phrase, the question asks for that relation's values and the noun only modifies them. (After
        a class label the next word is more often a verb: "which *laureates* born in X", "which X *laureates* won".)"""
        word = next_word(question, noun.end)
        return word is not None and any(stem_match(word, w) for w in self.ranker.relation_words)

    def _value_noun(self, question: str, spans: Sequence[LinkedSpan], types: Sequence[TypeMention]) -> list[LinkedSpan]:
        """The asked noun as a condition when it names a category value ("Which *women* won …" is "which *female*
        won …", "how many *physicists* …"; :meth:`~kgsvc.qa.rank.CandidateRanker.value_noun`): a span linked to
        that value, in a graph with classes, for the word after "which" / "what" / "how many" that no span or class
        mention covers; likewise the noun a copula ends such a question with ("how many laureates born in X were
        *women*?", :data:`~kgsvc.qa.question_nouns.PREDICATE_NOUN`), and the noun a yes/no question by a copula ends
        with ("Was X a *woman*?", :data:`~kgsvc.qa.question_nouns.ASKED_PREDICATE`). ``[]`` otherwise."""
        asked, copula = ASKED_NOUN.match(question), ASKED_COPULA.match(question)
        if copula is not None and re.search(r"\bor\b", question):  # "is X's child a man or a woman": which one
            copula = None
        if (asked is None and copula is None) or self.graph.type_relation() is None:
            return []
        covered = [(s.start, s.end) for s in spans] + [(t.start, t.end) for t in types if t.classes]
        found = []
        nouns = (asked, PREDICATE_NOUN.search(question, asked.end())) if asked else (ASKED_PREDICATE.search(question),)
        for noun in nouns:
            if noun is None or fold(noun.group(1)) in STOPWORDS:
                continue
            start, end = noun.span(1)
            if any(a < end and start < b for a, b in covered):
                continue
            value = self.ranker.value_noun(fold(noun.group(1)))
            if value is not None and (asked is not None or self._holds_kind_of(spans, value[0])):
                node, cos = value
                found.append(LinkedSpan(noun.group(1), start, end, "value", cos, ((node, cos, 0.0),)))
        return found

    def _year_of_date(
        self, question: str, kind: QuestionKind, spans: list[LinkedSpan]
    ) -> tuple[QuestionKind, list[LinkedSpan]]:
        """``kind`` as a lookup or count filtered by a year when "<verb> in <year>"
        (:func:`~kgsvc.qa.kinds.year_within`) names a date of the graph: the verb is closer to a relation whose
        objects are dates (:func:`~kgsvc.qa.aggregate.date_relations`: *death date*) than to every relation of the
        year's own node, if the year is linked ("which laureates *died in 1962*": the year of a death date, not the
        year of a prize; "films *released in 1999*" in a graph whose release years are nodes stays a lookup).
        ``kind`` otherwise. The spans, less any inside "in the year" ("the *year* 1962" names no node)."""
        if kind.kind not in ("lookup", "count") or kind.constant is not None or kind.conjunction:
            return kind, spans
        within = year_within(question, [(s.start, s.end) for s in spans])
        if within is None:
            return kind, spans
        verb, year, at = within
        year_at = question.find(year, at[1])
        if year_at < 0:  # "1971 deaths": the year before the noun
            year_at = question.rindex(year, 0, at[0])
        verb = fold(verb)
        date, _ = self.closest_date(verb)
        if date < YEAR_VERB_MIN:
            return kind, spans
        lexicon, labels = self.ranker.graph_lexicon, self.graph.relation_labels
        snapshot = self.graph.snapshot
        own = [  # the year node's relations, but the dates' own (a year linked to dates of 1924 names them)
            int(r)
            for s in spans
            if s.text.strip() == year
            for node, _, _ in s.nodes
            for r in np.unique(snapshot.relations[snapshot.indptr[node] : snapshot.indptr[node + 1]]).tolist()
            if int(r) not in self._dates()
        ]
        if any(lexicon.similarity(verb, relation_key(labels[r])) >= date for r in own):
            return kind, spans
        kept = [s for s in spans if not (at[1] <= s.start and s.end <= year_at)]
        noun = kind.noun or answer_noun(question, [(s.start, s.end) for s in kept if s.text.strip() != year])
        return dataclasses.replace(kind, constant=year, cue_at=at, noun=noun), kept  # the verb names the date

    def closest_date(self, word: str) -> tuple[float, int]:
        """The similarity of the folded ``word`` to the closest date relation of the graph
        (:func:`~kgsvc.qa.aggregate.date_relations`, found once), and that relation; ``(0.0, -1)`` without one."""
        lexicon, labels = self.ranker.graph_lexicon, self.graph.relation_labels
        near = [(lexicon.similarity(word, relation_key(labels[r])), r) for r in self._dates()]
        return max(near, default=(0.0, -1))

    def dates_of(self, node: int, relation: int) -> set[str]:
        """The lexical forms, cut to ``YYYY-MM-DD``, of ``node``'s values of the date ``relation``. O(degree)."""
        values = self.graph.snapshot.neighbors_via(node, relation, outgoing=True).tolist()
        return {parts[0][:10] for v in values if (parts := literal_parts(self.graph.node_terms[v])) is not None}

    def _dates(self) -> list[int]:
        """The graph's date relations (:func:`~kgsvc.qa.aggregate.date_relations`), found once."""
        if self._date_relations is None:
            self._date_relations = date_relations(self.graph.snapshot, self.graph.node_terms)
        return self._date_relations

    def _same_date_as(
        self, question: str, kind: QuestionKind, spans: list[LinkedSpan]
    ) -> tuple[QuestionKind, list[LinkedSpan]]:
        """A lookup or count whose constant is a part of an entity's date (:data:`_SAME_DATE`): "died in the same
        year as X" is "died in <the year of X's death date>", "share a birthday with X" "born on <X's month and
        day>"; X leaves the spans and is no answer (:attr:`QuestionKind.besides`). The date relation is the one the
        verb (or noun) is closest to among :func:`~kgsvc.qa.aggregate.date_relations`, at least
        :data:`YEAR_VERB_MIN`, and X must have one value of it. ``kind`` and ``spans`` otherwise."""
        if kind.kind not in ("lookup", "count") or kind.constant is not None or kind.conjunction or kind.alive:
            return kind, spans
        for i, span in enumerate(spans):
            m = _SAME_DATE.search(question[: span.start])
            if m is None or not span.nodes:
                continue
            word = (m.group("verb") or m.group("thing") or "").split()
            if not word:  # "The same year as X, who …": no verb says which date
                return kind, spans
            sim, relation = self.closest_date(fold(word[0]))
            if sim < YEAR_VERB_MIN:
                return kind, spans
            from kgsvc.qa.kind_path import best_first  # it imports this module

            node = best_first(self, span).nodes[0][0]  # "Malala" links her given name: the laureate holds it
            dates = self.dates_of(node, relation)
            if len(dates) != 1 or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date := dates.pop()):
                return kind, spans
            part = (m.group("part") or ("year" if "year" in m.group("thing") else "day")).lower()
            constant = date[:4] if part == "year" else "--" + (date[5:7] if part == "month" else date[5:10])  # day
            # X and any span inside the words read ("the same *year* as X"); the noun ends before them: "which
            # laureates *share* …"
            kept = [s for j, s in enumerate(spans) if j != i and not (m.start() <= s.start and s.end <= span.start)]
            noun = kind.noun or answer_noun(
                question[: m.start()], [(s.start, s.end) for s in kept if s.end <= m.start()]
            )
            at = m.span("verb") if m.group("verb") else m.span("thing")
            besides = frozenset({node})
            return dataclasses.replace(kind, constant=constant, cue_at=at, noun=noun, besides=besides), kept
        return kind, spans

    def _linked(self, question: str, opts: QAOptions) -> tuple[LinkResult, list[LinkedSpan]]:
        """The linker's result for ``question`` and its entity spans: the main ones, entities before literals and
        link targets (:meth:`_prefer_entities`), an IRI written in the question as its node (:meth:`_written_iris`)."""
        linked = self.linker.link_types(question)
        spans = self._prefer_entities(_main_spans(linked.spans, opts.min_relative_score))
        return linked, self._written_iris(question, spans)

    def _written_iris(self, question: str, spans: list[LinkedSpan]) -> list[LinkedSpan]:
        """``spans`` with an IRI written in the question that is a node of the graph linked as that node alone
        ("Whose DBpedia page is http://dbpedia.org/resource/Kary_B._Mullis?"; the words of its last segment would
        link the person it names), in place of the spans it overlaps (:data:`_WRITTEN_IRI`)."""
        for m in _WRITTEN_IRI.finditer(question):
            iri, (start, end) = m.group(1), m.span(1)
            if iri.count("(") > iri.count(")") and question[end : end + 1] == ")":  # ".../Prussia_(now_Russia)"
                iri, end = iri + ")", end + 1
            node = self.graph.node_id(f"<{iri}>")
            if node is None:
                continue
            spans = [s for s in spans if s.end <= start or end <= s.start]
            spans.append(LinkedSpan(iri, start, end, "exact", 1.0, ((node, 1.0, 0.0),)))
        return sorted(spans, key=lambda s: s.start)

    def _same_as_named(self, question: str, spans: Sequence[LinkedSpan]) -> str | None:
        """``question`` with "the same <noun> as the <word>" written as the value it means, when <word> is a word of
        an entity named before it ("Which Washington University laureates died in the same city the *university* is
        in?" → "… died in St. Louis, MO?"; :data:`_SAME_AS_NAMED`): the entity's values of the class the noun
        names (:func:`~kgsvc.qa.rank.nearest_classes`; one to :data:`_SAME_VALUES_MOST` values, one step away, joined
        by "or"); likewise without "same", when the clause's verb follows (:data:`_VALUE_OF_NAMED`: "born in the city
        the *university* is in").
        ``None`` when the question has no such phrase, no entity before it has the word, or no such value."""
        m = _SAME_AS_NAMED.search(question) or _VALUE_OF_NAMED.search(question)
        if m is None:
            return None
        head = fold(m.group("head"))
        owner = next(
            (
                s
                for s in spans
                if s.end <= m.start() and s.nodes and head in fold(self.graph.node_labels[s.nodes[0][0]]).split()
            ),
            None,
        )
        classes = nearest_classes(self.graph, self.ranker, m.group("noun")) if owner is not None else frozenset()
        if owner is None or not classes:
            return None
        within = self.graph.instances(classes)
        values = sorted({v for _, v in self.graph.snapshot.out_edges(owner.nodes[0][0]) if v in within})
        if not 1 <= len(values) <= _SAME_VALUES_MOST:
            return None
        written = " or ".join(str(self.graph.node_labels[v]) for v in values)
        return question[: m.start()] + written + question[m.end() :]

    def _scheme_asked(self, question: str) -> frozenset[int]:
        """The values of the graph's one classification when the noun the question asks for is a classifier noun
        ("Which Nobel *fields* saw a prize in 1943?", "In which *discipline* …": :meth:`~kgsvc.qa.rank.CandidateRanker.
        scheme_values`); empty otherwise."""
        for word in reversed(asked_head_words(question)):  # the head first: "which Nobel *fields*"
            values = self.ranker.scheme_values(word)
            if values:
                return values
        return frozenset()

    def _holds_kind_of(self, spans: Sequence[LinkedSpan], value: int) -> bool:
        """Whether a linked entity has an edge of the relation whose value ``value`` is ("Was X a *woman*?" asks X's
        own *gender*); a value further away ("Was X a *physicist*?", the category of X's prize) is not read here,
        and the question stays unsupported rather than answered "no" by the wrong step."""
        nodes, relations, _ = self.ranker.category_values()
        owners = np.unique(relations[nodes == value]).tolist()
        snapshot = self.graph.snapshot
        return any(
            len(snapshot.neighbors_via(node, relation, outgoing=True)) > 0
            for span in spans
            for node, _, _ in span.nodes[:1]
            for relation in owners
        )

    def _typed(self, answers: list[AnswerTerm], classes: Sequence[int]) -> list[AnswerTerm]:
        """The answers whose ``rdf:type`` is one of ``classes`` (the question's class nouns: "which laureates");
        all of them when none is, or the question names no class."""
        if not classes or not answers:
            return answers
        wanted = set(classes)
        kept = []
        for answer in answers:
            node = self.graph.node_id(f"<{answer.value}>") if answer.kind == "uri" else None
            if node is not None and self.graph.types(node) & wanted:
                kept.append(answer)
        return kept or answers

    @property
    def filters(self) -> CandidateFilters:
        """The candidate filters of this graph (:mod:`kgsvc.qa.keeps`; built once)."""
        if self._filters is None:
            self._filters = CandidateFilters(self.graph)
        return self._filters

    @property
    def ranker(self) -> CandidateRanker:
        """The grounded-candidate ranker over this graph and exemplars (:mod:`kgsvc.qa.rank`; built once)."""
        if self._ranker is None:
            self._ranker = CandidateRanker(self.graph, self.exemplars)
        return self._ranker

    # -- the path ------------------------------------------------------------------------------------------------

    def ask(self, question: str, **options: Any) -> Answer:
        """Answer ``question`` (module docstring); ``options`` override :class:`QAOptions` fields.

        Returns
        -------
        Answer
            Grounded answers with evidence, or ``grounded=False`` with ``failed_stage`` and ``reason``.

        Raises
        ------
        ValueError
            For an empty question, or one longer than :data:`MAX_QUESTION_CHARS`.
        TypeError
            For an unknown option.
        """
        if not question or not question.strip():
            raise ValueError("question must be a non-empty string")
        if len(question) > MAX_QUESTION_CHARS:
            raise ValueError(f"the question has {len(question)} characters; at most {MAX_QUESTION_CHARS} are read")
        opts = QAOptions.from_kwargs(**{**self.options.__dict__, **options})
        timings: dict[str, float] = {}
        started = time.perf_counter()
        base: dict[str, Any] = {"question": question, "dataset": self.graph.name, "strategy": opts.strategy}
        form = as_question(question)  # "Name the winners who …" is read as "which winners who …"
        question = form.text

        linked, spans = self._linked(question, opts)
        both = self._coordinated(form, spans, options)  # "the date and place of X's death", "where …, and when …"
        if both is not None:
            return both
        said = self._same_as_named(question, spans)
        if said is not None:  # "born in the same country as the university": "born in <its country>"
            question = said
            linked, spans = self._linked(question, opts)
        spans = sorted([*spans, *self._value_noun(question, spans, linked.types)], key=lambda s: s.start)
        mentions = [self._mention(s, opts, form) for s in spans]
        base["mentions"] = mentions
        timings["link"] = time.perf_counter() - started
        interrupt.check("the question (after linking)")
        kind, spans = self._year_of_date(question, classify(question, [(s.start, s.end) for s in spans]), spans)
        kind, spans = self._same_date_as(question, kind, spans)
        dated = period(kind.constant or "") or date_part(kind.constant or "")  # "between *1900* and …", "May *1997*"
        if kind.cue_at is not None and dated is not None:
            spans = [s for s in spans if not (kind.cue_at[0] <= s.start and s.end <= kind.cue_at[1])]
        if not spans and not kind.over_a_class and kind.kind != "unsupported":  # else: the kind says why
            reason = self._no_link_reason(question)
            return self._fail(base, timings, started, "linking", reason)
        if kind.kind != "lookup" or kind.constant is not None or kind.conjunction or kind.alive:
            from kgsvc.qa.kind_path import answer_kind  # it imports this module

            return answer_kind(self, question, kind, spans, base, timings, started, opts, linked.types, form.exists)

        t0 = time.perf_counter()
        chosen: _Chosen | None = None
        strategy: str = opts.strategy
        if opts.strategy == "pattern" and self.llm is not None:
            chosen = self._llm_pattern(question, spans, opts)
            if chosen is None:
                strategy = "pattern+fallback"
        elif opts.strategy == "pattern":
            strategy = "pattern+fallback"
        inferred: dict[CandidatePattern, list[Prediction]] = {}
        asked: list[int] = []
        if chosen is None:
            inferred = self._inferred_candidates(spans, opts)
            asked, modifiers = self._asked_classes(question, spans, linked.types)
            unread = unread_class_nouns(
                question, spans, linked.types, modifiers, self.ranker.relation_words, self.graph.relation_labels
            )
            read = blank_spans(question, [*unread, *time_clauses(question), *won_something(question, spans)])
            needed = modifying_mentions(question, spans, linked.types)
            # every entity named as written is a condition: a name (capitalised, or with a digit), a modifier of the
            # asked noun or of a class noun ("the *physics* prize"), the object of a preposition ("won a Nobel *in
            # chemistry*"); not a common word such as a film's tag ("wrote *the screenplay* for X"); each one the
            # graph says something of (not a vocabulary's namespace, the object of one triple, that the word
            # "resource" spells)
            named = {
                i
                for i, s in enumerate(spans)
                if s.method in ("exact", "alias", "words")
                and s.nodes
                and self.graph.snapshot.degree(s.nodes[0][0]) > 1
                and (
                    s.text[:1].isupper()
                    or any(c.isdigit() for c in s.text)
                    or i in needed
                    or _AFTER_PREPOSITION.search(question[: s.start])
                    or any(t.start >= s.end and not question[s.end : t.start].strip() for t in linked.types)
                )
            }
            separate = all(question[a.end : b.start].strip() for a, b in itertools.pairwise(spans))  # no name cut
            if len(named) >= 2 and len(named) == len(spans) and separate:
                needed = needed | frozenset(named)
            when = asks_time(question)
            # "when was X given *the Nobel Prize*"; "the DBpedia links *of the cities* they died in"
            through = (
                passed_classes(question, spans, linked.types, modifiers, self.graph, of_value=when is None)
                if when or when is None
                else []
            )
            # "which country is the city of X's *institution* in": the first step from X reaches an institution
            owned = self._genitive_classes(question, spans, linked.types, asked) if asked or when is not None else []
            owned += self._clause_classes(question, spans)  # "born in the *town* X died in": X's step reaches one
            among = frozenset() if asked else self._scheme_asked(question)  # "which *fields* …": a category's values
            chosen = self._grounded_pattern(
                question, spans, opts, inferred, asked, when, read, needed, through, owned, among
            )
            if chosen is not None and chosen.candidate is not None and owned:
                chosen = self._typed_steps(chosen, owned)
            if chosen is not None and chosen.candidate is not None and through and when is None:
                chosen = self._passed_steps(chosen, through)
        base["strategy"] = strategy
        if chosen is not None and chosen.kind_spec and chosen.kind_spec.get("kind", "lookup") != "lookup":
            from kgsvc.qa.kind_path import answer_kind  # it imports this module

            kind = from_spec(chosen.kind_spec)
            return answer_kind(self, question, kind, spans, base, timings, started, opts, linked.types)
        timings["pattern"] = time.perf_counter() - t0
        if chosen is None:
            names = ", ".join(repr(s.text) for s in spans)
            reason = f"no relation path or pattern around the linked entities ({names}) fits the question"
            return self._fail(base, timings, started, "pattern", reason)

        interrupt.check("the question (before matching)")
        t0 = time.perf_counter()
        pattern_graph = self._pattern_graph(chosen, spans, opts)
        base["pattern"] = pattern_graph
        base["sparql"] = pattern_graph.sparql
        if chosen.candidate in inferred:
            timings["match"] = time.perf_counter() - t0
            return self._inferred_answer(question, base, timings, started, chosen, inferred[chosen.candidate], opts)
        try:
            matched, complete = self._match(chosen, spans, opts)
            if chosen.typed and not any(m.gsd <= 1e-9 for m, _ in matched):
                # no walk through an instance of the class: the untyped path, not a near one by another relation
                nodes = tuple(
                    dataclasses.replace(n, known=False) if v in chosen.typed else n
                    for v, n in enumerate(chosen.pattern.nodes)
                )
                chosen = dataclasses.replace(chosen, pattern=dataclasses.replace(chosen.pattern, nodes=nodes), typed={})
                pattern_graph = self._pattern_graph(chosen, spans, opts)
                base["pattern"], base["sparql"] = pattern_graph, pattern_graph.sparql
                matched, complete = self._match(chosen, spans, opts)
        except MatchError as exc:
            timings["match"] = time.perf_counter() - t0
            return self._fail(base, timings, started, "matching", f"the pattern cannot be matched: {exc}")
        timings["match"] = time.perf_counter() - t0
        if not matched:
            reason = "no subgraph of the dataset matches the pattern"
            if not complete:
                reason = f"the GSD search found no subgraph within its {opts.deadline_s:g} s budget"
            return self._fail(base, timings, started, "matching", reason)

        t0 = time.perf_counter()
        matched = _own_matches(matched)
        matches = [m for m, _ in matched]
        anchors = {m.node_map[v] for m, shape in matched for v in shape.anchors} if opts.node_reuse else set()
        over_triple = {m: walks_back(m, shape.pattern) for m, shape in matched}
        came_back = {m: _came_back(m, shape.pattern, shape.anchors) for m, shape in matched}
        plain = [m for m, _ in matched if not over_triple[m] and not came_back[m]]  # walks_back with the anchors
        answers = _rank_answers(plain, self.graph, exclude=anchors)
        every = _rank_answers(matches, self.graph, exclude=())
        if every and (not answers or every[0].gsd < answers[0].gsd):  # "the mother of X 's son" is X
            answers = every
        # a walk back to its entity by other triples (a parallel relation) is no evidence either, and the SPARQL
        # shown says that those nodes are not the entity; without one, a walk back over the same triple stays in the
        # evidence (the SPARQL is homomorphic)
        apart = set().union(*(came_back[m] for m, _ in matched if not over_triple[m]))
        if answers is not every and apart:  # none of the evidence comes back to the entity, as the FILTER says
            matched = [(m, shape) for m, shape in matched if not came_back[m]]
            pattern_graph = self._pattern_graph(chosen, spans, opts, apart=apart)
            base["pattern"], base["sparql"] = pattern_graph, pattern_graph.sparql
        evidence = [self._evidence(rank, m, shape) for rank, (m, shape) in enumerate(matched, start=1)]
        answers = self._typed(answers, [*linked.classes, *asked])  # "which laureates …", "who …": of that rdf:type
        text = self._answer_text(question, answers, evidence, opts)
        timings["answer"] = time.perf_counter() - t0
        timings["total"] = time.perf_counter() - started
        return Answer(
            **base,
            grounded=True,
            text=text,
            answers=answers,
            evidence=evidence,
            timings=timings,
            complete=complete,
        )

    def _coordinated(self, form: Reworded, spans: Sequence[LinkedSpan], options: dict[str, Any]) -> Answer | None:
        """The answer to a question asking two attributes of one thing, or two questions of its one linked name
        (:mod:`kgsvc.qa.coordination`): each asked on its own and the two answers joined, when no linked entity is
        inside the coordination, the question asks for things (no count, yes/no …) and both parts are grounded
        lookups; ``None`` otherwise."""
        attributes = split_attributes(form.original)
        coordination: Coordination | Clauses | None = attributes
        if attributes is not None:
            # a name the graph says things of; not a node that only labels a relation ("birth date" in a graph that
            # describes its properties)
            inside = [
                form.original_span(s.start, s.end)
                for s in spans
                if s.nodes and self.graph.snapshot.degree(s.nodes[0][0]) > 1
            ]
            if any(start < attributes.b[1] and attributes.a[0] < end for start, end in inside):
                return None
        elif len(spans) == 1:  # "Where was X born, and on what date did they die?": X the one name, in the first
            topic = (spans[0].start, spans[0].end)
            coordination = split_clauses(form, topic)
        if coordination is None:
            return None
        if classify(form.text, [(s.start, s.end) for s in spans]).kind != "lookup":
            return None
        if split_attributes(coordination.first) or split_attributes(coordination.second):
            return None  # three or more conjuncts: not asked as a tree of questions
        first = self.ask(coordination.first, **options)
        second = self.ask(coordination.second, **options) if first.grounded and first.kind == "lookup" else None
        if second is None or not second.grounded or second.kind != "lookup":
            return None
        return joined(form.original, coordination, first, second)

    # -- linking -------------------------------------------------------------------------------------------------

    def _mention(self, span: LinkedSpan, opts: QAOptions, form: Reworded) -> Mention:
        """``span`` as the answer reports it: its offsets in the question as the user wrote it."""
        cands = [
            LinkCandidate(term=self.graph.node_term(n), node=n, score=score, distance=dist)
            for n, score, dist in span.nodes[: opts.nodes_per_mention]
        ]
        start, end = form.original_span(span.start, span.end)
        return Mention(
            text=span.text,
            start=start,
            end=end,
            method=span.method,  # type: ignore[arg-type]
            score=span.score,
            candidates=cands,
        )

    def _prefer_entities(self, spans: list[LinkedSpan]) -> list[LinkedSpan]:
        """Drop literal nodes from a span that also links IRIs (a label literal names the entity it labels), and the
        link targets of the span's other nodes (:meth:`QAGraph.link_relations`: the DBpedia IRI an ``owl:sameAs``
        points to reads as the entity's name, but is the answer of "the DBpedia link for X")."""
        out = []
        for span in spans:
            entities = tuple(n for n in span.nodes if not self.graph.node_terms[n[0]].startswith('"'))
            ids = {n for n, _, _ in entities}
            if len(ids) > 1 and (links := self.graph.link_relations()):
                snapshot = self.graph.snapshot
                targets = {
                    n
                    for n in ids
                    for r in links
                    if not ids.isdisjoint(snapshot.neighbors_via(n, r, outgoing=False).tolist())
                }
                entities = tuple(x for x in entities if x[0] not in targets)
            out.append(dataclasses.replace(span, nodes=entities) if entities else span)
        return out

    @staticmethod
    def _no_link_reason(question: str) -> str:
        names = [m.group(1) for m in _CAPITALISED.finditer(question) if m.start() > 0 or " " in m.group(1)]
        names = [n for n in names if n.casefold() not in STOPWORDS]
        if names:
            return (
                f"no node name or alias of the dataset matches {names[0]!r} "
                "(exact, one-edit, fuzzy or vector match of the names)"
            )
        return "no mention of an entity of the dataset was found in the question"

    # -- pattern: grounded candidates ----------------------------------------------------------------------------

    def _inferred_candidates(
        self, spans: Sequence[LinkedSpan], opts: QAOptions
    ) -> dict[CandidatePattern, list[Prediction]]:
        """One-hop candidates on predicted edges: for the best node of each mention, every (non-label) relation and
        direction it has no stored edge of, where the predictor proposes the other end (module docstring).

        O(mentions · relations · n · d) for n nodes of embedding width d.
        """
        predictor = self.graph.predictor
        if not opts.infer or predictor is None:
            return {}
        snapshot = self.graph.snapshot
        labelling = {j for j, term in enumerate(self.graph.relation_terms) if term.strip("<>") in LABEL_PREDICATES}
        found: dict[CandidatePattern, list[Prediction]] = {}
        for mention, span in enumerate(spans):
            if not span.nodes:
                continue
            anchor = span.nodes[0][0]
            for relation in range(snapshot.n_relations):
                if relation in labelling:
                    continue
                start, stop = snapshot.relation_range(anchor, relation)
                stored = np.asarray(snapshot.outgoing[start:stop])
                for outgoing in (True, False):
                    if (stored == outgoing).any():
                        continue  # stored edges of this relation and direction: exact matching covers it
                    k, threshold = opts.infer_k, opts.infer_threshold
                    if outgoing:
                        predictions = predictor.top_tails(anchor, relation, k=k, threshold=threshold)
                    else:
                        predictions = predictor.top_heads(relation, anchor, k=k, threshold=threshold)
                    if predictions:
                        step = ((relation, outgoing),)
                        found[CandidatePattern((Branch(mention, anchor, step),), len(predictions))] = predictions
        return found

    def _inferred_answer(
        self,
        question: str,
        base: dict[str, Any],
        timings: dict[str, float],
        started: float,
        chosen: _Chosen,
        predictions: list[Prediction],
        opts: QAOptions,
    ) -> Answer:
        """The answer read from predicted edges: one evidence subgraph per proposed end (module docstring)."""
        t0 = time.perf_counter()
        g = self.graph
        anchor_name = chosen.names[next(iter(chosen.anchors))]
        steps = chosen.candidate.branches[0].steps if chosen.candidate is not None else ()
        outgoing = not steps or steps[0][1]  # (anchor, r, ?) proposes tails; (?, r, anchor) heads
        evidence = []
        for rank, p in enumerate(predictions, start=1):
            head, relation, tail = g.node_term(p.head), g.relation_term(p.relation), g.node_term(p.tail)
            known, answer = (head, tail) if outgoing else (tail, head)
            triple = EvidenceTriple(
                head=head,
                relation=relation,
                tail=tail,
                edge_id=-1,
                relation_distance=0.0,
                inferred=True,
                probability=round(p.probability, 6),
            )
            sparql = (
                f"# inferred by the GNN (probability {p.probability:.3f}); not a stored triple\n"
                f"ASK {{ <{head.value}> <{relation.value}> <{tail.value}> }}"
            )
            evidence.append(
                Evidence(
                    rank=rank,
                    gsd=opts.infer_penalty * (1.0 - p.probability),
                    triples=[triple],
                    nodes=[
                        EvidenceNode(variable=anchor_name, term=known, distance=0.0),
                        EvidenceNode(variable="?answer", term=answer, distance=None),
                    ],
                    answer=answer,
                    sparql=sparql,
                )
            )
        answers = [
            AnswerTerm(**e.answer.model_dump(), gsd=e.gsd, inferred=True) for e in evidence if e.answer is not None
        ]
        text = self._answer_text(question, answers, evidence, opts) + " (inferred: not stored in the graph)"
        timings["answer"] = time.perf_counter() - t0
        timings["total"] = time.perf_counter() - started
        return Answer(**base, grounded=True, text=text, answers=answers, evidence=evidence, timings=timings)

    def _grounded_pattern(
        self,
        question: str,
        spans: Sequence[LinkedSpan],
        opts: QAOptions,
        inferred: dict[CandidatePattern, list[Prediction]] | None = None,
        classes: Sequence[int] = (),
        time: bool | None = None,
        read: str | None = None,
        needed: frozenset[int] = frozenset(),
        through: Sequence[frozenset[int]] = (),
        owned: Sequence[tuple[int, frozenset[int]]] = (),
        among: frozenset[int] = frozenset(),
    ) -> _Chosen | None:
        """The best-ranked grounded candidate (or the LLM's choice among the top ones). With ``classes`` (those of the
        class noun the question asks for: "which *albums* …", not "the *people* who …"), only candidates that can end at
        an instance of one are ranked, when any can; the answers are filtered by type afterwards too (:meth:`_typed`).
        With ``time`` (:func:`~kgsvc.qa.question_nouns.asks_time`: ``True`` for "when …", ``False`` for "where …"), only
        candidates whose last steps can end at a date or time (:meth:`QAGraph.times`), or at something else, are ranked,
        when any are; with a category value read off the asked noun (:meth:`_value_noun`), only candidates whose answer
        holds it; with ``among`` (:meth:`_scheme_asked`), only candidates that can end at one of those nodes; for a
        question that asks why (:func:`~kgsvc.qa.question_nouns.asks_reason`), only candidates that end at a reason
        (:meth:`~kgsvc.qa.keeps.CandidateFilters.ends_at_reason`), whatever class the question names.
        Readings of the question's structure come on top, and are dropped first when no candidate fits them all:
        with ``needed`` (:func:`~kgsvc.qa.question_nouns.modifying_mentions`: "which *physics* laureates"), only
        candidates that use those mentions; with ``through`` (:func:`~kgsvc.qa.question_nouns.passed_classes`), only
        those that pass an instance of each class (:meth:`~kgsvc.qa.keeps.CandidateFilters.passes`); in a question with
        no share cue, none that walks to a date or another literal and straight back
        (:meth:`~kgsvc.qa.keeps.CandidateFilters.no_shared_literal`). The ranker reads ``read`` (the question with the
        class nouns that name no step blanked, :func:`~kgsvc.qa.question_nouns.unread_class_nouns`) where given; the LLM
        the question itself."""
        extra = list(inferred or ())
        text = question if read is None else read
        keeps = [] if time is None else [self.filters.ends_at_time(time)]
        # "What were the winners born in X recognised for?": a motivation, no winner ("Why Worry?" is a title)
        reasons = (
            self.filters.ends_at_reason()
            if asks_reason(mask_question(question, [(s.start, s.end) for s in spans]))
            else None
        )
        if classes and reasons is None:
            keeps.append(self.filters.ends_in(classes))
        if among:
            keeps.append(self.filters.ends_among(among))
        if reasons is not None:
            keeps.append(reasons)
        values = {m for m, s in enumerate(spans) if s.method == "value"}
        if values:  # "which *women* …": the answer is what holds the value, one step from it
            keeps.append(
                lambda c: (
                    all(len(b.steps) == 1 for b in c.branches if b.mention in values)
                    and any(b.mention in values for b in c.branches)
                )
            )
        # readings of the question's structure, dropped first when no candidate fits them all
        structure = [self.filters.passes(classes) for classes in through]  # "when was X given *the Nobel Prize*"
        structure += [
            self.filters.first_step_into(mention, classes) for mention, classes in owned
        ]  # "X's *institution*"
        if needed:  # "which *physics* laureates …": the modifier of the asked noun is a condition on the answer
            structure.append(lambda c: needed <= {b.mention for b in c.branches})
        if not says_shared(question):  # "X's date of birth": the date, not the people born then
            structure.append(self.filters.no_shared_literal())
        # what is read of the ranking: its best, or the LLM's options (more than one: the LLM is asked)
        need = max(2, opts.choice_top) if opts.llm_choice and self.llm is not None else 1
        ranked: list[RankedCandidate] = []
        tiers = [[*keeps, *structure], keeps, []]
        for i, tier in enumerate(tiers):
            if i and tier == tiers[i - 1]:
                continue
            keep = (lambda c, tier=tier: all(k(c) for k in tier)) if tier else None
            ranked = self.ranker.rank(text, spans, opts, extra, keep=keep, exact_top=need)
            if ranked:
                break
        if not ranked:
            return None
        pick = 0
        if opts.llm_choice and self.llm is not None and len(ranked) > 1:
            top = ranked[: opts.choice_top]
            options = [
                verbalise(
                    r.candidate, self.graph.relation_labels, [spans[b.mention].text for b in r.candidate.branches]
                )
                for r in top
            ]
            prompt = (
                "Choose the knowledge-graph path that answers the question.\n"
                f"Question: {question}\nPaths:\n" + "\n".join(f"{i + 1}. {o}" for i, o in enumerate(options))
            )
            try:
                pick = int(self.llm.choose(prompt, options))
            except LLMError:
                log.warning("LLM choice failed; keeping the best-ranked candidate", exc_info=True)
                pick = 0
            pick = pick if 0 <= pick < len(top) else 0
        chosen = ranked[pick]
        labels = [spans[b.mention].text for b in chosen.candidate.branches]
        pattern, names = candidate_pattern(chosen.candidate, labels, self.graph.relation_labels)
        anchors = {i: b.mention for i, b in enumerate(chosen.candidate.branches)}
        source: Literal["candidate", "baseline"] = "candidate" if self.exemplars is not None else "baseline"
        return _Chosen(pattern, names, anchors, source, chosen.score, chosen.signature, chosen.candidate)

    # -- pattern: LLM under a per-question schema ----------------------------------------------------------------

    def pattern_schema(self, spans: Sequence[LinkedSpan]) -> dict[str, Any]:
        """The JSON schema of a pattern for this question (module docstring, step 2, ``pattern``)."""
        constants = list(dict.fromkeys(s.text for s in spans))
        variables = ["?answer", "?x1", "?x2", "?x3"]
        relations = sorted(set(self.graph.relation_labels))
        node = {"type": "string", "enum": constants + variables}
        triple = {
            "type": "object",
            "properties": {"head": node, "relation": {"type": "string", "enum": relations}, "tail": node},
            "required": ["head", "relation", "tail"],
            "additionalProperties": False,
        }
        kind = {**KIND_SCHEMA, "order_by": {"type": "string", "enum": relations}}
        return {
            "type": "object",
            "properties": {"triples": {"type": "array", "items": triple, "minItems": 1, "maxItems": 4}, **kind},
            "required": ["triples"],
            "additionalProperties": False,
        }

    def _llm_pattern(self, question: str, spans: Sequence[LinkedSpan], opts: QAOptions) -> _Chosen | None:
        schema = self.pattern_schema(spans)
        shots = ""
        if self.exemplars is not None and len(self.exemplars):
            masked = mask_question(question, [(s.start, s.end) for s in spans])
            near = self.exemplars.nearest(self.graph.embed([masked]), opts.n_exemplars)[0]
            for i, _ in reversed(near):
                e = self.exemplars.exemplars[i]
                rename = {e.answer: "?answer"}
                shot = [
                    {"head": rename.get(h, h), "relation": relation_key(r), "tail": rename.get(t, t)}
                    for h, r, t in e.triples
                ]
                shots += f'Question: {e.question}\nPattern: {{"triples": {shot}}}\n'.replace("'", '"')
        prompt = (
            "Write the question as knowledge-graph triples. ?answer is what is asked.\n"
            f"{shots}Question: {question}\nPattern: "
        )
        try:
            raw = self.llm.generate_json(prompt, schema)
        except LLMError:
            log.warning("LLM pattern generation failed; falling back to grounded candidates", exc_info=True)
            return None
        triples = [(t["head"], t["relation"], t["tail"]) for t in raw.get("triples", [])]
        names = {h for h, _, _ in triples} | {t for _, _, t in triples}
        if "?answer" not in names or not any(not n.startswith("?") for n in names):
            log.info("LLM pattern %r has no answer variable or no constant; falling back", triples)
            return None
        order = list(dict.fromkeys(n for h, _, t in triples for n in (h, t)))
        index = {n: i for i, n in enumerate(order)}
        mention_of = {s.text: i for i, s in enumerate(spans)}
        nodes = tuple(PatternNode(n, not n.startswith("?")) for n in order)
        edges = tuple(PatternEdge(index[h], index[t], r, True) for h, r, t in triples)
        pattern = Pattern(nodes, edges, index["?answer"])
        anchors = {index[n]: mention_of[n] for n in order if not n.startswith("?")}
        spec = {key: raw[key] for key in (*KIND_SCHEMA, "order_by") if key in raw}
        return _Chosen(pattern, order, anchors, "llm", None, kind_spec=spec or None)

    # -- matching ------------------------------------------------------------------------------------------------

    def _match(
        self, chosen: _Chosen, spans: Sequence[LinkedSpan], opts: QAOptions
    ) -> tuple[list[tuple[Match, _Chosen]], bool]:
        """The top-k evidence subgraphs of the chosen pattern, each with the pattern it matched, and completeness.

        For a grounded candidate (a walk read from stored triples, :mod:`kgsvc.qa.candidates`) the evidence is the
        walk's: the search is ``directed`` — the matcher otherwise takes a pattern edge in either direction (DESIGN
        §6), and ``X ← parents ← ?`` is X's children, not its parents. With ``node_reuse`` the matcher has walk
        semantics (``allow_node_reuse`` and ``allow_triple_reuse``), so a walk that goes back over a triple or round
        a self-loop is matched as it is, one match per walk (per set of triples and answer).

        A match that **walks straight back** (:func:`walks_back`: two pattern edges at one node on one stored
        triple that is not a self-loop; "the films by the director of X" back to X itself, then X's actors) is
        homomorphic but rarely what a question means, and such matches can crowd the top ``k``: the matcher is
        asked for up to ``16 k`` subgraphs until ``k`` of them do not walk back, and the ``k`` kept are the best by
        GSD, those that do not walk back first among equals. :meth:`ask` ranks the answers of the others only when
        one of them is strictly closer than every answer of these (as for the linked entities).

        Raises
        ------
        MatchError
            When the matcher rejects a pattern.
        """
        candidates = self._candidates(chosen, spans, opts)  # embeds: before the deadline
        deadline = time.monotonic() + opts.deadline_s
        fetch = opts.k
        while True:
            interrupt.check("the subgraph search")
            result = top_k_subgraphs(
                self.graph.snapshot,
                chosen.pattern,
                candidates,
                k=fetch,
                allow_node_reuse=opts.node_reuse,
                allow_triple_reuse=opts.node_reuse,
                directed=chosen.candidate is not None,
                deadline=deadline,
            )
            back = [walks_back(m, chosen.pattern, chosen.anchors) for m in result.matches]
            if back.count(False) >= opts.k or len(back) < fetch or not result.complete or fetch >= 16 * opts.k:
                break
            fetch *= 4
        # by GSD, then the walks that never turn straight back first (stable: key order within each)
        order = sorted(range(len(back)), key=lambda i: (result.matches[i].gsd, back[i]))
        return [(result.matches[i], chosen) for i in order[: opts.k]], result.complete

    def _candidates(self, chosen: _Chosen, spans: Sequence[LinkedSpan], opts: QAOptions) -> Candidates:
        nodes = {}
        for v, mention in chosen.anchors.items():
            linked = spans[mention].nodes[: opts.nodes_per_mention]
            nodes[v] = candidate_set([n for n, _, _ in linked], [d for _, _, d in linked])
        for v, classes in chosen.typed.items():  # "the *town* X died in": an instance of the class
            instances = sorted(self.graph.instances(classes))
            nodes[v] = candidate_set(instances, [0.0] * len(instances))
        rel_vectors = self.graph.relation_vectors()
        relations = {}
        for e, edge in enumerate(chosen.pattern.edges):
            if not edge.known:
                continue
            query = self.ranker.vectors([edge.label])[0]
            dist = np.sqrt(np.maximum(((rel_vectors - query) ** 2).sum(axis=1), 0.0))
            top = np.argsort(dist, kind="stable")[: opts.relation_k]
            relations[e] = candidate_set(top.astype(np.int64), dist[top].astype(np.float64))
        return Candidates(nodes=nodes, relations=relations)

    # -- answer --------------------------------------------------------------------------------------------------

    def _pattern_graph(
        self, chosen: _Chosen, spans: Sequence[LinkedSpan], opts: QAOptions, apart: Collection[tuple[int, int]] = ()
    ) -> PatternGraph:
        """The pattern as the answer shows it, with its SPARQL; ``apart``: pairs (variable, linked entity's node) that
        bind different nodes (the answers came from walks that never come back to their entity, :func:`walks_back`)."""
        p = chosen.pattern
        triples = [
            PatternTriple(head=chosen.names[e.head], relation=e.label, tail=chosen.names[e.tail]) for e in p.edges
        ]
        answer = chosen.names[p.answer] if p.answer is not None else "?answer"
        anchor_terms = {
            v: [self.graph.node_terms[n] for n, _, _ in spans[m].nodes[: self.options.nodes_per_mention]]
            for v, m in chosen.anchors.items()
        }
        relation_terms = {
            label: term for label, term in zip(self.graph.relation_labels, self.graph.relation_terms, strict=True)
        }
        type_relation = self.graph.type_relation()  # a typed node needs one: its classes were read through it
        typed = {v: [self.graph.node_terms[c] for c in sorted(cs)] for v, cs in chosen.typed.items()}
        sparql = pattern_sparql(
            p,
            chosen.names,
            anchor_terms,
            relation_terms,
            distinct=not opts.node_reuse,
            typed=typed if type_relation is not None else None,
            type_term=self.graph.relation_terms[type_relation] if type_relation is not None else None,
            apart=apart,
        )
        return PatternGraph(triples=triples, answer=answer, source=chosen.source, sparql=sparql, score=chosen.score)

    def _evidence(self, rank: int, match: Match, chosen: _Chosen) -> Evidence:
        g = self.graph
        triples = [
            EvidenceTriple(
                head=g.node_term(h),
                relation=g.relation_term(r),
                tail=g.node_term(t),
                edge_id=eid,
                relation_distance=d,
            )
            for (h, r, t), eid, d in zip(match.triples, match.edge_ids, match.relation_distances, strict=True)
        ]
        nodes = [
            EvidenceNode(variable=chosen.names[v], term=g.node_term(n), distance=match.node_distances[v])
            for v, n in enumerate(match.node_map)
        ]
        answer = g.node_term(match.answer) if match.answer is not None else None
        known = set(chosen.anchors)
        sparql = match_sparql(match, chosen.pattern, chosen.names, known, g.node_terms, g.relation_terms)
        return Evidence(rank=rank, gsd=match.gsd, triples=triples, nodes=nodes, answer=answer, sparql=sparql)

    def _answer_text(self, question: str, answers: list[AnswerTerm], evidence: list[Evidence], opts: QAOptions) -> str:
        best = answers[0].gsd if answers else 0.0
        labels = list(dict.fromkeys(a.label for a in answers if a.gsd <= best + 1e-9))
        if opts.verbalise and self.llm is not None and labels:
            facts = "\n".join(
                f"graph [{ev.rank}]: "
                + "; ".join(f"({t.head.label}, {t.relation.label}, {t.tail.label})" for t in ev.triples)
                for ev in evidence
            )
            choice = "|".join(re.escape(label) for label in labels)
            regex = f"(?:{choice})(?:, (?:{choice})){{0,{len(labels) - 1}}}\\."
            prompt = f"Answer the question from the graphs.\n{facts}\nQuestion: {question}\nAnswer: "
            try:
                return str(self.llm.generate(prompt, max_tokens=96, regex=regex, stop=None))
            except LLMError:
                log.warning("LLM verbalisation failed; using the template answer", exc_info=True)
        return _template(labels)

    def _fail(
        self, base: dict[str, Any], timings: dict[str, float], started: float, stage: FailedStage, reason: str
    ) -> Answer:
        timings["total"] = time.perf_counter() - started
        return Answer(
            **base,
            grounded=False,
            text=f"No grounded answer: {reason}.",
            timings=timings,
            reason=reason,
            failed_stage=stage,
        )


#: A preposition right before a mention: its object is a condition ("won a Nobel *in* chemistry").
_AFTER_PREPOSITION = re.compile(r"\b(?:in|of|for|from|at|with|by|among)\s+(?:the\s+)?$", re.IGNORECASE)


def walks_back(match: Match, pattern: Pattern, anchors: Collection[int] = ()) -> bool:
    """Whether ``match`` walks straight back: two pattern edges that share a pattern node are mapped to one stored
    triple that is not a self-loop (a walk ``X –r→ Y`` then ``Y ← r ← X`` over the same triple; going round a
    self-loop again is not walking back); or, with ``anchors`` (the pattern nodes of linked entities), a node of the
    pattern that is neither an anchor nor the answer is mapped to an anchor's node: the walk came back to the entity
    it started from by other triples ("the people who shared X's prize": X –*awarded*→ the prize ←*laureate award*–
    X is X again, by a parallel relation of the graph, not one who shared it).

    Notes
    -----
    O(|E|² + |V|) for |E| pattern edges (at most 4) and |V| pattern nodes.
    """
    if anchors and _came_back(match, pattern, anchors):
        return True
    edges = pattern.edges
    for e in range(len(edges)):
        for f in range(e + 1, len(edges)):
            if match.edge_ids[e] != match.edge_ids[f] or match.triples[e][0] == match.triples[e][2]:
                continue
            if {edges[e].head, edges[e].tail} & {edges[f].head, edges[f].tail}:
                return True
    return False


def _with_typed(chosen: _Chosen, typed: dict[int, frozenset[int]]) -> _Chosen:
    """``chosen`` with the pattern nodes of ``typed`` kept to instances of their classes (known nodes)."""
    if typed == chosen.typed:
        return chosen
    p = chosen.pattern
    nodes = tuple(dataclasses.replace(n, known=True) if v in typed else n for v, n in enumerate(p.nodes))
    return dataclasses.replace(chosen, pattern=dataclasses.replace(p, nodes=nodes), typed=typed)


def _came_back(match: Match, pattern: Pattern, anchors: Collection[int]) -> set[tuple[int, int]]:
    """The pairs ``(node, anchor)`` of ``pattern`` where a node that is neither an anchor nor the answer is mapped to
    the anchor's node (:func:`walks_back`)."""
    return {
        (v, a)
        for a in anchors
        for v, node in enumerate(match.node_map)
        if v not in anchors and v != pattern.answer and node == match.node_map[a]
    }


def _main_spans(spans: list[LinkedSpan], relative: float) -> list[LinkedSpan]:
    """The spans scoring at least ``relative`` times the best span's score, at most :data:`MAX_MENTIONS` of them (the
    best-scored; question order kept)."""
    if not spans:
        return spans
    best = max(s.score for s in spans)
    kept = [s for s in spans if s.score >= relative * best]
    if len(kept) > MAX_MENTIONS:
        top = sorted(range(len(kept)), key=lambda i: -kept[i].score)[:MAX_MENTIONS]
        kept = [kept[i] for i in sorted(top)]
    return kept


def _template(labels: Sequence[str]) -> str:
    """``"A."``, ``"A and B."``, ``"A, B and C."`` (at most 10 names, then ``and N more``)."""
    shown = list(labels[:10])
    if len(labels) > 10:
        shown.append(f"{len(labels) - 10} more")
    if len(shown) == 1:
        return f"{shown[0]}."
    return f"{', '.join(shown[:-1])} and {shown[-1]}."


def _own_matches(matched: list[tuple[Match, _Chosen]]) -> list[tuple[Match, _Chosen]]:
    """The matches of the chosen pattern itself: those using the relations of the best match (GSD relaxation lets
    the matcher fill ``k`` with other relations' triples — "who directed X" would list X's actors too)."""
    if not matched:
        return matched
    relations = frozenset(t[1] for t in matched[0][0].triples)
    return [(m, s) for m, s in matched if frozenset(t[1] for t in m.triples) == relations]


def _rank_answers(matches: Sequence[Match], graph: QAGraph, *, exclude: Collection[int]) -> list[AnswerTerm]:
    """Answer bindings not in ``exclude``, ranked by (best GSD, more supporting matches, first rank)."""
    stats: dict[int, list[float]] = {}
    for rank, m in enumerate(matches):
        if m.answer is None or m.answer in exclude:
            continue
        s = stats.setdefault(m.answer, [m.gsd, 0, rank])
        s[1] += 1
    order = sorted(stats, key=lambda n: (stats[n][0], -stats[n][1], stats[n][2]))
    return [AnswerTerm(**graph.node_term(n).model_dump(), gsd=stats[n][0], support=int(stats[n][1])) for n in order]
