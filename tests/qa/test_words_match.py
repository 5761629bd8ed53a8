"""LabelIndex.words_match reads only the shortest posting lists that must hold every match (issue 23: a number such
as "2" is in a quarter of the labels of a graph of numbered parts, and reading its list made the first question on
a 688k-node graph 0.9 s slower); what it finds equals a scan of every label key under the documented rule."""

from __future__ import annotations

import random

import numpy as np

from kgsvc.qa.link import _NUMBER, LabelIndex, _content_words

WORDS = ["quiet", "harbour", "nights", "part", "river", "blue", "moon", "king", "city", "2", "3", "1999"]


def _scan(index: LabelIndex, phrase: str) -> list[tuple[str, int]]:
    """The rule of :meth:`LabelIndex.words_match`, applied to every label key with two content words or more."""
    words = _content_words(phrase)
    numbers = {w for w in words if _NUMBER.match(w)}
    if len(words) < 2 or (not numbers and len(words) < 3):
        return []
    found = []
    for key in index.nodes_of_key:
        label_words = _content_words(key)
        shared = len(words & label_words)
        if len(label_words) < 2 or shared < 2 or len(label_words - words) > 1 or len(words - label_words) > 1:
            continue
        every = {w for w in words | label_words if _NUMBER.match(w)}
        if (every and not every <= (words & label_words)) or (not every and shared < 3):
            continue
        found.append((key, shared))
    return sorted(found, key=lambda kv: (-kv[1], kv[0]))


def test_words_match_equals_a_scan_of_every_key() -> None:
    rng = random.Random(23)
    # a number in a quarter of the labels, as in numbered parts or a replicated graph ("Name ~2")
    labels = [" ".join(rng.sample(WORDS[:9], rng.randint(2, 4))) + (" 2" if i % 4 == 0 else "") for i in range(400)]
    index = LabelIndex.build(labels)
    phrases = [" ".join(rng.sample(WORDS, rng.randint(2, 5))) for _ in range(300)]
    matched = 0
    for phrase in phrases:
        expected = _scan(index, phrase)
        assert index.words_match(phrase) == expected, phrase
        matched += bool(expected)
    assert matched > 50  # the phrases do match: the comparison is not of empty lists


def test_words_match_of_a_layered_index_equals_a_scan_of_its_keys() -> None:
    """The same on a layered index (LabelIndex.extend, a version patched from the previous one), whose posting lists
    are the base's without the keys dropped plus the delta's."""
    rng = random.Random(24)
    labels = [" ".join(rng.sample(WORDS[:9], rng.randint(2, 4))) + (" 2" if i % 4 == 0 else "") for i in range(400)]
    base = LabelIndex.build(labels)
    # every tenth label gone, every seventh relabelled, twenty new ones appended (ids of the kept ones unchanged)
    kept = [i for i in range(400) if i % 10]
    after = [labels[i] if i % 7 else "quiet moon city 3" for i in kept]
    after += [f"river king part {k % 3}" for k in range(20)]
    remap = np.full(400, -1, dtype=np.int64)
    remap[kept] = np.arange(len(kept))
    touched = np.array([j for j, i in enumerate(kept) if i % 7 == 0] + list(range(len(kept), len(after))))
    layered = LabelIndex.extend(base, after, remap=remap, touched=touched)
    assert layered is not None and layered._layer is not None
    for phrase in [" ".join(rng.sample(WORDS, rng.randint(2, 5))) for _ in range(300)]:
        assert layered.words_match(phrase) == _scan(layered, phrase), phrase
