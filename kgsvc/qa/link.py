"""Entity linking: question spans → candidate KG nodes with scores (DESIGN §5 step 1; ByoKG-RAG §3.2).

Three strategies, tried in order; a later one runs only for the part of the question the earlier ones left
unlinked, and only when no *specific* mention was found yet (the fallbacks are measured in the eval report):

1. **exact / normalised** — an Aho-Corasick automaton over every node label, folded character by character
   (:func:`fold`: case, accents, ``_`` → space), matched on word boundaries; overlapping matches are resolved
   longest first (greedy, then leftmost). A span equal to a label as written scores 1.0, a folded match 0.9.
   All nodes sharing the label are kept as candidates (homonyms), exact-case ones first.
2. **fuzzy** — uncovered word n-grams (1–6 words, not made only of common words) against the folded labels with
   rapidfuzz's ``ratio`` (≥ ``fuzzy_cutoff``), restricted to labels of similar length.
3. **vector** — the same n-grams embedded and searched in the node-label vector index; a hit counts only within
   ``vector_max_distance`` (true L2 of normalised MiniLM vectors), so an entity absent from the KG stays unlinked
   instead of being replaced by its nearest neighbour.

Every mention's score is multiplied by its **specificity**: ``1 / (1 + 40 · rate)`` where ``rate`` is how often
the mention's words occur in the dataset's exemplar questions with their entities masked (template words such
as "director" or "film" are frequent there), or a small stop-word list when there are no exemplars.

Entry points: :meth:`LabelIndex.build` once per dataset, then :meth:`EntityLinker.link` per question.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import ahocorasick
import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process

__all__ = ["STOPWORDS", "EntityLinker", "LabelIndex", "LinkedSpan", "fold"]

#: Words that never make a mention on their own (used for n-gram filtering and as the default "common" test).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be been before being below between both but by
    can could did do does doing down during each few for from further had has have having he her here hers him his
    how i if in into is it its itself me more most my no nor not of off on once only or other our out over own same
    she should so some such than that the their them then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your 's name names tell give list
    also share shares shared""".split()
)

_WORD = re.compile(r"\w+(?:[-'.]\w+)*", re.UNICODE)

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]
#: ``search(vectors, k) -> (ids, distances)``, both of shape ``(len(vectors), k)``, distances true L2.
Search = Callable[[npt.NDArray[np.float32], int], tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]]


def _fold_char(c: str) -> str:
    if c == "_":
        return " "
    if c in "\u2018\u2019\u02bc`´":
        return "'"
    low = c.lower()
    if len(low) != 1:
        low = c
    base = unicodedata.normalize("NFD", low)[0]
    return base if base.isascii() or not low.isascii() else low


def fold(text: str) -> str:
    """Fold ``text`` one character to one character: lower case, accents removed, ``_`` and quotes unified.

    Positions are preserved, so a span found in ``fold(q)`` is the same span of ``q``.

    >>> fold("Amélie_Poulain")
    'amelie poulain'
    """
    return "".join(_fold_char(c) for c in text)


def _is_boundary(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() and text[start].isalnum()) and not (after.isalnum() and text[end - 1].isalnum())


@dataclass(frozen=True, slots=True)
class LinkedSpan:
    """A linked question span: ``nodes`` are ``(node id, score, label distance)`` best first."""

    text: str
    start: int
    end: int
    method: str
    score: float
    nodes: tuple[tuple[int, float, float], ...]


@dataclass
class LabelIndex:
    """Folded node labels: an Aho-Corasick automaton and a key → node ids table (built by :meth:`build`)."""

    labels: Sequence[str]
    keys: list[str] = field(default_factory=list)
    nodes_of_key: dict[str, list[int]] = field(default_factory=dict)
    automaton: ahocorasick.Automaton | None = None
    _by_length: list[tuple[int, str]] = field(default_factory=list)

    @classmethod
    def build(cls, labels: Sequence[str], *, min_length: int = 2) -> LabelIndex:
        """Index the labels (``labels[i]`` is node ``i``'s text); labels shorter than ``min_length`` are skipped.

        Notes
        -----
        O(total label length) time and memory; about 1 s and 100 MB for a million labels.
        """
        index = cls(labels)
        for node, label in enumerate(labels):
            key = " ".join(fold(label).split())
            if len(key) < min_length:
                continue
            found = index.nodes_of_key.get(key)
            if found is None:
                index.nodes_of_key[key] = [node]
            else:
                found.append(node)
        automaton = ahocorasick.Automaton()
        for key in index.nodes_of_key:
            automaton.add_word(key, key)
        if index.nodes_of_key:
            automaton.make_automaton()
        index.automaton = automaton
        index.keys = sorted(index.nodes_of_key)
        index._by_length = sorted((len(k), k) for k in index.keys)
        return index

    def keys_near_length(self, length: int, slack: float = 0.3) -> list[str]:
        """Keys whose length is within ``slack`` (relative) of ``length``."""
        lo, hi = int(length * (1 - slack)), int(length * (1 + slack)) + 1
        import bisect

        a = bisect.bisect_left(self._by_length, (lo, ""))
        b = bisect.bisect_right(self._by_length, (hi, "\uffff"))
        return [k for _, k in self._by_length[a:b]]


@dataclass
class EntityLinker:
    """Links question spans to nodes with the strategies of the module docstring.

    Parameters
    ----------
    index
        The dataset's :class:`LabelIndex`.
    embed, search
        The embedding model and the node-label vector search; without them the vector strategy is off.
    common_rate
        ``rate(folded phrase) -> float`` in [0, 1]: how often a phrase occurs in the exemplar questions.
    """

    index: LabelIndex
    embed: Embed | None = None
    search: Search | None = None
    common_rate: Callable[[str], float] | None = None
    fuzzy_cutoff: float = 88.0
    vector_max_distance: float = 0.55
    max_ngram: int = 6

    def specificity(self, folded: str) -> float:
        """1 for a rare phrase, towards 0 for template words (module docstring)."""
        words = folded.split()
        if self.common_rate is not None:
            rate = self.common_rate(" ".join(words))
        else:
            rate = 1.0 if all(w in STOPWORDS for w in words) else 0.0
        if all(w in STOPWORDS for w in words):
            rate = max(rate, 1.0)
        return 1.0 / (1.0 + 40.0 * rate)

    def link(self, question: str, *, strategies: Sequence[str] = ("exact", "fuzzy", "vector")) -> list[LinkedSpan]:
        """The linked spans of ``question``, in question order.

        Parameters
        ----------
        question : str
            The question text.
        strategies : sequence of str
            Which strategies may run: ``exact`` (includes normalised), ``fuzzy``, ``vector``.

        Returns
        -------
        list of LinkedSpan
            Non-overlapping spans; empty when nothing links.

        Notes
        -----
        Exact: O(len(question) + matches). Fuzzy: O(n-grams × labels of similar length). Vector: one embedding
        batch and one search per n-gram batch.
        """
        folded = fold(question)
        spans: list[LinkedSpan] = []
        if "exact" in strategies:
            spans = self._exact(question, folded)
        if any(s.score >= 0.5 for s in spans):
            return spans
        if "fuzzy" in strategies:
            spans = _merge(spans, self._fuzzy(folded, question, spans))
        if any(s.score >= 0.5 for s in spans):
            return spans
        if "vector" in strategies and self.embed is not None and self.search is not None:
            spans = _merge(spans, self._vector(folded, question, spans))
        return spans

    # -- strategies ----------------------------------------------------------------------------------------------

    def _exact(self, question: str, folded: str) -> list[LinkedSpan]:
        automaton = self.index.automaton
        if automaton is None or not self.index.nodes_of_key:
            return []
        found: list[tuple[int, int, str]] = []
        for end_index, key in automaton.iter(folded):
            start, end = end_index - len(key) + 1, end_index + 1
            if _is_boundary(folded, start, end):
                found.append((start, end, key))
        found.sort(key=lambda m: (-(m[1] - m[0]), m[0]))
        taken: list[tuple[int, int]] = []
        spans = []
        for start, end, key in found:
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            text = question[start:end]
            nodes = self.index.nodes_of_key[key]
            exact = [n for n in nodes if self.index.labels[n] == text]
            ranked = [(n, 1.0, 0.0) for n in exact] + [(n, 0.9, 0.0) for n in nodes if n not in set(exact)]
            base = 1.0 if exact else 0.9
            spans.append(
                LinkedSpan(
                    text, start, end, "exact" if exact else "normalised", base * self.specificity(key), tuple(ranked)
                )
            )
        spans.sort(key=lambda s: s.start)
        return spans

    def _ngrams(self, folded: str, taken: Sequence[LinkedSpan]) -> list[tuple[int, int]]:
        words = [(m.start(), m.end()) for m in _WORD.finditer(folded)]
        out = []
        for i in range(len(words)):
            for j in range(i, min(i + self.max_ngram, len(words))):
                start, end = words[i][0], words[j][1]
                if any(start < s.end and s.start < end for s in taken):
                    break
                phrase = folded[start:end]
                tokens = phrase.split()
                if all(t in STOPWORDS for t in tokens) or len(phrase) < 3:
                    continue
                if tokens[0] in STOPWORDS or tokens[-1] in STOPWORDS:
                    continue
                out.append((start, end))
        return out

    def _fuzzy(self, folded: str, question: str, taken: Sequence[LinkedSpan]) -> list[LinkedSpan]:
        hits: list[LinkedSpan] = []
        for start, end in self._ngrams(folded, taken):
            phrase = " ".join(folded[start:end].split())
            keys = self.index.keys_near_length(len(phrase))
            if not keys:
                continue
            best = process.extract(phrase, keys, scorer=fuzz.ratio, score_cutoff=self.fuzzy_cutoff, limit=3)
            if not best:
                continue
            nodes: list[tuple[int, float, float]] = []
            for key, score, _ in best:
                for n in self.index.nodes_of_key[key]:
                    nodes.append((n, score / 100.0, 0.0))
            top = best[0][1] / 100.0
            score = 0.8 * top * self.specificity(phrase)
            hits.append(LinkedSpan(question[start:end], start, end, "fuzzy", score, tuple(nodes)))
        return _non_overlapping(hits)

    def _vector(self, folded: str, question: str, taken: Sequence[LinkedSpan]) -> list[LinkedSpan]:
        assert self.embed is not None and self.search is not None
        grams = self._ngrams(folded, taken)
        if not grams:
            return []
        texts = [question[s:e] for s, e in grams]
        ids, dists = self.search(self.embed(texts), 3)
        hits = []
        for (start, end), row_ids, row_d in zip(grams, ids, dists, strict=True):
            nodes = [
                (int(n), 1.0 - float(d) / 2.0, float(d))
                for n, d in zip(row_ids, row_d, strict=True)
                if n >= 0 and d <= self.vector_max_distance
            ]
            if nodes:
                score = 0.7 * nodes[0][1] * self.specificity(folded[start:end])
                hits.append(LinkedSpan(question[start:end], start, end, "vector", score, tuple(nodes)))
        return _non_overlapping(hits)


def _non_overlapping(spans: list[LinkedSpan]) -> list[LinkedSpan]:
    """Best score first, then longer, then leftmost; drop spans overlapping a chosen one."""
    chosen: list[LinkedSpan] = []
    for span in sorted(spans, key=lambda s: (-s.score, -(s.end - s.start), s.start)):
        if all(span.end <= c.start or c.end <= span.start for c in chosen):
            chosen.append(span)
    return sorted(chosen, key=lambda s: s.start)


def _merge(first: list[LinkedSpan], more: list[LinkedSpan]) -> list[LinkedSpan]:
    return sorted(
        [*first, *[m for m in more if all(m.end <= f.start or f.end <= m.start for f in first)]], key=lambda s: s.start
    )
