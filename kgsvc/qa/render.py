"""Render patterns and matches as read-only SPARQL SELECT queries over the dataset's graph (DESIGN §5).

* :func:`pattern_sparql` — the pattern with its linked constants: ``SELECT DISTINCT ?answer`` returns every
  answer of the pattern in the KG (relations as matched exactly, no GSD relaxation). A basic graph pattern is
  matched by homomorphism (SPARQL 1.1 §18.3): two variables may bind one node and two triple patterns one triple,
  which is what the matcher does with node and triple reuse (the question path's default). For an injective
  matcher, ``distinct=True`` adds ``FILTER (?a != ?b)`` for every pair of pattern nodes, so the query reads as the
  matcher does (with distinct nodes, two triple patterns can share a triple only when they join the same two
  nodes: parallel pattern edges, which the question path never builds).
* :func:`match_sparql` — one evidence subgraph: its stored triples with the constants as IRIs and the variables
  bound by ``VALUES``, so the query returns exactly the evidence's answer binding.

Terms are N-Triples texts (``<iri>``, ``"lex"^^<dt>``), valid SPARQL term syntax. The queries name no graph:
run them with the dataset graph as the default graph (``KG.sparql(query, dataset=...)``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from kgsvc.retrieval.pattern import Pattern
from kgsvc.retrieval.result import Match

__all__ = ["match_sparql", "pattern_sparql"]


def _var(name: str, fallback: str) -> str:
    return name if name.startswith("?") and name[1:].replace("_", "").isalnum() else fallback


def pattern_sparql(
    pattern: Pattern,
    names: Sequence[str],
    anchor_terms: Mapping[int, Sequence[str]],
    relation_terms: Mapping[str, str],
    *,
    distinct: bool = False,
    typed: Mapping[int, Sequence[str]] | None = None,
    type_term: str | None = None,
    apart: Collection[tuple[int, int]] = (),
) -> str:
    """The SELECT of ``pattern``: constants from ``anchor_terms`` (several: ``VALUES``), relations by label; a node of
    ``typed`` is an instance of one of its classes (``type_term``, the graph's type relation; ``rdf:type`` by
    default); each pair of nodes of ``apart`` gets ``FILTER (a != b)`` (a walk that must not come back to an
    entity it started from).

    A relation label missing from ``relation_terms`` becomes a variable ``?r<edge>``. With ``distinct`` every two
    pattern nodes of which one at least is a variable get ``FILTER (a != b)`` (an injective node map).

    >>> from kgsvc.retrieval.pattern import Pattern
    >>> p = Pattern.from_triples([("Tokyo Godfathers", "directed by", "?answer")], answer="?answer")
    >>> print(pattern_sparql(p, ["Tokyo Godfathers", "?answer"], {0: ["<urn:tg>"]}, {"directed by": "<urn:d>"}))
    SELECT DISTINCT ?answer WHERE {
      <urn:tg> <urn:d> ?answer .
    }
    >>> print(pattern_sparql(p, ["Tokyo Godfathers", "?answer"], {0: ["<urn:tg>"]}, {"directed by": "<urn:d>"},
    ...                      distinct=True))
    SELECT DISTINCT ?answer WHERE {
      <urn:tg> <urn:d> ?answer .
      FILTER (<urn:tg> != ?answer)
    }
    """

    def node(v: int) -> str:
        terms = anchor_terms.get(v)
        if terms is not None and len(terms) == 1:
            return terms[0]
        return f"?e{v}" if terms is not None else _var(names[v], f"?v{v}")

    lines = []
    for v, terms in sorted(anchor_terms.items()):
        if len(terms) > 1:
            lines.append(f"  VALUES ?e{v} {{ {' '.join(terms)} }}")
    for e, edge in enumerate(pattern.edges):
        relation = relation_terms.get(edge.label, f"?r{e}")
        lines.append(f"  {node(edge.head)} {relation} {node(edge.tail)} .")
    type_term = type_term or "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    for v, classes in sorted((typed or {}).items()):
        if len(classes) == 1:
            lines.append(f"  {node(v)} {type_term} {classes[0]} .")
        else:
            lines += [f"  VALUES ?t{v} {{ {' '.join(classes)} }}", f"  {node(v)} {type_term} ?t{v} ."]
    lines += [f"  FILTER ({node(a)} != {node(b)})" for a, b in sorted(apart)]
    if distinct:
        terms = [node(v) for v in range(len(pattern.nodes))]
        for a in range(len(terms)):
            for b in range(a + 1, len(terms)):
                if terms[a].startswith("?") or terms[b].startswith("?"):
                    lines.append(f"  FILTER ({terms[a]} != {terms[b]})")
    answer = node(pattern.answer) if pattern.answer is not None else "*"
    return f"SELECT DISTINCT {answer} WHERE {{\n" + "\n".join(lines) + "\n}"


def match_sparql(
    match: Match,
    pattern: Pattern,
    names: Sequence[str],
    known: Collection[int],
    node_terms: Sequence[str],
    relation_terms: Sequence[str],
) -> str:
    """The SELECT that reproduces one match: stored triples, known nodes as terms, variables bound by ``VALUES``.

    Parameters
    ----------
    match : Match
        The evidence subgraph (node map and stored triples).
    pattern : Pattern
        The pattern it matched.
    names : sequence of str
        Pattern node names (variables ``?x1``, ``?answer``; labels for constants).
    known : collection of int
        Pattern nodes written as constants.
    node_terms, relation_terms : sequence of str
        N-Triples text of every KG node and relation id.
    """
    var_of = {kg: (None if v in known else _var(names[v], f"?v{v}")) for v, kg in enumerate(match.node_map)}

    def node(kg: int) -> str:
        return var_of.get(kg) or node_terms[kg]

    lines = [f"  {node(h)} {relation_terms[r]} {node(t)} ." for h, r, t in match.triples]
    bound = [(var, node_terms[kg]) for kg, var in var_of.items() if var is not None]
    if bound:
        lines.append(f"  VALUES ({' '.join(v for v, _ in bound)}) {{ ({' '.join(t for _, t in bound)}) }}")
    answer = var_of.get(match.node_map[pattern.answer]) if pattern.answer is not None else None
    return f"SELECT {answer or '*'} WHERE {{\n" + "\n".join(lines) + "\n}"
