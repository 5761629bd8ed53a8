"""Options of the question path (:class:`QAOptions`): the keyword options of ``KG.ask`` and of ``kgsvc eval``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["QAOptions", "Strategy"]

Strategy = Literal["grounded", "pattern"]


@dataclass(frozen=True)
class QAOptions:
    """Options of :meth:`QuestionAnswerer.ask` (keyword options of ``KG.ask``).

    Attributes
    ----------
    strategy : {"grounded", "pattern"}
        How the pattern is produced (:mod:`kgsvc.qa.pipeline`). ``grounded`` is the default: measured better on every
        benchmark with the bundled 135M model (docs/benchmarks.md).
    k : int
        Evidence subgraphs kept (SimGRAG's top-k).
    relation_k : int
        Relation candidates per known pattern relation (SimGRAG's k(r)).
    nodes_per_mention : int
        Linked nodes kept per mention (homonyms).
    max_hops : int
        Longest enumerated path.
    llm_choice : bool
        Let the LLM choose among the ``choice_top`` best grounded candidates.
    verbalise : bool
        Let the LLM write the answer text (constrained to evidence labels); else a template.
    w_sim : float
        Weight of question–candidate similarity next to the exemplar vote.
    deadline_s : float
        Budget of the GSD search; the best matches found so far are returned when it expires.
    min_relative_score : float
        Linked spans scoring below this share of the best span are dropped (template words such as "film").
    node_reuse : bool
        Walk semantics, as the rendered SPARQL has (homomorphism): two pattern variables may bind one KG node ("the
        writer of the films directed by X" may be X) and two pattern triples one stored triple (a walk may go back
        over the triple it came by or round a self-loop: "the tracks of the tracks of X 's tracks" may be X).
        Answers equal to a linked entity of the pattern are then dropped, unless such an answer is closer (GSD)
        than every other answer ("the mother of X 's son" is X). ``False``: an injective map onto distinct
        triples (SimGRAG's subgraph isomorphism); the rendered SPARQL then carries ``FILTER (?a != ?b)``.
    vote_temperature : float
        Exemplar votes are weighted ``exp((cos - best cos) / vote_temperature)``: near-duplicates dominate.
    hop_penalty : float
        Score taken off per hop beyond the first of each branch (a fifth of it when exemplars vote).
    embed_top : int
        Only this many candidates (best by exemplar vote, then fewer hops) get the similarity term.
    w_align : float
        Weight of the order-aware alignment posterior (:mod:`kgsvc.qa.align`); 0 turns it off.
    align_vote_floor : float
        The alignment posterior uses the exemplar vote as its prior, ``log(vote + align_vote_floor)`` (0: a uniform
        prior): order-blind votes still separate relations that the lexicon confuses. Measured the same for
        0.01–0.05 (docs/benchmarks.md).
    w_zero : float
        Weight of the zero-shot alignment of the question's words to the candidate's relation labels
        (:mod:`kgsvc.qa.zeroshot`, no exemplars needed) and of the several phrasings in the similarity term;
        0 turns both off.
    w_person : float
        In a graph with no class near "person", a question that asks "who" ("who is from X", "… was directed by
        who") adds ``w_person`` times how much the candidate's answers read as people by their names
        (:meth:`kgsvc.qa.rank.CandidateRanker.person_likeness`); 0 turns it off. With such a class, the answers of a
        "who" question are kept to it instead.
    vote_min_cos, vote_full_cos : float
        An exemplar's vote counts ``0`` below cosine ``vote_min_cos`` to the masked question, fully from
        ``vote_full_cos`` on, linearly between (:func:`kgsvc.qa.rank.vote_confidence`): a few exemplars only add
        evidence where one reads like the question.
    vote_full_at : int
        The exemplar votes count ``min(1, exemplars / vote_full_at)`` (0: always fully): twelve exemplars tip near
        ties, they do not outvote the question's own reading.
    align_full_at : int
        The exemplar-learned alignment counts ``min(1, exemplars / align_full_at)`` (0: fully; a user whose few
        exemplars cover their questions' wording sets 0 and ``vote_full_at = 0``).
    infer : bool
        Also propose one-hop candidates on edges the GNN predicts (:mod:`kgsvc.qa.pipeline`); needs a trained
        predictor.
    infer_threshold : float, optional
        Least calibrated probability of a proposed edge; ``None``: the model's threshold chosen on held-out edges.
    infer_k : int
        Proposed tails kept per (node, relation).
    infer_penalty : float
        GSD of an inferred edge is ``infer_penalty · (1 − probability)``.
    """

    strategy: Strategy = "grounded"
    k: int = 10
    relation_k: int = 3
    nodes_per_mention: int = 5
    max_hops: int = 3
    llm_choice: bool = False
    choice_top: int = 3
    verbalise: bool = False
    w_sim: float = 0.5
    n_exemplars: int = 12
    deadline_s: float = 2.0
    min_relative_score: float = 0.5
    embed_top: int = 30
    hop_penalty: float = 0.1
    vote_temperature: float = 0.02
    node_reuse: bool = True
    w_align: float = 1.0
    align_vote_floor: float = 0.05
    w_zero: float = 1.0
    w_person: float = 0.1
    vote_min_cos: float = 0.75
    vote_full_cos: float = 0.9
    vote_full_at: int = 200
    align_full_at: int = 200
    infer: bool = False
    infer_threshold: float | None = None
    infer_k: int = 5
    infer_penalty: float = 1.0

    @classmethod
    def from_kwargs(cls, **options: Any) -> QAOptions:
        """Options from keyword arguments; ``TypeError`` naming the unknown keys and the known ones."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"unknown ask option(s) {unknown}; expected some of {sorted(known)}")
        if options.get("strategy", "grounded") not in ("grounded", "pattern"):
            raise ValueError(f"strategy must be 'grounded' or 'pattern', got {options['strategy']!r}")
        return cls(**options)
