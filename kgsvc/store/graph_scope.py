"""Which graphs a SPARQL update writes and reads, and which graphs a query names, read from its tokens.

pyoxigraph runs an update as one transaction but says nothing about what it touched, so kgsvc reads the graphs
from the text (:mod:`kgsvc.store.sparql_lexer`) — to know which datasets changed (the dataset-changed event) and
to keep a dataset endpoint inside its own dataset. The reading is **conservative**: whatever it cannot pin down
(a variable in graph position, ``CLEAR``/``DROP`` ``ALL`` or ``NAMED``, a relative graph IRI with no ``BASE``, an
operation it does not know) makes :attr:`UpdateScope.every_write` (or :attr:`~UpdateScope.every_read`) true,
and callers then treat every graph as touched. It never parses: a malformed update gives some scope, and the
store's parser then refuses the update anyway.

Entry points: :func:`update_scope` and :func:`query_graphs`.

Notes
-----
Linear in the length of the text (one regular-expression pass, then one pass over the tokens).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urljoin

from kgsvc.errors import QueryError
from kgsvc.store.sparql_lexer import PROLOGUE, Token, block_end, split_operations, tokens, word_at

__all__ = ["UpdateScope", "query_graphs", "update_scope"]

_VAR = "?"  # marks a variable in graph position


@dataclass
class UpdateScope:
    """The graphs an update may write and read.

    ``writes`` / ``reads`` hold absolute graph IRIs; ``writes_default`` / ``reads_default`` say whether the store's
    default graph is written / read; ``every_write`` / ``every_read`` that any graph may be (see the module
    docstring), for one of three reasons: ``all_graphs`` (``CLEAR``/``DROP`` ``ALL`` or ``NAMED``),
    ``variables`` (a variable in graph position) or ``unknown`` (a graph IRI it cannot resolve, an operation it
    does not know). ``replaces`` is true when the update may both delete and insert, so that a graph's triple
    count can stay the same although its data changed.
    """

    writes: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)
    writes_default: bool = False
    reads_default: bool = False
    every_write: bool = False
    every_read: bool = False
    all_graphs: bool = False
    variables: bool = False
    unknown: bool = False
    inserts: bool = False
    deletes: bool = False

    @property
    def replaces(self) -> bool:
        return self.inserts and self.deletes


class _Prologue:
    """PREFIX and BASE declarations seen so far (they carry over to later operations of the same request)."""

    def __init__(self, base: str | None = None) -> None:
        self.prefixes: dict[str, str] = {}
        self.base: str | None = base

    def skip(self, op: list[Token], i: int) -> int:
        """Read the declarations at ``op[i:]``; returns the index of the first token after them."""
        while word_at(op, i) in PROLOGUE:
            if word_at(op, i) == "PREFIX" and i + 2 < len(op):
                name, iri = op[i + 1], op[i + 2]
                if name.kind == "pname" and iri.kind == "iri":
                    resolved = self.iri(iri)
                    if resolved is not None:
                        self.prefixes[name.text[:-1]] = resolved
                i += 3
            elif word_at(op, i) == "BASE" and i + 1 < len(op):
                if op[i + 1].kind == "iri":
                    self.base = self.iri(op[i + 1])
                i += 2
            else:
                i += 2
        return i

    def iri(self, token: Token) -> str | None:
        """The absolute IRI of an ``<iri>`` or prefixed-name token; ``"?"`` for a variable; ``None`` if unknown."""
        if token.kind == "var":
            return _VAR
        if token.kind == "iri":
            text = token.text[1:-1]
        elif token.kind == "pname":
            prefix, _, local = token.text.partition(":")
            if prefix not in self.prefixes or "\\" in local or "%" in local:
                return None
            text = self.prefixes[prefix] + local
        else:
            return None
        if ":" in text.split("/", 1)[0]:  # has a scheme
            return text
        return urljoin(self.base, text) if self.base else None


def update_scope(update: str, *, base: str | None = None) -> UpdateScope:
    """The graphs ``update`` may write and read (conservative: see the module docstring); relative IRIs resolve
    against ``base`` (the endpoint's base IRI) until the update's own ``BASE``.

    Examples
    --------
    >>> s = update_scope("PREFIX d: <urn:kgsvc:dataset:> INSERT DATA { GRAPH d:a { <u:s> <u:p> 1 } }")
    >>> sorted(s.writes), s.writes_default, s.every_write
    (['urn:kgsvc:dataset:a'], False, False)
    >>> update_scope("DELETE WHERE { GRAPH ?g { ?s <u:p> ?o } }").every_write
    True
    >>> update_scope("DROP ALL").every_write, update_scope("CLEAR DEFAULT").writes_default
    (True, True)
    >>> s = update_scope("WITH <u:g> DELETE { ?s ?p ?o } INSERT { ?s ?p 2 } WHERE { ?s ?p ?o }")
    >>> sorted(s.writes), sorted(s.reads), s.replaces
    (['u:g'], ['u:g'], True)
    """
    scope = UpdateScope()
    prologue = _Prologue(base)
    try:
        for op in split_operations(tokens(update)):
            i = prologue.skip(op, 0)
            if i < len(op):
                _operation(op, i, prologue, scope)
    except QueryError:  # unbalanced braces: not an update pyoxigraph will run, and its parser says where
        scope.every_write = scope.every_read = scope.unknown = True
    return scope


def query_graphs(query: str, *, base: str | None = None) -> tuple[set[str], bool]:
    """The graph IRIs a query names in ``FROM`` / ``FROM NAMED`` (its own dataset), and whether one of them could
    not be resolved (a prefixed name without its prefix, a relative IRI without ``BASE`` or ``base``).

    >>> graphs, unresolved = query_graphs("PREFIX e: <u:> SELECT * FROM e:a FROM NAMED <u:b> { GRAPH ?g { ?s ?p ?o } }")
    >>> sorted(graphs), unresolved
    (['u:a', 'u:b'], False)
    """
    prologue = _Prologue(base)
    toks = tokens(query)
    i = prologue.skip(toks, 0)
    named: set[str] = set()
    unresolved = False
    for j in range(i, len(toks) - 1):
        if word_at(toks, j) != "FROM":
            continue
        k = j + 2 if word_at(toks, j + 1) == "NAMED" else j + 1
        iri = prologue.iri(toks[k]) if k < len(toks) else None
        if iri is None or iri == _VAR:
            unresolved = True
        else:
            named.add(iri)
    return named, unresolved


def _operation(op: list[Token], i: int, prologue: _Prologue, scope: UpdateScope) -> None:
    keyword, following = word_at(op, i), word_at(op, i + 1)
    if keyword in ("INSERT", "DELETE") and following in ("DATA", "WHERE"):
        scope.inserts |= keyword == "INSERT"
        scope.deletes |= keyword == "DELETE"
        start = _next_brace(op, i + 2)
        _template(op, start, "", prologue, scope)
        if following == "WHERE":
            _template(op, start, "", prologue, scope, read=True)
    elif keyword in ("INSERT", "DELETE", "WITH"):
        _modify(op, i, prologue, scope)
    elif keyword in ("CLEAR", "DROP"):
        scope.deletes = True
        j = i + 2 if following == "SILENT" else i + 1
        which = word_at(op, j)
        if which == "DEFAULT":
            scope.writes_default = True
        elif which == "GRAPH" and j + 1 < len(op):
            _write(prologue.iri(op[j + 1]), scope)
        elif which in ("ALL", "NAMED"):
            scope.every_write = scope.all_graphs = True
        else:
            scope.every_write = scope.unknown = True
    elif keyword == "CREATE":  # an empty graph: no triple changes, but the graph exists from now on
        j = i + 2 if following == "SILENT" else i + 1
        _write(prologue.iri(op[j + 1]) if word_at(op, j) == "GRAPH" and j + 1 < len(op) else None, scope)
    elif keyword == "LOAD":
        scope.inserts = True
        words = [word_at(op, k) for k in range(len(op))]
        if "INTO" in words:
            k = words.index("INTO") + 1
            k += word_at(op, k) == "GRAPH"
            _write(prologue.iri(op[k]) if k < len(op) else None, scope)
        else:
            scope.writes_default = True
    elif keyword in ("ADD", "MOVE", "COPY"):
        scope.inserts = True
        scope.deletes |= keyword != "ADD"
        j = i + 2 if following == "SILENT" else i + 1
        source, j = _graph_ref(op, j, prologue)
        target, _ = _graph_ref(op, j + 1 if word_at(op, j) == "TO" else len(op), prologue)
        _write(target, scope)
        _read(source, scope)
        if keyword == "MOVE":
            _write(source, scope)
    else:
        scope.every_write = scope.every_read = scope.unknown = True


def _graph_ref(op: list[Token], j: int, prologue: _Prologue) -> tuple[str | None, int]:
    """``DEFAULT`` (as ``""``) or ``[GRAPH] iri`` at ``op[j]``; returns it and the index after it."""
    if word_at(op, j) == "DEFAULT":
        return "", j + 1
    j += word_at(op, j) == "GRAPH"
    return (prologue.iri(op[j]) if j < len(op) else None), j + 1


def _modify(op: list[Token], i: int, prologue: _Prologue, scope: UpdateScope) -> None:
    """``[WITH g] DELETE {…} INSERT {…} [USING [NAMED] iri]* WHERE {…}``."""
    with_graph: str | None = ""  # "" = the default graph
    if word_at(op, i) == "WITH":
        with_graph = prologue.iri(op[i + 1]) if i + 1 < len(op) else None
        i += 2
    using = False
    j = i
    while j < len(op):
        word = word_at(op, j)
        if word in ("DELETE", "INSERT"):
            scope.inserts |= word == "INSERT"
            scope.deletes |= word == "DELETE"
            start = _next_brace(op, j + 1)
            _template(op, start, with_graph, prologue, scope)
            j = block_end(op, start) + 1 if start < len(op) else len(op)
        elif word == "USING":
            using = True
            k = j + 2 if word_at(op, j + 1) == "NAMED" else j + 1
            _read(prologue.iri(op[k]) if k < len(op) else None, scope)
            j = k + 1
        elif word == "WHERE":
            start = _next_brace(op, j + 1)
            if not using:
                _read(with_graph, scope)
                _template(op, start, with_graph, prologue, scope, read=True)
            else:  # USING fixes the dataset of WHERE: GRAPH names inside can only narrow it
                _template(op, start, with_graph, prologue, UpdateScope(), read=True)
            return
        else:
            j += 1


def _next_brace(op: list[Token], j: int) -> int:
    while j < len(op) and not (op[j].kind == "punct" and op[j].text == "{"):
        j += 1
    return j


def _template(
    op: list[Token], start: int, target: str | None, prologue: _Prologue, scope: UpdateScope, *, read: bool = False
) -> None:
    """Graphs of the quad template (or, with ``read``, the group pattern) in the block opening at ``op[start]``.

    Triples outside ``GRAPH`` blocks go to ``target`` (``""`` = the default graph, ``None`` = unknown).
    """
    if start >= len(op):
        return
    end = block_end(op, start)
    mark = _read if read else _write
    j = start + 1
    while j < end:
        token = op[j]
        if word_at(op, j) == "GRAPH" and j + 1 < end:
            mark(prologue.iri(op[j + 1]), scope)
            brace = _next_brace(op, j + 2)
            j = block_end(op, brace) + 1 if brace < end else end
        elif token.kind == "punct" and token.text == "{":
            if not read:
                mark(target, scope)
            j += 1  # a group inside a WHERE pattern: read on, its GRAPH blocks count
        elif token.kind == "punct" and token.text in ".}":
            j += 1
        else:
            mark(target, scope)
            j += 1


def _write(graph: str | None, scope: UpdateScope) -> None:
    if graph is None or graph == _VAR:
        scope.every_write = True
        scope.variables |= graph == _VAR
        scope.unknown |= graph is None
    elif graph == "":
        scope.writes_default = True
    else:
        scope.writes.add(graph)


def _read(graph: str | None, scope: UpdateScope) -> None:
    if graph is None or graph == _VAR:
        scope.every_read = True
        scope.variables |= graph == _VAR
        scope.unknown |= graph is None
    elif graph == "":
        scope.reads_default = True
    else:
        scope.reads.add(graph)
