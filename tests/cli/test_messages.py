"""What a user reads: one line naming what was wrong, in CLI or HTTP terms, never a Python internal."""

from __future__ import annotations

from pathlib import Path

import kgsvc
from tests.cli.serving import cli_env, kgsvc_cmd

INTERNALS = ("Traceback", "KG.build_index", "IndexError_", "submit_train_gnn", "\\u{")


def clean(text: str) -> bool:
    return not any(word in text for word in INTERNALS)


def test_a_failed_load_into_a_new_name_leaves_no_dataset(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\nex:d ex:e .\n")
    failed = kgsvc_cmd("load", str(bad), "--dataset", "fresh", env=env)
    assert failed.returncode == 1 and "bad.ttl:3:" in failed.stderr and clean(failed.stderr)
    assert "fresh" not in kgsvc_cmd("datasets", env=env).stdout
    unknown = kgsvc_cmd("stats", "fresh", env=env)
    assert unknown.returncode == 1 and "unknown dataset 'fresh'" in unknown.stderr
    # into an existing dataset, a failed load leaves it (and its triples) as it was
    assert kgsvc_cmd("load", str(kgsvc.sample_path()), "--dataset", "kept", "--no-wait", env=env).returncode == 0
    again = kgsvc_cmd("load", str(bad), "--dataset", "kept", env=env)
    assert again.returncode == 1
    counted = kgsvc_cmd("sparql", "kept", "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", "--format", "csv", env=env)
    assert counted.stdout.split() == ["n", "615"]


def test_bad_options_and_inputs_get_one_clean_line(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    loaded = kgsvc_cmd("load", str(kgsvc.sample_path()), "--dataset", "movies", "--no-wait", env=env)
    assert loaded.returncode == 0, loaded.stderr
    assert "kgsvc index movies" in loaded.stdout  # --no-wait, embedded: says how to build the index later

    dump = kgsvc_cmd("dump", "movies", "--format", "turtle2", env=env)
    assert dump.returncode == 2 and clean(dump.stderr)
    assert "'turtle2'" in dump.stderr and "nt, ttl" in dump.stderr

    update = kgsvc_cmd("update", 'INSERT DATA { GRAPH <urn:kgsvc:dataset:movies> { <urn:x> <urn:p> "y" } ', env=env)
    assert update.returncode == 1 and clean(update.stderr)
    assert update.stderr.startswith("error: error at 1:") and "more)" in update.stderr
    assert len(update.stderr) < 200, update.stderr

    not_indexed = kgsvc_cmd("ask", "who directed Paprika", "-D", "movies", env=env)
    assert not_indexed.returncode == 1 and clean(not_indexed.stderr)
    assert "kgsvc index movies" in not_indexed.stderr

    no_gnn = kgsvc_cmd("index", "movies", env=env)
    assert no_gnn.returncode == 0 and "indexed movies: index v1" in no_gnn.stdout
    similar = kgsvc_cmd("similar", "https://kgsvc.local/sample/film_Paprika", "-D", "movies", env=env)
    assert similar.returncode == 1 and clean(similar.stderr) and "KGSVC_GNN_TRAIN=true" in similar.stderr

    missing = kgsvc_cmd("load", str(tmp_path / "nope.ttl"), "--dataset", "movies", env=env)
    assert missing.returncode == 1 and "nope.ttl: no such file" in missing.stderr

    port = kgsvc_cmd("serve", "--port", "70000", env=env)
    assert port.returncode == 2 and clean(port.stderr)
    level = kgsvc_cmd("serve", "--log-level", "loud", env=env)
    assert level.returncode == 2 and clean(level.stderr)
