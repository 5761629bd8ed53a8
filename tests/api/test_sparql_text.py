"""The SPARQL lexer: query forms, dataset clauses, the SERVICE/LOAD check and update rewriting.

The SERVICE cases were checked against pyoxigraph 0.5.13 itself: each "dangerous" query below made it send an
HTTP request (to a local listener) when run on a store, so the checker must flag all of them.
"""

from __future__ import annotations

import pytest
from pyoxigraph import QuerySolutions

from kgsvc.api.sparql_text import find_keyword, has_dataset_clause, query_form, rewrite_update
from kgsvc.errors import QueryError
from kgsvc.store import EmbeddedStore
from kgsvc.store.sparql_lexer import tokens

DANGEROUS = [
    "SELECT * { SERVICE <http://h/> { ?s ?p ?o } }",
    "select * { service silent <http://h/> { ?s ?p ?o } }",
    "SELECT * { ?s ?p 1SERVICE <http://h/> { ?a ?b ?c } }",
    "SELECT * { ?s ?p 1.SERVICE <http://h/> { ?a ?b ?c } }",
    "PREFIX : <http://h/> SELECT * { ?s ?p ?o SERVICE:q { ?a ?b ?c } }",
    "SELECT * { ?s ?p ?o FILTER(true)SERVICE<http://h/>{ ?a ?b ?c } }",
    "SELECT * { ?s ?p ?o FILTER(?o<?q)SERVICE<http://h/>{} }",
    "SELECT * { ?s ?p ex:a\\#SERVICE <http://h/> { ?a ?b ?c } }",
    "SELECT * { ?s ?p 'it''s' SERVICE <http://h/> {} }",
    "SELECT * { ?s ?p '''a''''SERVICE <http://h/> {} }",
    "SELECT * { ?s ?p ex:o.SERVICE <http://h/> { ?a ?b ?c } }",
    "SELECT * { ?s ?p ?o \\u0053ERVICE <http://h/> { ?a ?b ?c } }",
    "SELECT * { ?s ?p ?o } # comment\nSERVICE",
    'SELECT * { ?s ?p "a\\"" SERVICE <http://h/> {} }',
]
HARMLESS = [
    "SELECT ?service { ?service a sd:Service ; <http://x/service> 'SERVICE' } # SERVICE",
    'SELECT * { ?s <http://h/p> """SERVICE""" ; schema:serviceType ?x ; ex:ServiceLevel $service }',
    "SELECT * { _:service ?p ?o }",
]


@pytest.mark.parametrize("query", DANGEROUS)
def test_every_use_of_service_is_found(query: str) -> None:
    assert find_keyword(query, "SERVICE") is not None


@pytest.mark.parametrize("query", HARMLESS)
def test_names_strings_iris_and_comments_are_not_service(query: str) -> None:
    assert find_keyword(query, "SERVICE") is None


def test_load_is_found_but_not_inside_names() -> None:
    assert find_keyword("LOAD <http://h/x>", "LOAD") == (1, 1)
    assert find_keyword("INSERT DATA { <a:b> <a:c> 1 } ;\n  load silent <file:///etc/passwd>", "LOAD") == (2, 3)
    assert find_keyword("INSERT DATA { ex:download ex:payload ?load }", "LOAD") is None


def test_the_dangerous_queries_parse_in_pyoxigraph() -> None:
    """Guard for the test data: pyoxigraph accepts the dangerous queries that are valid SPARQL to it."""
    store = EmbeddedStore()
    for query in DANGEROUS[:7]:
        # SERVICE to port 9, which pyoxigraph refuses to call: nothing is fetched
        unreachable = query.replace("<http://h/>", "<http://127.0.0.1:9/>").replace(
            "PREFIX : <http://h/>", "PREFIX : <http://127.0.0.1:9/>"
        )
        try:
            solutions = store.query(unreachable)  # parsing happens here: a syntax error is a QueryError
        except QueryError as exc:
            raise AssertionError(f"{query!r} does not parse: {exc}") from exc
        assert isinstance(solutions, QuerySolutions), query
        try:
            rows = list(solutions)  # evaluation; a SERVICE that is reached is refused (port 9)
        except OSError as exc:
            assert "port 9 is not allowed" in str(exc) and "silent" not in query.lower(), query
        else:
            assert len(rows) <= 1, query  # the empty graph pattern's one row at most


@pytest.mark.parametrize(
    ("query", "form"),
    [
        ("SELECT * {}", "select"),
        ("  # c\nPREFIX ex: <http://e/>\nBASE <http://b/>\nask {}", "ask"),
        ("CONSTRUCT WHERE { ?s ?p ?o }", "construct"),
        ("DESCRIBE <http://e/x>", "describe"),
        ("INSERT DATA { <a:b> <a:c> 1 }", None),
        ("", None),
    ],
)
def test_query_form(query: str, form: str | None) -> None:
    assert query_form(query) == form


def test_dataset_clause() -> None:
    assert has_dataset_clause("SELECT * FROM NAMED <urn:g> { GRAPH ?g { ?s ?p ?o } }")
    assert not has_dataset_clause("SELECT * { ?s <http://e/from> 'from' . ?from ?p ?o }")


def test_tokens_skip_comments_and_keep_positions() -> None:
    text = "SELECT ?x # note\n{ ?x ex:p 'y' }"
    kinds = [(t.kind, t.text) for t in tokens(text)]
    assert kinds == [
        ("word", "SELECT"),
        ("var", "?x"),
        ("punct", "{"),
        ("var", "?x"),
        ("pname", "ex:p"),
        ("string", "'y'"),
        ("punct", "}"),
    ]


@pytest.mark.parametrize(
    ("update", "expected"),
    [
        ("INSERT DATA { <a:s> <a:p> 1 }", "WITH <urn:g> INSERT { <a:s> <a:p> 1 } WHERE {}"),
        ("delete data { <a:s> <a:p> 1 }", "WITH <urn:g> DELETE { <a:s> <a:p> 1 } WHERE {}"),
        (
            "DELETE WHERE { ?s ?p 1 }",
            "WITH <urn:g> DELETE { ?s ?p 1 } USING <urn:g> USING NAMED <urn:n> WHERE { ?s ?p 1 }",
        ),
        (
            "DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
            "WITH <urn:g> DELETE { ?s ?p ?o } USING <urn:g> USING NAMED <urn:n> WHERE { ?s ?p ?o }",
        ),
        (
            "WITH <urn:x> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
            "WITH <urn:x> DELETE { ?s ?p ?o } USING <urn:x> USING NAMED <urn:n> WHERE { ?s ?p ?o }",
        ),
        (
            "DELETE { GRAPH ?g { ?s ?p ?o } } USING <urn:x> WHERE { BIND(<urn:y> AS ?g) }",
            "WITH <urn:g> DELETE { GRAPH ?g { ?s ?p ?o } } USING <urn:x> "
            "WHERE { { BIND(<urn:y> AS ?g) } FILTER(!BOUND(?g) || ?g IN (<urn:n>)) }",
        ),
        ("DROP SILENT ALL", "DROP SILENT GRAPH <urn:g> ; DROP SILENT GRAPH <urn:n>"),
        ("CLEAR NAMED", "CLEAR SILENT GRAPH <urn:n>"),
        ("CLEAR DEFAULT", "CLEAR SILENT GRAPH <urn:g>"),
        ("COPY DEFAULT TO <urn:b>", "COPY GRAPH <urn:g> TO <urn:b>"),
        (
            "PREFIX ex: <http://e/> INSERT DATA { ex:a ex:b 1 } ; CLEAR SILENT GRAPH <urn:x>",
            "PREFIX ex: <http://e/> WITH <urn:g> INSERT { ex:a ex:b 1 } WHERE {} ; CLEAR SILENT GRAPH <urn:x>",
        ),
        ("INSERT DATA { <a:s> <a:p> '}' }", "WITH <urn:g> INSERT { <a:s> <a:p> '}' } WHERE {}"),
    ],
)
def test_scoping_an_update_to_a_dataset(update: str, expected: str) -> None:
    assert rewrite_update(update, graph="urn:g", named=["urn:n"]) == expected


def test_a_dataset_without_named_graphs_has_nothing_to_clear() -> None:
    assert rewrite_update("CLEAR NAMED", graph="urn:g") == "INSERT DATA {}"
    assert rewrite_update("DROP ALL ; DROP NAMED", graph="urn:g") == "DROP SILENT GRAPH <urn:g> ; INSERT DATA {}"


def test_scoped_updates_do_what_they_say_on_a_store() -> None:
    store = EmbeddedStore()
    store.update("INSERT DATA { <a:keep> <a:p> 1 }")  # in the store's default graph: must stay untouched
    for update in (
        "INSERT DATA { <a:s> <a:p> 1, 2 . GRAPH <urn:other> { <a:s> <a:p> 3 } }",
        "DELETE DATA { <a:s> <a:p> 2 }",
        "INSERT { ?s <a:q> ?o } WHERE { ?s <a:p> ?o }",
    ):
        store.update(rewrite_update(update, graph="urn:g"))
    assert store.count("urn:g") == 2 and store.count("urn:other") == 1
    store.update(rewrite_update("DELETE WHERE { ?s <a:q> ?o }", graph="urn:g"))
    assert store.count("urn:g") == 1
    store.update(rewrite_update("CLEAR DEFAULT", graph="urn:g"))
    assert store.count("urn:g") == 0 and store.count("urn:other") == 1
    assert bool(store.query("ASK { <a:keep> <a:p> 1 }"))


def test_using_clauses_and_their_conflicts() -> None:
    assert rewrite_update("DELETE WHERE { ?s ?p ?o }", using=["urn:u"], using_named=["urn:n"]) == (
        "DELETE { ?s ?p ?o } USING <urn:u> USING NAMED <urn:n> WHERE { ?s ?p ?o }"
    )
    assert rewrite_update("INSERT DATA { <a:s> <a:p> 1 }", using=["urn:u"]) == "INSERT DATA { <a:s> <a:p> 1 }"
    for update in (
        "DELETE { ?s ?p ?o } USING <urn:x> WHERE { ?s ?p ?o }",
        "WITH <urn:x> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    ):
        with pytest.raises(QueryError, match="cannot be combined"):
            rewrite_update(update, using=["urn:u"])


@pytest.mark.parametrize(
    ("update", "kind"),
    [
        ("INSERT DATA { <a:s> <a:p> 1", "syntax"),
        ("FROB <urn:x>", "syntax"),
        ("DELETE { ?s ?p ?o }", "syntax"),
    ],
)
def test_updates_that_cannot_be_scoped(update: str, kind: str) -> None:
    with pytest.raises(QueryError) as caught:
        rewrite_update(update, graph="urn:g")
    assert caught.value.kind == kind


def test_long_texts_stay_out_of_the_lru_caches() -> None:
    from kgsvc.api import sparql_text

    long = "SELECT * WHERE { ?s ?p ?o } #" + "x" * (sparql_text.CACHE_MAX_CHARS + 1)
    before = sparql_text._query_form_cached.cache_info().currsize, sparql_text._has_dataset_clause_cached.cache_info()
    assert sparql_text.query_form(long) == "select" and not sparql_text.has_dataset_clause(long)
    after = sparql_text._query_form_cached.cache_info().currsize, sparql_text._has_dataset_clause_cached.cache_info()
    assert after[0] == before[0] and after[1].currsize == before[1].currsize
    short = f"ASK {{ ?s ?p {len(long)} }}"
    assert sparql_text.query_form(short) == "ask"
    assert sparql_text._query_form_cached.cache_info().currsize == before[0] + 1
