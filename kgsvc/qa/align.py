"""Order-aware alignment of relation mentions along the question (ranking feature of grounded candidates).

The exemplar vote and the MiniLM similarity of :mod:`kgsvc.qa.pipeline` compare bags of words: "the parent of
X 's son 's kid" and "the kid of X 's son 's parent" get the same score, and a path that names two of the three
relations scores nearly as well as the full path. This module scores a candidate relation path by how well its
steps **explain the question's words in reading order**:

1. **Lexicon** (:class:`RelationLexicon`): word ↔ step translation probabilities ``t(word | step)`` learned
   from the exemplars (question with entities masked, gold signature) by IBM Model 1 EM (Brown et al. 1993,
   "The Mathematics of Statistical Machine Translation", Computational Linguistics 19(2), ACL J93-2003), with a
   NULL step that absorbs template words ("what", "the", "name"). Paraphrases such as "dad", "other half" or
   "heir" are learned from the exemplars, never listed by hand.
2. **Reading order** (:func:`reading_order`): the order in which a relational chain is read *away from the topic
   entity*. English genitives nest outward: in ``the C of B of X 's A 's D`` the path is A, D, B, C — first the
   possessive chain after the entity, left to right, then the words before it, right to left (nearest first).
   When the entity is not followed by a possessive (``the films directed by X were in which language``) the
   words before it come first (right to left), then the words after it (left to right), and last the question's
   **focus** — its opening wh-word and the noun after "which" / "what" — which asks for the chain's end: in ``in
   which year did X win the prize`` the chain is *won* then *year* (before 2026-11-26 the focus was read first,
   and only a path in the wrong order could explain both words).
3. **Monotone alignment** (:func:`RelationLexicon.score`): the best alignment of the words, in reading order,
   to the path's steps such that the step index never decreases (a word may also go to NULL); every step
   without an aligned word costs ``log(miss)``. This is an HMM-style monotone variant of Model 1 (Vogel et al.
   1996, "HMM-based word alignment", COLING, ACL C96-2141) with a coverage constraint.

Entry points: :meth:`RelationLexicon.train` once per exemplar set, :func:`question_tokens` per question, and
:meth:`RelationLexicon.score` (or :meth:`RelationLexicon.scorer`, cached) per candidate.

Notation: a *step* is ``(relation key, outgoing)`` as in :data:`kgsvc.qa.exemplars.Step`; the paper's source
sentence is the step sequence (plus NULL), the target sentence the question's words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from kgsvc.qa.exemplars import MASK, Signature, Step
from kgsvc.qa.link import STOPWORDS, fold

__all__ = ["ANSWER_DETERMINERS", "WH_DETERMINERS", "WH_WORDS", "RelationLexicon", "question_tokens", "reading_order"]

_TOKEN = re.compile(r"'s\b|\w+(?:[-.]\w+)*", re.UNICODE)
_NULL: Step = ("", False)
#: Question words before a noun that names the class of the answer ("which movies", "what person").
WH_DETERMINERS = frozenset({"which", "what", "whose"})
#: The wh-determiners whose noun is the answer's class ("*which films*"); after "whose" the noun is the answer's
#: relation ("*whose wife* is X").
ANSWER_DETERMINERS = WH_DETERMINERS - {"whose"}
#: Question words: each opens the question's focus, what it asks for (:func:`reading_order`).
WH_WORDS = WH_DETERMINERS | {"when", "where", "who", "whom"}


def question_tokens(masked: str) -> tuple[list[str], list[int]]:
    """The folded word tokens of a masked question and the token indexes of the :data:`MASK` placeholders.

    ``'s`` is a token of its own (it marks a possessive chain); punctuation is dropped.

    >>> question_tokens("the mother of X 's son ?")
    (['the', 'mother', 'of', 'x', "'s", 'son'], [3])
    """
    words = [m.group(0) for m in _TOKEN.finditer(masked.replace("\u2019", "'"))]
    masks = [i for i, w in enumerate(words) if w == MASK]
    return [fold(w) for w in words], masks


def reading_order(
    tokens: Sequence[str],
    masks: Sequence[int],
    *,
    phrases: Collection[str] = (),
    trailing: bool = False,
    inverted: bool = False,
) -> list[tuple[int, int]]:
    """``(token index, segment)`` in the order a relation chain is read away from the first entity (module doc, 2).

    Segments are the runs of words between the genitive markers ``'s`` and ``of`` (relation mentions do not
    cross them; an entity does not end a segment: "when did the movies written by X release"); an ``of`` inside
    an occurrence of one of ``phrases`` (folded multi-word relation labels such as ``place of birth``) is a word,
    not a marker. Markers and entities are left out. Segments are numbered in order of first appearance along
    the reading order. Without an entity the tokens keep their order. With ``trailing``, one to three content
    words that end the question right after the entity read like a possessive ("the directors of X actors",
    "the release dates of X directed films": the words after the entity come first). Without a possessive, the
    focus of the question (:func:`_focus`) is read after the words that follow the entity. In an ``inverted``
    question (an auxiliary after its wh-phrase: "when did the films written by X writers *release*") the last word
    is the main verb (with the function words after it: "fall under"), no word of the entity's phrase: with
    ``trailing`` it is read after the words before the entity and before the focus, as without a possessive, and
    the trailing reading holds the words between the entity and the verb (2026-11-26 (hop3): read with the tail,
    "release" came before "written" and no path could explain both in order). An entity that is the subject of a
    relative clause ending the question (:func:`_relative_clause`: "born in the town X *died in*") is read with the
    words after it first: the clause's verb is its own step.

    >>> toks, masks = question_tokens("the place of birth of X 's son 's kid ?")
    >>> [(toks[i], g) for i, g in reading_order(toks, masks, phrases={"place of birth"})]
    [('son', 0), ('kid', 1), ('birth', 2), ('of', 2), ('place', 2), ('the', 2)]
    >>> toks, masks = question_tokens("the films directed by X were in which language")
    >>> [toks[i] for i, _ in reading_order(toks, masks)]
    ['by', 'directed', 'films', 'the', 'were', 'in', 'which', 'language']
    >>> toks, masks = question_tokens("in which year did X win the prize")
    >>> [toks[i] for i, _ in reading_order(toks, masks)]
    ['did', 'in', 'win', 'the', 'prize', 'year', 'which']
    >>> toks, masks = question_tokens("when did the films written by X writers release")
    >>> [toks[i] for i, _ in reading_order(toks, masks, trailing=True, inverted=True)]
    ['writers', 'by', 'written', 'films', 'the', 'did', 'release', 'when']
    """
    protected: set[int] = set()
    for phrase in phrases:
        words = phrase.split()
        if "of" not in words:
            continue
        for i in range(len(tokens) - len(words) + 1):
            if list(tokens[i : i + len(words)]) == words:
                protected.update(i + k for k, w in enumerate(words) if w in ("of", "'s"))
    entities = set(masks)
    marker = [t in ("'s", "of") and i not in protected for i, t in enumerate(tokens)]
    segment, current = [], 0
    for i in range(len(tokens)):
        if marker[i]:
            current += 1
        segment.append(current)
    marker = [m or i in entities for i, m in enumerate(marker)]
    if masks:
        at = masks[0]
        after = list(range(at + 1, len(tokens)))
        before = list(range(at - 1, -1, -1))
        possessive = at + 1 < len(tokens) and tokens[at + 1] == "'s"
        tail = tokens[at + 1 :]
        verb: list[int] = []  # the main verb that ends an inverted question (and its particles: "fall *under*")
        end = len(tokens)
        while end > at + 1 and tokens[end - 1] in STOPWORDS:
            end -= 1
        if trailing and inverted and not possessive and end - at > 2:
            tail, verb = tokens[at + 1 : end - 1], list(range(end - 1, len(tokens)))
        if trailing and 1 <= len(tail) <= 3 and not any(t in STOPWORDS for t in tail):
            possessive = True
        if possessive and verb:  # the entity's words, then the words before it, the verb, and last the focus
            focus = _focus(tokens, at)
            own = [i for i in after if i < verb[0]]
            order = own + [i for i in before if i not in focus] + verb + [i for i in before if i in focus]
        elif possessive:
            order = after + before
        elif not verb and _relative_clause(tokens, at):  # "born in the town X died in": the clause's verb first
            focus = _focus(tokens, at)
            order = after + [i for i in before if i not in focus] + [i for i in before if i in focus]
        else:  # the wh-phrase asks for the end of the chain: read it after the entity's own words
            focus = _focus(tokens, at)
            order = [i for i in before if i not in focus] + after + [i for i in before if i in focus]
    else:
        order = list(range(len(tokens)))
    order = [i for i in order if not marker[i]]
    renumber: dict[int, int] = {}
    return [(i, renumber.setdefault(segment[i], len(renumber))) for i in order]


def _relative_clause(tokens: Sequence[str], at: int) -> bool:
    """Whether the entity at ``at`` is the subject of a relative clause that ends the question: a noun or a relative
    word before it, and after it one verb with only function words around it ("born in the town *X died in*", "the
    city where *X was born*", "who directed the film *X starred in*"). Its verb is then the entity's own step, read
    before the words of the main clause. Not an inverted question ("where did X die": an auxiliary before X; "in
    which years did the laureates of the city X win": do-support, the verb that ends it is the main one), not a
    genitive ("the director of X"), not a clause that goes on ("the films X acted in were directed by"), not the object
    of a participle ("movies *starring* X were released"), not a clause without a verb right after the subject
    ("describe X *in* a few words").

    >>> _relative_clause("born in the town x died in".split(), 4)
    True
    >>> _relative_clause("where did x die".split(), 2), _relative_clause("born in x died in".split(), 2)
    (False, True)
    >>> _relative_clause("which movies starring x were released".split(), 3)
    False
    >>> _relative_clause("describe x in a few words".split(), 1), _relative_clause("city where x was born".split(), 2)
    (False, True)
    >>> _relative_clause("in which years did laureates of the city x win".split(), 8)
    False
    """
    if at == 0 or at + 1 >= len(tokens):
        return False
    before = tokens[at - 1]
    stranded = tokens[-1] in _PREPOSITIONS and before in _PREPOSITIONS  # "born in [the city] X died in"
    if before in STOPWORDS and before not in _RELATIVE_WORDS and not stranded or before.endswith("ing"):
        return False
    if before not in _RELATIVE_WORDS and _main_verb_last(tokens[:at]):
        return False  # "in which years did the laureates of [the city] X *win*": the main verb, no clause's
    tail = tokens[at + 1 :]  # "the films that share actors with the film X were in *which* languages": the focus
    verb = tail[1] if tail[0] in _BE_HAVE and len(tail) > 1 else tail[0]  # "X *died* in", "X was *born*"
    return verb not in STOPWORDS and sum(t not in STOPWORDS for t in tail) == 1 and WH_WORDS.isdisjoint(tail)


#: Words that open a relative clause ("the city *where* X was born", "the film *that* X directed").
_RELATIVE_WORDS = frozenset({"where", "that", "which", "whom", "when"})


def _main_verb_last(tokens: Sequence[str]) -> bool:
    """Whether the question (its ``tokens`` before the entity) is inverted so that its main verb comes last: do-support
    after the wh-phrase ("in which years *did* the laureates … win"), or "be" / "have" before the subject's article
    ("which institutions *were the* people … affiliated with"); not "which laureates *were born* …", whose wh-phrase
    is the subject.

    >>> _main_verb_last("which institutions were the people who shared the prize with".split())
    True
    >>> _main_verb_last("which laureates were born in".split())
    False
    """
    first = next((i for i, t in enumerate(tokens) if t in WH_WORDS), None)
    if first is None:
        return False
    k = first + 1
    while k < len(tokens) and k - first <= 3 and tokens[k] not in STOPWORDS:  # the wh-phrase's noun
        k += 1
    if k >= len(tokens):
        return False
    return tokens[k] in _DO or (tokens[k] in _BE_HAVE and k + 1 < len(tokens) and tokens[k + 1] in _ARTICLES)


#: Do-support, "be" and "have" as auxiliaries, and articles (:func:`_main_verb_last`).
_DO = frozenset({"do", "does", "did"})
_BE_HAVE = frozenset({"is", "are", "was", "were", "has", "have", "had"})
_ARTICLES = frozenset({"the", "a", "an", "this", "that", "these", "those"})
#: Prepositions a relative clause may strand at its end ("the town X died *in*"); before the entity, one of them is
#: what is left of "in the town" when the class noun is blanked.
_PREPOSITIONS = frozenset({"in", "at", "on", "from", "for", "with", "by", "to", "into"})


def _focus(tokens: Sequence[str], end: int) -> frozenset[int]:
    """The indexes of the question's **focus** before index ``end`` (the entity): its first wh-word ("which",
    "when", "where", …) and, after "which" / "what", the noun that follows ("in which *year* did X win the prize");
    empty when no wh-word comes before ``end``. The noun after "whose" is no focus: it names a relation of the
    answer, which is its possessor ("*whose* date of death is X": the one who died on X, not a date).

    >>> sorted(_focus("in which year did x win the prize".split(), 4))
    [1, 2]
    >>> sorted(_focus("whose date of death is x".split(), 4))
    [0]
    """
    for i, token in enumerate(tokens[:end]):
        if token in WH_WORDS:
            noun = i + 1 < end and token in ANSWER_DETERMINERS and tokens[i + 1] not in STOPWORDS
            return frozenset({i, i + 1} if noun else {i})
    return frozenset()


@dataclass
class RelationLexicon:
    """Translation table ``t(word | step)`` learned from exemplars (module docstring, 1).

    Attributes
    ----------
    table : dict
        ``step -> {word: probability}``; the NULL step is ``("", False)``.
    floor : float
        Probability of a word never seen with a step.
    miss : float
        Probability charged for a path step that no word of the question aligns to.
    split : float
        Probability that a new step starts inside a segment ("the films written by X" holds two relations; "other
        half" only one). Default 1 (no cost): 0.1 and 0.3 measured 0.5 points lower on PQ (docs/benchmarks.md).
    """

    table: dict[Step, dict[str, float]] = field(default_factory=dict)
    floor: float = 1e-4
    miss: float = 1e-3
    split: float = 1.0

    @classmethod
    def train(
        cls,
        pairs: Sequence[tuple[Sequence[str], Signature]],
        *,
        iterations: int = 8,
        floor: float = 1e-4,
        smoothing: float = 0.0,
    ) -> RelationLexicon:
        """IBM Model 1 EM over ``(question words, signature)`` pairs (all steps of all branches, plus NULL).

        Parameters
        ----------
        pairs : sequence of (words, signature)
            Masked exemplar questions as tokens (entity and ``'s`` tokens removed) and their gold signatures.
        iterations : int
            EM iterations (Model 1's log-likelihood is concave, so EM finds its optimum; a few suffice).
        floor : float
            Probability of an unseen (word, step) pair.
        smoothing : float
            Add-``smoothing`` (Lidstone) pseudo-counts per vocabulary word in each M step, against rare steps that
            explain every word of their few exemplars (Moore 2004, "Improving IBM Word-Alignment Model 1", ACL
            P04-1066). Default 0: 0.1 and 0.5 measured lower on PQ-3H (docs/benchmarks-history.md).

        Returns
        -------
        RelationLexicon
            Empty (every word at ``floor``) when ``pairs`` is empty.

        Notes
        -----
        O(iterations · Σ words · steps) time, O(distinct (word, step) pairs) memory.
        """
        data = [(list(words), [_NULL, *[s for path in sig for s in path]]) for words, sig in pairs if words]
        vocab = {w for words, _ in data for w in words}
        if not vocab:
            return cls(floor=floor)
        uniform = 1.0 / len(vocab)
        table: dict[Step, dict[str, float]] = {}
        for _ in range(iterations):
            counts: dict[Step, dict[str, float]] = {}
            for words, steps in data:
                for w in words:
                    probs = [table.get(s, {}).get(w, uniform) if table else uniform for s in steps]
                    total = sum(probs) or 1.0
                    for s, p in zip(steps, probs, strict=True):
                        row = counts.setdefault(s, {})
                        row[w] = row.get(w, 0.0) + p / total
            table = {}
            for s, row in counts.items():
                norm = sum(row.values()) + smoothing * len(vocab)
                table[s] = {w: (c + smoothing) / norm for w, c in row.items()}
        return cls(table, floor=floor)

    def prob(self, word: str, step: Step) -> float:
        """``t(word | step)``, at least :attr:`floor`."""
        return max(self.table.get(step, {}).get(word, 0.0), self.floor)

    def score(self, words: Sequence[tuple[str, int]], steps: Sequence[Step]) -> float:
        """Log-probability of ``words`` under the best monotone alignment to ``steps`` (module docstring, 3).

        Each word goes to NULL or to a step; along the reading order the aligned step index never decreases, and
        it strictly increases from one segment to the next (two genitive-separated mentions are two steps). A new
        step inside a segment adds ``log(split)``; each step no word aligns to adds ``log(miss)``.

        Parameters
        ----------
        words : sequence of (word, segment)
            The question's words in :func:`reading_order`, with their segment numbers.
        steps : sequence of Step
            One branch of a candidate, from the anchor outward.

        Returns
        -------
        float
            The log-probability (higher is better); ``0.0`` for no steps and no words.

        Notes
        -----
        Viterbi over states (steps covered 0…n, last aligned word in the current segment or not):
        O(len(words) · n²) time, O(n) space.
        """
        return self.scorer(words)(steps)

    def scorer(self, words: Sequence[tuple[str, int]]) -> Callable[[Sequence[Step]], float]:
        """:meth:`score` for fixed ``words``, with the word log-probabilities and the results cached per step path.

        Use it to score many candidate paths of one question.
        """
        log_miss, log_split = math.log(self.miss), math.log(self.split)
        null = [math.log(self.prob(w, _NULL)) for w, _ in words]
        starts = [k == 0 or words[k][1] != words[k - 1][1] for k in range(len(words))]
        emissions: dict[Step, list[float]] = {}
        results: dict[tuple[Step, ...], float] = {}
        neg = -math.inf

        def run(steps: Sequence[Step]) -> float:
            key = tuple(steps)
            if key in results:
                return results[key]
            n = len(key)
            emit = []
            for step in key:
                if step not in emissions:
                    emissions[step] = [math.log(self.prob(w, step)) for w, _ in words]
                emit.append(emissions[step])
            # here[s] / earlier[s]: best log-prob with steps 0..s-1 handled and the last aligned word in this /
            # an earlier segment (s = 0: nothing aligned yet)
            here = [neg] * (n + 1)
            earlier = [neg] * (n + 1)
            earlier[0] = 0.0
            for k in range(len(words)):
                if starts[k]:
                    earlier = [max(a, b) for a, b in zip(earlier, here, strict=True)]
                    here = [neg] * (n + 1)
                new_here = [b + null[k] for b in here]
                new_earlier = [b + null[k] for b in earlier]
                for j in range(n):
                    come = max(max(here[i] + log_split, earlier[i]) + (j - i) * log_miss for i in range(j + 1))
                    new_here[j + 1] = max(new_here[j + 1], max(here[j + 1], come) + emit[j][k])
                here, earlier = new_here, new_earlier
            result = max(max(a, b) + (n - s) * log_miss for s, (a, b) in enumerate(zip(here, earlier, strict=True)))
            results[key] = result
            return result

        return run
