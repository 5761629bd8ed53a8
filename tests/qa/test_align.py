"""Order-aware relation alignment: tokens, reading order, the Model 1 lexicon, and the monotone Viterbi vs an oracle."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random

import pytest

from kgsvc.qa.align import RelationLexicon, question_tokens, reading_order
from kgsvc.qa.exemplars import Signature, Step

PARENT: Step = ("parents", True)
CHILD: Step = ("children", True)
BIRTH: Step = ("place of birth", True)
SPOUSE: Step = ("spouse", True)


def _words(question: str, phrases: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    tokens, masks = question_tokens(question)
    return [(tokens[i], g) for i, g in reading_order(tokens, masks, phrases=phrases)]


def _path(*steps: Step) -> Signature:
    return (tuple(steps),)


@pytest.fixture(scope="module")
def lexicon() -> RelationLexicon:
    questions = [
        ("who is the dad of X", _path(PARENT)),
        ("what is X 's mom", _path(PARENT)),
        ("who is X 's son", _path(CHILD)),
        ("the kid of X", _path(CHILD)),
        ("the place of birth of X", _path(BIRTH)),
        ("where was X born", _path(BIRTH)),
        ("who is X 's darling", _path(SPOUSE)),
        ("the other half of X", _path(SPOUSE)),
        ("the place of birth of X 's dad", _path(PARENT, BIRTH)),
        ("what is X 's son 's mom", _path(CHILD, PARENT)),
        ("the kid of X 's darling", _path(SPOUSE, CHILD)),
        ("the dad of X 's other half", _path(SPOUSE, PARENT)),
    ]
    pairs = []
    for q, sig in questions:
        tokens, masks = question_tokens(q)
        pairs.append(([tokens[i] for i, _ in reading_order(tokens, masks)], sig))
    return RelationLexicon.train(pairs)


def test_tokens_split_possessives_and_find_the_mask() -> None:
    assert question_tokens("what is X 's dad 's kid ?") == (["what", "is", "x", "'s", "dad", "'s", "kid"], [2])


def test_reading_order_follows_the_genitive_chain() -> None:
    words = _words("the place of birth of X 's son 's kid ?", frozenset({"place of birth"}))
    assert words == [("son", 0), ("kid", 1), ("birth", 2), ("of", 2), ("place", 2), ("the", 2)]
    # no possessive after the entity: the words before it are read first (nearest first), then the rest
    assert [w for w, _ in _words("the films directed by X were in which language")][:3] == ["by", "directed", "films"]
    # without the relation phrase "of" is a marker: "birth" and "place" become two segments
    assert len({g for _, g in _words("the place of birth of X")}) == 2


def test_reading_order_without_entity_keeps_question_order() -> None:
    tokens, masks = question_tokens("who is the dad")
    assert [tokens[i] for i, _ in reading_order(tokens, masks)] == ["who", "is", "the", "dad"]


def test_lexicon_learns_paraphrases(lexicon: RelationLexicon) -> None:
    for word, step in [("dad", PARENT), ("mom", PARENT), ("kid", CHILD), ("darling", SPOUSE), ("half", SPOUSE)]:
        best = max(lexicon.table, key=lambda s, w=word: lexicon.prob(w, s))  # type: ignore[misc]
        assert best == step, word


def test_word_order_decides_the_step_order(lexicon: RelationLexicon) -> None:
    words = _words("the kid of X 's dad")  # X's dad's kid: parents, then children
    assert lexicon.score(words, [PARENT, CHILD]) > lexicon.score(words, [CHILD, PARENT])
    words = _words("the dad of X 's kid")
    assert lexicon.score(words, [CHILD, PARENT]) > lexicon.score(words, [PARENT, CHILD])


def test_each_genitive_mention_needs_its_own_step(lexicon: RelationLexicon) -> None:
    words = _words("the dad of X 's mom")  # two mentions of one relation: a 2-hop path
    assert lexicon.score(words, [PARENT, PARENT]) > lexicon.score(words, [PARENT])
    words = _words("the other half of X")  # one mention of two words: one step, unless a split is free
    assert lexicon.score(words, [SPOUSE]) == lexicon.score(words, [SPOUSE, SPOUSE])
    costly = dataclasses.replace(lexicon, split=0.1)
    assert costly.score(words, [SPOUSE]) > costly.score(words, [SPOUSE, SPOUSE])


def test_unmentioned_steps_cost_a_miss(lexicon: RelationLexicon) -> None:
    words = _words("the place of birth of X 's dad", frozenset({"place of birth"}))
    full = lexicon.score(words, [PARENT, BIRTH])
    assert full > lexicon.score(words, [BIRTH])
    assert full > lexicon.score(words, [PARENT, CHILD, BIRTH])


def test_empty_inputs() -> None:
    empty = RelationLexicon.train([])
    assert empty.table == {}
    assert empty.score([], []) == 0.0
    assert empty.score([], [PARENT]) == pytest.approx(math.log(empty.miss))


def _oracle(lexicon: RelationLexicon, words: list[tuple[str, int]], steps: list[Step]) -> float:
    """Naive: every assignment of each word to NULL or a step, checked against the constraints."""
    best = -math.inf
    for choice in itertools.product([None, *range(len(steps))], repeat=len(words)):
        last: tuple[int, int] | None = None  # (step, segment) of the previous aligned word
        ok = True
        total = 0.0
        for (w, g), j in zip(words, choice, strict=True):
            if j is None:
                total += math.log(lexicon.prob(w, ("", False)))
                continue
            if last is not None and (j < last[0] or (j == last[0] and g != last[1])):
                ok = False
                break
            total += math.log(lexicon.prob(w, steps[j]))
            if last is not None and j > last[0] and g == last[1]:
                total += math.log(lexicon.split)
            last = (j, g)
        if ok:
            covered = {j for j in choice if j is not None}
            total += (len(steps) - len(covered)) * math.log(lexicon.miss)
            best = max(best, total)
    return best


@pytest.mark.parametrize("split", [1.0, 0.1])
def test_viterbi_equals_the_exhaustive_oracle(lexicon: RelationLexicon, split: float) -> None:
    lexicon = dataclasses.replace(lexicon, split=split)
    rng = random.Random(7)
    vocab = ["dad", "mom", "kid", "son", "darling", "half", "place", "birth", "the", "what", "zzz"]
    steps_pool = [PARENT, CHILD, BIRTH, SPOUSE, ("gender", True)]
    for _ in range(150):
        n_words = rng.randint(0, 6)
        segments = sorted(rng.randint(0, 3) for _ in range(n_words))
        words = [(rng.choice(vocab), g) for g in segments]
        steps = [rng.choice(steps_pool) for _ in range(rng.randint(0, 3))]
        assert lexicon.score(words, steps) == pytest.approx(_oracle(lexicon, words, steps)), (words, steps)
