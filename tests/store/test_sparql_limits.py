"""SPARQL texts that crash pyoxigraph (stack overflow) or make it backtrack for seconds are refused before parsing.

Each bomb below is at or past the size that crashed a process in the probes of :mod:`kgsvc.store.sparql_limits`:
if the check let one through, the test process itself would die, which fails the run.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kgsvc
from kgsvc.errors import QueryError
from kgsvc.store import EmbeddedStore, check_sparql
from kgsvc.store.sparql_limits import sparql_depth

_TRIPLE = "{ ?s ?p ?o }"
BOMBS = {
    "groups": "SELECT * WHERE " + "{" * 3000 + "}" * 3000,
    "update groups": "INSERT { <urn:a> <urn:b> <urn:c> } WHERE " + "{" * 3000 + "}" * 3000,
    "function calls": "SELECT * WHERE { BIND(" + "CONCAT(" * 1000 + "'a'" + ")" * 1000 + " AS ?x) }",
    "exists": "SELECT * WHERE { FILTER(" + "EXISTS { FILTER(" * 800 + "true" + ") }" * 800 + ") }",
    "bnode lists": "SELECT * WHERE { ?s ?p " + "[ ?p " * 200 + "1" + " ]" * 200 + " }",
    "collections": "SELECT * WHERE { ?s ?p " + "( " * 200 + "1" + " )" * 200 + " }",
    "quoted triples": "ASK { " + "<< " * 300 + "<urn:a> <urn:b> <urn:c>" + " >> <urn:p> <urn:o>" * 300 + " . }",
    "optional chain": "SELECT * WHERE { ?s ?p ?o " + f"OPTIONAL {_TRIPLE} " * 500 + "}",
    "minus chain": "SELECT * WHERE { ?s ?p ?o " + f"MINUS {_TRIPLE} " * 3000 + "}",
    "union chain": "SELECT * WHERE { " + f"{_TRIPLE} UNION " * 7000 + "{} }",
    "sum chain": "SELECT * WHERE { FILTER(" + "1+" * 8000 + "1) }",
    "or chain": "SELECT * WHERE { FILTER(" + "true||" * 10000 + "true) }",
    "not chain": "SELECT * WHERE { FILTER(" + "!" * 10000 + "true) }",
    "bind chain": "SELECT * WHERE { " + " ".join(f"BIND(1 AS ?x{i})" for i in range(3000)) + " }",
    "object list": "SELECT * WHERE { ?s ?p " + ",".join(["1"] * 30000) + " }",
    "division hidden in a relational IRI": "SELECT * WHERE { FILTER((1<1" + "/1" * 8000 + ")>0) }",
}

ORDINARY = [
    "SELECT ?o WHERE { <http://e/a> <http://e/r> ?o }",
    "PREFIX s: <http://schema.org/> SELECT ?n (COUNT(?m) AS ?c) WHERE { ?m s:director ?d . ?d s:name ?n . "
    "OPTIONAL { ?m s:date-published ?y FILTER(?y >= '2000-01-01' && ?y < '2010-01-01') } } GROUP BY ?n",
    "INSERT DATA { GRAPH <urn:kgsvc:dataset:x> { <http://e/a> <http://e/r> ( 1 2 ( 3 [ <http://e/p> 4 ] ) ) } }",
    "SELECT * { " + " ".join(f"<http://ex.org/r/{i}> <http://ex.org/p/q-{i}> ?o{i} ." for i in range(60)) + "}",
]


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bombs_are_refused_before_parsing(name: str) -> None:
    store = EmbeddedStore()
    text = BOMBS[name]
    call = store.update if text.startswith("INSERT") else store.query
    with pytest.raises(QueryError) as caught:
        call(text)
    assert caught.value.kind == "too_complex"
    assert "KGSVC_SPARQL_MAX_" in str(caught.value)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_texts_pass(text: str) -> None:
    check_sparql(text)


def test_limits_follow_the_settings(tmp_path: Path) -> None:
    settings = kgsvc.Settings(data_dir=tmp_path / "d", sparql_max_depth=2, sparql_max_operators=5)
    with kgsvc.KG.open(settings=settings) as kg:
        assert kg.sparql("ASK { ?s ?p ?o }").boolean is False
        with pytest.raises(QueryError, match="3 levels deep; the limit is 2"):
            kg.sparql("ASK { { { ?s ?p ?o } } }")
        with pytest.raises(QueryError, match="the limit is 5"):
            kg.update("INSERT { <urn:a> <urn:b> 1 } WHERE { FILTER(1+1+1+1+1+1) }")


def test_an_unknown_custom_function_is_a_query_error() -> None:
    store = EmbeddedStore()
    with pytest.raises(QueryError, match="custom function") as caught:
        store.query("ASK { BIND(<http://x/f>(1) AS ?x) }")
    assert caught.value.kind == "unsupported"


@pytest.mark.parametrize("command", ["sparql", "update"])
def test_the_cli_prints_one_line_and_exits_1(tmp_path: Path, command: str) -> None:
    with kgsvc.KG.open(tmp_path / "d") as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
    nested = "{" * 3000 + "}" * 3000
    args = ["sparql", "sample", f"SELECT * WHERE {nested}"]
    if command == "update":
        args = ["update", f"INSERT {{ <urn:a> <urn:b> <urn:c> }} WHERE {nested}"]
    done = subprocess.run(
        [sys.executable, "-m", "kgsvc", *args, "--data-dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    assert "3000 levels deep; the limit is 32 (KGSVC_SPARQL_MAX_DEPTH)" in done.stderr
    assert "Traceback" not in done.stderr


def _reference_depth(text: str) -> int:
    """The nesting depth read bracket by bracket (what :func:`sparql_depth` computes with a table)."""
    depth = deepest = 0
    for token in re.findall(r"<<|>>|[{}()\[\]]", text):
        depth = max(0, depth + (1 if token in ("{", "(", "[", "<<") else -1))
        deepest = max(deepest, depth)
    return deepest


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("{}()[]<>x \x01\x02é\U0001f600")), max_size=60))
def test_the_depth_equals_a_bracket_by_bracket_count(text: str) -> None:
    assert sparql_depth(text) == _reference_depth(text)
