"""What the endpoint reads from SPARQL text before pyoxigraph parses it: a small lexer, no parser.

Entry points:

* :func:`query_form` — ``select``, ``ask``, ``construct`` or ``describe`` (chooses the result formats);
* :func:`has_dataset_clause` — whether a query has ``FROM`` / ``FROM NAMED`` (then the endpoint's default
  dataset does not apply);
* :func:`find_keyword` — where ``SERVICE`` or ``LOAD`` is used, to refuse them (pyoxigraph would fetch the URL);
* :func:`rewrite_update` — scope an update to one dataset graph (``WITH``) and add the protocol's
  ``using-graph-uri`` / ``using-named-graph-uri`` (``USING``).

The keyword check is deliberately conservative, because pyoxigraph's parser is a PEG that backtracks: for
example ``?s ?p 1SERVICE <u> {}`` and ``?o SERVICE:x {}`` both call the service. So every occurrence of the
word, in any letter case, outside comments, string literals and ``<IRIs>`` counts, unless it lies inside a
variable name (``?service``) or inside the local part of a prefixed name before any dot (``sd:Service``).
``\\uXXXX`` escapes are decoded before the check as well. The price: a prefix named ``service:`` or a name
like ``ex:a.service`` is refused too (write the IRI in full).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from kgsvc.errors import QueryError
from kgsvc.store.sparql_lexer import PROLOGUE as _PROLOGUE
from kgsvc.store.sparql_lexer import TOKEN as _TOKEN
from kgsvc.store.sparql_lexer import Token as _Token
from kgsvc.store.sparql_lexer import block_end as _block_end
from kgsvc.store.sparql_lexer import split_operations as _split_operations
from kgsvc.store.sparql_lexer import tokens as _tokens
from kgsvc.store.sparql_lexer import word_at as _word_at

__all__ = ["CACHE_MAX_CHARS", "find_keyword", "has_dataset_clause", "query_form", "rewrite_update"]

_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_FORMS = {"SELECT": "select", "ASK": "ask", "CONSTRUCT": "construct", "DESCRIBE": "describe"}


#: Texts longer than this are not kept in the LRU caches below: 2,048 entries of at most 4 KiB each, not of
#: whatever size a client sends (a long text is rare, and lexing it again costs little next to running it).
CACHE_MAX_CHARS = 4_096


def query_form(query: str) -> str | None:
    """The form of a query, or ``None`` if the text does not start like one (pyoxigraph then says why).

    >>> query_form("PREFIX ex: <http://e/> # a comment\\nconstruct WHERE { ?s ?p ?o }")
    'construct'
    >>> query_form("INSERT DATA { <a:b> <a:c> 1 }") is None
    True
    """
    return _query_form_cached(query) if len(query) <= CACHE_MAX_CHARS else _query_form(query)


def _query_form(query: str) -> str | None:
    tokens = _tokens(query)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.kind == "word" and token.upper in _PROLOGUE:
            i += 3 if token.upper == "PREFIX" else 2
            continue
        return _FORMS.get(token.upper) if token.kind == "word" else None
    return None


_query_form_cached = lru_cache(maxsize=2048)(_query_form)


def has_dataset_clause(query: str) -> bool:
    """Whether the query names its own dataset with ``FROM`` or ``FROM NAMED``.

    >>> has_dataset_clause("SELECT * FROM <urn:g> { ?s ?p ?o }"), has_dataset_clause("SELECT * { ?from ?p 'FROM' }")
    (True, False)
    """
    return _has_dataset_clause_cached(query) if len(query) <= CACHE_MAX_CHARS else _has_dataset_clause(query)


def _has_dataset_clause(query: str) -> bool:
    return any(t.kind == "word" and t.upper == "FROM" for t in _tokens(query))


_has_dataset_clause_cached = lru_cache(maxsize=2048)(_has_dataset_clause)


def find_keyword(text: str, keyword: str) -> tuple[int, int] | None:
    """Line and column (1-based) of the first use of ``keyword`` that SPARQL could read as the keyword.

    Conservative (see the module docstring): a false alarm is possible, a miss is not meant to be.

    >>> find_keyword("SELECT * { ?s ?p 1SERVICE <http://x/> { ?a ?b ?c } }", "SERVICE")
    (1, 19)
    >>> find_keyword("SELECT ?service { ?service a sd:Service ; <http://x/service> 'SERVICE' }", "service") is None
    True
    """
    for candidate in (text, _UCHAR.sub(_decode_uchar, text)):
        found = _find_keyword(candidate, keyword.lower())
        if found is not None:
            offset = found
            line = candidate.count("\n", 0, offset) + 1
            column = offset - (candidate.rfind("\n", 0, offset) + 1) + 1
            return line, column
    return None


def _decode_uchar(match: re.Match[str]) -> str:
    try:
        return chr(int(match.group(1) or match.group(2), 16))
    except ValueError:  # beyond U+10FFFF
        return match.group()


def _find_keyword(text: str, keyword: str) -> int | None:
    lowered = text.lower()
    if keyword not in lowered:
        return None
    safe: list[tuple[int, int]] = []  # spans where an occurrence is not the keyword
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("comment", "string", "iri", "var", "escape"):
            safe.append(match.span())
        elif kind == "pname" and match.group("local"):
            safe.append(match.span("local"))
    position = lowered.find(keyword)
    while position >= 0:
        end = position + len(keyword)
        if not any(start <= position and end <= stop for start, stop in safe):
            return position
        position = lowered.find(keyword, position + 1)
    return None


def rewrite_update(
    update: str,
    *,
    graph: str | None = None,
    named: Sequence[str] = (),
    using: Sequence[str] = (),
    using_named: Sequence[str] = (),
) -> str:
    """Scope ``update`` to the dataset of default graph ``graph`` and named graphs ``named``, and/or add
    ``USING`` / ``USING NAMED`` clauses.

    With ``graph``, every operation that addresses the default graph addresses ``<graph>`` instead, and no
    operation reaches a graph outside ``graph`` and ``named`` through ``ALL``, ``NAMED`` or a variable:

    * ``INSERT DATA {X}`` becomes ``WITH <graph> INSERT {X} WHERE {}``, ``DELETE DATA`` likewise;
    * ``DELETE WHERE {X}`` becomes ``WITH <graph> DELETE {X} USING <graph> USING NAMED <n>… WHERE {X}``;
    * ``DELETE/INSERT … WHERE`` gets ``WITH <graph>`` (unless it has its own ``WITH``) and, unless it has its own
      ``USING``, ``USING <default> USING NAMED <n>…`` (so ``GRAPH ?g`` in ``WHERE`` ranges over ``named`` only);
      a variable in a template's graph position is bound to ``named`` by a ``FILTER(?g IN (…))`` around ``WHERE``;
    * ``DEFAULT`` in ``CLEAR``, ``DROP``, ``ADD``, ``MOVE``, ``COPY`` becomes ``GRAPH <graph>`` (``CLEAR``/``DROP
      DEFAULT`` also get ``SILENT``: the dataset's graph always exists);
    * ``CLEAR``/``DROP`` ``NAMED`` becomes one ``SILENT`` operation per graph of ``named`` (none:
      ``INSERT DATA {}``), ``ALL`` the same plus ``graph``.

    The graphs an update names (``GRAPH <g>``, ``USING``, ``WITH``, ``INTO``…) are left as written: the caller
    checks them (:mod:`kgsvc.api.scope`) and passes in ``named`` every graph of the dataset they may reach.

    ``using`` / ``using_named`` (the protocol's ``using-graph-uri`` / ``using-named-graph-uri``) are added to every
    ``DELETE/INSERT … WHERE``; an operation with its own ``USING`` or ``WITH`` is an error (SPARQL 1.1 Protocol §2.2.3).

    Raises
    ------
    QueryError
        ``kind="syntax"`` for what cannot be rewritten (unbalanced braces, an unknown operation, USING conflicts).

    Examples
    --------
    >>> rewrite_update("INSERT DATA { <a:s> <a:p> 1 }", graph="urn:g")
    'WITH <urn:g> INSERT { <a:s> <a:p> 1 } WHERE {}'
    >>> rewrite_update("DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", using=["urn:u"])
    'DELETE { ?s ?p ?o } USING <urn:u> WHERE { ?s ?p ?o }'
    >>> rewrite_update("DROP ALL", graph="urn:g", named=["u:n"])
    'DROP SILENT GRAPH <urn:g> ; DROP SILENT GRAPH <u:n>'
    """
    if graph is None and not using and not using_named:
        return update
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) on the original text
    using_text = "".join(f"USING <{iri}> " for iri in using) + "".join(f"USING NAMED <{iri}> " for iri in using_named)
    with_text = f"WITH <{graph}> " if graph is not None else ""
    named_text = "".join(f"USING NAMED <{iri}> " for iri in named)
    target = f"GRAPH <{graph}>"
    for op in _split_operations(_tokens(update)):
        i = 0
        while _word_at(op, i) in _PROLOGUE:
            i += 3 if _word_at(op, i) == "PREFIX" else 2
        if i >= len(op):
            continue
        keyword, following = _word_at(op, i), _word_at(op, i + 1)
        if keyword in ("INSERT", "DELETE") and following == "DATA":
            if graph is not None:
                close = _block_end(op, i + 2)
                edits.append((op[i].start, op[i + 1].end, f"{with_text}{keyword}"))
                edits.append((op[close].end, op[close].end, " WHERE {}"))
        elif keyword == "DELETE" and following == "WHERE":
            close = _block_end(op, i + 2)
            block = update[op[i + 2].start : op[close].end]
            dataset = using_text or (f"USING <{graph}> {named_text}" if graph is not None else "")
            edits.append((op[i].start, op[i + 1].end, f"{with_text}DELETE"))
            edits.append((op[close].end, op[close].end, f" {dataset}WHERE {block}"))
        elif keyword in ("INSERT", "DELETE", "WITH"):
            _modify(
                op,
                i,
                update,
                edits,
                with_text=with_text if keyword != "WITH" else "",
                using_text=using_text,
                scoped=(graph, named) if graph is not None else None,
            )
        elif keyword in ("CLEAR", "DROP", "ADD", "MOVE", "COPY", "LOAD", "CREATE"):
            if graph is None:
                continue
            words = {t.upper for t in op[i:] if t.kind == "word"}
            if keyword in ("CLEAR", "DROP") and words & {"ALL", "NAMED"}:
                graphs = [*([graph] if "ALL" in words else []), *named]
                each = " ; ".join(f"{keyword} SILENT GRAPH <{iri}>" for iri in graphs) or "INSERT DATA {}"
                edits.append((op[i].start, op[-1].end, each))
                continue
            for token in op[i:]:
                if token.kind == "word" and token.upper == "DEFAULT":
                    edits.append((token.start, token.end, target))
            if keyword in ("CLEAR", "DROP") and _word_at(op, i + 1) == "DEFAULT":
                # the dataset's graph is its default graph, which always exists: clearing it cannot fail
                edits.append((op[i].end, op[i].end, " SILENT"))
            if keyword == "LOAD" and "INTO" not in words:
                edits.append((op[-1].end, op[-1].end, f" INTO {target}"))
        else:
            raise QueryError(f"cannot read the update operation starting with {op[i].text!r}", kind="syntax")
    text = update
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _modify(
    op: list[_Token],
    i: int,
    update: str,
    edits: list[tuple[int, int, str]],
    *,
    with_text: str,
    using_text: str,
    scoped: tuple[str, Sequence[str]] | None,
) -> None:
    """``[WITH g] DELETE {…} INSERT {…} [USING …] WHERE {…}``: add WITH and USING clauses, and with ``scoped``
    (the dataset's default graph and named graphs) keep ``WHERE`` and the templates' graph variables inside it."""
    depth = 0
    where = None
    has_using = False
    variables: list[str] = []  # graph variables of the templates
    for j in range(i, len(op)):
        token = op[j]
        if token.kind == "punct" and token.text in "{}":
            depth += 1 if token.text == "{" else -1
        elif token.kind == "word" and token.upper == "GRAPH" and j + 1 < len(op) and op[j + 1].kind == "var":
            variables.append(op[j + 1].text)
        elif depth == 0 and token.kind == "word":
            if token.upper == "USING":
                has_using = True
            elif token.upper == "WHERE":
                where = j
                break
    if where is None:
        raise QueryError("a DELETE/INSERT operation needs a WHERE clause", kind="syntax", query=update)
    if using_text and (has_using or op[i].upper == "WITH"):
        raise QueryError(
            "using-graph-uri / using-named-graph-uri cannot be combined with USING or WITH in the update",
            kind="syntax",
            query=update,
        )
    if with_text:
        edits.append((op[i].start, op[i].start, with_text))
    if scoped is not None:
        graph, named = scoped
        if not has_using and not using_text:
            default = op[i + 1].text if op[i].upper == "WITH" and i + 1 < len(op) else f"<{graph}>"
            using_text = f"USING {default} " + "".join(f"USING NAMED <{iri}> " for iri in named)
        if variables and where + 1 < len(op):  # BIND or VALUES could bind them to any graph
            close = _block_end(op, where + 1)
            allowed = ", ".join(f"<{iri}>" for iri in named)
            checks = " ".join(f"FILTER(!BOUND({v}) || {v} IN ({allowed}))" for v in dict.fromkeys(variables))
            edits.append((op[where + 1].start, op[where + 1].start, "{ "))
            edits.append((op[close].end, op[close].end, f" {checks} }}"))
    if using_text:
        edits.append((op[where].start, op[where].start, using_text))
