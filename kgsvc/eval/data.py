"""Readers for the benchmark data in ``../shared/data`` (MetaQA, PathQuestion, WorldCup2014).

The data is never copied into the project. :func:`data_root` finds it from ``KGSVC_EVAL_DATA`` or next to the
checkout (``<repo>/../shared/data``). See that folder's README for origin, licence and format.

Questions come back with the topic-entity brackets of MetaQA stripped (no oracle entities); the bracketed
entity is kept in :attr:`Question.topic` for error analysis only.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Question",
    "data_root",
    "metaqa_kb",
    "metaqa_questions",
    "pq_answers",
    "pq_kb",
    "pq_questions",
    "wc2014_kb",
    "wc2014_questions",
]

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class Question:
    """One benchmark question: ``text`` is what is asked; ``answers`` the gold answer strings."""

    text: str
    answers: tuple[str, ...]
    qtype: str = ""
    topic: tuple[str, ...] = field(default=())


def data_root() -> Path:
    """The shared data folder; raises ``FileNotFoundError`` naming the places looked at."""
    candidates = []
    if env := os.environ.get("KGSVC_EVAL_DATA"):
        candidates.append(Path(env))
    repo = Path(__file__).resolve().parents[2]
    candidates += [repo.parent / "shared" / "data", repo / "shared" / "data"]
    for path in candidates:
        if (path / "metaqa").is_dir():
            return path
    raise FileNotFoundError(f"benchmark data not found; looked in {', '.join(map(str, candidates))}")


def _open(path: Path) -> Iterator[str]:
    if not path.exists() and path.with_name(path.name + ".gz").exists():
        path = path.with_name(path.name + ".gz")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            yield line.rstrip("\n").rstrip("\r")


def metaqa_kb(root: Path | None = None) -> list[Triple]:
    """MetaQA's KB as the keallm KGE split: 129,411 unique named triples, relations as in ``kb.txt``.

    Entities are keyed by line number of ``entity2text.txt`` (its line 22,447 has a wrong id column).
    Relation names are written like the original ``kb.txt`` (``directed_by``).
    """
    base = (root or data_root()) / "metaqa" / "keallm_extra" / "kge_split"
    entities = [line.split("\t", 1)[1] for line in _open(base / "entity2text.txt")]
    relations = {}
    for line in _open(base / "relation2text.txt"):
        rid, text = line.split("\t", 1)
        relations[int(rid)] = text.strip().replace(" ", "_")
    seen: set[Triple] = set()
    triples: list[Triple] = []
    for name in ("train.tsv", "dev.tsv", "test.tsv", "test_old.tsv"):
        for line in _open(base / name):
            if not line.strip():
                continue
            h, r, t = line.split("\t")
            triple = (entities[int(h)], relations[int(r)], entities[int(t)])
            if triple not in seen:
                seen.add(triple)
                triples.append(triple)
    return triples


_BRACKET = re.compile(r"\[([^\]]+)\]")


def metaqa_questions(hops: int, root: Path | None = None) -> list[Question]:
    """MetaQA vanilla dev questions with ``hops`` ∈ {1, 2, 3}; brackets stripped from the text."""
    base = (root or data_root()) / "metaqa" / "keallm_extra" / f"{hops}-hop"
    types = list(_open(base / "qa_dev_qtype.txt"))
    questions = []
    for i, line in enumerate(_open(base / "dev.txt")):
        text, answers = line.split("\t")
        topic = tuple(_BRACKET.findall(text))
        questions.append(
            Question(_BRACKET.sub(r"\1", text), tuple(answers.split("|")), types[i] if i < len(types) else "", topic)
        )
    return questions


def _tsv_kb(path: Path) -> list[Triple]:
    triples = []
    for line in _open(path):
        if line.strip():
            h, r, t = line.split("\t")
            triples.append((h.strip(), r.strip(), t.strip()))
    return triples


def pq_kb(hops: int, root: Path | None = None) -> list[Triple]:
    """The PathQuestion KB for PQ-2H or PQ-3H."""
    return _tsv_kb((root or data_root()) / "pathquestion" / f"{hops}H-kb.txt")


def pq_questions(hops: int, root: Path | None = None) -> list[Question]:
    """PQ-2H / PQ-3H questions; answers from ``answer(ans1/ans2/...)``, type = the relation chain."""
    questions = []
    for line in _open((root or data_root()) / "pathquestion" / f"PQ-{hops}H.txt"):
        if not line.strip():
            continue
        text, answer, path = line.strip().split("\t")[:3]
        answers = pq_answers(answer)
        steps = path.split("#<end>#")[0].split("#")
        questions.append(Question(text.strip(), answers, "#".join(steps[1::2]), (steps[0],)))
    return questions


def pq_answers(field: str) -> tuple[str, ...]:
    """The answers of a PathQuestion answer field ``name(ans1/ans2/.../)``; names may hold parentheses.

    The list is the parenthesised suffix that names the answer before it (the first answer repeats the name).

    >>> pq_answers("united_kingdom(united_kingdom/)")
    ('united_kingdom',)
    >>> pq_answers("pg_(usa)(pg_(usa)/r_(usa)/)")
    ('pg_(usa)', 'r_(usa)')
    """
    if field.endswith(")"):
        for i, c in enumerate(field):
            if c != "(":
                continue
            name, inner = field[:i], field[i + 1 : -1]
            answers = tuple(a for a in inner.split("/") if a)
            if name in answers:
                return answers
    if "(" in field:  # no suffix names the answer: the outermost parentheses, as before
        field = field[field.index("(") + 1 : field.rindex(")")]
    return tuple(a for a in field.split("/") if a)


def wc2014_kb(root: Path | None = None) -> list[Triple]:
    """The WorldCup2014 KB (6,482 triples, inverse relations included as in the original file)."""
    return _tsv_kb((root or data_root()) / "wc2014" / "WC2014.txt")


def wc2014_questions(kind: str, root: Path | None = None) -> list[Question]:
    """WorldCup2014 questions: ``kind`` is ``"1hop"`` (WC-P1), ``"2hop"`` (WC-P2) or ``"conj"`` (WC-C)."""
    files = {"1hop": "WC-P1.txt", "2hop": "WC-P2.txt", "conj": "WC-C.txt"}
    if kind not in files:
        raise ValueError(f"kind must be one of {sorted(files)}, got {kind!r}")
    questions = []
    for line in _open((root or data_root()) / "wc2014" / files[kind]):
        if not line.strip():
            continue
        cols = line.split("\t")
        text, path, answer_set = cols[0], cols[2], cols[3]
        answers = tuple(a for a in answer_set.split("/") if a)
        topic = tuple(cols[5].split("/")) if kind == "conj" and len(cols) > 5 else (path.split("#")[0],)
        rels = "*".join("#".join(part.split("#<end>#")[0].split("#")[1::2]) for part in path.split("*"))
        questions.append(Question(text.strip(), answers, rels, topic))
    return questions
