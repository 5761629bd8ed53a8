"""Which texts name a dataset's nodes: configured, well-known, discovered and paired name predicates, faithful
IRI-derived names as a last resort, and the bound on what gets embedded (issue 18).

:func:`name_plan` decides *which predicates* name a node, most preferred first:

1. the dataset's **configured** name predicates (``kgsvc load --name-predicate IRI``, the SDK's and API's
   ``name_predicates``; default: ``Settings.name_predicates``, ``KGSVC_NAME_PREDICATES``);
2. the **well-known** labelling vocabularies (``rdfs:label``, ``skos:prefLabel``, ``schema:name``, ``foaf:name``:
   :data:`kgsvc.index.labels.LABEL_PREDICATES`);
3. **discovered** name predicates (:func:`discover`): a predicate whose local name says it names
   (``name``, ``label``, ``title`` as a word or camelCase suffix: ``:name``, ``dbo:name``, ``ex:fullName``), whose
   string literals are short (mean ≤ :data:`NAME_MAX_CHARS` characters) and that names at least half of the
   subjects of some ``rdf:type`` (or any subject when the graph has no types);
4. a **given + family name pair** (``foaf:givenName`` + ``foaf:familyName``, ``schema:givenName`` +
   ``schema:familyName``, ``firstName`` + ``lastName``, …) combined into ``"Given Family"`` (either part alone
   when the other is missing).

A node none of them names gets :func:`iri_name` of its IRI: the local name percent-decoded, ``_`` → space, case
and punctuation kept (``R.E.M.``, ``Paul_McCartney`` → ``Paul McCartney``).

**What gets embedded** (:func:`encode_bounded`): the names of nodes and relations up to :data:`EMBED_MAX_CHARS`
(200) characters, and other literal texts (dates, numbers, codes) up to :data:`LITERAL_EMBED_MAX_CHARS` (60)
characters. Any other text (a description, an abstract, a prize motivation) gets the zero vector, which is at L2
distance 1 from every unit query — beyond every linking threshold — so it is never a vector match, and costs no
forward pass. The longest names of the Nobel graph have 113 characters; its prize motivations 60 to 300.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote

import numpy as np
import numpy.typing as npt

from kgsvc.queries import load_query
from kgsvc.store import Literal, QuerySolutions, Store

__all__ = [
    "EMBED_MAX_CHARS",
    "LITERAL_EMBED_MAX_CHARS",
    "FAMILY_NAME_LOCAL_NAMES",
    "GIVEN_NAME_LOCAL_NAMES",
    "NAME_MAX_CHARS",
    "NamePlan",
    "best_names",
    "candidates_query",
    "discover",
    "discovered_from",
    "embedded",
    "encode_bounded",
    "iri_name",
    "local_name",
    "name_plan",
]

#: A discovered name predicate's literals are at most this long on average (characters).
NAME_MAX_CHARS = 60
#: No text longer than this (characters) is embedded: its vector is zero (module docstring).
EMBED_MAX_CHARS = 200
#: A literal's text that names no node or relation is embedded only up to this length (characters).
LITERAL_EMBED_MAX_CHARS = 60
#: Local names (case-folded, ``_``/``-`` removed) of given-name and family-name predicates.
GIVEN_NAME_LOCAL_NAMES = frozenset({"givenname", "firstname", "forename"})
FAMILY_NAME_LOCAL_NAMES = frozenset({"familyname", "lastname", "surname"})
#: A discovered name predicate's local name ends with one of these words (``name``, ``dbo:name``, ``fullName``).
_NAME_WORD = re.compile(r"(?:(?:^|[^A-Za-z])(?i:name|label|title)|(?<=[a-z])(?:Name|Label|Title))$")
_NOT_NAMES = GIVEN_NAME_LOCAL_NAMES | FAMILY_NAME_LOCAL_NAMES | {"nickname", "username", "filename", "hostname"}
_MIN_SHARE = 0.5


def local_name(iri: str) -> str:
    """The part of ``iri`` after its last ``#``, ``/`` or ``:`` (percent-escapes kept).

    >>> local_name("http://xmlns.com/foaf/0.1/givenName"), local_name("https://kgsvc.local/nobel/#name")
    ('givenName', 'name')
    """
    return re.split(r"[#/:]", iri.rstrip("/#"))[-1] or iri


def iri_name(iri: str) -> str:
    """A node's name read faithfully from its IRI's local name: percent-escapes decoded (UTF-8), ``_`` → space,
    runs of spaces collapsed; case and punctuation kept. The last resort of :func:`name_plan`.

    >>> iri_name("https://kgsvc.local/nobel/Christopher_A._Sims"), iri_name("http://x.org/R.E.M.")
    ('Christopher A. Sims', 'R.E.M.')
    >>> iri_name("https://x.org/Thomas_C._S%C3%BCdhof"), iri_name("http://dbpedia.org/resource/Paul_McCartney")
    ('Thomas C. Südhof', 'Paul McCartney')
    """
    text = unquote(local_name(iri), errors="strict").replace("_", " ")
    return " ".join(text.split()) or iri


def _folded_local(iri: str) -> str:
    return re.sub(r"[_\-]", "", local_name(iri)).casefold()


def discovered_from(iri: str) -> bool:
    """Whether :func:`discover` reads the triples of predicate ``iri``: a name part (given or family name), or a
    local name that says it names. Triples of other predicates (and of no ``rdf:type``) cannot change what it finds.

    >>> discovered_from("http://xmlns.com/foaf/0.1/givenName"), discovered_from("http://x.org/fullName")
    (True, True)
    >>> discovered_from("http://x.org/directedBy"), discovered_from("http://x.org/nickname")
    (False, False)
    """
    folded = _folded_local(iri)
    if folded in GIVEN_NAME_LOCAL_NAMES or folded in FAMILY_NAME_LOCAL_NAMES:
        return True
    return folded not in _NOT_NAMES and _NAME_WORD.search(local_name(iri)) is not None


@dataclass(frozen=True)
class NamePlan:
    """The name predicates of a dataset, most preferred first (module docstring), and its name-part pairs.

    Attributes
    ----------
    predicates : tuple of str
        Single name predicates (IRIs): configured, well-known, discovered.
    given, family : tuple of str
        Given-name and family-name predicates (IRIs) present in the data; combined as ``"Given Family"``.
    discovered : tuple of str
        The discovered ones among ``predicates`` (reported by the build).
    """

    predicates: tuple[str, ...]
    given: tuple[str, ...] = ()
    family: tuple[str, ...] = ()
    discovered: tuple[str, ...] = ()

    @property
    def all(self) -> tuple[str, ...]:
        """Every predicate the plan reads."""
        return tuple(dict.fromkeys((*self.predicates, *self.given, *self.family)))


def discover(store: Store, graph: str) -> tuple[list[str], list[str], list[str]]:
    """Discovered name predicates (ranked by subjects named, most first), given-name and family-name predicates.

    Notes
    -----
    Two aggregate SPARQL queries (``sparql/names_stats.rq``, ``sparql/names_types.rq``): O(literal triples ×
    types per subject) rows scanned, O(predicates × types) rows returned.
    """
    types = {
        str(row[0]): int(row[1].value)
        for row in cast(QuerySolutions, store.query(load_query("names_types"), default_graph=[graph]))
    }
    named: dict[str, int] = {}
    qualifies: set[str] = set()
    given: list[str] = []
    family: list[str] = []
    for row in cast(QuerySolutions, store.query(load_query("names_stats"), default_graph=[graph])):
        predicate = row[0].value
        kind = row[1]
        subjects, length = int(row[2].value), float(row[3].value)
        folded = _folded_local(predicate)
        if folded in GIVEN_NAME_LOCAL_NAMES and predicate not in given:
            given.append(predicate)
        if folded in FAMILY_NAME_LOCAL_NAMES and predicate not in family:
            family.append(predicate)
        if folded in _NOT_NAMES or not _NAME_WORD.search(local_name(predicate)) or length > NAME_MAX_CHARS:
            continue
        named[predicate] = named.get(predicate, 0) + subjects
        size = types.get(str(kind)) if kind is not None else None
        if size is None or subjects >= _MIN_SHARE * size:
            qualifies.add(predicate)
    ranked = sorted(qualifies, key=lambda p: (-named[p], p))
    return ranked, sorted(given), sorted(family)


def name_plan(
    store: Store, graph: str, *, configured: Sequence[str] = (), known: Sequence[str] = (), discovery: bool = True
) -> NamePlan:
    """The :class:`NamePlan` of the dataset graph ``graph``: ``configured`` first, then ``known``, then what
    :func:`discover` finds (when ``discovery``)."""
    head = tuple(dict.fromkeys((*configured, *known)))
    if not discovery:
        return NamePlan(head)
    found, given, family = discover(store, graph)
    extra = tuple(p for p in found if p not in head)
    return NamePlan((*head, *extra), tuple(given), tuple(family), extra)


def candidates_query(plan: NamePlan) -> str:
    """SPARQL selecting ``?term ?p ?label``: every literal object of the plan's predicates (in ``VALUES``)."""
    values = " ".join(f"<{p}>" for p in plan.all)
    return (
        "SELECT ?term ?p ?label WHERE {\n"
        f"  VALUES ?p {{ {values} }}\n"
        "  ?term ?p ?label\n"
        "  FILTER(isLiteral(?label))\n"
        "}"
    )


def best_names(
    rows: Iterable[tuple[str, str, Literal]], plan: NamePlan, language_rank: Callable[[str | None], int]
) -> dict[str, str]:
    """Term (N-Triples) → its name among ``(term, predicate IRI, literal)`` rows of :func:`candidates_query`.

    A single name predicate wins over a given + family pair; among single ones: language rank, then the plan's
    predicate order, then the smallest lexical form. A pair takes, for each part, the best-ranked literal
    (language, predicate order, smallest) and joins ``"Given Family"``.

    O(rows).
    """
    rank = {p: i for i, p in enumerate(plan.predicates)}
    given = {p: i for i, p in enumerate(plan.given)}
    family = {p: i for i, p in enumerate(plan.family)}
    best: dict[str, tuple[int, int, str]] = {}
    parts: dict[tuple[str, int], tuple[int, int, str]] = {}
    for term, predicate, literal in rows:
        text = " ".join(literal.value.split())
        if not text:
            continue
        if predicate in rank:
            key = (language_rank(literal.language), rank[predicate], text)
            current = best.get(term)
            if current is None or key < current:
                best[term] = key
        for side, order in ((0, given), (1, family)):
            if predicate in order:
                key = (language_rank(literal.language), order[predicate], text)
                current = parts.get((term, side))
                if current is None or key < current:
                    parts[(term, side)] = key
    names = {term: key[2] for term, key in best.items()}
    for term, _side in parts:
        if term in names:
            continue
        first, last = parts.get((term, 0)), parts.get((term, 1))
        names[term] = " ".join(k[2] for k in (first, last) if k is not None)
    return names


def embedded(text: str, names: Container[str]) -> bool:
    """Whether ``text`` is embedded: a name (in ``names``) of at most :data:`EMBED_MAX_CHARS` characters, or any
    text of at most :data:`LITERAL_EMBED_MAX_CHARS`.

    >>> embedded("Princeton University", {"Princeton University"}), embedded("for " + 60 * "x", set())
    (True, False)
    """
    return len(text) <= LITERAL_EMBED_MAX_CHARS or (len(text) <= EMBED_MAX_CHARS and text in names)


def encode_bounded(
    encode: Callable[[Sequence[str]], npt.NDArray[np.float32]],
    texts: Sequence[str],
    *,
    dimension: int,
    names: Container[str] = frozenset(),
) -> npt.NDArray[np.float32]:
    """``encode`` applied to the texts that are :func:`embedded` (``names``: the texts that name a node or a
    relation); the others get zero rows.

    The embedding stage never sees another text (module docstring). O(embedded texts) forward passes.
    """
    rows = np.zeros((len(texts), dimension), dtype=np.float32)
    short = [i for i, text in enumerate(texts) if embedded(text, names)]
    if short:
        rows[short] = encode([texts[i] for i in short])
    return rows
