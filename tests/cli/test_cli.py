"""The CLI as a user runs it: a real subprocess, real exit codes and messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import kgsvc


def run(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KGSVC_DATA_DIR": str(data_dir), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "kgsvc", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_load_list_stats_query_dump_drop(tmp_path: Path) -> None:
    data = tmp_path / "data"
    loaded = run("load", str(kgsvc.sample_path()), "--dataset", "movies", data_dir=data)
    assert loaded.returncode == 0, loaded.stderr
    assert "+615 triples" in loaded.stdout
    assert "movies" in run("datasets", data_dir=data).stdout
    stats = run("stats", "movies", data_dir=data)
    assert stats.returncode == 0 and "615" in stats.stdout
    query = (
        "SELECT ?l WHERE { ?f <https://kgsvc.local/sample/directedBy> ?d . "
        "?d <http://www.w3.org/2000/01/rdf-schema#label> ?l } ORDER BY ?l LIMIT 2"
    )
    as_json = run("sparql", "movies", query, "--format", "json", data_dir=data)
    assert as_json.returncode == 0, as_json.stderr
    rows = json.loads(as_json.stdout)["rows"]
    assert [r["l"]["value"] for r in rows] == ["Akira Kurosawa", "Akira Kurosawa"]
    as_csv = run("sparql", "movies", query, "--format", "csv", data_dir=data)
    assert as_csv.stdout.splitlines()[0] == "l"
    dumped = run("dump", "movies", data_dir=data)
    assert dumped.stdout.count("\n") == 615
    assert run("drop", "movies", "--yes", data_dir=data).returncode == 0
    assert "movies" not in run("datasets", data_dir=data).stdout


def test_errors_have_clear_messages_and_exit_codes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix ex: <http://ex/> .\nex:a ex:b .\n")
    result = run("load", str(bad), "--dataset", "x", data_dir=data)
    assert result.returncode == 1
    assert result.stderr.strip().startswith("error:") and "bad.ttl:2:" in result.stderr
    unknown = run("sparql", "nope", "SELECT * { ?s ?p ?o }", data_dir=data)
    assert unknown.returncode == 1 and "unknown dataset 'nope'" in unknown.stderr
    run("load", str(kgsvc.sample_path()), "--dataset", "x", data_dir=data)
    syntax = run("sparql", "x", "SELECT * WHERE { ?s ?p }", data_dir=data)
    assert syntax.returncode == 1 and "error" in syntax.stderr
    usage = run("sparql", "x", "SELECT 1", "--format", "yaml", data_dir=data)
    assert usage.returncode == 2


def test_similar_lists_the_nearest_entities_by_gnn_embedding(tmp_path: Path) -> None:
    data = tmp_path / "data"
    gnn = {"dim": 16, "epochs": 4, "batch_size": 512, "valid_fraction": 0.1, "test_fraction": 0.1}
    settings = kgsvc.Settings(data_dir=data, auto_index=True, gnn_train=True, gnn_options=gnn)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="movies")
        kg.wait(600)  # the index build, then the GNN training
        expected = kg.similar("https://kgsvc.local/sample/film_Paprika", dataset="movies", k=3)
    result = run(
        "similar", "https://kgsvc.local/sample/film_Paprika", "-D", "movies", "-k", "3", "--json", data_dir=data
    )
    assert result.returncode == 0, result.stderr
    assert [row["term"]["value"] for row in json.loads(result.stdout)] == [n.term.value for n in expected]
    table = run("similar", "https://kgsvc.local/sample/film_Paprika", "-D", "movies", "-k", "2", data_dir=data)
    assert table.returncode == 0 and expected[0].label in table.stdout
    missing = run("similar", "https://kgsvc.local/sample/film_Nope", "-D", "movies", data_dir=data)
    assert missing.returncode == 1 and "is not a node of dataset 'movies'" in missing.stderr


def test_exemplars_add_list_remove(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert run("load", str(kgsvc.sample_path()), "--dataset", "movies", data_dir=data).returncode == 0
    row = {
        "question": "who made the film Paprika",
        "entities": ["Paprika"],
        "triples": [["Paprika", "directed by", "?x"]],
        "answer": "?x",
    }
    good = tmp_path / "ex.jsonl"
    good.write_text(json.dumps(row) + "\n", encoding="utf-8")
    added = run("exemplars", "add", str(good), "-D", "movies", data_dir=data)
    assert added.returncode == 0 and "movies has 1" in added.stdout, added.stderr
    listed = run("exemplars", "list", "-D", "movies", "--json", data_dir=data)
    assert json.loads(listed.stdout.strip())["question"] == row["question"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**row, "answer": "Paprika"}) + "\n", encoding="utf-8")
    refused = run("exemplars", "add", str(bad), "-D", "movies", data_dir=data)
    assert (
        refused.returncode == 1
        and "exemplar 1 is not valid" in refused.stderr
        and "nothing was added" in refused.stderr
    )
    assert "Traceback" not in refused.stderr and str(tmp_path) not in refused.stderr
    removed = run("exemplars", "remove", str(row["question"]), "-D", "movies", data_dir=data)
    assert removed.returncode == 0 and "removed 1" in removed.stdout
    assert run("exemplars", "remove", str(row["question"]), "-D", "movies", data_dir=data).returncode == 1
    unknown = run("exemplars", "list", "-D", "nope", data_dir=data)
    assert unknown.returncode == 1 and "nope" in unknown.stderr
