"""Bounds on SPARQL text checked before any parser sees it, so that no text can crash the process that parses it.

pyoxigraph's SPARQL parser, its algebra translation and its evaluator recurse on the text's structure, on the
thread's stack. Past a few thousand levels the process dies with a stack overflow (SIGSEGV, exit code 139), which
no ``try`` can catch. Measured with pyoxigraph 0.5.13 on an 8 MiB main-thread stack (one process per probe; the
largest size that still ran, then the first that crashed)::

    nested groups  { { { … } } }                 2,116 / 2,194
    nested function calls  CONCAT(CONCAT(…))       907 / 946
    nested FILTER(EXISTS { FILTER(…) })            692 / 712
    chain of OPTIONAL { … } in one group           478 / 497
    chain of MINUS / BIND / UNION                2,585 / 6,253 (the lowest of the three first)
    chain of 1+1+…, true||true||…, !!!…           6,877 / 9,063
    object list ?s ?p 1, 1, 1, …                   crashes at 30,000 (3,000 already runs > 20 s)

Nested blank-node property lists and collections (``[ ?p [ ?p … ] ]``, ``( ( … ) )``) cost time instead: the parser
backtracks, 0.09 s at depth 32, 1 s at depth 64, 15 s at depth 150.

So two numbers are bounded, by :func:`check_sparql`:

* **depth** — the deepest nesting of ``{ ( [ <<`` (closing ``} ) ] >>``), default :data:`DEFAULT_MAX_DEPTH` (32);
* **operators** — a weighted count of what builds a deep tree from a flat text: each ``{``, ``+``, ``*``, ``!``,
  ``|``, ``&``, ``^``, ``=`` and each ``UNION``, ``MINUS``, ``FILTER``, ``BIND``, ``EXISTS``, ``GRAPH``, ``SERVICE``
  counts 1, ``OPTIONAL`` 8, ``/``, ``-`` and ``,`` a quarter, ``.`` an eighth (common inside IRIs and names);
  default :data:`DEFAULT_MAX_OPERATORS` (1,000: at most 125 ``OPTIONAL``, a quarter of the crash size).

Both are counted on the **raw text**, strings, IRIs and comments included. A lexer would be more precise but could
be fooled: pyoxigraph's parser is a PEG, and text such as ``(1<?x&&…)>0`` or ``<a'> + 1+1… + 'x'`` reads as an IRI
or a string to a lexer and as operators to the parser. Counting everything can only overcount; a text refused by
mistake (a string of 40 ``(``) can be rewritten (``\\u0028``).

The store layer calls :func:`check_sparql` before every query and update (:mod:`kgsvc.store.embedded`,
:mod:`kgsvc.store.remote`), so the HTTP API, the SDK and the CLI all go through it; the API checks again with its
own settings before a query reaches a worker.
"""

from __future__ import annotations

import re

import numpy as np

from kgsvc.errors import QueryError

__all__ = ["DEFAULT_MAX_DEPTH", "DEFAULT_MAX_OPERATORS", "check_sparql", "sparql_depth", "sparql_operators"]

#: Default deepest nesting of brackets, braces, parentheses and ``<< >>`` (``KGSVC_SPARQL_MAX_DEPTH``).
DEFAULT_MAX_DEPTH = 32
#: Default weighted operator count (``KGSVC_SPARQL_MAX_OPERATORS``).
DEFAULT_MAX_OPERATORS = 1_000

_BRACKETS = re.compile(r"<<|>>|[{}()\[\]]")
_STEP = {"{": 1, "(": 1, "[": 1, "<<": 1, "}": -1, ")": -1, "]": -1, ">>": -1}
_STEPS = np.zeros(256, dtype=np.int8)  # by byte, "<<" read as 0x01 and ">>" as 0x02
for _char, _step in _STEP.items():
    _STEPS[ord(_char) if len(_char) == 1 else (1 if _char == "<<" else 2)] = _step
_CHARS = {"{": 1.0, "+": 1.0, "*": 1.0, "!": 1.0, "|": 1.0, "&": 1.0, "^": 1.0, "=": 1.0}
_CHARS.update({"/": 0.25, "-": 0.25, ",": 0.25, ".": 0.125})
_KEYWORDS = {
    "union": 1.0,
    "minus": 1.0,
    "filter": 1.0,
    "bind": 1.0,
    "exists": 1.0,
    "graph": 1.0,
    "service": 1.0,
    "optional": 8.0,
}


def sparql_depth(text: str) -> int:
    """The deepest nesting of ``{ ( [ <<`` in ``text``, counted on the raw text. O(len(text)).

    A closing bracket with nothing open is ignored (so ``)))`` before ``(((`` cannot hide them).

    >>> sparql_depth("SELECT * { ?s ?p ?o FILTER(?o > (1 + 2)) }"), sparql_depth("ASK { << <a:s> <a:p> 1 >> ?p ?o }")
    (3, 2)
    >>> sparql_depth(")))" + "(((" + "}")
    3
    """
    if "\x01" in text or "\x02" in text:  # the two stand-ins below: count with the regular expression instead
        steps = np.fromiter(map(_STEP.__getitem__, _BRACKETS.findall(text)), dtype=np.int8)
    else:  # "<<" and ">>" become one byte each (left to right, as the regular expression reads them), then a table
        raw = text.replace("<<", "\x01").replace(">>", "\x02").encode("utf-8", "surrogatepass")
        steps = _STEPS[np.frombuffer(raw, dtype=np.uint8)]  # a UTF-8 multi-byte sequence holds no ASCII byte
        steps = steps[steps != 0]
    if not steps.size:
        return 0
    # depth after each bracket, were nothing ignored; a close past the bottom lowers the running minimum instead
    level = np.concatenate(([0], np.cumsum(steps, dtype=np.int32)))
    return int((level - np.minimum.accumulate(level)).max())


def sparql_operators(text: str) -> float:
    """The weighted operator count of ``text`` (see the module docstring). O(len(text)).

    >>> sparql_operators("SELECT * { ?s ?p ?o OPTIONAL { ?s ?q 1 } FILTER(?o != 2) }")
    14.0
    """
    lowered = text.lower()
    return sum(weight * text.count(char) for char, weight in _CHARS.items()) + sum(
        weight * lowered.count(word) for word, weight in _KEYWORDS.items()
    )


def check_sparql(text: str, *, max_depth: int = DEFAULT_MAX_DEPTH, max_operators: int = DEFAULT_MAX_OPERATORS) -> None:
    """Refuse SPARQL text that could overflow the parser's stack, before it is parsed.

    Raises
    ------
    QueryError
        ``kind="too_complex"`` (an HTTP 400), naming the limit, its setting and the value found.

    Notes
    -----
    O(len(text)), in C: four ``str.count`` (about 1 µs for a short query); the operator count only for a text longer
    than ``max_operators`` characters (every weight is at most one per character); a byte table and a cumulative
    sum (numpy) only when the text opens more brackets than ``max_depth``: 0.06 ms for 6,000 nested braces.

    Examples
    --------
    >>> try:
    ...     check_sparql("SELECT * WHERE " + "{" * 40 + "}" * 40)
    ... except QueryError as exc:
    ...     print(exc.kind, str(exc).split("; ")[1])
    too_complex the limit is 32 (KGSVC_SPARQL_MAX_DEPTH)
    """
    opened = text.count("{") + text.count("(") + text.count("[") + text.count("<<")
    depth = sparql_depth(text) if opened > max_depth else opened
    if depth > max_depth:
        raise QueryError(
            f"the SPARQL text nests brackets, braces or parentheses {depth} levels deep; the limit is {max_depth} "
            "(KGSVC_SPARQL_MAX_DEPTH)",
            kind="too_complex",
            query=text[:1000],
        )
    if len(text) <= max_operators:  # every weight is at most one per character: nothing to count
        return
    operators = sparql_operators(text)
    if operators > max_operators:
        raise QueryError(
            f"the SPARQL text has {operators:.0f} operators and group patterns (OPTIONAL counts 8); the limit is "
            f"{max_operators} (KGSVC_SPARQL_MAX_OPERATORS)",
            kind="too_complex",
            query=text[:1000],
        )
