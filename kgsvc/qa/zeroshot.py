"""Zero-shot reading of a question against the graph's own relation vocabulary (no exemplars needed).

Without exemplars the order-aware alignment of :mod:`kgsvc.qa.align` has no learned lexicon. This module gives it
one read off the graph itself: the probability that a question word mentions a relation step comes from the
relation's **label** (the dataset's own vocabulary, DESIGN §3), by

* **lexical** match: the word and a content word of the label share a stem (a common prefix of at least
  ``min(5, shorter word)`` and at least 3 characters: "directors" ↔ "directed by", "starring" ↔ "starred actors",
  "nation" ↔ "nationality");
* **embedding** similarity: the cosine of the MiniLM embeddings of the word and of the label (or of one of the
  label's content words), which carries paraphrases the label does not spell ("born" ↔ "place of birth",
  "couple" ↔ "spouse").

With ``sim(w, s)`` the larger of the two (lexical = 1) and the **contrast** ``c(w, s) = sim(w, s) − max(0.35,
max sim(w, s'))`` over the graph's other relations ``s'`` (those sharing no content word with ``s``: a word close to
every relation, "films" in a film graph, names none of them) — for a word that names no relation bare by the margin
τ, also the contrast of both read in the phrase "what is the … of something" where that one reaches τ (2026-11-26
(mqpq): MiniLM tells a relational noun's relation apart there, "job" ↔ *profession* 0.04 bare, 0.27 in the phrase;
"son" ↔ *children* 0.00 and 0.11), and for a closed compound whose head names a relation better than the whole
("screen|writer": the head "writer", :meth:`GraphLexicon.head`), the head's — the emission of a content word is
``t(w | s) = exp(β · (c(w, s) − τ))`` when ``c ≥ τ``, ``miss^(1 − c/τ)`` for ``0 < c < τ`` and ~0 below: a word
explains a step when it is closer to that relation than to any other by the margin ``τ``, the gain grows with the
margin, and a word closer to it by less ("sex" ↔ "gender", "job" ↔ "profession" in a family graph) spares the step
part of its miss. Against it, ``t(w | NULL) = miss^(½ · min(1, c*/τ))`` with ``c*`` the word's best contrast: a
path that leaves a relation word of the question unread pays for it (before 2026-11-26 ``t(w | NULL) = 1``, and a
path one step short of the question scored best whenever the missing relation's word was a weak paraphrase). Words
that name only the class of the answer ("which football club", "which person directed", :func:`class_words`) go to
NULL for free; a class word followed by a function word ("what sex is X 's dad") is read like any other word (until
2026-11-26 (zs) it was free too, as was the noun before a relative pronoun, and "what sex is X 's dad" read as the
dad). Function words ("what", "the", "of") only go to NULL; "where" and "when" are not function words here (they ask for
a place or a time). Words of a linked entity that a path leaves unused explain a step only by spelling its label:
"Norway" is a country, but "the players of X from Norway" is not X's players' countries. A step that walks back
its neighbour's relation ("the films that share actors with X": starred → starred⁻¹) may also be explained by a
share cue ("same", "also", "co-"; "co-starred" is read as two words, "co" and "starred", where "starred" names a
relation: :func:`split_co`); "both" with an "and" after it is no share cue (:func:`plain_cues`: "both born and
died in X" is two conditions, not a value shared with X). The words of two noun phrases name a class, not a relation
(:func:`phrase_roles`, 2026-11-26 (wc)): the answer's class word ("name a *player* who plays X", "what *sex* is
X 's dad") explains at most the step that reaches the answer, by its object noun, and a modifier before a class noun
that spells a relation's object ("which *football* club") none; the words between a determiner and a linked entity
("who plays at the *soccer club* X") explain at most the step at the entity, by spelling its label. Since
2026-11-26 (wc1): the words that end the question after "<preposition> the X" are X's phrase too and explain at most
X's step ("who plays for the X *national football team*"); a preposition before an entity says the relation at the
entity when the entity is its object and its label has the preposition ("a club *in* X" ↔ *is in country*), and a
verb written before it as a label writes it names only such relations ("*plays* for the X" ↔ *plays for country*,
not *plays in club*); the answer's class noun names a step that ends at the objects of the relation whose object
noun it spells (:func:`answer_ranges`: "a soccer *club* in X" is the clubs that *is in country* walked back reaches,
which *plays in club* points to: the graph's own classes where it has no ``rdf:type``). Since 2026-11-26 (pq2h): a
verb phrase after the subject of an inverted question is also read as one clause with its wh-phrase ("what does
someone do for a living", :func:`verb_phrases`) against the labels in the phrase, and explains the step that reaches
the answer where it names a relation by the margin and better than its own words; "grandX" is read as X twice
(:func:`split_grand`); a word in a genitive ("X 's *daughter* 's gender", :func:`genitive_slots`) that names no
relation by the margin is a relation step the lexicon cannot place: unread it costs ``miss``, read as any step
``miss^½``. Since 2026-11-26 (speed): a participle before "by" says which way its relation is walked when the label
writes it so (*written by*): back from an agent that is a noun phrase of the chain ("the films *written* by the
writer of X", :data:`OF_PASSIVE`), forward to an agent that is the asked wh-word ("… *written* by who",
:data:`OF_PASSIVE_ASKED`); the word after a share cue names the relation shared ("*share* actors",
:data:`OF_SHARED`). Since 2026-11-26 (hop3): a preposition between a class noun and a relational noun in a genitive
("who directed movies *for* the writer of X", :data:`OF_HOLDER`) explains the step that walks that noun's relation
back, and a participle before "by" with a noun-phrase agent explains no step at the entity ("the movies *starred* by
X actors": the agent's noun says that one). Since 2026-11-29 (third): a class noun that a clause about its referent
follows ("which *laureates* who died in X", :func:`clause_heads`) or that a verb takes as object ("won *their
Nobel*", :func:`predicate_nouns`) names no step. Since 2026-11-29 (fifth): a classifier noun that spells no label
("what *sort* of movie") names the one relation whose label has one (*has genre*,
:meth:`GraphLexicon.classification`), and a word of tagging ("what *words* describe X", "*describe* X") the one
relation whose label tags (*has tags*, :meth:`GraphLexicon.tagging`); a two-word label written the other way round
around the entity's genitive ("the *place* of X's *death*") is one relation mention (:func:`reversed_labels`). Each
step that no word aligns to costs ``log(miss)``. Fed to the
monotone Viterbi alignment of
:meth:`kgsvc.qa.align.RelationLexicon.scorer`, a candidate path scores by how many of the question's relation
mentions it explains, in reading order: a one-hop path leaves the second relation's words unexplained ("which
person directed the movies starred by X" needs *starred* and *directed*), a path with a step the question never
mentions pays ``miss``.

The lexicon is the zero-shot counterpart of IBM Model 1's translation table (Brown et al. 1993, Computational
Linguistics 19(2)): the table is replaced by a similarity kernel over label and word embeddings, as in
embedding-based relation matching for KBQA (Yih et al. 2015, "Semantic Parsing via Staged Query Graph
Generation", ACL P15-1128, §3.2.2, which scores a relation against the question's words by a learned
similarity; here the similarity is MiniLM's and nothing is trained).

Entry point: :class:`GraphLexicon` (one per dataset; word embeddings cached), used by
:mod:`kgsvc.qa.rank`.

It names no benchmark relation: everything comes from the labels the graph holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from kgsvc.qa.align import ANSWER_DETERMINERS, WH_DETERMINERS, WH_WORDS, RelationLexicon
from kgsvc.qa.exemplars import Step
from kgsvc.qa.link import STOPWORDS

__all__ = [
    "FIRST",
    "FUNCTION_WORDS",
    "LAST",
    "OF_AGENT",
    "OF_ANSWER",
    "OF_CLAUSE",
    "OF_ENTITY",
    "OF_HOLDER",
    "OF_MODIFIER",
    "OF_OBJECT",
    "OF_PASSIVE",
    "OF_PASSIVE_ASKED",
    "OF_SHARED",
    "OF_PREDICATE",
    "OF_SLOT",
    "OF_TAIL",
    "OF_VERB",
    "PREPOSITIONS",
    "REQUESTS",
    "RETURN",
    "SHARE_CUES",
    "CLASSIFIER_NOUNS",
    "CO",
    "LINK_NOUNS",
    "COPULAS",
    "GraphLexicon",
    "answer_ranges",
    "clause_heads",
    "content_words",
    "genitive_slots",
    "holder_phrases",
    "mark_returns",
    "mark_steps",
    "passive_agent",
    "phrase_roles",
    "phrasings",
    "plain_cues",
    "predicate_nouns",
    "reversed_labels",
    "predicates",
    "split_co",
    "split_grand",
    "stem_match",
    "verb_phrases",
]

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]

#: Words that never mention a relation: question words, articles, auxiliaries, prepositions, genitive markers.
#: "where" and "when" are not among them: they ask for a place or a time, which relation labels name ("is in
#: country", "place of birth", "release year").
_ASKING = frozenset({"where", "when"})
#: The copulas that open a yes/no question or a clause ("*was* X a Nobel laureate").
COPULAS = frozenset({"is", "was", "are", "were"})
FUNCTION_WORDS = (
    frozenset(
        STOPWORDS
        | {"'s", "x", "one", "ones", "someone", "something"}
        | {"among", "amongst", "within", "across", "toward", "towards", "upon", "via", "per", "onto", "whether"}
    )
    - _ASKING
)


#: The prefix of a word such as "co-starred", read as a word of its own (:func:`split_co`).
CO = "co"
#: Marks a step that walks back the relation of its neighbour step ("the films that share actors with X").
RETURN = "\x00return"
#: Words that say a relation value is shared: they explain a step that walks back its neighbour's relation.
SHARE_CUES = frozenset(
    {
        "same",
        "also",
        "share",
        "shares",
        "shared",
        "sharing",
        "together",
        "alongside",
        "other",
        "others",
        "co",
        "another",
        "both",
        "too",
        "similar",
        "fellow",
    }
)


def mark_returns(steps: Sequence[Step]) -> tuple[Step, ...]:
    """``steps`` with each step that walks its neighbour's relation the other way marked :data:`RETURN`.

    >>> mark_returns([("starred actors", True), ("starred actors", False)])[1][0].endswith(RETURN)
    True
    """
    out = []
    for i, (key, outgoing) in enumerate(steps):
        near = [steps[j] for j in (i - 1, i + 1) if 0 <= j < len(steps)]
        out.append((key + RETURN, outgoing) if (key, not outgoing) in near else (key, outgoing))
    return tuple(out)


#: Marks the step of a path at its linked entity (:func:`mark_steps`).
FIRST = "\x00first"
#: Marks the step of a path that reaches the answer (:func:`mark_steps`).
LAST = "\x00last"
#: Tags a question word of a linked entity's noun phrase ("the *soccer club* X").
OF_ENTITY = "\x00entity"
#: Tags the answer's class word ("which *country*", "name a *player* who", "which *national* team").
OF_ANSWER = "\x00answer"
#: Tags the modifier of a class noun that spells a relation's object ("which *football* club", "a *soccer* club").
OF_MODIFIER = "\x00modifier"
#: Tags a content word after a linked entity that ends the question in the entity's noun phrase ("who plays for the X
#: *national football team*"): it explains at most the step at the entity.
OF_TAIL = "\x00tail"
#: Tags a preposition whose object is a linked entity ("a club *in* X", "who plays *for* the X team"): it explains the
#: step at the entity when the entity is that relation's object and the relation's label has the preposition.
OF_OBJECT = "\x00object"
#: Tags the word before such a preposition when some relation label has the two in a row ("who *plays* for the X
#: team" ↔ *plays for country*): the role is this mark followed by the preposition, and the word explains only the
#: step at the entity, and only when its label has them so (not *plays in club*).
OF_VERB = "\x00verb "
#: Tags the word that takes a linked entity as its object, right before it or before a preposition other than *of*
#: before it ("which films can be *described* by X", "*describe* X"): a verb (or a class noun: "the *film* X"), which
#: is not read in the noun's phrase of :attr:`GraphLexicon.context` ("what is the *described* of something" reads
#: *in language*).
OF_PREDICATE = "\x00predicate"
#: Tags a participle before "by" whose agent is a noun phrase of the chain, not an entity or the asked wh-word ("the
#: films *written* by the writer of X"): read away from the entity, the agent comes first, so a relation whose label
#: writes the participle before "by" (*written by*) is walked back there, from the agent to the things.
OF_PASSIVE = "\x00passive"
#: :data:`OF_PASSIVE` where the agent's noun names a relation (:func:`passive_agent`): the role is this mark followed
#: by that noun, which says the step at the entity, so the participle explains no step marked :data:`FIRST` of that
#: relation ("the movies *starred* by X actors": the step from the actors to their movies, whatever way the label
#: writes it; "the film *directed* by X released": "released" names no step at X, the participle does).
OF_AGENT = "\x00passive agent "
#: Tags a preposition between a class noun and a relational noun in a genitive ("who directed movies *for* the writer
#: of X", :func:`holder_phrases`): the role is this mark followed by that noun. The things are those the noun's relation
#: holds for with the agent, so the preposition explains only a step that walks back the relation the noun names, from
#: the agent (X's writer) to the things (the movies that writer wrote).
OF_HOLDER = "\x00holder "
#: Tags a participle before "by" whose agent is the asked wh-word ("the films of X were *directed* by who"): the
#: answer is the agent, so such a relation is walked forward there, from the things to the agent.
OF_PASSIVE_ASKED = "\x00passive asked"
#: Tags a share cue followed by a content word ("films that *share* actors with X", "the *same* director as X"): the
#: role is this mark followed by that word, which says what is shared: where it names a relation, the cue explains
#: only a step walking that relation back.
OF_SHARED = "\x00shared "
#: Tags a word that stands in a genitive ("X 's *daughter* 's gender", "the *offspring* of X") and names no relation by
#: the margin: the construction says it is a relation step, the lexicon does not say which (:meth:`GraphLexicon.prob`).
OF_SLOT = "\x00slot"
#: Tags a question's verb phrase read as one clause with its wh-phrase (:func:`verb_phrases`: "where does someone
#: *come from*"): it explains at most the step marked :data:`LAST`, by :meth:`GraphLexicon.clause_contrast`.
OF_CLAUSE = "\x00clause"
#: Prepositions that may say a relation by themselves ("a club *in* X"); "of" is a genitive marker
#: (:func:`kgsvc.qa.align.reading_order`), not one of them.
PREPOSITIONS = frozenset(
    {"in", "at", "on", "for", "from", "by", "with", "into", "to", "under", "over", "about", "during", "through"}
)
#: Auxiliaries that, right after the question's wh-phrase, invert it ("when *were* the winners of X born"): its main
#: verb may then end the question, after the entity.
_AUXILIARIES = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "should",
        "shall",
        "may",
        "might",
        "must",
    }
)
#: Verbs that open a request for a list of things: with an article after them ("name *a* player", "show *the*
#: clubs") the noun phrase that follows names the class of the answer, as after "which".
REQUESTS = frozenset({"name", "list", "give", "show", "find", "mention", "tell", "enumerate"})
_ARTICLES = frozenset({"a", "an", "the", "some", "any", "all", "every", "me", "us"})
#: Determiners before a noun phrase that may hold a linked entity ("the soccer club X").
_DETERMINERS = frozenset({"a", "an", "the"})
#: Least letters of each part of a closed compound (:meth:`GraphLexicon.head`).
_PART = 4
#: Content words before a linked entity that its noun phrase is read for at most.
_PHRASE_WORDS = 3


def mark_steps(steps: Sequence[Step], *, anchored: bool = True) -> tuple[Step, ...]:
    """``steps`` (one path, from its entity outward) marked by :func:`mark_returns`, with :data:`FIRST` on the step
    at the entity (when ``anchored``: a conjunction's branch whose first step its entity states alone starts past
    the entity) and :data:`LAST` on the step that reaches the answer. The marks restrict which words of the
    question's noun phrases may explain a step (:meth:`GraphLexicon.prob`).

    >>> marked = mark_steps([("plays in club", False), ("plays for country", True)])
    >>> marked[0][0].endswith(FIRST), marked[1][0].endswith(LAST)
    (True, True)
    """
    out = list(mark_returns(steps))
    if out and anchored:
        out[0] = (out[0][0] + FIRST, out[0][1])
    if out:
        out[-1] = (out[-1][0] + LAST, out[-1][1])
    return tuple(out)


def _marks(key: str) -> tuple[str, frozenset[str]]:
    """The relation key of a marked step key and its marks (:data:`RETURN`, :data:`FIRST`, :data:`LAST`)."""
    base, *marks = key.split("\x00")
    return base, frozenset("\x00" + m for m in marks)


def _role(word: str) -> tuple[str, str]:
    """A question word tagged by :func:`phrase_roles` (``word + role``) as ``(word, role)``; role ``""`` untagged."""
    at = word.find("\x00")
    return (word, "") if at < 0 else (word[:at], word[at:])


def _answer_word(tokens: Sequence[str]) -> int | None:
    """The token index of the first word of the answer's noun phrase: right after the question's first wh-word when
    that is a determiner other than "whose" ("which *football* club", "what *sex* is"; "*whose* wife" names the
    answer's relation, not its class), or after the article of a request that opens the question ("name a *player*
    who …", "list the *clubs* in X"); ``None`` when there is none or it is not a content word."""
    at = None
    if tokens and tokens[0] in REQUESTS:
        k = 1
        while k < len(tokens) and tokens[k] in _ARTICLES:
            k += 1
        at = k if k > 1 else None
    if at is None:
        first = next((i for i, t in enumerate(tokens) if t in WH_WORDS), None)
        at = first + 1 if first is not None and tokens[first] in ANSWER_DETERMINERS else None
    if at is None or at >= len(tokens) or tokens[at] in FUNCTION_WORDS or tokens[at] in SHARE_CUES:
        return None
    return at


def phrase_roles(tokens: Sequence[str], entities: Collection[int], labels: Sequence[str] = ()) -> dict[int, str]:
    """The question's words that stand in a noun phrase of the answer or of a linked entity, or that say the
    relation of an entity by a preposition, by token index: :data:`OF_ANSWER`, :data:`OF_MODIFIER`,
    :data:`OF_ENTITY`, :data:`OF_TAIL`, :data:`OF_OBJECT` or :data:`OF_VERB` followed by the preposition.

    * **the answer's**: the content word right after the question's first wh-word when that is a determiner, or
      after a request's article ("what *sex* is X 's dad", "name a *player* who plays X", "which *national* team does
      X play for"): the class of the answer or its modifier (the words after it may be a verb: "which person
      *directed* …", and are read as any word). When the word after it spells the last content word of one of
      ``labels`` (a relation's object: "club" in *plays in club*), that word is the class (:data:`OF_ANSWER`, since
      2026-11-26 wc1, unless an entity follows it: "which films *starring* X") and this one a modifier ("which
      *football* club does X play for");
    * **a linked entity's**: up to :data:`_PHRASE_WORDS` content words between a determiner and the entity (the
      tokens ``entities``: a masked mention, or the words of one this reading leaves unmasked), an apposition that
      names the entity's class ("who plays at the *soccer club* X", "the *film* X");
    * **a preposition whose object is the entity** ("a club *in* X", "plays *for* the X team"; not *of*, a genitive
      marker), when the word before it is no content word, a word of the answer's phrase, or a verb that some label
      writes before that preposition (:func:`said_with`: "*plays* for" ↔ *plays for country*; the verb is then tagged
      :data:`OF_VERB`): :data:`OF_OBJECT`. After any other content word the preposition belongs to that word's
      relation ("born *in* X") and has no role;
    * **the words after "<preposition> the X"** that end the question (one to :data:`_PHRASE_WORDS` content words),
      unless an auxiliary follows the wh-phrase (:func:`inverted`: "when were the winners of X *born*" ends with its
      verb): X's own noun phrase ("who plays for the X *national football team*"), :data:`OF_TAIL`. With no
      preposition before "the X" the words after it may name a relation of X ("who won the economics *prize*", "the
      X *director*") and have no role.

    Share cues, :data:`FUNCTION_WORDS` and the entities' own tokens have no role.

    >>> phrase_roles("name a player who plays x".split(), [5]) == {2: OF_ANSWER}
    True
    >>> phrase_roles("which football club does x play for".split(), [4], ["plays in club"]) == {
    ...     1: OF_MODIFIER, 2: OF_ANSWER}
    True
    >>> roles = phrase_roles("who plays at the soccer club x".split(), [6])
    >>> sorted(roles), roles[4] == OF_ENTITY
    ([4, 5], True)
    >>> roles = phrase_roles("who plays for the x national team".split(), [4], ["plays for country"])
    >>> [roles[i] for i in sorted(roles)] == [OF_VERB + "for", OF_OBJECT, OF_TAIL, OF_TAIL]
    True
    """
    content = [t not in FUNCTION_WORDS and t not in SHARE_CUES and not t.startswith("co-") for t in tokens]
    entities = set(entities)
    roles: dict[int, str] = {}
    answer = _answer_word(tokens)
    if answer is not None and answer not in entities:
        objects = {content_words(label)[-1] for label in labels if content_words(label)}
        head = tokens[answer + 1] if answer + 1 < len(tokens) and content[answer + 1] else None
        held = head is not None and any(stem_match(head, o) for o in objects)
        roles[answer] = OF_MODIFIER if held else OF_ANSWER
        if held and answer + 2 not in entities:  # the class noun itself ("a soccer *club* in X"); a word with an
            roles[answer + 1] = OF_ANSWER  # entity right after it takes it as object ("films *starring* X")
    runs = [i for i in sorted(entities) if i - 1 not in entities]  # the first token of each entity
    for first in runs:
        last = first
        while last + 1 in entities:
            last += 1
        before = first - 1
        while before >= 0 and first - before <= _PHRASE_WORDS and content[before] and before not in entities:
            before -= 1
        if before >= 0 and before < first - 1 and tokens[before] in _DETERMINERS:
            for i in range(before + 1, first):
                roles.setdefault(i, OF_ENTITY)
        at = first - 1  # a preposition whose object is the entity ("in X", "for the X")
        determined = at >= 0 and tokens[at] in _DETERMINERS
        at -= 1 if determined else 0
        if at < 1 or tokens[at] not in PREPOSITIONS or at - 1 in entities:
            continue
        verb = at - 1
        if tokens[at] == "by" and content[verb] and last + 1 < len(tokens) and content[last + 1]:
            roles.setdefault(verb, OF_PASSIVE)  # "directed by the X *director*": the agent is X's director, not X
            continue
        if content[verb] and verb not in roles and any(said_with(tokens[verb], tokens[at], x) for x in labels):
            roles[verb] = OF_VERB + tokens[at]
        if content[verb] and verb not in roles:
            continue  # "born *in* X": the preposition belongs to its verb's relation, it says none of its own
        roles.setdefault(at, OF_OBJECT)
        tail = range(last + 1, len(tokens))
        if determined and 1 <= len(tail) <= _PHRASE_WORDS and all(content[i] for i in tail) and not inverted(tokens):
            for i in tail:  # "plays for the X *national football team*": the object's own noun phrase
                roles.setdefault(i, OF_TAIL)
    for i in range(len(tokens) - 2):  # "the films *written* by the writer of X"
        agent = i + 2
        while agent < len(tokens) and tokens[agent] in _DETERMINERS:
            agent += 1
        asked = agent < len(tokens) and tokens[agent] in WH_WORDS
        if (
            tokens[i + 1] == "by"
            and content[i]
            and i not in entities
            and (asked or agent < len(tokens) and content[agent])
        ):
            if agent not in entities:
                roles.setdefault(i, OF_PASSIVE_ASKED if tokens[agent] in WH_WORDS else OF_PASSIVE)
    for i in range(len(tokens) - 1):  # "films that *share* actors with X": what is shared
        if tokens[i] in SHARE_CUES and content[i + 1] and i + 1 not in entities:
            roles.setdefault(i, OF_SHARED + tokens[i + 1])
    return roles


#: Prepositions that relate a class noun to a relational noun phrase ("movies *for* the writer of X").
_HOLDING = frozenset({"for", "with"})


def holder_phrases(tokens: Sequence[str], entities: Collection[int]) -> list[tuple[int, int]]:
    """``(preposition, noun)`` token indexes of each "<word> for|with the <noun> of|'s …" ("who directed movies *for*
    the *writer* of X"): a preposition after a content word whose object is a noun in a genitive (no entity). English
    says so that the relation the noun names holds between the things before the preposition and the noun's referent:
    the movies *for* X's writer are the movies that person wrote, a step walking the writer's relation back. The
    caller keeps those whose word before names no relation (the class of the things: "movies", not "married") and
    whose noun names one (:data:`OF_HOLDER`).

    >>> holder_phrases("who directed movies for the writer of x".split(), [7])
    [(3, 5)]
    >>> holder_phrases("what does x do for a living".split(), [2]), holder_phrases("films with x".split(), [2])
    ([], [])
    """
    entities = set(entities)
    out = []
    for i in range(1, len(tokens) - 2):
        before = tokens[i - 1]
        if tokens[i] not in _HOLDING or i - 1 in entities or before in FUNCTION_WORDS or before in SHARE_CUES:
            continue
        noun = i + 1
        while noun < len(tokens) and tokens[noun] in _DETERMINERS:
            noun += 1
        if noun + 1 >= len(tokens) or noun in entities or tokens[noun + 1] not in ("of", "'s"):
            continue
        if tokens[noun] not in FUNCTION_WORDS and tokens[noun] not in SHARE_CUES:
            out.append((i, noun))
    return out


def passive_agent(tokens: Sequence[str], participle: int, entities: Collection[int]) -> int | None:
    """The token index of the head noun of the agent of a participle before "by" (:data:`OF_PASSIVE`): the first
    content word after "by" that is no determiner and no entity token ("*starred* by X *actors*", "by the *actors* in
    X"); ``None`` when there is none.

    >>> passive_agent("the films starred by x actors".split(), 2, [4])
    5
    """
    at = participle + 2
    while at < len(tokens) and (tokens[at] in _DETERMINERS or at in entities):
        at += 1
    if at >= len(tokens) or tokens[at] in FUNCTION_WORDS or tokens[at] in SHARE_CUES:
        return None
    return at


def predicates(tokens: Sequence[str], entities: Collection[int]) -> list[int]:
    """The token indexes of the words that take a linked entity (the tokens ``entities``) as their object: the
    content word right before it, or before a preposition other than *of* before it ("*describe* X", "can be
    *described* by X"; not "the job of X", "X 's job"). Such a word is a verb (or a class noun, "*film* X"), no
    relational noun: :data:`OF_PREDICATE`. A word right after a share cue is none: it is the value shared, the
    cue's object ("films that share *screenwriters* with X", a noun; 2026-11-26 (hop3): read bare as a verb,
    "screenwriters" named *starred actors*).

    >>> predicates("which films can be described by x".split(), [6]), predicates("what is the job of x".split(), [5])
    ([4], [])
    >>> predicates("films that share writers with x".split(), [5])
    []
    """
    entities = set(entities)
    out = []
    for first in sorted(entities):
        if first - 1 in entities:
            continue
        at = first - 2 if first >= 2 and tokens[first - 1] in PREPOSITIONS else first - 1
        word = tokens[at] if at >= 0 else ""
        if at >= 0 and at not in entities and word not in FUNCTION_WORDS and word not in SHARE_CUES:
            if not word.startswith("co-") and word != "'s" and not (at >= 1 and tokens[at - 1] in SHARE_CUES):
                out.append(at)
    return out


def split_co(words: Sequence[tuple[str, int]], names: Callable[[str], bool]) -> list[tuple[str, int]]:
    """``words`` (a reading: ``(word, segment)``, the word maybe tagged by :func:`phrase_roles`) with each word
    "co-X" whose ``X`` ``names`` a relation read as two, :data:`CO` and ``X``: "co-starred" says the relation and
    that its value is shared, two steps of a path (*starred* → ← *starred*) that one word explains only one of. A
    word "co-X" whose ``X`` names no relation ("co-laureates" where "laureates" spells two labels alike) stays one
    word, a share cue.

    >>> split_co([("who", 0), ("co-starred", 0), ("with", 0)], lambda w: w == "starred")
    [('who', 0), ('co', 0), ('starred', 0), ('with', 0)]
    >>> split_co([("co-laureates", 1)], lambda w: False)
    [('co-laureates', 1)]
    """
    out = []
    for word, segment in words:
        rest = word[3:]
        if word.startswith("co-") and rest and names(_role(rest)[0]):
            out += [(CO, segment), (rest, segment)]
        else:
            out.append((word, segment))
    return out


#: The prefix of a word one generation further ("grand|parents", "grand|son"): the kinship relation twice.
_GRAND = "grand"
#: Auxiliaries of do-support and of the progressive: their main verb stands after the subject (:func:`verb_phrases`).
_DO = frozenset({"do", "does", "did"})
_BE = frozenset({"is", "are", "was", "were"})


def genitive_slots(tokens: Sequence[str], entities: Collection[int]) -> list[int]:
    """The token indices of the content words that stand in a genitive: right after "'s" (or after "'s" and a share
    cue: "X 's other *half*"), or right before "'s" or "of" ("the *offspring* of X", "X 's *daughter* 's gender").
    English says a relation of a thing so; a word there is a relation step even where MiniLM cannot tell which one
    ("daughter" is as close to *parents* as to *children*). Entities' tokens, function words and share cues are none.

    >>> genitive_slots("what is the gender of x 's darling".split(), [5])
    [3, 7]
    >>> genitive_slots("what is x 's other half 's nation".split(), [2])
    [5, 7]
    """
    out = []
    for i, word in enumerate(tokens):
        if i in entities or word in FUNCTION_WORDS or word in SHARE_CUES or word.startswith("co-"):
            continue
        after = i >= 1 and (tokens[i - 1] == "'s" or (i >= 2 and tokens[i - 1] in SHARE_CUES and tokens[i - 2] == "'s"))
        before = i + 1 < len(tokens) and tokens[i + 1] in ("'s", "of")
        if after or before:
            out.append(i)
    return out


def reversed_labels(tokens: Sequence[str], labels: Sequence[str]) -> frozenset[str]:
    """The phrases "A of B" of ``tokens`` that write a two-word relation label "B A" the other way round ("the
    *place of birth*" for *birth place*, "*dates of death*" for *death date*, "*year of release*" for *release
    year*): one relation mention, whose "of" is a word of it, not a genitive marker between two relations
    (:func:`kgsvc.qa.align.reading_order`'s ``phrases``; before 2026-11-27 "dates" and "death" were read as two
    steps, *death date* there and back).

    >>> sorted(reversed_labels("what are the dates of death of X".split(), ["death date", "member of"]))
    ['dates of death']
    >>> sorted(reversed_labels("the place of x 's death".split(), ["death place"]))
    ["place of x 's death"]
    """
    found = set()
    pairs = [words for label in labels if len(words := content_words(label)) == 2]
    for k in range(1, len(tokens) - 1):
        if tokens[k] != "of":
            continue
        # "the place of X 's death": the label split by the entity it is said of (2026-11-29)
        between = 2 if tokens[k + 2 : k + 3] == ["'s"] and k + 3 < len(tokens) else 0
        a, b = tokens[k - 1], tokens[k + 1 + between]
        if any(stem_match(a, last) and stem_match(b, first) for first, last in pairs):
            found.add(" ".join(tokens[k - 1 : k + 2 + between]))
    return frozenset(found)


def split_grand(words: Sequence[tuple[str, int]], names: Callable[[str], bool]) -> list[tuple[str, int]]:
    """``words`` (a reading, as for :func:`split_co`) with each word "grandX" whose ``X`` (at least three letters)
    ``names`` a relation read as ``X`` twice: English forms a kin term one generation further with "grand-" (the
    *grandparents* are the parents of the parents, a *grandson* a son's or daughter's son), two steps of a path
    that one word would explain only one of. The second ``X`` stands in a segment of its own (``-1 - segment``):
    the alignment of :meth:`kgsvc.qa.align.RelationLexicon.scorer` lets the words of one segment explain one step
    together, but a word of a later segment only a later step. A word whose rest names no relation ("grandstand")
    stays one word.

    >>> split_grand([("the", 0), ("grandparents", 0)], lambda w: w == "parents")
    [('the', 0), ('parents', 0), ('parents', -1)]
    >>> split_grand([("grandstand", 0)], lambda w: False)
    [('grandstand', 0)]
    """
    out = []
    for word, segment in words:
        rest = word[len(_GRAND) :]
        if word.startswith(_GRAND) and len(_role(rest)[0]) >= 3 and names(_role(rest)[0]):
            out += [(rest, segment), (rest, -1 - segment)]  # a segment of its own: two steps, not one
        else:
            out.append((word, segment))
    return out


def verb_phrases(tokens: Sequence[str], entities: Collection[int]) -> list[tuple[int, str]]:
    """The readings of a question's verb phrase as one clause, as ``(first token, clause)``: in a question whose
    wh-phrase an auxiliary of do-support or of the progressive follows (:func:`inverted`: "where *does* X 's son
    come from", "what *is* X 's wife working on"), each ending of the question after its last entity that holds no
    genitive "'s", starts with a content word (or a form of "do", the main verb of "what does X do") that is not the
    noun after a genitive (the subject's head: "X 's *father* do") and, after "is", with a word in "-ing", read with
    the wh-phrase and "someone" for the subject: "what does someone do for a living", "what is someone working on".
    A relation said by a verb phrase ("do for a living" = *profession*) has no one word that names it; the clause
    does (MiniLM: "what does someone do" is closest to "what is the profession of someone", by 0.2). Which ending
    is the verb phrase is not known without a parser: each is a reading of its own, and the better one counts.
    ``[]`` for other questions.

    >>> verb_phrases("where does x 's son come from".split(), [2])
    [(5, 'where does someone come from')]
    >>> verb_phrases("what does x do".split(), [2]), verb_phrases("who directed x".split(), [2])
    ([(3, 'what does someone do')], [])
    >>> verb_phrases("what is x 's wife working on".split(), [2])
    [(5, 'what is someone working on')]
    """
    first = next((i for i, t in enumerate(tokens) if t in WH_WORDS), None)
    if first is None or not entities or not inverted(tokens):
        return []
    at = first + 1
    if tokens[first] in WH_DETERMINERS and tokens[at] not in FUNCTION_WORDS:
        at += 1  # "which organisation does …"
    aux = tokens[at]
    if aux not in _DO and aux not in _BE:
        return []
    out = []
    for k in range(max(entities) + 1, len(tokens)):
        word = tokens[k]
        if "'s" in tokens[k:] or (word in FUNCTION_WORDS and word not in _DO) or word in SHARE_CUES:
            continue
        if tokens[k - 1] == "'s" or (tokens[k - 1] in SHARE_CUES and tokens[k - 2] == "'s"):
            continue  # "X 's *father* do": the noun after a genitive is the subject's head, not the verb
        if aux in _BE and not word.endswith("ing"):
            continue
        out.append((k, " ".join([*tokens[: at + 1], "someone", *tokens[k:]])))
    return out


def said_with(word: str, preposition: str, label: str) -> bool:
    """Whether relation ``label`` has a word sharing ``word``'s stem right before ``preposition`` ("plays" ↔ *plays
    for country*).

    >>> said_with("plays", "for", "plays_for_country"), said_with("plays", "for", "plays in club")
    (True, False)
    """
    words = label.casefold().replace("_", " ").replace("-", " ").split()
    return any(stem_match(word, a) and b == preposition for a, b in zip(words, words[1:], strict=False))


def inverted(tokens: Sequence[str]) -> bool:
    """Whether an auxiliary follows the question's wh-phrase (its first wh-word, and the noun after a
    wh-determiner): "when *were* the winners of X born", "which club *does* X play for" — the main verb may then
    end the question. "who plays for X", "which laureates won X" and requests are not inverted.

    >>> inverted("when were the winners of x born".split()), inverted("who plays for the x national team".split())
    (True, False)
    """
    first = next((i for i, t in enumerate(tokens) if t in WH_WORDS), None)
    if first is None:
        return False
    at = first + 1
    if tokens[first] in WH_DETERMINERS and at < len(tokens) and tokens[at] not in FUNCTION_WORDS:
        at += 1
    return at < len(tokens) and tokens[at] in _AUXILIARIES


def answer_ranges(
    keys: Sequence[str],
    heads: npt.NDArray[np.integer],
    relations: npt.NDArray[np.integer],
    tails: npt.NDArray[np.integer],
    *,
    share: float = 0.9,
) -> dict[tuple[str, bool], frozenset[str]]:
    """For each step ``(key, outgoing)`` of the graph (``keys[r]`` the key of relation ``r``; the triples as
    arrays), the keys of the other relations whose objects hold at least ``share`` of the nodes the step ends at:
    the graph's own classes where it has no ``rdf:type`` (the clubs are what *plays in club* points to). O(relations
    · triples).

    >>> r = answer_ranges(["plays in club", "is in country"], np.array([0, 1, 2]), np.array([0, 0, 1]),
    ...                   np.array([2, 2, 3]))
    >>> sorted(r[("is in country", False)])
    ['plays in club']
    """
    n = int(max(heads.max(initial=-1), tails.max(initial=-1))) + 1
    objects: dict[str, npt.NDArray[np.bool_]] = {}
    ends: dict[tuple[str, bool], npt.NDArray[np.integer]] = {}
    for r, key in enumerate(keys):
        at = relations == r
        if not at.any():
            continue
        mask = objects.setdefault(key, np.zeros(n, np.bool_))
        mask[tails[at]] = True
        for outgoing, side in ((True, tails), (False, heads)):
            step = (key, outgoing)
            ends[step] = np.union1d(ends[step], side[at]) if step in ends else np.unique(side[at])
    out: dict[tuple[str, bool], frozenset[str]] = {}
    for step, nodes in ends.items():
        held = [k for k, mask in objects.items() if k != step[0] and float(mask[nodes].mean()) >= share]
        if held:
            out[step] = frozenset(held)
    return out


def class_words(tokens: Sequence[str]) -> frozenset[str]:
    """The content words of a question that name the class of what is asked and no relation: a word right after a
    wh-determiner, or after the article of a request that opens the question ("name a *soccer* club in X"), that
    another content word or a share cue follows, the class's head or the verb it is the subject of ("which
    *football* club …", "which *person* directed …", "which *films* share …"). Leaving them unexplained costs a path
    nothing (:meth:`GraphLexicon.null_prob`). A word that a function word follows ("what *sex* is X 's dad", "which
    *movies* did X direct", "name a *player* who …") may be the relation asked for ("sex" ↔ *gender*) and is read
    like any other word: it goes to NULL for free only when it names no relation.

    >>> sorted(class_words("which person directed the films that x wrote".split()))
    ['person']
    >>> sorted(class_words("which films share the director of x".split()))
    ['films']
    >>> sorted(class_words("what sex is x 's dad".split()))
    []
    >>> sorted(class_words("name a soccer club in x".split()))
    ['soccer']
    """
    out = set()
    request = _answer_word(tokens) if tokens and tokens[0] in REQUESTS else None
    for i, t in enumerate(tokens[1:-1], start=1):
        after = tokens[i + 1]
        if (
            t not in FUNCTION_WORDS
            and (tokens[i - 1] in ANSWER_DETERMINERS or i == request)
            and (after not in FUNCTION_WORDS or after in SHARE_CUES)
        ):
            out.add(t)
    return frozenset(out)


#: Words that open a relative clause about the noun before them ("the laureates *who* died in X").
_RELATIVES = frozenset({"who", "whom", "that", "whose"})
#: Words before a noun phrase that a clause may follow ("*the* laureates who …", "*which* laureates died in X").
_PHRASE_OPENERS = frozenset({"the", "a", "an", "those", "these", "all", "any", "some", "every"}) | ANSWER_DETERMINERS


def clause_heads(
    tokens: Sequence[str],
    masks: Collection[int],
    class_label_words: Collection[str],
    says_relation: Callable[[str], bool],
) -> frozenset[int]:
    """The token indexes of a noun phrase whose referent a clause right after it describes by a word that names a
    relation (``says_relation``): one or two content words after a determiner or a wh-determiner (no entity among
    them), the last spelling a word of a class label (``class_label_words``), followed by a relative pronoun and the
    clause's first content word ("which *laureates* who died in X", "the *Nobel laureates* that were born …") or by
    that word and its preposition ("of the *laureates* born in X", "which *laureates* died in X"). The clause says
    the relation that reaches the referent; the phrase names its class and explains no step (read as a relation,
    "laureates" adds the institutions' *nobel laureates* after "died in X": the dead person's colleagues, not the
    person). A clause whose word names no relation ("the laureates who *worked* in X", "whose *employer* was X")
    leaves the phrase as it was: it may be the only word that says the step. In a graph without classes there is
    none.

    >>> says = {"died", "born"}.__contains__
    >>> sorted(clause_heads("which laureates who died in x won".split(), [5], {"laureate"}, says))
    [1]
    >>> sorted(clause_heads("of the nobel laureates born in x who died last".split(), [6], {"laureate"}, says))
    [2, 3]
    >>> sorted(clause_heads("the laureates who worked in x".split(), [5], {"laureate"}, says))
    []
    >>> sorted(clause_heads("the laureates of x who died".split(), [3], {"laureate"}, says))
    []
    """
    out: set[int] = set()
    for i in range(1, len(tokens) - 1):
        if tokens[i + 1] in _RELATIVES:
            word = i + 2
            while word < len(tokens) and word - i <= 3 and tokens[word] in FUNCTION_WORDS and word not in masks:
                word += 1  # "that *were* born"
        elif i + 2 < len(tokens) and tokens[i + 2] in PREPOSITIONS:
            word = i + 1  # no relative pronoun: the word and its preposition ("born *in* X"), no noun ("prize in")
            if any(stem_match(tokens[word], c) for c in class_label_words):
                continue
        else:
            continue
        if word >= len(tokens) or word in masks or tokens[word] in FUNCTION_WORDS or not says_relation(tokens[word]):
            continue
        phrase = [i]
        while len(phrase) < 2 and phrase[0] - 1 >= 0 and tokens[phrase[0] - 1] not in FUNCTION_WORDS:
            phrase.insert(0, phrase[0] - 1)
        start = phrase[0] - 1
        if start < 0 or tokens[start] not in _PHRASE_OPENERS or any(j in masks for j in phrase):
            continue
        if any(tokens[j] in SHARE_CUES for j in phrase):
            continue
        if any(stem_match(tokens[i], c) for c in class_label_words):
            out.update(phrase)
    return frozenset(out)


#: Determiners of a verb's object ("won *their* Nobel").
_OBJECT_DETERMINERS = frozenset({"the", "their", "his", "her", "its"})


def predicate_nouns(
    tokens: Sequence[str],
    masks: Sequence[int],
    class_label_words: Collection[str],
    relation_words: Collection[str] = (),
) -> frozenset[int]:
    """The token indexes of a class noun phrase that names an entity's class, not a relation step: "a / an …"
    right after an entity that a copula comes before ("was X *a Nobel laureate*", "In which discipline was X *a Nobel
    laureate*"), each phrase ending in a word of a class label (``class_label_words``); and, of the words before
    "in" and an entity that end so ("did X win *the Nobel Prize* in Physics": a prize of that field) or of a verb's
    object that ends so ("had won *their Nobel* in the 1910s"), those that spell a word of a relation label
    (``relation_words``: "Nobel", which a graph's *nobel laureates*, an institution's, also spells; not "prize",
    which may still say the step that reaches the prize). They explain no
    step and go to NULL for free. A phrase ending in no class word ("is X *a member* of Y", "the *films* in X") is
    read as before.

    >>> sorted(predicate_nouns("in which discipline was x a nobel laureate".split(), [4], {"laureate"}))
    [6, 7]
    >>> sorted(predicate_nouns("did x win the nobel prize in x".split(), [1, 7], {"nobel", "prize"}, {"nobel"}))
    [4]
    >>> sorted(predicate_nouns("who died in x and won their nobel".split(), [3], {"nobel"}, {"nobel"}))
    [7]
    >>> sorted(predicate_nouns("is x a member of y".split(), [1, 5], {"band"}))
    []
    """
    out: set[int] = set()

    def run(indexes: Iterable[int]) -> list[int]:
        phrase = []
        for j in indexes:
            if tokens[j] in FUNCTION_WORDS or j in masks:
                break
            phrase.append(j)
        return phrase

    for i in range(1, len(tokens) - 1):
        if tokens[i] in ("a", "an") and i - 1 in masks and COPULAS & set(tokens[: i - 1]):
            phrase = run(range(i + 1, len(tokens)))
            spelled = phrase
        elif tokens[i] == "in" and i + 1 in masks:
            phrase = sorted(run(range(i - 1, -1, -1)))
            spelled = [j for j in phrase if any(stem_match(tokens[j], w) for w in relation_words)]
        elif tokens[i] in _OBJECT_DETERMINERS and tokens[i - 1] not in FUNCTION_WORDS and i - 1 not in masks:
            phrase = run(range(i + 1, min(len(tokens), i + 4)))  # "won *their Nobel*": the verb's object
            spelled = [j for j in phrase if any(stem_match(tokens[j], w) for w in relation_words)]
        else:
            continue
        if phrase and any(stem_match(tokens[phrase[-1]], c) for c in class_label_words):
            out.update(spelled)
    return frozenset(out)


def plain_cues(tokens: Sequence[str]) -> frozenset[str]:
    """The share cues of a question that say no shared value: "both" with an "and" after it is a correlative
    conjunction ("which laureates were *both* born *and* died in X": two conditions on one answer, not a value
    the answer shares with X).

    >>> plain_cues("which laureates were both born and died in x".split()), plain_cues("who both won".split())
    (frozenset({'both'}), frozenset())
    """
    correlative = any(t == "both" and "and" in tokens[i + 1 :] for i, t in enumerate(tokens))
    return frozenset({"both"}) if correlative else frozenset()


def content_words(text: str) -> list[str]:
    """The words of ``text`` (folded, split on spaces, ``_`` and ``-``) that are not :data:`FUNCTION_WORDS`.

    >>> content_words("place_of_birth")
    ['place', 'birth']
    """
    words = text.casefold().replace("_", " ").replace("-", " ").split()
    return [w for w in words if w not in FUNCTION_WORDS]


def stem_match(a: str, b: str) -> bool:
    """Whether two words share a stem: a common prefix of ≥ 3 characters and ≥ ``min(5, len(shorter))``.

    >>> stem_match("directors", "directed"), stem_match("act", "actors"), stem_match("is", "island")
    (True, True, False)
    """
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= 3 and n >= min(5, len(a), len(b))


def phrasings(steps: Sequence[tuple[str, bool]]) -> list[str]:
    """Several texts of a relation path from a masked entity ``X`` (labels as given, in walking order).

    Each step is ``(label, outgoing)``. The texts are compared with the masked question by MiniLM cosine
    (:mod:`kgsvc.qa.rank`); the best one counts, so the phrasings complement each other: a nested genitive
    ("the directed by of the starred actors of X"), a question with the labels from the answer back to the entity
    and a plain chain from the entity.

    >>> phrasings([("starred actors", False), ("directed by", True)])[0]
    'the directed by of the starred actors of X'
    """
    labels = [label for label, _ in steps]
    genitive = "X"
    for label in labels:
        genitive = f"the {label} of {genitive}"
    backward = "what " + " ".join(reversed(labels)) + " X"
    chain = "X " + " ".join(labels)
    return [genitive, backward, chain]


#: Nouns that ask for the class a thing falls in ("in which *field*", "what *kind* of …", "which *areas*"): English
#: words, no graph's relation; :meth:`GraphLexicon.similarity` reads them as a relation of
#: :attr:`GraphLexicon.schemes`.
CLASSIFIER_NOUNS = frozenset("field area discipline subject domain category kind type sort class genre branch".split())
#: Words that ask for the words a thing is tagged with ("what *words* describe X", "what *topics* is X about",
#: "*describe* X"), and the words of a label that tags things (*has tags*, *keywords*, *subject*): English words, no
#: graph's relation; :meth:`GraphLexicon.similarity` reads the first as the one relation with one of the second.
TAG_WORDS = frozenset("word term keyword topic theme descriptor tag describe description".split())
TAG_LABEL_WORDS = frozenset("tag tags keyword keywords topic topics theme themes subject subjects".split())
#: Nouns that ask for a link out of the graph ("the DBpedia *link* for X", "its Wikidata *URI*"): English words, no
#: graph's relation; :meth:`GraphLexicon.similarity` reads them as a relation of :attr:`GraphLexicon.links`.
LINK_NOUNS = frozenset("link uri url iri resource page entry identifier".split())
#: Words of working somewhere ("where he was *working*"), which MiniLM does not place near the labels graphs give an
#: affiliation ("working" is 0.3 from *member of*, nearer *death place*): :func:`names_affiliation`.
WORK_WORDS = frozenset("work employ affiliate job".split())
AFFILIATION_WORDS = frozenset(
    "member membership affiliation employer workplace institution organisation organization".split()
)


def names_affiliation(word: str, key: str) -> bool:
    """Whether ``word`` is a word of working (:data:`WORK_WORDS`: "worked", "employed") and the relation ``key``'s
    label a word of affiliation (:data:`AFFILIATION_WORDS`: *member of*, *employer*). Read only where a clause is
    known to name a way to a place (:meth:`kgsvc.qa.kind_path._KindPath.own_values`); as a general similarity it
    pulled "the winners who *worked* at X" away from the verb asked about (six Nobel questions lost, 2026-11-29).

    >>> names_affiliation("working", "member of"), names_affiliation("working", "death place")
    (True, False)
    """
    return any(stem_match(word, w) for w in WORK_WORDS) and any(p in AFFILIATION_WORDS for p in content_words(key))


@dataclass
class GraphLexicon(RelationLexicon):
    """``t(word | step)`` from relation labels by stem match and embedding similarity (module docstring).

    Parameters
    ----------
    embed : callable
        The sentence embedder (unit vectors), e.g. the bundled MiniLM.
    beta : float
        Sharpness of the emission ``exp(β · (sim − τ))``.
    tau : float
        Similarity above which a word is better explained by the step than by NULL.
    null_share : float
        Share of the cost of an unexplained step that an unexplained relation word pays (:meth:`null_prob`).
    names : frozenset of str
        Words of linked entity mentions that the scored paths leave unused: they explain a step only by spelling
        its label ("Netherlands" is a country, but "from Netherlands" does not make a path's *country* step).
    free : frozenset of str
        Words that go to NULL at no cost: those naming the class of the answer (:func:`class_words`).
    plain : frozenset of str
        Share cues that are no share cues in this question (:func:`plain_cues`: the "both" of "both … and").
    shared_classes : frozenset of str
        Words after a share cue that name a class of the graph ("the same *city* as X"): what is shared is a value of
        that class through any relation, so they neither block a walk back by another relation nor cost a miss
        (:meth:`kgsvc.qa.rank.CandidateRanker.shared_instances`).
    shared_only : frozenset of str
        The words of ``shared_classes`` where no linked entity is the value shared ("share *the Nobel* with X", not
        "shared *the 1973 physics prize*"): they explain no step but one walked back ("Nobel" spells *nobel
        laureates*, which the path from X to its co-winners does not walk).
    context : str
        A phrase with one ``{}`` that a word and a label are also compared in (:meth:`in_context`; ``""``: bare
        words only). A relational noun reads as one there: "job" ↔ *profession*, "son" ↔ *children*.
    vocabulary : frozenset of str
        Words the embedder knows whole (:meth:`kgsvc.index.embed.Embedder.words`): the parts a closed compound is
        split into (:meth:`head`); empty: no compound is split.
    ranges : mapping
        For a step ``(relation key, outgoing)``, the keys of the relations whose objects hold the nodes it ends at
        (:func:`answer_ranges`): the clubs a step *is in country* walked back reaches are what *plays in club*
        points to, so "a soccer *club* in X" names them.
    links : mapping of str to frozenset of str
        The keys of the relations whose objects are links out of the graph (IRIs of another host that nothing in the
        graph describes: an untidy ``owl:sameAs`` written ``owlsameAs`` reads *owlsame as*), each with the words of
        its objects' hosts ("dbpedia" for ``http://dbpedia.org/…``): a noun of :data:`LINK_NOUNS` that spells no
        label, or a host word, spells such a relation (2026-11-29).
    schemes : collection of str
        The keys of the relations whose objects are a handful of named things, a classification (a prize's
        *category*: physics, chemistry, …): where the graph has exactly one, a noun of :data:`CLASSIFIER_NOUNS` that
        spells no label ("in which *field*") spells it (2026-11-28; before, "field" named no relation of the Nobel
        graph, and "subject" its *gender*). With several, the noun is read as before: which one it means is not
        told by the word alone.

    Notes
    -----
    Steps are ``(relation key, outgoing)`` as in :data:`kgsvc.qa.exemplars.Step`; the key (the folded label) is
    the label text, so no relation table is needed. Each distinct word and label is embedded once.
    """

    embed: Embed | None = None
    labels: Sequence[str] = ()
    beta: float = 8.0
    tau: float = 0.08
    floor_sim: float = 0.35
    cue: float = 0.4
    miss: float = 0.02
    null_share: float = 0.5
    names: frozenset[str] = frozenset()
    free: frozenset[str] = frozenset()
    plain: frozenset[str] = frozenset()
    shared_classes: frozenset[str] = frozenset()
    shared_only: frozenset[str] = frozenset()
    context: str = "what is the {} of something"
    vocabulary: frozenset[str] = frozenset()
    ranges: Mapping[tuple[str, bool], frozenset[str]] = field(default_factory=dict)
    schemes: Collection[str] = frozenset()
    links: Mapping[str, frozenset[str]] = field(default_factory=dict)
    _vectors: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict, repr=False)
    _sims: dict[tuple[str, str], float] = field(default_factory=dict, repr=False)
    _best: dict[str, float] = field(default_factory=dict, repr=False)
    _heads: dict[str, str | None] = field(default_factory=dict, repr=False)
    _bare_names: dict[str, bool] = field(default_factory=dict, repr=False)
    _contrasts: dict[tuple[str, str, str, bool], float] = field(default_factory=dict, repr=False)
    _rivals: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _only_labels: dict[frozenset[str], str] = field(default_factory=dict, repr=False)

    def _embed(self, texts: Sequence[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing and self.embed is not None:
            for text, vector in zip(missing, self.embed(missing), strict=True):
                self._vectors[text] = np.asarray(vector, dtype=np.float32)

    def prepare(self, words: Sequence[str], keys: Sequence[str], clauses: Sequence[str] = ()) -> None:
        """Embed the content words among ``words`` and the labels ``keys`` (and their content words), each also in
        the :attr:`context` phrase, and the verb phrases read as ``clauses`` (:meth:`clause_contrast`), in one
        batch."""
        content = [w for w in words if w not in FUNCTION_WORDS]
        texts = list(content)
        for key in [*keys, *self.labels]:
            texts.append(key)
            texts += content_words(key)
        if self.context:
            texts += [self.context.format(t) for t in [*content, *keys, *self.labels]]
            if clauses:
                texts += [*clauses, *(self.clause_phrase.format(k) for k in self.labels)]
        self._embed(texts)

    def similarity(self, word: str, key: str) -> float:
        """``sim(word, label)`` in [0, 1]: 1 for a stem match, else the best embedding cosine (module docstring)."""
        cached = self._sims.get((word, key))
        if cached is not None:
            return cached
        parts = content_words(key)
        if any(stem_match(word, p) for p in parts):
            sim = 1.0
        elif key in self.schemes and len(self.schemes) == 1 and self.classifies(word):
            sim = 1.0  # "in which *field*" spells the graph's one classification
        elif key == self.classification() and self.classifies(word):
            sim = 1.0  # "what *sort* of movie is X" spells the one relation a classifier noun labels (*has genre*)
        elif key == self.tagging() and self._unlabelled(word, TAG_WORDS):
            sim = 1.0  # "what *words* describe X" spells the one relation that tags things (*has tags*)
        elif key in self.links and (word in self.links[key] or self.names_link(word)):
            sim = 1.0  # "the *DBpedia* *link* of X" spells the relation whose objects are DBpedia's IRIs
        else:
            self._embed([word, key, *parts])
            v = self._vectors.get(word)
            sim = 0.0
            if v is not None:
                sim = max(float(v @ self._vectors[t]) for t in [key, *parts] if t in self._vectors)
        self._sims[(word, key)] = sim
        return sim

    def classification(self) -> str | None:
        """The one relation label with a noun of :data:`CLASSIFIER_NOUNS` among its words (*has genre*; "type" and
        "class" excepted, the words of ``rdf:type``), if exactly one label has one."""
        return self._one_label(CLASSIFIER_NOUNS - {"type", "class"})

    def tagging(self) -> str | None:
        """The one relation label with a word of :data:`TAG_LABEL_WORDS` (*has tags*), if exactly one has."""
        return self._one_label(TAG_LABEL_WORDS)

    def _one_label(self, words: frozenset[str]) -> str | None:
        """The one relation label with a content word among ``words``, if exactly one has (cached per ``words``)."""
        found = self._only_labels.get(words)
        if found is None:
            labels = {k for k in self.labels if words.intersection(content_words(k))}
            found = self._only_labels[words] = next(iter(labels)) if len(labels) == 1 else ""
        return found or None

    def names_link(self, word: str) -> bool:
        """Whether ``word`` is a noun of :data:`LINK_NOUNS` that spells no relation label of the graph."""
        return self._unlabelled(word, LINK_NOUNS)

    def classifies(self, word: str) -> bool:
        """Whether ``word`` is a noun of :data:`CLASSIFIER_NOUNS` that spells no relation label of the graph (in a
        film graph "genre" is *has genre*'s, not any classification's)."""
        return self._unlabelled(word, CLASSIFIER_NOUNS)

    def _unlabelled(self, word: str, nouns: Collection[str]) -> bool:
        """Whether ``word`` is one of ``nouns`` (by stem) and spells no relation label of the graph."""
        return any(stem_match(word, n) for n in nouns) and not any(
            stem_match(word, p) for label in self.labels for p in content_words(label)
        )

    def _names_bare(self, word: str) -> bool:
        """Whether ``word`` names a relation bare, by the margin ``τ`` (then it is not read in :attr:`context`)."""
        named = self._bare_names.get(word)
        if named is None:
            context, self.context = self.context, ""
            try:
                named = max((self.word_contrast(word, k) for k in self.labels), default=0.0) >= self.tau
            finally:
                self.context = context
            self._bare_names[word] = named
        return named

    def in_context(self, word: str, key: str) -> float:
        """``sim`` of ``word`` and label ``key`` each read in the :attr:`context` phrase ("what is the *job* of
        something" against "what is the *profession* of something"): 1 for a stem match, else the MiniLM cosine of
        the two phrases; 0 without a context."""
        if not self.context:
            return 0.0
        cached = self._sims.get((word, "\x00" + key))
        if cached is not None:
            return cached
        if any(stem_match(word, p) for p in content_words(key)):
            sim = 1.0
        else:
            a, b = self.context.format(word), self.context.format(key)
            self._embed([a, b])
            sim = float(self._vectors[a] @ self._vectors[b]) if a in self._vectors and b in self._vectors else 0.0
        self._sims[(word, "\x00" + key)] = sim
        return sim

    def head(self, word: str) -> str | None:
        """The head of a closed compound ``word`` ("screen|writer", "grand|parents"): its longest ending of at least
        :data:`_PART` letters that is a word of :attr:`vocabulary` after a part of at least :data:`_PART` letters
        that is one too; ``None`` when there is none (English compounds are right-headed: a *screenwriter* is a
        writer)."""
        if word in self._heads:
            return self._heads[word]
        found = None
        if word.isalpha() and self.vocabulary:
            for cut in range(_PART, len(word) - _PART + 1):
                if word[:cut] in self.vocabulary and word[cut:] in self.vocabulary:
                    found = word[cut:]
                    break
        self._heads[word] = found
        return found

    def contrast(self, word: str, key: str, phrase: bool = True) -> float:
        """:meth:`word_contrast` of ``word``, or of its compound :meth:`head` where the head names a relation
        better than the whole word does, by the margin ``τ`` at least (MiniLM reads "screenwriter" as a word of its
        own, closer to *directed by* than to *written by*; "writer" is closer to *written by* by 0.15). A compound
        whose whole names its relation keeps it ("birthplace" is *place of birth*, not any *place*). Without
        ``phrase`` (a verb, :data:`OF_PREDICATE`) no word is read in the :attr:`context` phrase."""
        head = self.head(word)
        if head is not None:
            whole = max(self.word_contrast(word, k, phrase) for k in self.labels)
            if max(self.word_contrast(head, k, phrase) for k in self.labels) >= whole + self.tau:
                return self.word_contrast(head, key, phrase)
        return self.word_contrast(word, key, phrase)

    def word_contrast(self, word: str, key: str, phrase: bool = True) -> float:
        """``sim(word, key)`` less the word's best similarity to the *other* relation labels of the graph (those
        that share no content word with ``key``; at least :attr:`floor_sim`): a word names a relation when it is
        closer to it than to every other relation ("films" in a film graph is close to all of them and names
        none). For a word that names no relation bare by the margin ``τ``, the larger of that contrast and the one of
        the word and label read in the :attr:`context` phrase (:meth:`in_context`) where the latter reaches ``τ``: a
        bare word is ambiguous where a relational noun in its phrase is not ("job" ↔ *profession* 0.04 bare, 0.27 in
        "what is the job of something"; "son" ↔ *children* 0.00 and 0.11). A word that names a relation bare keeps
        its bare reading ("died" is as close to *death date* as to *death place*; in the phrase it leans to the
        place), and a phrase that gives less than the margin is no evidence ("institution" ↔ *member of*: 0.02 bare,
        0.04 in the phrase). Without ``phrase``, the bare contrast only.

        Cached per (word, label, :attr:`context`, ``phrase``): the caches are shared by the copies
        ``dataclasses.replace`` makes of a lexicon for one question (other :attr:`names`, :attr:`free`,
        :attr:`plain`), which this does not read.
        """
        cached = self._contrasts.get((word, key, self.context, phrase))
        if cached is None:
            cached = self._contrasts[(word, key, self.context, phrase)] = self._word_contrast(word, key, phrase)
        return cached

    def rivals(self, key: str) -> tuple[str, ...]:
        """The graph's labels that share no content word with label ``key`` (what a contrast is taken against);
        computed once per label."""
        rivals = self._rivals.get(key)
        if rivals is None:
            own = set(content_words(key))
            rivals = self._rivals[key] = tuple(k for k in self.labels if not own & set(content_words(k)))
        return rivals

    def _word_contrast(self, word: str, key: str, phrase: bool) -> float:
        rivals = self.rivals(key)
        best = max([self.similarity(word, k) for k in rivals], default=0.0)
        bare = self.similarity(word, key) - max(best, self.floor_sim)
        if not self.context or not phrase or word in WH_WORDS or self._names_bare(word):
            return bare  # the phrase reads a noun: "what is the *where* of something" reads nothing
        best = max([self.in_context(word, k) for k in rivals], default=0.0)
        phrased = self.in_context(word, key) - max(best, self.floor_sim)
        return max(bare, phrased) if phrased >= self.tau else bare  # the phrase counts where it gives the margin

    @property
    def clause_phrase(self) -> str:
        """The :attr:`context` phrase with the clauses' word for their subject, "someone" (:func:`verb_phrases`)."""
        return self.context.replace("something", "someone")

    def clause_contrast(self, clause: str, key: str) -> float:
        """The contrast of a verb phrase read as a clause (:func:`verb_phrases`: "where does someone come from")
        and label ``key`` read in the :attr:`context` phrase with the clause's "someone" ("what is the profession of
        someone"): their MiniLM
        cosine less the clause's best cosine to the other labels' phrases (those sharing no content word with
        ``key``; at least :attr:`floor_sim`); 0 without a context."""
        if not self.context:
            return 0.0
        cached = self._sims.get((clause, "\x01" + key))
        if cached is not None:
            return cached
        texts = [self.clause_phrase.format(k) for k in [key, *self.rivals(key)]]
        self._embed([clause, *texts])
        v = self._vectors.get(clause)
        contrast = 0.0
        if v is not None:
            sims = [float(v @ self._vectors[t]) for t in texts]
            contrast = sims[0] - max([*sims[1:], self.floor_sim])
        self._sims[(clause, "\x01" + key)] = contrast
        return contrast

    def clause_names(self, clause: str, words: Sequence[str]) -> bool:
        """Whether a verb phrase read as a clause names a relation by the margin ``τ``, and better than each of its
        own content ``words`` does (where a word of it names the relation, "what movies did X *star* in", the word
        is read)."""
        best = self.clause_best(clause)
        own = max((self.best_contrast(w) for w in words if w not in FUNCTION_WORDS), default=0.0)
        return best >= self.tau and best > own

    def clause_best(self, clause: str) -> float:
        """The best :meth:`clause_contrast` of a verb phrase read as a clause over the graph's relation labels."""
        best = self._best.get("\x00" + clause)
        if best is None:
            best = max((self.clause_contrast(clause, k) for k in self.labels), default=0.0)
            self._best["\x00" + clause] = best
        return best

    def names_object(self, word: str, key: str) -> bool:
        """Whether ``word`` is closest, among the content words of label ``key``, to its last one: the noun that
        names what the relation points to ("club" in *plays in club*, "sex" ↔ *gender*); "player" is closer to
        *plays* than to *club* and names the relation's subject, not its object."""
        parts = content_words(key)
        if len(parts) <= 1:
            return True
        own = self.similarity(word, parts[-1])
        return all(own >= self.similarity(word, p) for p in parts[:-1])

    def typed(self, word: str, key: str, outgoing: bool) -> float:
        """The emission of the answer's class word for a step that ends at the objects of another relation whose
        object noun the word spells (:attr:`ranges`: "*club*" for a step ending at what *plays in club* points to):
        the word's emission for that relation, as if the step's own label said it; 0 when there is none."""
        best = 0.0
        for other in self.ranges.get((key, outgoing), ()):
            parts = content_words(other)
            if other != key and parts and stem_match(word, parts[-1]):
                contrast = self.contrast(word, other)
                if contrast >= self.tau:
                    best = max(best, math.exp(self.beta * (contrast - self.tau)))
        return best

    def null_prob(self, word: str) -> float:
        """``t(word | NULL)``: 1 for a word that names no relation of the graph; for a content word closer to one
        relation than to any other (best contrast ``c* > 0``), ``miss^(null_share · min(1, c*/τ))``: a path that
        leaves the question's "sex" or "job" unread pays part of what a step the question never names costs.
        Function words, share cues, :attr:`free` words and the words of a linked entity's noun phrase
        (:data:`OF_ENTITY`: "the *soccer club* X") go to NULL at no cost."""
        word, role = _role(word)
        if role == OF_ENTITY:
            return 1.0
        if role == OF_SLOT:  # a relation said by a genitive, unread: as much as a step no word says
            return self.miss
        if role == OF_CLAUSE:
            return float(self.miss ** (self.null_share * min(1.0, max(self.clause_best(word), 0.0) / self.tau)))
        if word == CO:  # the prefix of "co-starred" read as a word of its own (split_co): a value shared, which
            return float(self.miss**self.null_share)  # only a step walked back explains
        if word in FUNCTION_WORDS or word in SHARE_CUES or word in self.names or word in self.free:
            return 1.0
        if not word.strip("'"):
            return 1.0
        best = self.best_contrast(word, phrase=role != OF_PREDICATE)
        if best <= 0.0:
            return 1.0
        return float(self.miss ** (self.null_share * min(1.0, best / self.tau)))

    def best_contrast(self, word: str, phrase: bool = True) -> float:
        """``c*``: the best :meth:`contrast` of ``word`` over the graph's relation labels (> 0: it names one)."""
        cached = word if phrase else word + OF_PREDICATE
        best = self._best.get(cached)
        if best is None:
            best = max((self.contrast(word, k, phrase) for k in self.labels), default=0.0)
            self._best[cached] = best
        return best

    def prob(self, word: str, step: Step) -> float:
        """``t(word | step)``: :meth:`null_prob` for NULL; for a content word ``exp(β (contrast − τ))`` from the
        margin ``τ`` on, ``miss^(1 − contrast/τ)`` below it (closer to this relation than to any other, by less than
        the margin: it spares the step part of its miss), ~0 at ``contrast ≤ 0``; ~0 for a function word and for a
        word of an unused entity name that does not spell the label; a share cue ("same", "also", "co-") is a
        content word of a step marked :data:`RETURN`. A word of a linked entity's noun phrase (:data:`OF_ENTITY`:
        "who plays at the *soccer club* X") explains at most a step marked :data:`FIRST`, by spelling its label
        (as a word of an unused entity name does: "club" ↔ *plays in club*, not "football" ↔ *plays for country*);
        the answer's class word (:data:`OF_ANSWER`) at most the step marked :data:`LAST`: when the answer is that
        step's object (outgoing) only if the word names the object noun (:meth:`names_object`: "name a *player* who
        plays X" is no step to the players' clubs), when it is the subject only if the word does not spell the object
        noun ("which *country* is X based in" is no step back to the country's players; "which *films* did X act
        in" may read *starred actors* walked back to the films); a modifier of a class noun that spells a relation's
        object (:data:`OF_MODIFIER`: "which *football* club does X play for") none. The answer's class word explains
        a last step that ends at the objects of a relation whose object noun it spells as it explains that relation
        (:meth:`typed`). A word of an entity's trailing phrase (:data:`OF_TAIL`) explains at most the step marked
        :data:`FIRST`; a preposition before an entity (:data:`OF_OBJECT`) explains that step with
        ``exp(β τ)`` when the entity is the relation's object and its label has the preposition, nothing else; a
        verb tagged :data:`OF_VERB` only a step marked :data:`FIRST` whose label writes it before its preposition
        (:func:`said_with`).
        """
        key, outgoing = step
        if not key:
            return self.null_prob(word)
        key, marks = _marks(key)
        returning = RETURN in marks
        word, role = _role(word)
        if role == OF_SLOT:  # "X 's *daughter* 's gender": a relation step by the construction, which one unknown
            own = self.prob(word, step)
            return own if returning else max(own, self.miss**self.null_share)
        if role == OF_CLAUSE:  # "where does someone come from": the relation of the answer, said by a verb phrase
            contrast = self.clause_contrast(word, key) if LAST in marks and not returning else 0.0
            if contrast <= 0.0:
                return 1e-9
            if contrast < self.tau:
                return float(self.miss ** (1.0 - contrast / self.tau))
            return math.exp(self.beta * (contrast - self.tau))
        if role == OF_ENTITY and not (FIRST in marks and any(stem_match(word, p) for p in content_words(key))):
            return 1e-9  # the entity's noun phrase names its class: at most its own step, by spelling the label
        if role.startswith(OF_VERB) and not (FIRST in marks and said_with(word, role[len(OF_VERB) :], key)):
            return 1e-9  # "who *plays* for the X team": the verb and its preposition name the relation at X together
        if role == OF_TAIL and FIRST not in marks:
            return 1e-9  # "the X *national football team*": the entity's noun phrase, at most the entity's own step
        if role == OF_OBJECT:  # "a club *in* X": the entity is the object of a relation whose label says "in"
            said = FIRST in marks and not outgoing and word in key.split()
            return math.exp(self.beta * self.tau) if said else 1e-9
        if role.startswith(OF_AGENT):  # "the movies *starred* by X actors": the agent's noun says the step at X,
            agent = role[len(OF_AGENT) :]  # the participle the step from the agent to the things
            if FIRST in marks and self.contrast(agent, key) >= self.tau:
                return 1e-9
            role = OF_PASSIVE
        if role == OF_PASSIVE and outgoing and said_with(word, "by", key):
            return 1e-9  # "the films *written* by the writer of X": from the writer to the films, *written by* is
            # walked back
        if role.startswith(OF_HOLDER):  # "movies *for* the writer of X": the movies that writer wrote
            noun = role[len(OF_HOLDER) :]
            held = returning and FIRST not in marks and self.contrast(noun, key) >= self.tau
            return math.exp(self.beta * self.cue) if held else 1e-9
        if role == OF_PASSIVE_ASKED and not outgoing and said_with(word, "by", key):
            return 1e-9  # "the films of X were *written* by who": from the films to the writer, walked forward
        if role == OF_MODIFIER or (role == OF_ANSWER and LAST not in marks):
            return 1e-9  # the answer's class: at most the step that reaches the answer; a modifier of a class noun
            # that spells a relation's object ("which *vocal* choir") none
        if role == OF_ANSWER:
            typed = self.typed(word, key, outgoing)
            if typed > 0.0:
                return typed  # "a soccer *club* in X": the step ends at what *plays in club* points to
        if role == OF_ANSWER and outgoing and not self.names_object(word, key):
            return 1e-9  # the answer is the object: "player" is closer to *plays* than to *club*, it names no club
        if role == OF_ANSWER and not outgoing and any(stem_match(word, p) for p in content_words(key)[-1:]):
            return 1e-9  # the answer is the subject: "country" spells the object of *plays for country*
        cue = word in SHARE_CUES and word not in self.plain
        if word.startswith("co-"):
            cue, word = True, word[3:]
        if returning and cue:
            shared = role[len(OF_SHARED) :] if role.startswith(OF_SHARED) else ""
            if shared in self.shared_classes:
                return math.exp(self.beta * self.cue)  # "the same *city*": a class, shared through any relation
            if shared and self.best_contrast(shared) >= self.tau and self.contrast(shared, key) < self.tau:
                return 1e-9  # "share *actors*": the value shared is the actors, not a director walked back
            return math.exp(self.beta * self.cue)
        if word in FUNCTION_WORDS or not word.strip("'"):
            return 1e-9
        if word in _ASKING and returning:
            return 1e-9  # "where" / "when" ask for the answer's place or time; they name no relation walked back
        if word in self.names and not any(stem_match(word, p) for p in content_words(key)):
            return 1e-9  # a word of an entity's name names a relation only by spelling it
        if word in self.shared_only and not returning:
            return 1e-9  # "share the *Nobel* with X": the class of the value shared names no step of its own
        contrast = self.contrast(word, key, phrase=role != OF_PREDICATE)  # a verb is no noun of the phrase
        if contrast <= 0.0:
            return 1e-9  # explains nothing: it can neither stand for the step nor spare the step its miss
        if contrast < self.tau:  # closer to this relation than to any other, by less than the margin: it spares the
            return float(self.miss ** (1.0 - contrast / self.tau))  # step part of its miss, in proportion to the margin
        return math.exp(self.beta * (contrast - self.tau))
