"""Gold patterns of benchmark questions, derived from their gold relation chains (for the exemplar pools).

* **MetaQA** gives a question type such as ``director_to_movie_to_language``. Every hop joins a movie and an
  attribute; :data:`METAQA_RELATIONS` maps the attribute to the KB relation, stored as ``(movie, relation,
  attribute)``. So ``director_to_movie`` walks ``directed_by`` against its direction and ``movie_to_language``
  walks ``in_language`` along it::

      director_to_movie_to_language  →  (?x1, directed_by, <topic>), (?x1, in_language, ?x)

* **PathQuestion** and **WorldCup2014** give the relation chain (``spouse#nationality``); every gold triple is
  stored along the path (checked: 100 % of PQ path triples are stored forward). WC2014 conjunctions join two
  chains with ``*``, one per topic entity, meeting at the answer.

The topic entities used here come from the benchmark files (MetaQA's brackets, the gold paths). They are used
**only** to build exemplars of the held-out pool, never for the questions that are scored.
"""

from __future__ import annotations

from kgsvc.eval.data import Question
from kgsvc.qa.exemplars import Exemplar

__all__ = ["METAQA_RELATIONS", "chain_triples", "gold_exemplar", "metaqa_chain"]

#: MetaQA question-type word → KB relation (stored as ``(movie, relation, value)``).
METAQA_RELATIONS = {
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


def metaqa_chain(qtype: str) -> list[tuple[str, bool]]:
    """The ``(relation, outgoing)`` steps of a MetaQA question type.

    >>> metaqa_chain("director_to_movie_to_language")
    [('directed_by', False), ('in_language', True)]

    Raises
    ------
    ValueError
        For a type word not in :data:`METAQA_RELATIONS` or a hop that does not involve ``movie``.
    """
    words = qtype.split("_to_")
    steps = []
    for a, b in zip(words, words[1:], strict=False):
        if a == "movie" and b in METAQA_RELATIONS:
            steps.append((METAQA_RELATIONS[b], True))
        elif b == "movie" and a in METAQA_RELATIONS:
            steps.append((METAQA_RELATIONS[a], False))
        else:
            raise ValueError(
                f"MetaQA question type {qtype!r}: hop {a!r} → {b!r} is not movie ↔ {sorted(METAQA_RELATIONS)}"
            )
    return steps


def chain_triples(
    topic: str, steps: list[tuple[str, bool]], *, answer: str = "?x", prefix: str = "?y"
) -> list[tuple[str, str, str]]:
    """Triples of a chain from ``topic`` to ``answer`` through fresh variables ``?y1``, ``?y2``…"""
    triples = []
    current = topic
    for i, (relation, outgoing) in enumerate(steps):
        following = answer if i == len(steps) - 1 else f"{prefix}{i + 1}"
        triples.append((current, relation, following) if outgoing else (following, relation, current))
        current = following
    return triples


def gold_exemplar(question: Question, dataset: str) -> Exemplar:
    """The exemplar (question + gold pattern) of a benchmark question of ``dataset`` (``metaqa``, ``pq``, ``wc2014``).

    Raises
    ------
    ValueError
        When the question type cannot be turned into a pattern.
    """
    if dataset == "metaqa":
        topic = question.topic[0]
        triples = chain_triples(topic, metaqa_chain(question.qtype))
        return Exemplar(question.text, (topic,), tuple(triples), "?x", question.qtype)
    if dataset in ("pq", "wc2014"):
        branches = question.qtype.split("*")
        if len(branches) != len(question.topic):
            raise ValueError(f"{question.qtype!r} has {len(branches)} branches but topics {question.topic!r}")
        triples = []
        for b, (branch, topic) in enumerate(zip(branches, question.topic, strict=True)):
            steps = [(r, True) for r in branch.split("#") if r]
            triples += chain_triples(topic, steps, prefix=f"?y{b}_" if len(branches) > 1 else "?y")
        return Exemplar(question.text, tuple(question.topic), tuple(triples), "?x", question.qtype)
    raise ValueError(f"dataset must be 'metaqa', 'pq' or 'wc2014', got {dataset!r}")
