"""Values of literals, the attribute a comparison is about, and the SPARQL of each question kind.

A count, an ordering or a comparison (:mod:`kgsvc.qa.kinds`) is computed in Python from the matched evidence and
rendered as one SPARQL query that computes the same value on the store: ``COUNT(DISTINCT ?answer)``, ``ASK``,
``ORDER BY … LIMIT`` and ``FILTER``.

**Values** (:func:`value_kind`, :func:`sort_key`). Each attribute relation gets one value kind, the most common
among its literals: ``date`` (an ISO ``YYYY-MM-DD`` prefix: ``xsd:date``, ``xsd:dateTime`` and odd datatypes such as
``xsd:dateTimes`` alike), ``year`` (``xsd:gYear`` or a plain or integer four-digit year) or ``number`` (any other
numeric lexical form). Literals are compared by that kind's parsed value, never by their text, and the SPARQL
casts the same way, so both sides drop the same values:

=========  ===================================================  ====================================
kind       Python key                                           SPARQL key
=========  ===================================================  ====================================
date       ``date.fromisoformat(lex[:10])`` (time ignored)      ``xsd:date(SUBSTR(STR(?v), 1, 10))``
year       ``int(lex)``                                         ``xsd:integer(STR(?v))``
number     ``float(lex)``                                       ``xsd:double(STR(?v))``
=========  ===================================================  ====================================

**Fallback**: a literal whose lexical form does not parse as its relation's kind (``"1900-00-00"`` for a date,
``"c. 1850"``) has no key: it is left out of the ordering or comparison on both sides (the SPARQL's ``BIND`` of a
failed cast leaves the key unbound, and ``FILTER(BOUND(?key))`` drops the row). A date compared with a year
("born before 1900") compares the date's year: ``int(lex[:4])`` and ``xsd:integer(SUBSTR(STR(?v), 1, 4))``.

**Attribute** (:func:`comparable_relations`, :func:`pick_attribute`): the relations that lead from the compared
items to literals with a key, scored by the cosine of their label to the question's words and the cue's hint
(MiniLM, DESIGN §7) plus the share of items that have a value.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from kgsvc.index.snapshot import GraphSnapshot, stable_order
from kgsvc.qa.kinds import Cue, month_day, period

__all__ = [
    "TWO_STEP_PENALTY",
    "Attribute",
    "age_at",
    "ValueKind",
    "comparable_paths",
    "comparable_relations",
    "compare",
    "constant_key",
    "count_order_sparql",
    "count_sparql",
    "counts_by_step",
    "date_relations",
    "ask_sparql",
    "greater_wins",
    "in_period",
    "life_span",
    "literal_parts",
    "order_sparql",
    "own_dates",
    "pick_attribute",
    "sampled_edges",
    "sampled_objects",
    "sort_key",
    "value_kind",
    "year_constant",
]

ValueKind = Literal["date", "year", "number"]
Key = float

XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMERIC_TYPES = {
    XSD + t
    for t in (
        "integer decimal double float int long short byte nonNegativeInteger positiveInteger "
        "negativeInteger nonPositiveInteger unsignedInt unsignedLong unsignedShort unsignedByte"
    ).split()
}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_YEAR = re.compile(r"^\d{4}$")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_LITERAL = re.compile(r'^"(?P<lex>(?:[^"\\]|\\.)*)"(?:@[A-Za-z0-9-]+|\^\^<(?P<dt>[^>]*)>)?$')
_KEY_SPARQL = {
    "date": "<http://www.w3.org/2001/XMLSchema#date>(SUBSTR(STR({v}), 1, 10))",
    "year": "<http://www.w3.org/2001/XMLSchema#integer>(STR({v}))",
    "number": "<http://www.w3.org/2001/XMLSchema#double>(STR({v}))",
}
#: Taken off a two-step attribute's score: the items' own value wins a tie.
TWO_STEP_PENALTY = 0.1
_YEAR_OF_DATE = "<http://www.w3.org/2001/XMLSchema#integer>(SUBSTR(STR({v}), 1, 4))"
_MID_YEAR = '<http://www.w3.org/2001/XMLSchema#date>(CONCAT(SUBSTR(STR({v}), 1, 4), "-07-01"))'


def literal_parts(term: str) -> tuple[str, str | None] | None:
    """``(lexical form, datatype IRI)`` of an N-Triples literal text, or ``None`` for an IRI or blank node.

    >>> literal_parts('"2003"^^<http://www.w3.org/2001/XMLSchema#gYear>')
    ('2003', 'http://www.w3.org/2001/XMLSchema#gYear')
    """
    m = _LITERAL.match(term)
    if m is None:
        return None
    return m.group("lex"), m.group("dt")


def value_kind(lex: str, datatype: str | None) -> ValueKind | None:
    """The kind one literal suggests (module docstring), or ``None`` when it is not a date, year or number.

    >>> value_kind("1942-10-21", "http://www.w3.org/2001/XMLSchema#dateTimes"), value_kind("2011", None)
    ('date', 'year')
    """
    if _DATE.match(lex):
        return "date"
    if datatype == XSD + "gYear" or (_YEAR.match(lex) and datatype not in _NUMERIC_TYPES):
        return "year"
    if _NUMBER.match(lex):
        return "number"
    return None


def sort_key(lex: str, kind: ValueKind) -> Key | None:
    """The comparable key of a literal of a relation of value kind ``kind``; ``None`` where the cast fails.

    Dates become their proleptic Gregorian ordinal (a float, so every kind sorts the same way).

    >>> sort_key("1942-10-21", "date") < sort_key("1943-01-01", "date")
    True
    >>> sort_key("1900-00-00", "date") is None
    True
    """
    try:
        if kind == "date":
            return float(dt.date.fromisoformat(lex[:10]).toordinal()) if _DATE.match(lex) else None
        if kind == "year":
            return float(int(lex)) if re.fullmatch(r"[+-]?\d+", lex) else None
        value = float(lex) if _NUMBER.match(lex) else None
        return value if value is not None and math.isfinite(value) else None
    except ValueError:
        return None


def constant_key(constant: str, kind: ValueKind) -> tuple[Key, bool] | None:
    """The key of a question constant against a relation of kind ``kind``, and whether it compares years only.

    A year constant (``"1900"``) against dates compares the dates' years; a date constant against dates, dates;
    any number against years or numbers, numbers. A decade or century (``"1940s"``) is keyed by its first year (the
    caller tests the years from it: :func:`in_period`).
    """
    span = period(constant)
    if span is not None:
        first = span[0]
        return (float(first), True) if kind == "date" else (float(first), False) if kind == "year" else None
    if kind == "date":
        if _DATE.match(constant):
            key = sort_key(constant, "date")
            return None if key is None else (key, False)
        if re.fullmatch(r"\d{1,4}", constant):
            return float(int(constant)), True
        return None
    key = sort_key(constant, "number")
    return None if key is None else (key, False)


def year_constant(constant: str) -> bool:
    """Whether ``constant`` names years (a year or a period: ``"1962"``, ``"1960s"``), not a date or a number."""
    return (len(constant) <= 4 and month_day(constant) is None) or period(constant) is not None


def in_period(key: Key, first: Key, length: int) -> bool:
    """Whether the year ``key`` falls in the ``length`` years from ``first`` (``first`` … ``first + length - 1``)."""
    return first <= key < first + length


def greater_wins(cue: Cue, kind: ValueKind) -> bool:
    """Whether ``cue`` prefers the greater value for values of ``kind`` ("oldest" on dates: no)."""
    return cue.date_greater if kind in ("date", "year") else cue.number_greater


def compare(left: Key, right: Key, greater: bool) -> bool:
    """``left > right`` when ``greater`` else ``left < right``."""
    return left > right if greater else left < right


@dataclass(frozen=True, slots=True)
class Attribute:
    """A literal-valued relation of the compared items, its value kind, and each item's keyed values.

    ``values[item]`` lists ``(literal node id, key)`` for the item's values that have a key (module docstring).
    """

    relation: int
    kind: ValueKind
    values: dict[int, list[tuple[int, Key]]]
    score: float = 0.0
    via: int | None = None  # a two-step attribute: item –via→ node –relation→ literal
    #: a span (:func:`life_span`, :func:`age_at`): the key is the days from the item's ``since`` date to its
    #: ``relation`` date (a year read as its 1 July), in SPARQL from ``{var}_from`` to ``{var}``
    since: int | None = None
    #: a span's end: the value kind of the ``relation`` it ends at
    ends: ValueKind = "date"

    def label(self, relation_labels: Sequence[str]) -> str:
        """The attribute's text: its relation label, after the ``via`` relation's for a two-step one, from the
        ``since`` relation's for a span."""
        own = relation_labels[self.relation]
        if self.since is not None:
            return f"{relation_labels[self.since]} to {own}"
        return own if self.via is None else f"{relation_labels[self.via]} {own}"

    def key_sparql(self, var: str, *, years: bool = False) -> str:
        """The SPARQL expression of the key of ``var`` (``years``: the year of a date; a span: a duration)."""
        if self.since is not None:
            date = _KEY_SPARQL["date"]
            end = _MID_YEAR if self.ends == "year" else date
            return f"({end.format(v=var)} - {date.format(v=var + '_from')})"
        return (_YEAR_OF_DATE if years and self.kind == "date" else _KEY_SPARQL[self.kind]).format(v=var)

    def key_at(self, item: int, value: int, value_term: str) -> Key | None:
        """The key of ``item``'s value node ``value`` (N-Triples ``value_term``): the literal's own key, or for a
        span the item's number of days."""
        if self.since is None:
            return self.key_of(value_term)
        return dict(self.values.get(item, ())).get(value)

    def key_of(self, node_term: str, *, years: bool = False) -> Key | None:
        """The key of one literal node text (``years``: the year of a date, as :meth:`key_sparql`)."""
        parts = literal_parts(node_term)
        if parts is None:
            return None
        lex = parts[0]
        if years and self.kind == "date":
            return float(int(lex[:4])) if re.fullmatch(r"\d{4}", lex[:4]) else None
        return sort_key(lex, self.kind)


def own_dates(attributes: Sequence[Attribute]) -> list[Attribute]:
    """The attributes that are the items' own dates (one step, not a span)."""
    return [a for a in attributes if a.kind == "date" and a.via is None and a.since is None]


def life_span(attributes: Sequence[Attribute]) -> Attribute | None:
    """The span of the items' lives ("who lived longer", "the longest-lived"): of the pairs of the items' own date
    relations ``(since, relation)`` whose second date never comes before the first for an item that has both, the
    one most items have, then the longest on average; each item's key is the days from its earliest ``since``
    date to its latest ``relation`` date (value kind ``number``: a longer life is the greater). ``None`` without
    such a pair. The graph says which dates open and close a life, no relation is named (2026-11-28).

    Notes
    -----
    O(date relations² × items).
    """
    dates = own_dates(attributes)
    best: tuple[tuple[int, float], Attribute] | None = None
    for first in dates:
        for last in dates:
            common = first.values.keys() & last.values.keys()
            if first is last or not common:
                continue
            values: dict[int, list[tuple[int, Key]]] = {}
            for item in common:
                node, end = max(last.values[item], key=lambda v: v[1])
                values[item] = [(node, end - min(k for _, k in first.values[item]))]
            if any(v[0][1] < 0 for v in values.values()):
                continue
            rank = (len(values), sum(v[0][1] for v in values.values()) / len(values))
            if best is None or rank > best[0]:
                best = (rank, Attribute(last.relation, "number", values, since=first.relation))
    return None if best is None else best[1]


def age_at(opened: Attribute, event: Attribute) -> Attribute | None:
    """The age of each item at the date or year of ``event`` ("the oldest *when they won*", "younger *at the time
    of the award*"): the days from the item's earliest ``opened`` date (the date a life opens) to its ``event``
    value, a year read as its 1 July; value kind ``number`` (the older is the greater). ``None`` when no item has
    both, or an event comes before its opening date. (2026-11-28)

    Notes
    -----
    O(items × values).
    """
    values: dict[int, list[tuple[int, Key]]] = {}
    for item, ends in event.values.items():
        if item not in opened.values:
            continue
        first = min(k for _, k in opened.values[item])
        days = [(node, day - first) for node, key in ends if (day := _days(key, event.kind)) is not None]
        if days:
            values[item] = days
    if not values or any(k < 0 for v in values.values() for _, k in v):
        return None
    return Attribute(event.relation, "number", values, via=event.via, since=opened.relation, ends=event.kind)


def _days(key: Key, kind: ValueKind) -> Key | None:
    """A date's or year's key as a day (a date's key is its ordinal already; a year is its 1 July)."""
    if kind != "year":
        return key
    return float(dt.date(int(key), 7, 1).toordinal()) if 1 <= key <= 9999 else None


def sampled_edges(snapshot: GraphSnapshot, sample: int) -> Iterator[tuple[int, npt.NDArray[np.int64]]]:
    """Each relation that has triples, with up to ``sample`` of its edge ids evenly spaced in edge order.
    O(triples) numpy (one radix sort by relation, :func:`~kgsvc.index.snapshot.stable_order`), then O(sample) per
    relation."""
    relations = np.asarray(snapshot.triple_relations, dtype=np.int64)
    order = stable_order(relations, snapshot.n_relations)
    bounds = np.searchsorted(relations[order], np.arange(snapshot.n_relations + 1))
    for relation in range(snapshot.n_relations):
        start, stop = int(bounds[relation]), int(bounds[relation + 1])
        if stop > start:
            yield relation, order[np.linspace(start, stop - 1, num=min(sample, stop - start)).astype(np.int64)]


def sampled_objects(snapshot: GraphSnapshot, sample: int) -> Iterator[tuple[int, list[int]]]:
    """Each relation that has triples, with up to ``sample`` of its objects (node ids) evenly spaced in edge order
    (:func:`sampled_edges`)."""
    tails = np.asarray(snapshot.triple_tails)  # only the sampled rows are read
    for relation, edges in sampled_edges(snapshot, sample):
        yield relation, tails[edges].tolist()


def date_relations(snapshot: GraphSnapshot, node_terms: Sequence[str], sample: int = 16) -> list[int]:
    """The relations whose objects are dates (:func:`value_kind`), judged on up to ``sample`` of each relation's
    triples evenly spaced in edge order: all of them literals, most of them dates. O(triples) numpy."""
    found = []
    for relation, objects in sampled_objects(snapshot, sample):
        parts = [literal_parts(str(node_terms[t])) for t in objects]
        if all(p is not None for p in parts):
            dates = sum(value_kind(*p) == "date" for p in parts if p)
            if 2 * dates > len(parts):
                found.append(relation)
    return found


def comparable_relations(
    snapshot: GraphSnapshot, node_terms: Sequence[str], items: Iterable[int], *, skip: Iterable[int] = ()
) -> list[Attribute]:
    """The relations from ``items`` (outgoing, stored direction) to literals that have a key, one per relation.

    Parameters
    ----------
    snapshot : GraphSnapshot
        The graph.
    node_terms : sequence of str
        N-Triples text of every node.
    items : iterable of int
        The compared nodes.
    skip : iterable of int
        Relations never compared (labels).

    Notes
    -----
    O(Σ degree(item)); the value kind of a relation is the most common kind among the items' literals of it.
    """
    skipped = set(skip)
    found: dict[int, list[tuple[int, int, str, str | None]]] = {}
    for item in items:
        start, stop = int(snapshot.indptr[item]), int(snapshot.indptr[item + 1])
        rels = np.asarray(snapshot.relations[start:stop])
        outs = np.asarray(snapshot.outgoing[start:stop])
        nbrs = np.asarray(snapshot.neighbors[start:stop])
        for relation, out, neighbor in zip(rels.tolist(), outs.tolist(), nbrs.tolist(), strict=True):
            if not out or relation in skipped:
                continue
            parts = literal_parts(node_terms[neighbor])
            if parts is not None:
                found.setdefault(relation, []).append((item, neighbor, *parts))
    out_list = []
    for relation, rows in found.items():
        kinds = [k for _, _, lex, dtype in rows if (k := value_kind(lex, dtype)) is not None]
        if not kinds:
            continue
        order: tuple[ValueKind, ...] = ("date", "year", "number")
        kind = max(order, key=kinds.count)
        values: dict[int, list[tuple[int, Key]]] = {}
        for item, node, lex, _ in rows:
            key = sort_key(lex, kind)
            if key is not None:
                values.setdefault(item, []).append((node, key))
        if values:
            out_list.append(Attribute(relation, kind, values))
    return out_list


def comparable_paths(
    snapshot: GraphSnapshot,
    node_terms: Sequence[str],
    items: Iterable[int],
    *,
    skip: Iterable[int] = (),
    per_item: int = 50,
) -> list[Attribute]:
    """Two-step attributes: ``item –via→ node –relation→ literal`` for entity nodes one outgoing step away ("the
    year of the prize X was awarded"), one :class:`Attribute` per ``(via, relation)``.

    Notes
    -----
    O(Σ over items of degree + the distinct neighbours' degrees); at most ``per_item`` neighbours per item.
    """
    skipped = set(skip)
    out: list[Attribute] = []
    by_pair: dict[tuple[int, int], dict[int, list[tuple[int, Key]]]] = {}
    kinds: dict[tuple[int, int], ValueKind] = {}
    own: dict[int, list[Attribute]] = {}  # each middle node's attributes, read once (a country is many items' middle)
    for item in items:
        start, stop = int(snapshot.indptr[item]), int(snapshot.indptr[item + 1])
        rels = np.asarray(snapshot.relations[start:stop]).tolist()
        outs = np.asarray(snapshot.outgoing[start:stop]).tolist()
        nbrs = np.asarray(snapshot.neighbors[start:stop]).tolist()
        middles = [(r, n) for r, o, n in zip(rels, outs, nbrs, strict=True) if o and r not in skipped]
        middles = [(r, n) for r, n in middles if not node_terms[n].startswith('"')][:per_item]
        for via, middle in middles:
            if middle not in own:
                own[middle] = comparable_relations(snapshot, node_terms, [middle], skip=skipped)
            for attribute in own[middle]:
                pair = (via, attribute.relation)
                kinds.setdefault(pair, attribute.kind)
                if kinds[pair] != attribute.kind:
                    continue
                by_pair.setdefault(pair, {}).setdefault(item, []).extend(attribute.values[middle])
    for (via, relation), values in by_pair.items():
        out.append(Attribute(relation, kinds[(via, relation)], values, via=via))
    return out


def pick_attribute(
    attributes: Sequence[Attribute],
    n_items: int,
    text: str,
    relation_labels: Sequence[str],
    embed: Callable[[Sequence[str]], npt.NDArray[np.float32]],
    *,
    need_years: bool = False,
    two_step_penalty: float = TWO_STEP_PENALTY,
) -> Attribute | None:
    """The attribute ``text`` (question words and the cue's hint) is about: best cosine of the relation label
    to ``text`` plus 0.2 × the share of items that have a value, minus ``two_step_penalty`` for a two-step one
    (``need_years``: date and year relations only).

    Notes
    -----
    One embedding per distinct label and one of ``text``.
    """
    usable = [a for a in attributes if not need_years or a.kind in ("date", "year")]
    if not usable:
        return None
    vectors = embed([text, *(a.label(relation_labels) for a in usable)])
    cos = vectors[1:] @ vectors[0]
    scored = [
        Attribute(
            a.relation,
            a.kind,
            a.values,
            float(c) + 0.2 * len(a.values) / max(n_items, 1) - (two_step_penalty if a.via is not None else 0.0),
            a.via,
        )
        for a, c in zip(usable, cos.tolist(), strict=True)
    ]
    return max(scored, key=lambda a: a.score)


# -- SPARQL --------------------------------------------------------------------------------------------------------


def _where(lines: Sequence[str], filters: Sequence[str]) -> str:
    return "\n".join([*(f"  {line}" for line in lines), *(f"  FILTER({f})" for f in filters)])


def count_sparql(lines: Sequence[str], *, filters: Sequence[str] = ()) -> str:
    """``SELECT (COUNT(DISTINCT ?answer) AS ?count)`` over the triple ``lines`` and ``filters``.

    >>> print(count_sparql(["?answer <urn:d> <urn:kon> ."]))
    SELECT (COUNT(DISTINCT ?answer) AS ?count) WHERE {
      ?answer <urn:d> <urn:kon> .
    }
    """
    return "SELECT (COUNT(DISTINCT ?answer) AS ?count) WHERE {\n" + _where(lines, filters) + "\n}"


def count_order_sparql(
    lines: Sequence[str],
    step: str,
    *,
    descending: bool,
    limit: int,
    filters: Sequence[str] = (),
    counted: str = "?counted",
) -> str:
    """``SELECT ?answer (COUNT(DISTINCT ?counted) AS ?count)`` over ``lines`` and the counting ``step`` (triple
    patterns between ``?answer`` and ``?counted``; empty when ``counted`` is a variable of ``lines``), ranked:
    ``GROUP BY ?answer ORDER BY DESC|ASC(?count) LIMIT``.

    >>> print(count_order_sparql(["?answer <urn:in> <urn:dk> ."], "?answer <urn:has> ?counted .", descending=True,
    ...     limit=1))
    SELECT ?answer (COUNT(DISTINCT ?counted) AS ?count) WHERE {
      ?answer <urn:in> <urn:dk> .
      ?answer <urn:has> ?counted .
    }
    GROUP BY ?answer
    ORDER BY DESC(?count) ?answer
    LIMIT 1
    """
    order = "DESC" if descending else "ASC"
    return (
        f"SELECT ?answer (COUNT(DISTINCT {counted}) AS ?count) WHERE {{\n"
        + _where([*lines, step] if step else lines, filters)
        + f"\n}}\nGROUP BY ?answer\nORDER BY {order}(?count) ?answer\nLIMIT {limit}"
    )


def counts_by_step(
    snapshot: GraphSnapshot, items: Sequence[int], counted: Collection[int] | None
) -> dict[tuple[int, bool], dict[int, int]]:
    """For each step ``(relation, outgoing)`` that leaves some of ``items``, the number of distinct neighbours each
    item reaches by it, only those in ``counted`` when given (the class of the things counted): what "which
    institution has the most *laureates*" ranks by, per relation it could mean.

    Notes
    -----
    O(Σ degree of the items); one CSR slice per item.
    """
    out: dict[tuple[int, bool], dict[int, int]] = {}
    for item in items:
        start, stop = int(snapshot.indptr[item]), int(snapshot.indptr[item + 1])
        seen: dict[tuple[int, bool], set[int]] = {}
        neighbors = snapshot.neighbors[start:stop].tolist()
        relations = snapshot.relations[start:stop].tolist()
        outgoing = snapshot.outgoing[start:stop].tolist()
        for n, r, o in zip(neighbors, relations, outgoing, strict=True):
            if n != item and (counted is None or n in counted):
                seen.setdefault((r, bool(o)), set()).add(n)
        for step, found in seen.items():
            out.setdefault(step, {})[item] = len(found)
    return out


def ask_sparql(lines: Sequence[str], *, filters: Sequence[str] = ()) -> str:
    """``ASK`` over the triple ``lines`` and ``filters``.

    >>> print(ask_sparql(["<urn:p> <urn:d> <urn:kon> ."]))
    ASK {
      <urn:p> <urn:d> <urn:kon> .
    }
    """
    return "ASK {\n" + _where(lines, filters) + "\n}"


def order_sparql(
    lines: Sequence[str], attribute: Attribute, *, descending: bool, limit: int, filters: Sequence[str] = ()
) -> str:
    """``SELECT DISTINCT ?answer ?value`` ranked by the attribute's key: ``ORDER BY ASC|DESC(?key) LIMIT``.

    The key is ``BIND``-ed from ``?value`` (module docstring) and rows without one are dropped.
    """
    body = [*lines, f"BIND({attribute.key_sparql('?value')} AS ?key)"]
    order = "DESC" if descending else "ASC"
    return (
        "SELECT DISTINCT ?answer ?value ?key WHERE {\n"
        + _where(body, ["BOUND(?key)", *filters])
        + f"\n}}\nORDER BY {order}(?key) ?answer\nLIMIT {limit}"
    )
