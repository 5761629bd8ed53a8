"""The eval harness on a real benchmark slice (WorldCup2014, its real KB) with the real MiniLM model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgsvc.eval.harness import normalise, run_eval, splits


def test_wc2014_slice_is_scored_and_reported(tmp_path: Path) -> None:
    report = run_eval("wc2014", "1hop", limit=8, pool_size=150)
    summary = report.summary()
    assert summary["n"] == 8 and report.n_exemplars > 0
    assert summary["ceiling"] >= summary["strict_hits1"] >= 0.75
    assert summary["lenient_hits1"] >= summary["strict_hits1"]
    assert set(summary["latency"]) >= {"link", "pattern", "match", "answer", "total"}
    # exemplars are never scored: the pool starts after the scored questions
    scored = {r.question for r in report.results}
    md = report.write(tmp_path)
    rows = [json.loads(line) for line in md.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 8 and {r["question"] for r in rows} == scored
    assert "strict Hits@1" in md.read_text(encoding="utf-8")
    for r in report.results:
        assert r.strict == (bool(r.answers) and normalise(r.answers[0]) in {normalise(g) for g in r.gold})
        assert r.strict or r.stage is not None


def test_unknown_split_and_limit_are_rejected() -> None:
    assert splits("metaqa") == ["1-hop", "2-hop", "3-hop"]
    with pytest.raises(ValueError, match="split must be one of"):
        run_eval("metaqa", "4-hop")
    with pytest.raises(ValueError, match="benchmark must be one of"):
        splits("freebase")
    with pytest.raises(ValueError, match="limit must be"):
        run_eval("pq", "2H", limit=0)
