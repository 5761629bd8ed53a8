"""``kgsvc load --name-predicate`` as a user runs it (a real subprocess), and its error for a bad IRI."""

from __future__ import annotations

from pathlib import Path

import kgsvc
from kgsvc.settings import Settings
from tests.cli.test_cli import run

TTL = '@prefix ex: <http://example.org/> .\nex:a ex:called "Alpha" .\n<b> ex:called "Beta" .\n'


def test_load_keeps_the_name_predicates_and_the_default_base(tmp_path: Path) -> None:
    data = tmp_path / "data"
    source = tmp_path / "names.ttl"
    source.write_text(TTL, encoding="utf-8")
    loaded = run(
        "load", str(source), "--dataset", "named", "--name-predicate", "http://example.org/called", data_dir=data
    )
    assert loaded.returncode == 0, loaded.stderr
    bad = run("load", str(source), "--dataset", "other", "--name-predicate", "called", data_dir=data)
    assert bad.returncode == 1
    assert "name predicate 'called' is not an absolute IRI" in bad.stderr
    with kgsvc.KG.open(data, settings=Settings(auto_index=False)) as kg:
        assert kg.catalog.get("named").name_predicates == ["http://example.org/called"]
        subjects = {r["s"].value for r in kg.sparql("SELECT ?s WHERE { ?s ?p ?o }", dataset="named").rows}
        assert subjects == {"http://example.org/a", "https://kgsvc.local/named/b"}
        assert not kg.catalog.exists("other")
