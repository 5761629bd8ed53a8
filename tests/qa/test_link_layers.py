"""A layered label index (LabelIndex.extend, issue 23) answers every look-up as one built from scratch.

Successive versions of a small label list are made the way an incremental index build makes them (terms sorted,
so a new node renumbers the later ones; nodes removed; labels changed), each layered on the previous version's
index; every look-up of the linker is compared with a fresh LabelIndex.build of the same labels.
"""

from __future__ import annotations

import random

import numpy as np

from kgsvc.qa.link import EntityLinker, LabelIndex, fold

NAMES = [
    "Queen (band)",
    "Queen (song)",
    "Linda B. Buck",
    "Emil Theodor Kocher",
    "Nobel Prize in Physics 1921",
    "Nobel Prize Laureates",
    "Technion - Israel Institute of Technology",
    "Paris, France",
    "Amélie Poulain",
    "The Album",
    "laureate",
    "band",
    "Thriller",
    "Quiet Harbour Nights",
    "Quiet Harbour Nights Part 2",
    "x",
    "1999",
]
PHRASES = ["physics nobel prize 1921", "quiet nights harbour", "linda buck", "nobel prize laureates", "queen"]
QUESTIONS = [
    "who directed Quiet Harbour Nights",
    "which laureates won the Nobel Prize in Physics 1921",
    "is Queen a band",
    "what did Linda Buck and Emil Kocher share",
    "where is the Technion in Paris",
    "who sang Thriller in 1999",
]


def _version(rng: random.Random, terms: dict[str, str]) -> dict[str, str]:
    """The next version: a few terms added, removed or relabelled (term -> label)."""
    after = dict(terms)
    for _ in range(rng.randint(1, 3)):
        action = rng.random()
        if action < 0.4 or not after:
            after[f"t{rng.randrange(10_000):05d}"] = rng.choice([*NAMES, f"New Thing {rng.randrange(100)}"])
        elif action < 0.7:
            del after[rng.choice(sorted(after))]
        else:
            after[rng.choice(sorted(after))] = rng.choice(NAMES)
    return after


def _changes(before: dict[str, str], after: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Old id -> new id (-1: gone) and the new ids whose label is new or changed; ids are ranks of sorted terms."""
    old, new = sorted(before), sorted(after)
    index = {t: i for i, t in enumerate(new)}
    remap = np.array([index.get(t, -1) for t in old], dtype=np.int64)
    touched = np.array([i for i, t in enumerate(new) if before.get(t) != after[t]], dtype=np.int64)
    return remap, touched


def _lookups(index: LabelIndex, keys: set[str]) -> tuple[object, ...]:
    linker = EntityLinker(index)
    return (
        {k: (index.nodes_of_key.get(k), index.alias_nodes.get(k), k in index.nodes_of_key) for k in sorted(keys)},
        [sorted(set(index.matches(fold(q)))) for q in QUESTIONS],
        [index.keys_near_length(n, slack) for n in range(1, 45) for slack in (0.2, 0.3)],
        [index.words_match(p) for p in PHRASES],
        [index.type_of(k) for k in ("laureates", "the band", "queen")],
        [linker.link_types(q) for q in QUESTIONS],
    )


def test_layered_versions_answer_as_a_fresh_build() -> None:
    rng = random.Random(23)
    terms = {f"t{i:05d}": name for i, name in enumerate(NAMES)}
    classes_of = {"laureate", "band"}
    index = LabelIndex.build([terms[t] for t in sorted(terms)])
    layered = 0
    for _ in range(40):
        after = _version(rng, terms)
        labels = [after[t] for t in sorted(after)]
        classes = [i for i, label in enumerate(labels) if label in classes_of]
        remap, touched = _changes(terms, after)
        remap = remap.astype(rng.choice([np.int32, np.int64]))  # a version writes it in its node width
        extended = LabelIndex.extend(index, labels, remap=remap, touched=touched, classes=classes)
        fresh = LabelIndex.build(labels, classes=classes)
        if extended is not None:
            layered += 1
            keys = set(fresh.nodes_of_key) | set(fresh.alias_nodes) | {fold(n).strip() for n in NAMES}
            assert _lookups(extended, keys) == _lookups(fresh, keys)
            assert dict(extended.nodes_of_key) == fresh.nodes_of_key
            assert dict(extended.alias_nodes) == fresh.alias_nodes
        index = extended if extended is not None else LabelIndex.build(labels, classes=classes, previous=index)
        terms = after
    assert layered >= 20  # most versions were layers (a change of class nouns makes a plain one)


def test_a_layer_is_refused_when_the_class_nouns_change() -> None:
    before = ["Nobel Prize Laureates", "laureate", "Queen"]
    earlier = LabelIndex.build(before)
    remap, touched = np.arange(3, dtype=np.int64), np.zeros(0, dtype=np.int64)
    assert LabelIndex.extend(earlier, before, remap=remap, touched=touched, classes=[1]) is None
    same = LabelIndex.extend(earlier, before, remap=remap, touched=touched)
    assert same is not None and same.nodes_of_key.get("queen") == [2]
