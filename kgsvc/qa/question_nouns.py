"""What a question's noun phrases and clauses say about its answer, read off the words and the linked mentions.

The ranker (:mod:`kgsvc.qa.rank`) reads words against relation labels; this module reads the question's grammar
around its nouns, for :class:`~kgsvc.qa.pipeline.QuestionAnswerer` and :mod:`kgsvc.qa.kind_path`:

* the noun asked for: right after "which" / "what" (:func:`asks_for`), and the word between them that modifies it
  ("which *Nobel* winners", :func:`modifying_word`);
* the linked mentions that modify it, each a condition on the answer ("which *physics* laureates", "winners *at
  Yale*", :func:`modifying_mentions`);
* the class nouns named but not asked for: those the path passes on the way ("when was X given *the Nobel Prize*",
  :func:`passed_classes`), those an entity's genitive names, one step from it ("the city of X's *institution*",
  :func:`genitive_nouns`), and those that name no step and are not read as words (:func:`unread_class_nouns`);
* what a "when" / "where" question asks (:func:`asks_time`), a time clause after the main one that names no step
  ("X's affiliation *when they won the Nobel Prize*", :func:`time_clauses`), and whether a value is said to be
  shared (:func:`says_shared`).

English grammar only: nothing here names a graph's relations or a benchmark's templates; the graph is read only
for the types of linked nodes. Every function is O(length of the question × mentions).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from kgsvc.qa.align import question_tokens
from kgsvc.qa.exemplars import mask_question
from kgsvc.qa.graph import QAGraph
from kgsvc.qa.link import STOPWORDS, LinkedSpan, TypeMention, fold
from kgsvc.qa.zeroshot import SHARE_CUES, stem_match

__all__ = [
    "ASKED_COPULA",
    "ASKED_PREDICATE",
    "ASKED_NOUN",
    "OF_PHRASE",
    "PREDICATE_NOUN",
    "asked_head_words",
    "asks_for",
    "asks_reason",
    "asks_time",
    "blank_spans",
    "clause_nouns",
    "genitive_nouns",
    "heads",
    "modifying_mentions",
    "modifying_word",
    "named_class_nouns",
    "next_word",
    "owned_noun_asked",
    "passed_classes",
    "same_nouns",
    "says_shared",
    "time_clauses",
    "unread_class_nouns",
    "won_something",
]

#: The noun a question asks for, right after its wh-phrase ("Which *women* …", "How many *physicists* …").
ASKED_NOUN = re.compile(r"\W*(?:which|what|how\s+many)\s+([^\W\d_]+)\b", re.IGNORECASE)
#: The first words after the question's opening wh-word ("Which *Nobel fields saw a* prize"): :func:`asked_head_words`.
_ASKED_WORDS = re.compile(r"\W*(?:in\s+|of\s+)?(?:which|what)((?:\s+[^\W\d_]+){1,4})", re.IGNORECASE)
#: The noun a copula ends a question with, the predicate of its subject ("how many laureates born in X were *women*?",
#: "which of them are *physicists*").
PREDICATE_NOUN = re.compile(r"\b(?:were|are|was|is)\s+(?:an?\s+)?([^\W\d_]+)\W*$", re.IGNORECASE)
#: A yes/no question by a copula ("*Was* Marie Curie a woman?").
ASKED_COPULA = re.compile(r"\W*(?:is|was|are|were)\b", re.IGNORECASE)
#: The noun after an article that ends such a question ("Was Marie Curie *a woman*?").
ASKED_PREDICATE = re.compile(r"\ban?\s+([^\W\d_]+)\W*$", re.IGNORECASE)
#: A class noun that names what is asked: right after "which" / "what" (or "what are the", "which other"), or one
#: word later ("which Nobel laureates").
_ASKS_FOR = re.compile(r"\b(?:which|what)\s+(?:(?:are|were)\s+(?:the\s+)?)?(?:other\s+)?(?:\S+\s+)?$", re.IGNORECASE)
#: The words before a class noun that says what is shared ("the same *institution*", "shared the *Nobel Prize*").
_SHARE_BEFORE = re.compile(r"\b(?:same|shar\w*|co-)\s*(?:\S+\s+){0,2}$", re.IGNORECASE)
#: The word right before the noun a question asks for, when it is no wh-word ("which *Nobel* winners").
_WORD_BEFORE = re.compile(r"\b(?:which|what)\s+([^\W\d_][\w-]*)\s+$", re.IGNORECASE)
#: The word right before a noun ("his *birth* country"), and the word of an "of" phrase right after it ("city of
#: *birth*").
_BEFORE_NOUN = re.compile(r"([^\W\d_][\w-]*)\s+$")
_OF_AFTER_NOUN = re.compile(r"\s+of\s+([^\W\d_][\w-]*)")
#: The word right after a position ("the Nobel Prize *winner* X").
_NEXT_WORD = re.compile(r"\s+([^\W\d_][\w-]*)")
#: A noun after this is the thing a value is asked of ("the DBpedia links *of* the cities …"), not the asked noun
#: ("which *of* …", "how many *of* …", "the name *of* the city where …").
_OF_VALUE = re.compile(
    r"\b(?!(?:which|what|many|much|some|any|all|each|none|most|both|either|neither|one|few|several|name|names|list"
    r"|lists|number|numbers|count|kind|kinds|sort|sorts|type|types|set|group)\b)"
    r"[^\W\d_]{3,}\s+(?:of|for)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
#: What lies between the noun a question asks for and an entity in a phrase modifying it ("winners| at |Yale").
_MODIFYING_PHRASE = re.compile(r"\s+(?:of|at|from|in)\s+(?:(?:the|a|an)\s+)?(?:[A-Z0-9][\w'.-]*\s+){0,3}")
#: What lies between a noun and the class noun of an "of" phrase modifying it ("winners| of the Nobel Peace |Prize").
OF_PHRASE = re.compile(r"\s+of\s+(?:\S+\s+){0,3}", re.IGNORECASE)
#: Words that say a value is shared, so a walk to a date and back is what is asked ("born the *same* day as X").
_SHARED_WORDS = SHARE_CUES | {"else"}
#: Number words that stand between "which" and a noun ("which *two* laureates").
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten dozen few several many".split())
#: A question that asks for a time ("when did …") or a place ("where was …"): its opening word.
_WHEN_WHERE = re.compile(
    r"\W*(when|where)\b|.*?(?:[:;—–]|\s-\s)\s*(when|where)\s+(?:did|does|do|was|were|is|are|has|have|had)\b",
    re.IGNORECASE | re.DOTALL,
)
#: A question that asks for a reason: "why …", "what" and an auxiliary with a "for" that ends it ("What did X win
#: the Nobel for?", "What were the winners born in X recognised for?"), or a noun that names one ("the official
#: *citation for* the 1994 peace prize", "the *motivation of* …").
_REASON = re.compile(
    r"\W*why\b"
    r"|\W*what\s+(?:did|does|do|was|were|is|are|has|have|had)\b.*?"
    r"\b(?:w[oi]n|receiv|get|got|earn|award|give|given|honou?r|recogni[sz]|cit)\w*\b.*?\bfor(?:\W*$|\s*\?)"
    r"|(?!\W*(?:who|whom|whose|where|when)\b).*\b(?:motivation|citation|reason|rationale)s?\s+(?:for|of|behind)\b"
    r"|.*\?\s*(?:i\s+(?:want|need)|give\s+me|show\s+me|list)\s+(?:the\s+|their\s+|its\s+)?"
    r"(?:motivation|citation|reason|rationale)s?\W*$",  # "…? I want the citations."
    re.IGNORECASE | re.DOTALL,
)
#: Where a question asked after its subject starts ("X got credit for some Nobels — *what* were they awarded for?").
_CLAUSE_BREAK = re.compile(r"[—–:;]|\s-\s")
#: The noun before a relative clause and its relative word, right before the clause's subject ("the *town* ", "the
#: *city* where "): :func:`clause_nouns`.
_CLAUSE_NOUN = re.compile(r"\b(?:the|a|an)\s+([^\W\d_]+)\s+(?:(?:in\s+)?(?:where|that|which)\s+)?$", re.IGNORECASE)
#: The rest of such a clause after its subject: a verb, a preposition it strands, and the end of the question.
_CLAUSE_END = re.compile(
    r"\s+(?:(?:was|were|is)\s+)?[^\W\d_]+(?:\s+(?:in|at|on|from|to|for|with|by))?\s*[?.!]*\s*", re.IGNORECASE
)
#: "the same <noun> as (the) X": the noun of the value X shares (:func:`same_nouns`).
_SAME_NOUN = re.compile(r"\bsame\s+([^\W\d_]+)\s+as\s+(?:the\s+)?$", re.IGNORECASE)
#: What lies between an entity and the noun its genitive names ("X|'s |institution").
_GENITIVE = re.compile(r"\s*['\u2019]s\s+")
#: A relative pronoun right after a noun: the clause describes it ("the laureates *who* died in X").
_RELATIVE_AFTER = re.compile(r"\s+(?:who|whom|whose|that|which)\b", re.IGNORECASE)
#: A singular possessive pronoun and one word right before a class noun: the genitive of the entity named before it
#: ("How many laureates besides X died in *his death* city?"; not "*its* laureates", which may be anyone's, nor
#: "*their* birth country", which is the answers' own).
_PRONOUN_BEFORE = re.compile(r"\b(?:his|her|its)\s+[^\W\d_][\w-]*\s+$", re.IGNORECASE)
#: Between an entity and the class noun that ends a "what is X's …" question: the genitive, at most one word.
_OWNED_BEFORE = re.compile(r"\s*['\u2019]s\s+(?:[^\W\d_][\w-]*\s+)?")
#: After that class noun: the end of the question, or one word of an "of" phrase first ("city *of birth*").
_OWNED_AFTER = re.compile(r"(?:\s+of\s+[^\W\d_][\w-]*)?[\s?.!]*")
#: "What is" / "which was" … up to the entity of :func:`owned_noun_asked`.
_WHAT_IS = re.compile(r"^\W*(?:what|which)\s+(?:is|was|are|were)\s+(?:the\s+)?$", re.IGNORECASE)
#: A time clause after the main one, about its subject ("… working at *when he got the Nobel Prize*", "… place of
#: work *at the time of the prize*"): it dates the fact asked for and names no step of its own.
_TIME_CLAUSE = re.compile(r"\s(?:when\s+(?:he|she|they|it)\b|at\s+the\s+time\s+(?:of|when)\b)[^?.!]*", re.IGNORECASE)


def named_class_nouns(
    question: str, spans: Sequence[LinkedSpan], types: Sequence[TypeMention], modifiers: Sequence[TypeMention]
) -> list[TypeMention]:
    """The class nouns a question names but does not ask for, nor reads as what is shared ("the same
    *institution*"): neither the asked noun nor its head after a modifier ("which Nobel Prize *laureates*")."""
    return [
        t
        for t in types
        if t.classes
        and not asks_for(question, t.start, spans)
        and not heads(question, t, modifiers)
        and not _SHARE_BEFORE.search(question[: t.start])
    ]


def passed_classes(
    question: str,
    spans: Sequence[LinkedSpan],
    types: Sequence[TypeMention],
    modifiers: Sequence[TypeMention],
    graph: QAGraph,
    *,
    of_value: bool = False,
) -> list[frozenset[int]]:
    """The classes of the class nouns named on the way to what a question asks ("when was X given *the Nobel Prize*":
    the path passes X's prize; :meth:`kgsvc.qa.keeps.CandidateFilters.passes`): :func:`named_class_nouns` that
    modify neither the asked noun nor a word after them ("the *Nobel Prize* winner X") and that no linked entity is an
    instance of ("the *laureate* X"). With ``of_value``, only a noun that a value is asked of ("the DBpedia links *of
    the cities* they died in", "the resources *for the cities* X worked in"), which a linked entity may follow as the
    subject of its clause.

    >>> _OF_VALUE.search("the DBpedia links of ") is not None, _OF_VALUE.search("Which of ") is None
    (True, True)
    """
    linked = set().union(*(graph.types(s.nodes[0][0]) for s in spans if s.nodes))
    passed = []
    for t in named_class_nouns(question, spans, types, modifiers):
        if any(m.start == t.start for m in modifiers) or linked & set(t.classes):
            continue
        if of_value and (not _OF_VALUE.search(question[: t.start]) or _RELATIVE_AFTER.match(question, t.end)):
            continue  # "a list of the *laureates* who died in X": the laureates are asked for
        follows = next_word(question, t.end)
        if follows is not None and not (
            of_value and any(s.start > t.end and not question[t.end : s.start].strip() for s in spans)
        ):
            continue
        passed.append(frozenset(t.classes))
    return passed


def next_word(question: str, end: int) -> str | None:
    """The folded content word right after position ``end`` (``None`` at the end or before a function word or a
    number): the word a noun ending at ``end`` may modify ("the *Nobel Prize* winner X", "which prize *categories*").

    >>> next_word("the Nobel Prize winner X", 15), next_word("given the Nobel Prize?", 21)
    ('winner', None)
    """
    following = _NEXT_WORD.match(question, end)
    if following is None or fold(following.group(1)) in STOPWORDS:
        return None
    return fold(following.group(1))


def asks_time(question: str) -> bool | None:
    """``True`` for a question that opens with "when" (it asks for a date or a time), ``False`` for one that opens
    with "where" (a place: not a date), also after a colon or a dash ("People born in X: *where* did they die?"),
    ``None`` otherwise ("which institution was X working at *when* …" asks for
    an institution).

    >>> asks_time("When was Linda Buck born?"), asks_time("Where was she born?"), asks_time("Who won?")
    (True, False, None)
    >>> asks_time("People born in X who won a Nobel: where did they die?")
    False
    """
    m = _WHEN_WHERE.match(question)
    return None if m is None else (m.group(1) or m.group(2)).lower() == "when"


def asks_reason(question: str) -> bool:
    """Whether ``question`` asks why (:data:`_REASON`): the answer is a "for …" phrase, such as a prize's motivation.

    >>> asks_reason("What did Erwin Neher win the Nobel for?"), asks_reason("What team does X play for?")
    (True, False)
    >>> asks_reason("What did X die for?"), asks_reason("Who wrote the citation for X?")
    (False, False)
    >>> asks_reason("What was Marie Curie awarded the 1911 prize for?"), asks_reason("the motivation for X's prize")
    (True, True)
    >>> asks_reason("X got credit for some Nobels — what were they awarded for?")
    True
    >>> asks_reason("What were X's prizes awarded for? I want the citations."), asks_reason("Who got the citation?")
    (True, False)
    >>> asks_reason("Which laureates were given the same citation?")
    False
    >>> asks_reason("What did X win? Show me the reasons.")
    True
    """
    if _REASON.match(question) is not None:
        return True
    return any(_REASON.match(question, m.end()) is not None for m in _CLAUSE_BREAK.finditer(question))


def asked_head_words(question: str) -> list[str]:
    """The words that may be the head of the noun the question opens by asking for (folded): the word right after
    "which" / "what", and the next one after a modifier ("which Nobel *fields*"); none followed by "of" ("what *type*
    of religion is X", "what kind of films did X make": the noun after "of" is the head).

    >>> asked_head_words("Which Nobel fields saw a prize in 1943?"), asked_head_words("what sort of movie is X")
    (['nobel', 'fields'], [])
    """
    m = _ASKED_WORDS.match(question)
    if m is None:
        return []
    words = [w.casefold() for w in m.group(1).split()] + ["", "", ""]
    found = []
    for i in (0, 1):
        if i == 1 and words[0] in STOPWORDS:
            break
        if words[i] and words[i] not in STOPWORDS and words[i + 1] != "of":
            found.append(words[i])
    return found


def asks_for(question: str, start: int, spans: Sequence[LinkedSpan]) -> bool:
    """Whether a class noun at ``start`` names what is asked: right after "which" / "what", or one word later, a
    linked entity before it counting as one word ("which Nobel laureates", "which Harbour Institute laureates")."""
    before = mask_question(question[:start], [(s.start, s.end) for s in spans if s.end <= start])
    return _ASKS_FOR.search(before + " ") is not None


def unread_class_nouns(
    question: str,
    spans: Sequence[LinkedSpan],
    types: Sequence[TypeMention],
    modifiers: Sequence[TypeMention],
    relation_words: Collection[str],
    relation_labels: Sequence[str] = (),
) -> list[tuple[int, int]]:
    """The class nouns the ranker does not read as words, by ``(start, end)``: those that modify the asked noun
    (``modifiers``: "which *Nobel Prize* winners") and those of a class the question names but does not ask for
    ("what year did X win *the Nobel Prize*": what X won, not a step; read as words, "Nobel" spelled *nobel
    laureates*). Read are: the asked noun (also after a modifier of several words), a class noun that says what is
    shared ("the same *institution*", "*co-laureate*"), and one whose head word spells a word of a relation label
    of the graph (``relation_words``: "the *country* of X" with a relation *country* names that step) unless the
    word right before it, or of an "of" phrase right after it, names another relation, of a label without the noun
    (``relation_labels``: "his birth *country*", "his *city* of birth" are his *birth place* of that class, not a
    step *country* or *city*)."""
    labels = [fold(label).split() for label in relation_labels]

    def in_label(word: str, label: Sequence[str]) -> bool:
        return any(stem_match(word, w) for w in label)

    def read(t: TypeMention) -> bool:
        head = fold(t.text).split()[-1]
        if not any(stem_match(head, w) for w in relation_words):
            return False
        for near in (_BEFORE_NOUN.search(question[: t.start]), _OF_AFTER_NOUN.match(question, t.end)):
            if near is None or _inside(near, spans) or fold(near.group(1)) in STOPWORDS:
                continue
            holding = [label for label in labels if in_label(fold(near.group(1)), label)]
            if holding and not any(in_label(head, label) for label in holding):
                return False
        return True

    named = [t for t in named_class_nouns(question, spans, types, modifiers) if not read(t)]
    return [(t.start, t.end) for t in [*modifiers, *named]]


def modifying_mentions(question: str, spans: Sequence[LinkedSpan], types: Sequence[TypeMention]) -> frozenset[int]:
    """The linked mentions (by index in ``spans``) that modify the noun a question asks for ("which *physics*
    laureates …", "which winners of *the chemistry* prize …", "which winners at *Yale* …"): written right before
    it, or in an "of", "at", "from" or "in" phrase right after it (:data:`_MODIFYING_PHRASE`). Each is a condition
    on the answer, so a candidate that leaves it out answers another question ("which laureates were born in
    Hungary")."""
    needed = set()
    for t in types:
        if not asks_for(question, t.start, spans):
            continue
        # the noun phrase's end: its head noun after a class noun that modifies it ("which Nobel Prize *winners* at X")
        end = next((h.end for h in types if h.start > t.end and not question[t.end : h.start].strip()), t.end)
        for i, s in enumerate(spans):
            before = s.end <= t.start and not question[s.end : t.start].strip()
            if before or (s.start >= end and _MODIFYING_PHRASE.fullmatch(question[end : s.start])):
                needed.add(i)
    return frozenset(needed)


def modifying_word(before: str, spans: Sequence[LinkedSpan]) -> re.Match[str] | None:
    """The word between "which" / "what" and the asked noun (``before``: the question up to the noun) when it can
    modify the noun: not a function word or a number ("what *did* winners …", "which *two* …") nor part of an
    entity's name."""
    word = _WORD_BEFORE.search(before)
    if word is None or fold(word.group(1)) in STOPWORDS or fold(word.group(1)) in _NUMBER_WORDS or _inside(word, spans):
        return None
    return word


def says_shared(question: str) -> bool:
    """Whether ``question`` has a word that says a value is shared (:data:`_SHARED_WORDS`, "co-…")."""
    return any(t in _SHARED_WORDS or t.startswith("co-") for t in question_tokens(question)[0])


def _inside(word: re.Match[str], spans: Sequence[LinkedSpan]) -> bool:
    """Whether the matched word (group 1) overlaps a linked span."""
    return any(s.start < word.end(1) and word.start(1) < s.end for s in spans)


def heads(question: str, mention: TypeMention, modifiers: Sequence[TypeMention]) -> bool:
    """Whether ``mention`` is the head noun right after one of ``modifiers`` ("Nobel Prize *laureates*")."""
    return any(m.end <= mention.start and not question[m.end : mention.start].strip() for m in modifiers)


def blank_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with each ``(start, end)`` span written over by spaces (every offset into it stays valid)."""
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def owned_noun_asked(question: str, spans: Sequence[LinkedSpan], types: Sequence[TypeMention]) -> TypeMention | None:
    """The class noun that ends a "what is X's …" question after a linked entity's genitive and at most one word
    ("What is X's birth *country*?", "What was X's *city*?", "What was X's *city* of birth?"): the question asks for
    a thing of that class.

    >>> bool(_WHAT_IS.match("What was ")), bool(_OWNED_BEFORE.fullmatch("'s birth ")), bool(_WHAT_IS.match("Where "))
    (True, True, False)
    """
    for t in types:
        if not t.classes or not _OWNED_AFTER.fullmatch(question[t.end :]):
            continue
        for s in spans:
            if (
                s.end <= t.start
                and _OWNED_BEFORE.fullmatch(question[s.end : t.start])
                and _WHAT_IS.match(question[: s.start])
            ):
                return t
    return None


def genitive_nouns(
    question: str, spans: Sequence[LinkedSpan], types: Sequence[TypeMention]
) -> list[tuple[int, TypeMention]]:
    """The class nouns right after a linked entity's "'s" ("the city of X's *institution*", "shared X's *Nobel
    Prize*"), or after a possessive pronoun and one word, with the entity named last before it ("besides X … born
    in *his* birth *country*"), each with the index in ``spans`` of its entity: the noun names what one step
    from the entity reaches."""
    found = []
    for t in types:
        owners = [i for i, s in enumerate(spans) if s.end <= t.start and _GENITIVE.fullmatch(question[s.end : t.start])]
        pronoun = _PRONOUN_BEFORE.search(question[: t.start])
        if not owners and pronoun is not None:
            owners = [i for i, s in enumerate(spans) if s.end <= pronoun.start()][-1:]
        found += [(i, t) for i in owners]
    return found


def clause_nouns(question: str, spans: Sequence[LinkedSpan]) -> list[tuple[int, str]]:
    """The noun a relative clause whose subject is a linked entity describes, the clause ending the question (or
    followed by a time clause only, :func:`time_clauses`: "the *institutions* X was at when he won"), with the index
    in ``spans`` of its entity ("born in the *town* X died in", "the *city* where X was born"): the noun names what
    the clause's one step from the entity reaches.

    >>> q = "which nobel winners were born in the town daniel nathans died in"
    >>> clause_nouns(q, [LinkedSpan("daniel nathans", 42, 56, "exact", 1.0, ())])
    [(0, 'town')]
    """
    found = []
    ends = [start for start, _ in time_clauses(question)]
    for i, s in enumerate(spans):
        noun = _CLAUSE_NOUN.search(question[: s.start])
        end = min([e for e in ends if e >= s.end] or [len(question)])  # "… X was at *when he won*"
        if noun is not None and _CLAUSE_END.fullmatch(question, s.end, end):
            found.append((i, fold(noun.group(1))))
    return found


def same_nouns(question: str, spans: Sequence[LinkedSpan]) -> list[tuple[int, str]]:
    """The noun of each "the same <noun> as X", X a linked entity, with X's index in ``spans``: the value shared is
    one of X's of that noun's class ("died in the same *city* as X": X's death place the city, not its country).

    >>> q = "how many laureates died in the same city as owen chamberlain"
    >>> same_nouns(q, [LinkedSpan("owen chamberlain", 44, 59, "exact", 1.0, ())])
    [(0, 'city')]
    """
    found = []
    for i, s in enumerate(spans):
        noun = _SAME_NOUN.search(question[: s.start])
        if noun is not None:
            found.append((i, fold(noun.group(1))))
    return found


#: Winning something indefinite after "and", "who", "that" or a clause mark ("… *and won a Nobel*", "everyone at X
#: *who won a prize*", "born in X *and went on to win an award*"): said of the answer besides what the question asks,
#: with nothing named to reach; ends at a clause mark, "and", "who" or the end. Not the question's own predicate
#: ("Which player got a yellow card?"), nor "won a prize twice".
_OBJECT_WORD = (
    r"(?!(?:in|at|for|of|from|with|while|during|on|by|to|as|before|after|between|twice|again|once|times)\b)"
    r"[^\W\d_][\w-]*+"
)
_WON_SOME = re.compile(
    r"(?:^|[,;:]|\b(?:and|who|that|which))\s+(?:(?:later|also|then|have|has|had)\s+)?"
    r"(?P<clause>(?:(?:went|go|goes)\s+on\s+to\s+)?(?:won|wins?|winning|received|receive|got|get|earned|earn"
    r"|(?:was|were|been|be)\s+awarded)\s+(?:a|an)\s+" + _OBJECT_WORD + r"(?:\s+" + _OBJECT_WORD + r"){0,2})"
    r"(?=\s*(?:[,;:?!.—–]|(?:and|who|but)\b|$))",
    re.IGNORECASE,
)


#: A question about the winning itself ("In which *years* did people born in X win a Nobel?"): the clause is read.
_ASKS_OF_WINNING = re.compile(
    r"\b(?:when|years?|dates?|decades?|why|ages?|how\s+old|how\s+many\s+times)\b", re.IGNORECASE
)


def won_something(question: str, spans: Sequence[LinkedSpan]) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each clause winning something indefinite (:data:`_WON_SOME`) with no linked entity
    in it, which the ranker does not read (none in a question of when or why, :data:`_ASKS_OF_WINNING`): in a graph
    of prize winners it says what every answer did, and read, "won" and "Nobel" paid for steps to the prize and on
    to its other winners ("Who was born in Weimar and won a Nobel?").

    >>> q = "Who was born in Weimar and went on to win a Nobel?"
    >>> [q[a:b] for a, b in won_something(q, [])]
    ['went on to win a Nobel']
    >>> won_something("Who won a Nobel in chemistry?", []), won_something("In which years did X win a Nobel?", [])
    ([], [])
    >>> won_something("Which player got a yellow card?", []), won_something("Who else won a prize twice?", [])
    ([], [])
    """
    if _ASKS_OF_WINNING.search(question):
        return []
    clauses = (m.span("clause") for m in _WON_SOME.finditer(question))
    return [(start, end) for start, end in clauses if not any(start < s.end and s.start < end for s in spans)]


def time_clauses(question: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each time clause after the main one (:data:`_TIME_CLAUSE`), which the ranker does not
    read: "Could you tell me X's affiliation *when they won the Nobel Prize*?" asks for the affiliation; read, "won"
    and "Nobel Prize" paid for steps to the prize's year.

    >>> q = "Could you tell me X's affiliation when they won the Nobel Prize?"
    >>> [q[a:b] for a, b in time_clauses(q)]
    [' when they won the Nobel Prize']
    >>> time_clauses("When did X win the Nobel Prize?")
    []
    """
    return [m.span() for m in _TIME_CLAUSE.finditer(question)]
