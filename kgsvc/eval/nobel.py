"""``kgsvc eval nobel``: the question path on the Nobel laureates graph, a user's own untidy graph (issue 16).

The graph is ``<shared data>/nobel/nobel.ttl.gz`` (see that folder's README), loaded into a real embedded
:class:`kgsvc.KG` as dataset ``nobel`` under the base IRI ``https://kgsvc.local/nobel/`` (the file's IRIs are
relative) after closing the one unterminated statement of the published file, then indexed. The questions are
``kgsvc/eval/questions/nobel.jsonl`` (README there), asked through ``KG.ask`` with the exemplar setting given:
``"0"`` (none) or ``"12"`` (the fixed ``kgsvc/eval/exemplars/nobel.jsonl``, written into the dataset's exemplar
file as a user would).

Scoring: a lookup question is right when the top answer's RDF term (N-Triples) is one of the recorded
``answer_terms`` (names are not unique), with the tie rule of :func:`kgsvc.eval.harness.tie_credit` on terms; a
count, yes/no or comparison question (no answer terms) when the answer text or top answer label equals the
recorded answer (``"yes"``, ``"no"``, a number). Accuracy is reported by kind.

Entry point: :func:`run_nobel`.
"""

from __future__ import annotations

import gzip
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgsvc.eval.data import data_root
from kgsvc.eval.harness import FIXED_EXEMPLARS, normalise
from kgsvc.qa.result import Answer, AnswerTerm

__all__ = ["BASE_IRI", "QUESTIONS", "NobelReport", "load_nobel", "run_nobel", "score_answer"]

QUESTIONS = Path(__file__).resolve().parent / "questions" / "nobel.jsonl"
BASE_IRI = "https://kgsvc.local/nobel/"
#: The one syntax error of the published file: its VoID block ends with ``;`` and no ``.``.
_UNTERMINATED = b"geoFeatures20040307.owl#>;\n\n<Christopher_A._Sims>"


def _ntriples(a: AnswerTerm) -> str:
    if a.kind == "uri":
        return f"<{a.value}>"
    if a.kind == "bnode":
        return f"_:{a.value}"
    lex = a.value.replace("\\", "\\\\").replace('"', '\\"')
    if a.lang:
        return f'"{lex}"@{a.lang}'
    return f'"{lex}"^^<{a.datatype}>' if a.datatype else f'"{lex}"'


def score_answer(answer: Answer, row: dict[str, Any]) -> float:
    """Credit of ``answer`` for one question row (module docstring): 0..1."""
    terms = set(row["answer_terms"])
    if not answer.grounded:
        return 0.0
    if terms and answer.answers:
        first = answer.answers[0]
        tie = [a for a in answer.answers if abs(a.gsd - first.gsd) <= 1e-9 and a.support == first.support]
        return sum(_ntriples(a) in terms for a in tie) / len(tie)
    wanted = {normalise(a) for a in row["answers"]}
    said = normalise(answer.text.rstrip("."))
    top = normalise(answer.answers[0].label) if answer.answers else ""
    return float(said in wanted or top in wanted or said.split(" ")[0].strip(",:") in wanted)


@dataclass
class NobelReport:
    """Results of the Nobel questions in one exemplar setting."""

    setting: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    setup_s: float = 0.0

    def by_kind(self) -> dict[str, tuple[int, float]]:
        """``kind -> (questions, accuracy)``, plus ``"lookups"`` (the five lookup kinds) and ``"all"``."""
        groups: dict[str, list[float]] = defaultdict(list)
        for r in self.rows:
            groups[r["kind"]].append(r["credit"])
            groups["all"].append(r["credit"])
            if r["kind"] in ("1-hop", "reverse", "2-hop", "3-hop", "two-condition"):
                groups["lookups"].append(r["credit"])
        return {k: (len(v), float(np.mean(v))) for k, v in groups.items()}

    def markdown(self) -> str:
        latency = [r["total_s"] for r in self.rows if r["total_s"] is not None]
        lines = [
            f"### nobel (n = {len(self.rows)}, exemplars {self.setting})",
            "",
            "| kind | n | accuracy |",
            "|---|---|---|",
        ]
        for kind, (n, acc) in sorted(self.by_kind().items()):
            lines.append(f"| {kind} | {n} | {100 * acc:.1f} |")
        if latency:
            lines += ["", f"p50 end to end: {1000 * float(np.percentile(latency, 50)):.0f} ms"]
        return "\n".join(lines)

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / f"nobel-ex{self.setting}"
        with stem.with_suffix(".jsonl").open("w", encoding="utf-8") as handle:
            for r in self.rows:
                handle.write(json.dumps(r, ensure_ascii=False) + "\n")
        md = stem.with_suffix(".md")
        md.write_text(self.markdown() + "\n", encoding="utf-8")
        return md


def load_nobel(kg: Any, folder: Path) -> None:
    """Load the repaired Nobel Turtle into ``kg`` as dataset ``nobel`` and build its index (module docstring).

    Raises
    ------
    FileNotFoundError
        When the shared data folder has no ``nobel/nobel.ttl.gz``.
    """
    raw = gzip.decompress((data_root() / "nobel" / "nobel.ttl.gz").read_bytes())
    if raw.count(_UNTERMINATED) == 1:
        raw = raw.replace(_UNTERMINATED, _UNTERMINATED.replace(b";", b" ;\n.", 1))
    source = folder / "nobel.ttl"
    source.write_bytes(raw)
    kg.load(source, dataset="nobel", base_iri=BASE_IRI)
    kg.build_index("nobel")


def run_nobel(folder: Path, settings: tuple[str, ...] = ("0", "12"), **options: Any) -> list[NobelReport]:
    """Ask every Nobel question in each exemplar setting on a KG kept under ``folder`` (built once, reused).

    Raises
    ------
    ValueError
        For an exemplar setting other than ``"0"`` and ``"12"``.
    """
    import kgsvc
    from kgsvc.qa.exemplars import read_exemplars, write_exemplars
    from kgsvc.settings import Settings

    for s in settings:
        if s not in ("0", "12"):
            raise ValueError(f"exemplars for nobel must be '0' or '12', got {s!r}")
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    folder.mkdir(parents=True, exist_ok=True)
    reports = []
    started = time.perf_counter()
    with kgsvc.KG.open(folder / "data", settings=Settings(auto_index=False)) as kg:
        if "nobel" not in {d.name for d in kg.datasets()}:
            load_nobel(kg, folder)
        setup = time.perf_counter() - started
        exemplar_file = kg.settings.data_dir / "exemplars" / "nobel.jsonl"
        for setting in settings:
            if setting == "12":
                write_exemplars(exemplar_file, read_exemplars(FIXED_EXEMPLARS / "nobel.jsonl"))
            else:
                exemplar_file.unlink(missing_ok=True)
            report = NobelReport(setting, setup_s=setup)
            for row in rows:
                answer = kg.ask(row["question"], dataset="nobel", **options)
                report.rows.append(
                    {
                        "id": row["id"],
                        "kind": row["kind"],
                        "question": row["question"],
                        "gold": row["answers"],
                        "answers": [a.label for a in answer.answers[:5]],
                        "text": answer.text,
                        "credit": score_answer(answer, row),
                        "stage": answer.failed_stage,
                        "pattern": [[t.head, t.relation, t.tail] for t in answer.pattern.triples]
                        if answer.pattern
                        else None,
                        "total_s": answer.timings.get("total"),
                    }
                )
            reports.append(report)
        exemplar_file.unlink(missing_ok=True)
    return reports
