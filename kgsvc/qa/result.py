"""What :func:`kgsvc.qa.pipeline.ask` returns: :class:`Answer` and the models it is made of.

An answer is either **grounded** — ``answers`` are the bindings of the pattern's answer variable in the top-k
evidence subgraphs, ranked by GSD, and ``text`` names only entities of that evidence — or it is an honest
"no grounded answer" with ``reason`` and the ``failed_stage`` (``linking``, ``pattern``, ``matching``). Nothing
here is ever invented: every term carries the IRI (or literal) it was read from.

Evidence triples keep the **stored** direction of the KG triple, with the L2 distance of the matched relation
to the pattern's relation, and an ``inferred`` flag reserved for edges a GNN adds later (always ``False`` now).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Answer",
    "AnswerTerm",
    "Evidence",
    "EvidenceNode",
    "EvidenceTriple",
    "LinkCandidate",
    "Mention",
    "PatternGraph",
    "PatternTriple",
    "Term",
]

Stage = Literal["linking", "pattern", "matching", "answer"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class Term(_Model):
    """An RDF term with its text: ``kind`` is ``uri``, ``literal`` or ``bnode``; ``value`` the IRI or lexical form."""

    kind: Literal["uri", "literal", "bnode"] = "uri"
    value: str
    label: str
    datatype: str | None = None
    lang: str | None = None

    @property
    def iri(self) -> str | None:
        """The IRI of a ``uri`` term, else ``None``."""
        return self.value if self.kind == "uri" else None


class AnswerTerm(Term):
    """One grounded answer: the term, its best GSD, and how many evidence subgraphs bind it."""

    gsd: float
    support: int = 1
    inferred: bool = False  # every evidence subgraph binding it rests on an inferred (predicted) edge
    ranked_by: Term | None = None  # ordering and comparison: the literal value it was ranked or compared by


class LinkCandidate(_Model):
    """A KG node a mention may denote, with the linking score (1 best) and label distance (L2, 0 best)."""

    term: Term
    node: int
    score: float
    distance: float


class Mention(_Model):
    """A question span linked to KG nodes; ``method``: ``exact``, ``normalised``, ``alias`` (a label without its
    qualifier or middle names), ``words`` (the same words in another order), ``fuzzy``, ``vector`` or ``value`` (the
    asked noun read as a category value: "which *women*" ↔ *female*)."""

    text: str
    start: int
    end: int
    method: Literal["exact", "normalised", "alias", "words", "fuzzy", "vector", "value"]
    score: float
    candidates: list[LinkCandidate] = Field(default_factory=list)


class PatternTriple(_Model):
    """A pattern triple: ``head``/``tail`` are variables (``?x``) or entity texts; ``relation`` a relation label."""

    head: str
    relation: str
    tail: str


class PatternGraph(_Model):
    """The pattern graph the evidence was matched with, and its rendering as a read-only SPARQL SELECT.

    ``source`` says who wrote it: ``llm`` (constrained generation), ``candidate`` (a grounded candidate pattern
    ranked against exemplars and the question) or ``baseline`` (similarity-only ranking).
    """

    triples: list[PatternTriple]
    answer: str
    source: Literal["llm", "candidate", "baseline"]
    sparql: str
    score: float | None = None
    kind: str = "lookup"  # lookup, count, ask, ordering or comparison (kgsvc.qa.kinds)
    order_by: str | None = None  # ordering and comparison: the label of the literal relation compared
    descending: bool | None = None  # ordering: greatest value first
    limit: int | None = None  # ordering: how many of the best are asked for
    operator: str | None = None  # comparison: the FILTER operator between the two values (<, >, =)


class EvidenceTriple(_Model):
    """One KG triple of an evidence subgraph, in stored direction.

    ``inferred`` marks an edge the GNN link predictor proposed (not stored; ``edge_id`` -1), with its calibrated
    ``probability`` (:mod:`kgsvc.gnn.predict`).
    """

    head: Term
    relation: Term
    tail: Term
    edge_id: int
    relation_distance: float | None
    inferred: bool = False
    probability: float | None = None


class EvidenceNode(_Model):
    """A pattern node's binding in one evidence subgraph and its label distance (``None`` for variables)."""

    variable: str
    term: Term
    distance: float | None


class Evidence(_Model):
    """One matched subgraph: its GSD, triples, node bindings, answer binding and the SPARQL that reproduces it."""

    rank: int
    gsd: float
    triples: list[EvidenceTriple]
    nodes: list[EvidenceNode]
    answer: Term | None
    sparql: str


class Answer(_Model):
    """The answer to one question, with everything it was derived from.

    Attributes
    ----------
    grounded : bool
        ``True`` when ``answers`` come from matched evidence; ``False`` for "no grounded answer".
    text : str
        The verbalised answer (names only evidence entities) or the reason there is none.
    answers : list of AnswerTerm
        Grounded answers, best first (ascending GSD, then more supporting subgraphs).
    evidence : list of Evidence
        The top-k subgraphs, ascending GSD.
    sparql : str or None
        The pattern as one read-only SELECT over the dataset graph (all answers of the pattern).
    timings : dict of str to float
        Seconds per stage (``link``, ``pattern``, ``match``, ``answer``) and ``total``.
    kind : str
        What the question asks for (:mod:`kgsvc.qa.kinds`): ``lookup`` (``answers`` are the bindings), ``count``
        (``answers`` holds the number, ``items`` the counted answers), ``ask`` and ``comparison`` (``truth`` is the
        graph's yes or no, ``items`` the compared values), ``ordering`` (``answers`` the best, ``items`` every ranked
        item with the value it was ranked by), or ``unsupported`` (not answered).
    truth : bool or None
        The yes/no of an ``ask`` or yes/no ``comparison``: what the graph holds, not what is true of the world.
    items : list of AnswerTerm
        The counted, compared or ranked answers behind ``answers`` (see ``kind``).
    strategy : str
        The strategy that produced the answer (``grounded``, ``pattern``, ``baseline``), with ``+fallback``
        when the requested strategy failed and the grounded one answered.
    """

    question: str
    dataset: str
    grounded: bool
    text: str
    answers: list[AnswerTerm] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    pattern: PatternGraph | None = None
    sparql: str | None = None
    mentions: list[Mention] = Field(default_factory=list)
    strategy: str
    timings: dict[str, float] = Field(default_factory=dict)
    reason: str | None = None
    failed_stage: Stage | None = None
    complete: bool = True
    kind: str = "lookup"
    truth: bool | None = None
    items: list[AnswerTerm] = Field(default_factory=list)

    def render(self) -> str:
        """A plain-text rendering for the CLI: answer, pattern, evidence with distances, SPARQL, timings."""
        lines = [f"A: {self.text}"]
        if self.kind != "lookup":
            lines.append(f"   kind: {self.kind}")
        if not self.grounded:
            lines.append(f"   (no grounded answer; stage: {self.failed_stage}; strategy: {self.strategy})")
        if self.answers:
            shown = ", ".join(f"{a.label} <{a.value}>" if a.kind == "uri" else repr(a.label) for a in self.answers[:10])
            lines.append(f"   answers: {shown}")
        if self.items:
            shown = ", ".join(a.label + (f" ({a.ranked_by.label})" if a.ranked_by else "") for a in self.items[:20])
            more = f" and {len(self.items) - 20} more" if len(self.items) > 20 else ""
            lines.append(f"   items: {shown}{more}")
        if self.pattern is not None:
            triples = "; ".join(f"({t.head}, {t.relation}, {t.tail})" for t in self.pattern.triples)
            lines.append(f"   pattern [{self.pattern.source}, answer {self.pattern.answer}]: {triples}")
        for ev in self.evidence:
            lines.append(f"   evidence {ev.rank} (GSD {ev.gsd:.3f}):")
            for t in ev.triples:
                dist = "unknown" if t.relation_distance is None else f"{t.relation_distance:.3f}"
                flag = " [inferred]" if t.inferred else ""
                lines.append(f"      ({t.head.label}, {t.relation.label}, {t.tail.label})  rel dist {dist}{flag}")
        if self.sparql:
            lines.append("   sparql: " + " ".join(self.sparql.split()))
        if self.timings:
            lines.append("   timings: " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in self.timings.items()))
        lines.append(f"   strategy: {self.strategy}" + ("" if self.complete else " (search deadline hit)"))
        return "\n".join(lines)
