"""Score the Nobel questions beyond lookups (count, yes-no, superlative, comparison) with no exemplars.

The graph is ``../shared/data/nobel/nobel.ttl.gz`` loaded as the question file says (its one syntax error repaired,
base IRI ``https://kgsvc.local/nobel/``) into an embedded KG under ``--data-dir`` (built once, reused after); the
questions are ``kgsvc/eval/questions/nobel.jsonl`` (a held-out set: never tuned on one question).

A question is **right** when the answer is grounded and equals the recorded one: the number of a count, the yes/no
of a yes/no question (``Answer.truth``), the set of top answers' IRIs for a question whose answers are terms. An
answer of the **wrong type** is a grounded answer whose type (number, yes/no, terms) is not the recorded one's; a
refusal ("no grounded answer") is neither right nor of the wrong type.

Usage::

    PYTHONPATH=$PWD .venv/bin/python bench/kinds_nobel.py --data-dir /tmp/kinds-nobel/data [--all]
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
from collections import Counter
from pathlib import Path

import kgsvc
from kgsvc.eval.data import data_root
from kgsvc.qa.result import Answer
from kgsvc.settings import Settings

__all__ = ["main", "score"]

QUESTIONS = Path(__file__).resolve().parents[1] / "kgsvc" / "eval" / "questions" / "nobel.jsonl"
BASE_IRI = "https://kgsvc.local/nobel/"
KINDS = ("count", "yes-no", "superlative", "comparison")
_UNTERMINATED = b"geoFeatures20040307.owl#>;\n\n<Christopher_A._Sims>"


def _gold_type(row: dict[str, object]) -> str:
    answers = [str(a) for a in row["answers"]]  # type: ignore[attr-defined]
    if row["answer_terms"]:
        return "terms"
    if answers[0].lower() in ("yes", "no", "true", "false"):
        return "yes/no"
    return "number"


def _our_type(answer: Answer) -> str:
    if answer.truth is not None:
        return "yes/no"
    if answer.kind == "count":
        return "number"
    return "terms"


def score(row: dict[str, object], answer: Answer) -> tuple[bool, bool]:
    """``(right, wrong type)`` of one answer (module docstring)."""
    if not answer.grounded:
        return False, False
    gold, ours = _gold_type(row), _our_type(answer)
    if gold != ours:
        return False, True
    answers = [str(a) for a in row["answers"]]  # type: ignore[attr-defined]
    if gold == "yes/no":
        return (answers[0].lower() in ("yes", "true")) == answer.truth, False
    if gold == "number":
        return bool(answer.answers) and answer.answers[0].value == answers[0], False
    terms = {str(t).strip("<>") for t in row["answer_terms"]}  # type: ignore[attr-defined]
    return {a.value for a in answer.answers} == terms, False


def _open(data_dir: Path) -> kgsvc.KG:
    kg = kgsvc.KG.open(data_dir, settings=Settings(auto_index=False))
    if "nobel" not in {d.name for d in kg.datasets()}:
        data = gzip.decompress((data_root() / "nobel" / "nobel.ttl.gz").read_bytes())
        data = data.replace(_UNTERMINATED, _UNTERMINATED.replace(b";", b" ;\n.", 1))
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "nobel.ttl"
            source.write_bytes(data)
            kg.load(source, dataset="nobel", base_iri=BASE_IRI)
        kg.build_index("nobel")
    return kg


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="embedded KG data dir (built when missing)")
    parser.add_argument("--all", action="store_true", help="also ask the lookup questions (kinds: lookup expected)")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if args.all or r["kind"] in KINDS]
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong_type = 0
    refused = 0
    with _open(args.data_dir) as kg:
        for row in rows:
            answer = kg.ask(str(row["question"]), dataset="nobel")
            ok, bad = score(row, answer)
            kind = str(row["kind"])
            total[kind] += 1
            right[kind] += ok
            wrong_type += bad
            refused += not answer.grounded
            mark = "ok " if ok else ("TYPE" if bad else "x  ")
            seconds = answer.timings.get("total", 0.0)
            print(f"{mark} {row['id']:>4} {kind:<12} [{answer.kind}] {row['question']}  ({seconds:.1f} s)")
            print(f"       -> {answer.text[:160]}")
    print()
    for kind in total:
        print(f"{kind:<14} {right[kind]}/{total[kind]}")
    n_right, n = sum(right.values()), sum(total.values())
    print(
        f"{'all':<14} {n_right}/{n} = {100 * n_right / max(n, 1):.1f} %; wrong type: {wrong_type}; refused: {refused}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
