"""Property test of the SERVICE/LOAD scanner (:func:`kgsvc.api.sparql_text.find_keyword`) against pyoxigraph.

Texts are drawn from a small grammar of SPARQL fragments: SERVICE blocks and LOAD operations in every letter case,
behind prefixed names (``service:x``, ``:x``), next to comments, strings, IRIs, variables and prefixed names that
spell the keyword, and ``\\uXXXX`` escapes. The oracle is pyoxigraph itself: each text is run on a one-triple
in-memory store where every remote IRI is ``http://127.0.0.1:9/…``, a port pyoxigraph refuses to fetch from
("The port 9 is not allowed"), so nothing leaves the machine and the error says the text *did* reach a SERVICE or
LOAD. The property: whenever pyoxigraph reaches one, the scanner has refused the text.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st

from kgsvc.api.sparql_text import find_keyword
from kgsvc.errors import StoreError
from kgsvc.store import EmbeddedStore

REMOTE = "http://127.0.0.1:9/"
_REFUSED = "port 9 is not allowed"

PROLOGUE = [
    f"PREFIX sv: <{REMOTE}>",
    f"PREFIX service: <{REMOTE}>",
    f"PREFIX load: <{REMOTE}>",
    f"PREFIX : <{REMOTE}>",
    "PREFIX sd: <http://www.w3.org/ns/sparql-service-description#>",
    f"BASE <{REMOTE}>",
]
KEYWORD = st.sampled_from(["SERVICE", "service", "Service", "sErViCe", "\\u0053ERVICE", "SERV\\u0049CE"])
TARGET = st.sampled_from([f"<{REMOTE}>", "sv:", "sv:x", ":x", ":", "service:x", "load:x", "<>", "<x>"])
NOISE = st.sampled_from(
    [
        "# SERVICE <http://127.0.0.1:9/> { ?s ?p ?o }\n",
        "#LOAD <http://127.0.0.1:9/x>\n",
        "FILTER(?o != 'SERVICE')",
        'FILTER(?o != """LOAD <x> SERVICE""")',
        "?service ?load ?o .",
        "?s <http://e/service> ?o .",
        "?s sd:Service ?o .",
        "?s sd:endpoint sd:load .",
        "BIND('service' AS ?x)",
        "?s ?p ?o .",
        "",
    ]
)
SEPARATOR = st.sampled_from([" ", "\n", "\t", "", " # comment\n"])


def service(draw: st.DrawFn) -> str:
    return f"{draw(KEYWORD)}{draw(SEPARATOR) or ' '}{draw(TARGET)}{draw(SEPARATOR)}{{ ?s ?p ?o }}"


@st.composite
def group(draw: st.DrawFn, depth: int = 0) -> str:
    """``{ … }``: noise, SERVICE blocks and nested OPTIONAL / UNION groups."""
    parts = [service(draw)] if depth == 0 else []  # one SERVICE at least, somewhere in the top group
    for _ in range(draw(st.integers(0, 3))):
        choice = draw(st.integers(0, 3 if depth < 2 else 1))
        if choice == 0:
            parts.append(draw(NOISE))
        elif choice == 1:
            parts.append(service(draw))
        elif choice == 2:
            parts.append(f"OPTIONAL {draw(group(depth + 1))}")
        else:
            parts.append(f"{draw(group(depth + 1))} UNION {draw(group(depth + 1))}")
    parts = draw(st.permutations(parts))
    return "{ " + draw(SEPARATOR).join(parts) + " }"


@st.composite
def query(draw: st.DrawFn) -> str:
    prologue = " ".join(draw(st.permutations(PROLOGUE)))
    return f"{prologue}{draw(SEPARATOR)}SELECT * WHERE {draw(group())}"


@st.composite
def update(draw: st.DrawFn) -> str:
    prologue = " ".join(draw(st.permutations(PROLOGUE)))
    load = draw(st.sampled_from(["LOAD", "load", "LoAd", "\\u004COAD"]))
    operations = [
        f"{load}{draw(SEPARATOR) or ' '}{draw(TARGET)}",
        f"INSERT {{ <urn:a> <urn:b> ?o }} WHERE {draw(group())}",
        "INSERT DATA { <urn:a> <urn:b> 'LOAD <http://127.0.0.1:9/x>' }",
        "DELETE WHERE { ?s <http://e/load> ?o }",
    ]
    chosen = draw(st.lists(st.sampled_from(operations), min_size=1, max_size=3))
    return prologue + draw(SEPARATOR) + " ;\n".join(chosen)


def reaches_remote(text: str, *, is_update: bool) -> bool:
    """Whether pyoxigraph, running ``text`` on a one-triple store, tried to fetch from the refused port.

    The triple ``<urn:s> <urn:p> 1`` makes ``?s ?p ?o`` and ``?s ?p 1`` match, so a SERVICE joined after them runs.
    """
    store = EmbeddedStore()
    store.update("INSERT DATA { <urn:s> <urn:p> 1 }")
    try:
        if is_update:
            store.update(text)
        else:
            result = store.query(text)
            list(result)  # type: ignore[arg-type]
    except (StoreError, OSError) as exc:  # a lazy result raises pyoxigraph's own OSError while it is read
        return _REFUSED in str(exc)
    return False


def refused(text: str) -> bool:
    return find_keyword(text, "SERVICE") is not None or find_keyword(text, "LOAD") is not None


@pytest.mark.parametrize(
    ("text", "is_update"),
    [
        (f"SELECT * WHERE {{ SERVICE <{REMOTE}> {{ ?s ?p ?o }} }}", False),
        (f"PREFIX service: <{REMOTE}> SELECT * {{ ?s ?p 1SERVICE service:x {{ }} }}", False),
        (f"LOAD <{REMOTE}x>", True),
    ],
)
def test_the_oracle_sees_service_and_load(text: str, is_update: bool) -> None:
    assert reaches_remote(text, is_update=is_update)
    assert refused(text)


@seed(20)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=query())
def test_every_query_that_reaches_a_service_is_refused(text: str) -> None:
    reached = reaches_remote(text, is_update=False)
    event(f"reaches SERVICE: {reached}")
    if reached:
        assert refused(text), text


@seed(20)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=update())
def test_every_update_that_loads_or_reaches_a_service_is_refused(text: str) -> None:
    reached = reaches_remote(text, is_update=True)
    event(f"reaches LOAD/SERVICE: {reached}")
    if reached:
        assert refused(text), text
