"""Two attributes of one thing asked in one question, or two questions of one thing, read as two questions.

"Date and place of Hannes Alfvén's death?", "I need Arthur Kornberg's date and place of death", "Birth city and
death city of Henryk Sienkiewicz?", "What were X's birth date and death date?", "Give me the city and the DBpedia URI
for X": two relation nouns joined by "and" before the "of" / "for" (or after the genitive) that says whose they are;
"Edward Tatum: born when, died where?", "X: city + DBpedia URI": two things asked of a topic named before a colon
or a dash. No one path answers both: a relation path reads one of them, and the other word pulls it a step further
("X's date and place of death" became the dates of death of the people who died where X died). Each conjunct is
asked on its own, with the rest of the question as written (:func:`split_attributes`), and the two answers are put
together (:func:`joined`): the answers of the first then those of the second, the evidence of both, and the SPARQL
as the UNION of the two.

"Where was X born, and on what date did they die?", "where X was born and when he died": two questions, the second
naming the first one's one name by a pronoun, are two questions too, the name written in for the pronoun
(:func:`split_clauses`).

English grammar only: a conjunct before "of" is one or two words with no capital (but where it opens the question,
or an acronym's) and no function word; one asked of a topic is one to three words without articles, prepositions,
pronouns or auxiliaries. Nothing here names a graph's relations. The caller checks that no linked entity is inside
the coordination ("the Faculty of Arts and Sciences of X" is a name) and that both parts are lookups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgsvc.qa.link import STOPWORDS
from kgsvc.qa.question_form import Reworded
from kgsvc.qa.result import Answer, Mention, PatternGraph, PatternTriple

__all__ = ["Clauses", "Coordination", "joined", "split_attributes", "split_clauses"]

_AND = re.compile(r"\s+and\s+")
#: After the second conjunct: the "of" that names the owner ("A and B *of* X"), or the end of a question whose
#: conjuncts follow a genitive ("X's A and B?").
_OF = re.compile(r"\s+(?:of|for)\s+\S")
_END = re.compile(r"\s*[?.!]*\s*$")
_GENITIVE = re.compile(r"\S['’]s\s+$")
#: "X: A and B?", "X: born when, died where?", "X: city + DBpedia URI": the owner, then after a colon or a dash the
#: two things asked of it, nothing after them but "please" and the question's end.
_TOPIC = re.compile(
    r"^(?P<owner>[^:—–]+?)\s*(?::|—|–|\s-\s)\s*(?P<a>[^,+&:—–]+?)"
    r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*[+&]\s*)(?P<b>[^,+&:—–]+?)(?P<end>(?:\s*,?\s*please)?\s*[?.!]*\s*)$",
    re.IGNORECASE,
)
_WH = frozenset({"when", "where", "who", "what", "which", "why", "how"})
#: "both the writer and director of X", "also …": one thing that is both, not two questions.
_BOTH = re.compile(r"\b(?:both|also|either|neither|at\s+once)\s+(?:the\s+|a\s+|an\s+)?$", re.IGNORECASE)
#: Words that make a conjunct a clause or a phrase with its own grammar, not a thing asked of the topic.
_GRAMMAR = frozenset(
    "a an the of in on at for to by with from is are was were be do does did has have had it they he she his her their"
    " its this that these those and or not no me you i we please".split()
)


@dataclass(frozen=True)
class Coordination:
    """A question asking two attributes: the two questions it is read as, the conjuncts and their offsets."""

    first: str
    second: str
    a: tuple[int, int]
    b: tuple[int, int]
    nouns: tuple[str, str]

    def original(self, part: int, start: int, end: int) -> tuple[int, int]:
        """The span of the original question that ``[start, end)`` of part ``part`` (0 or 1) reads: each part
        leaves out the other conjunct and its "and"."""
        cut, gone = (self.a[1], self.b[1] - self.a[1]) if part == 0 else (self.a[0], self.b[0] - self.a[0])
        return (start + gone if start >= cut else start), (end + gone if end > cut else end)


def split_attributes(question: str) -> Coordination | None:
    """The two questions ``question`` is read as when it coordinates two attribute nouns (module docstring);
    ``None`` otherwise.

    >>> c = split_attributes("Date and place of Hannes Alfvén's death?")
    >>> c.first, c.second
    ("Date of Hannes Alfvén's death?", "place of Hannes Alfvén's death?")
    >>> split_attributes("I need Arthur Kornberg's date and place of death.").second
    "I need Arthur Kornberg's place of death."
    >>> split_attributes("Birth city and death city of Henryk Sienkiewicz?").first
    'Birth city of Henryk Sienkiewicz?'
    >>> split_attributes("What were Marie Curie's birth date and death date?").second
    "What were Marie Curie's death date?"
    >>> split_attributes("Edward Tatum: born when, died where?").second
    'Edward Tatum: died where?'
    >>> split_attributes("2003 medicine Nobel: citation and share number, please.").first
    '2003 medicine Nobel: citation, please.'
    >>> split_attributes("X: city + DBpedia URI").nouns
    ('city', 'DBpedia URI')
    >>> split_attributes("Give me the city and the DBpedia URI for the University of Edinburgh.").second
    'Give me the DBpedia URI for the University of Edinburgh.'
    >>> split_attributes("Who was born and died in the same city?") is None
    True
    >>> split_attributes("Who was both the writer and director of Inception?") is None
    True
    >>> split_attributes("Which laureates of the Faculty of Arts and Sciences of Harvard died in 1990?") is None
    True
    """
    for conj in _AND.finditer(question):
        left, right = question[: conj.start()].split(" "), question[conj.end() :]
        # two noun phrases of one or two words each, as many in each unless the second has its own article ("the
        # city and *the* DBpedia URI for X"; "the birth and death *dates*" shares its head)
        b0 = conj.end() + (4 if right[:4].casefold() == "the " else 0)
        shapes = [(1, 1), (2, 2)] + ([(1, 2), (2, 1)] if b0 > conj.end() else [])
        for n, m in shapes:
            a = " ".join(left[-n:])
            if len(left) < n or not _plain(a, len(left) == n):
                continue
            b = " ".join(question[b0:].split(" ")[:m])
            b = b.rstrip("?.!")
            after = question[b0 + len(b) :]
            a0 = conj.start() - len(a)
            if not _plain(b, False) or _BOTH.search(question[:a0]):
                continue
            if not (_OF.match(after) or (_END.fullmatch(after) and _GENITIVE.search(question[:a0]))):
                continue
            return Coordination(
                first=question[: conj.start()] + after,
                second=question[:a0] + question[b0:],
                a=(a0, conj.start()),
                b=(b0, b0 + len(b)),
                nouns=(a, b),
            )
    topic = _TOPIC.match(question)
    if topic is not None and _asked_of_topic(topic.group("a")) and _asked_of_topic(topic.group("b")):
        (a0, a1), (b0, b1) = topic.span("a"), topic.span("b")
        return Coordination(
            first=question[:a1] + question[b1:],
            second=question[:a0] + question[b0:],
            a=(a0, a1),
            b=(b0, b1),
            nouns=(topic.group("a"), topic.group("b")),
        )
    return None


_PREPOSITION = r"(?:(?:on|in|at|from|to|with|by|for|during)\s+)?"
_ASKED = _PREPOSITION + r"(?:when|where|who|whom|what|which|how)\b"
_WH_OPENS = re.compile(r"^\W*" + _ASKED, re.IGNORECASE)
#: Between two questions: a comma (with or without "and"), "and" or a semicolon, right before the second question
#: word ("…, and *on what date* did they die?").
_NEXT_QUESTION = re.compile(r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*;\s*)(?=" + _ASKED + ")", re.IGNORECASE)
#: The personal pronoun that names the topic again in the second question; "his", "their" (and "her" before a noun)
#: are its genitive. Not "it": after "where" or "when" it names a place, a prize, the answer as often as the topic
#: ("Where did X die, and what country is *it* in?").
_PRONOUN = re.compile(r"\b(?:they|he|she|him|them)\b|\b(?P<genitive>his|their|her)\b", re.IGNORECASE)
#: A topic that is the owner of what the first question asks of ("X's *husband*", "the *wife* of X"): the pronoun may
#: name either.
_OWNED_AFTER = re.compile(r"['’]s\b")
_OWNED_BEFORE = re.compile(r"\b(?:the|a|an|his|her|their)\s+[\w-]+\s+of\s+$", re.IGNORECASE)


@dataclass(frozen=True)
class Clauses:
    """A question that asks two questions of one thing, the second naming it by a pronoun ("Where was X born, and
    on what date did they die?"): the two questions, the second with the topic written in for the pronoun."""

    first: str
    second: str
    cut: int  # where the second question starts in the text
    pronoun: tuple[int, int]  # the pronoun's span in the text
    topic: tuple[int, int]  # the topic's span in the text
    written: int  # the length of what the second question has in the pronoun's place
    nouns: tuple[str, str]  # the question words, for the answer's text
    form: Reworded  # the question as written and the text read of it (which the offsets above are in)

    def original(self, part: int, start: int, end: int) -> tuple[int, int]:
        """The span of the question as written that ``[start, end)`` of part ``part`` (0 or 1) reads; the topic
        written in for the pronoun reads the topic where it was named."""
        if part == 1:
            (p0, p1), at = self.pronoun, self.pronoun[0] - self.cut
            if at <= start and end <= at + self.written:
                start, end = self.topic
            else:
                after = (p1 - p0) - self.written  # how much longer the pronoun is than the name written in
                start, end = (i + self.cut + (after if i > at else 0) for i in (start, end))
        return self.form.original_span(start, end)


def split_clauses(form: Reworded, topic: tuple[int, int]) -> Clauses | None:
    """The two questions of ``form.text`` when it asks two questions of the thing named at ``topic`` (the one linked
    span of the first question, in ``form.text``), the second naming it by one personal pronoun; ``None`` otherwise,
    and where the pronoun may name another thing: the first question's answer ("who …"), or what the topic owns
    ("X's husband", "the wife of X"). A third question after the second stays in it (the caller asks each part,
    which splits again). Offsets map back to the question as written through ``form`` (:meth:`Clauses.original`).

    >>> def split(text, topic):
    ...     return split_clauses(Reworded(text, text), topic)
    >>> c = split("Where was Wangari Maathai born, and on what date did they die?", (10, 25))
    >>> c.first, c.second
    ('Where was Wangari Maathai born?', 'on what date did Wangari Maathai die?')
    >>> split("where Daniel Bovet was born and when he died.", (6, 18)).second
    'when Daniel Bovet died.'
    >>> split("Who won in 1950 and where were they born?", (11, 15)) is None  # "they": the answer
    True
    >>> split("What did X write and when was it published?", (9, 10)) is None
    True
    >>> split("Where was X's husband born, and when did he die?", (10, 11)) is None
    True
    >>> split("Where was X born, and who was born in Rome?", (10, 11)) is None
    True
    """
    text = form.text
    opens = _WH_OPENS.match(text)
    if opens is None or topic[0] < opens.end() or re.search(r"\bwho(?:m|se)?$", opens.group(0), re.IGNORECASE):
        return None  # "who …" asks for people a pronoun may name again
    if _OWNED_AFTER.match(text, topic[1]) or _OWNED_BEFORE.search(text, 0, topic[0]):
        return None
    for sep in _NEXT_QUESTION.finditer(text, topic[1]):
        second = text[sep.end() :]
        pronouns = list(_PRONOUN.finditer(second))
        if len(pronouns) != 1:
            continue
        pronoun = pronouns[0]
        name, genitive = text[topic[0] : topic[1]], pronoun.group("genitive") is not None
        if pronoun.group(0).casefold() == "her":  # "her prize" names her prize; "born to her" names her
            after = re.match(r"\s+(\w+)", second[pronoun.end() :])
            genitive = after is not None and after.group(1).casefold() not in STOPWORDS
        written = f"{name}'s" if genitive else name
        closing = text[len(text.rstrip("?.! ")) :].strip()
        first = text[: sep.start()].rstrip(" ,;") + closing
        p0, p1 = sep.end() + pronoun.start(), sep.end() + pronoun.end()
        asked = re.match(r"\W*(?:" + _PREPOSITION + r"(?:what|which)\s+\w+|" + _ASKED + ")", second, re.IGNORECASE)
        assert asked is not None  # the second question opens with its question word (_NEXT_QUESTION)
        return Clauses(
            first=first,
            second=second[: pronoun.start()] + written + second[pronoun.end() :],
            cut=sep.end(),
            pronoun=(p0, p1),
            topic=topic,
            written=len(written),
            nouns=(opens.group(0).strip(), asked.group(0).strip()),
            form=form,
        )
    return None


def _asked_of_topic(conjunct: str) -> bool:
    """One to three words of letters asked of a topic ("city", "DBpedia URI", "born when"), none of :data:`_GRAMMAR`,
    and some word that is no wh-word."""
    words = conjunct.split()
    if not 1 <= len(words) <= 3 or not all(w.isalpha() for w in words):
        return False
    folded = [w.casefold() for w in words]
    return not _GRAMMAR.intersection(folded) and not all(w in _WH for w in folded)


def _plain(conjunct: str, opens: bool) -> bool:
    """Words of letters, none a function word, none capitalised but where it opens the question (an acronym's
    capitals are allowed: "DBpedia URI")."""
    words = conjunct.split()
    if not words or not all(w.isalpha() for w in words):
        return False
    if any(w.casefold() in STOPWORDS or w.casefold() in ("and", "or") for w in words):
        return False
    # no capitalised word (a name's: "Arts and Sciences"), but where it opens the question; an acronym is a noun
    return all(
        w.islower() or (opens and i == 0 and w[1:].islower()) or not w[1:].islower() for i, w in enumerate(words)
    )


def joined(question: str, coordination: Coordination | Clauses, first: Answer, second: Answer) -> Answer | None:
    """One :class:`Answer` to ``question`` from the answers to its two parts (module docstring); ``None`` when
    their SPARQL cannot be written as one UNION (a part that orders or limits its rows).

    ``answers``: the first part's then the second's not already given; ``evidence``: both, ranked in that order;
    ``sparql``: the UNION of the two SELECTs; ``pattern``: the first part's triples, then the second's with their
    variables (but ``?answer``) renamed, read as two alternatives by that SPARQL; ``text``: each noun with its part's
    text; ``mentions``: the first part's, then the second's of other spans, in the original question's offsets.
    """
    sparql = _union(first.sparql, second.sparql)
    if sparql is None:
        return None
    seen = {(a.kind, a.value) for a in first.answers}
    answers = [*first.answers, *(a for a in second.answers if (a.kind, a.value) not in seen)]
    evidence = [e.model_copy(update={"rank": i}) for i, e in enumerate([*first.evidence, *second.evidence], 1)]
    pattern = None
    if first.pattern is not None and second.pattern is not None:
        renamed = [
            PatternTriple(head=_renamed(t.head), relation=t.relation, tail=_renamed(t.tail))
            for t in second.pattern.triples
        ]
        pattern = PatternGraph(
            triples=[*first.pattern.triples, *renamed],
            answer=first.pattern.answer,
            source=first.pattern.source,
            sparql=sparql,
        )
    mentions = _mentions(coordination, 0, first.mentions)
    spans = {(m.start, m.end) for m in mentions}
    mentions += [m for m in _mentions(coordination, 1, second.mentions) if (m.start, m.end) not in spans]
    noun_a, noun_b = coordination.nouns
    text = f"{noun_a[:1].upper()}{noun_a[1:]}: {first.text} {noun_b[:1].upper()}{noun_b[1:]}: {second.text}"
    timings = {k: first.timings.get(k, 0.0) + second.timings.get(k, 0.0) for k in {*first.timings, *second.timings}}
    return Answer(
        question=question,
        dataset=first.dataset,
        grounded=True,
        text=text,
        answers=answers,
        evidence=evidence,
        pattern=pattern,
        sparql=sparql,
        mentions=sorted(mentions, key=lambda m: m.start),
        strategy=first.strategy,
        timings=timings,
        complete=first.complete and second.complete,
    )


def _mentions(coordination: Coordination | Clauses, part: int, mentions: list[Mention]) -> list[Mention]:
    out = []
    for m in mentions:
        start, end = coordination.original(part, m.start, m.end)
        out.append(m.model_copy(update={"start": start, "end": end}))
    return out


#: A SPARQL variable of the bodies the pattern renders (not a "?" inside an IRI: "…/page?id=1").
_VARIABLE = re.compile(r"(?<![\w/=&<])\?[A-Za-z_]\w*")


def _renamed(term: str) -> str:
    return f"{term}_2" if term.startswith("?") and term != "?answer" else term


def _union(first: str | None, second: str | None) -> str | None:
    """``SELECT DISTINCT ?answer WHERE { A } UNION { B }`` of two SELECTs of ``?answer`` (``None`` unless both)."""
    bodies = []
    for query in (first, second):
        if query is None or not query.startswith("SELECT DISTINCT ?answer WHERE {") or not query.endswith("}"):
            return None
        bodies.append(query[query.index("{") + 1 : -1].strip("\n"))
    second = _VARIABLE.sub(lambda m: _renamed(m.group(0)), bodies[1])  # as in the pattern's triples (not ?answer)
    return "SELECT DISTINCT ?answer WHERE {\n  {\n" + bodies[0] + "\n  }\n  UNION\n  {\n" + second + "\n  }\n}"
