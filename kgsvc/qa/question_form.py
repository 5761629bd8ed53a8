"""The form of a question: a request written as a command read as the question it asks, and whether it asks for a
person.

People ask a graph in commands as often as in questions: "Name the prize winners who …", "Tell me where X was
born", "List all films …", "can you name a film directed by X", "I'd like to know the country that …". The rest of
the question path reads a question's opening word ("which *institution*", "who …", "when …"), so a command is
first read as its question (:func:`as_question`):

* the command and its object pronoun are dropped before a question word ("Tell me *where* X was born");
* "everyone / the people / those who …" becomes "who …" ("Name everyone who received …");
* "the number of …" (or "a count of …") is kept, for the count it asks ("Tell me the number of …", "Give me a count
  of …");
* a request for an example ("name a soccer club that …", "can you name a film directed by X") is left as written:
  the zero-shot reading knows "name a *club*" (:func:`kgsvc.qa.zeroshot.phrase_roles`), while "which film directed
  by X" would make the film the director;
* a noun phrase that opens with a name is asked for by "what is" ("Could you tell me Edward Purcell's affiliation"
  → "what is Edward Purcell's affiliation");
* a relational noun phrase is asked for by "what are" ("Name the birthplaces of the laureates of X" → "what are the
  birthplaces of …": read as "which birthplaces of …", the noun would only be the answer's class);
* otherwise the article or quantifier after the command becomes "which" ("Name *the* prize winners …" → "which prize
  winners …", "List all films …" → "which films …");
* a noun phrase with a relative clause and nothing before it is asked for by "which" ("physics laureates who died in
  X" → "which physics laureates who died in X") (a phrase of one to four words, or of five to
  twelve with brackets: "Nobel laureates born in the Russian Empire (now Russia) who won in 1978");
* a question asked after its subject is asked before it ("Nobel-winning women born in X — who are they?" → "who are
  Nobel-winning women born in X"), and a closing "please" is left out;
* whether any of a set is something is asked as a count ("Was any woman among the winners of X?" → "how many
  woman among the winners of X?", :attr:`Reworded.exists` the noun: yes when any counted item is one);
* a count asked after the set it counts is asked before it ("Of the laureates born in X, how many were women?" →
  "how many laureates born in X were women?", the second "how many" blanked in place);
* an idiom for dying or being born is read as its plain verb, written over in place ("When did X breathe their last"
  → "When did X die", "the laureates we lost" → "we died", padded with spaces), a date written in words as its
  ISO form ("July 15, 1918" → "1918-07-15"), and a compound of a name and a participle as two words ("Spain-born" →
  "Spain born", "prize-winners"): the rewrites inside the question, which keep every offset.

English grammar only: nothing here names a graph's relations or a benchmark's templates. "Count …" is left to
:mod:`kgsvc.qa.kinds`, which reads it as a count.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from dataclasses import dataclass

__all__ = ["Reworded", "as_question", "asks_who", "asks_whose_noun"]

_COMMAND = re.compile(
    r"""^\W*(?P<polite>please\s+)?
        (?:
          (?P<asked>(?:can|could|would|will)\s+you\s+(?:please\s+)?)?
          (?:tell|show|give|get|find(?:\s+out)?|list|name|identify|enumerate)\b(?:\s+(?P<pronoun>me|us))?
        | (?P<wish>i(?:'d|\s+would)\s+like\s+to\s+know | i\s+want\s+to\s+know | i\s+wonder | do\s+you\s+know
          | i(?:'m|\s+am)\s+curious(?:\s+to\s+know|\s+as\s+to)?
          | i(?:'m|\s+am)\s+looking\s+for | i(?:'d|\s+would)\s+like(?=\s+(?:the\s+)?names?\s+of\b))
        | (?P<need>i\s+(?:need|want)(?!\s+(?:to|you|help|it|this|that)\b))
        )
        (?:\s+all(?:\s+of)?)?\s+
        (?!(?:of|for|about|to|is|was|are|were|it|them|that|this|me|us|all|if|whether|everything|something|anything)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
_QUESTION_WORD = re.compile(r"(?:who|whom|whose|what|which|where|when|why|how)\b", re.IGNORECASE)
#: Whether there are any, then a request to name them ("Were any laureates born in X? *List them.*", "Are there any …?
#: If so, who are they?", "Any physics laureates from X? *Names, please.*"): the question is read as "which were the
#: …?", the request left out.
_ANY_THEN_LIST = re.compile(
    r"^\W*(?:(?:are|were|is|was)\s+(?:there\s+)?)?any\s+(?!(?:of|idea|chance|news|way|luck|clue|thoughts?)\b)"
    r"(?P<rest>[^?]+)\?\s*(?:(?:and\s+)?if\s+so\W*)?"
    r"(?:(?:please\s+)?(?:list|name|show|give\s+me|tell\s+me)\s+(?:them|those|these|who\s+they\s+(?:are|were)"
    r"|which\s+ones?|(?:their\s+)?names)|(?:who|which(?:\s+ones?)?)\s+(?:are|were)\s+they|which\s+ones?|who"
    r"|(?:(?:their|the)\s+)?names?)\W*$",
    re.IGNORECASE,
)
#: "Why …? *Quote me the citation.*": a request for the reason already asked, left out.
_WHY_THEN_REASON = re.compile(
    r"^(?P<asked>\W*why\b[^?]*\?)\s*(?:please\s+)?(?:quote|give|show|tell|send)\s+(?:me|us)\s+"
    r"(?:the|its|their|his|her)\s+(?:official\s+|exact\s+|full\s+)?"
    r"(?:citation|motivation|reason|rationale|wording)s?\W*$",
    re.IGNORECASE,
)
#: "the names of whoever won …", "the names of everyone who …": asked for by "who".
_NAMES_OF_WHOEVER = re.compile(
    r"(?:the\s+)?names?\s+of\s+(?:whoever|(?:every(?:one|body)|those|(?:the\s+)?people)\s+who)\b", re.IGNORECASE
)
_PEOPLE_WHO = re.compile(
    r"(?:every(?:one|body)|any(?:one|body)|(?:all\s+)?(?:those|the\s+ones|the\s+people|people))\s+(?=who\b)",
    re.IGNORECASE,
)
#: A quantifier opening such a noun phrase ("*Every* laureate whose …", "*All* who won …").
_EVERY = re.compile(r"(?:every(?:one|body)?|each|all(?:\s+the)?|any(?:one|body)?|those)\s+", re.IGNORECASE)
#: A question written as a noun phrase with a relative clause and no question word or auxiliary before it ("physics
#: laureates who died in X", "nobel laureates whose place of death was X"): one to four words, then "who", "whose"
#: or "that" in lower case (not a title's "Who") and more words (not "the movie X starred who"); not a count ("number
#: of laureates who …").
_FRAGMENT = re.compile(
    r"^\W*(?!(?:who|whom|whose|what|which|where|when|why|how|is|are|was|were|do|does|did|has|have|had|can|could"
    r"|will|would|should|shall|may|might|must|in|on|at|of|for|from|by|with|to|among|between|number|count|total"
    r"|headcount|amount|i|i'm|we|you|any\s+(?:idea|clue|chance|thoughts?))\b)"
    r"((?:[\w'.-]+\s+){1,4}?|(?:[\w'.()-]+\s+){5,12}?)(?-i:who|whose|that)\s+\w",
    re.IGNORECASE,
)
#: A question asked after its subject, by a wh-word, a copula and a pronoun ("Nobel-winning women born in X — who are
#: they?", "the laureates of X: who were they"): read as the wh-word and copula before the subject.
_ASKED_AFTER = re.compile(
    r"\s*(?:—|–|--?|:|,)\s*(?P<asked>(?:who|what|which)\s+(?:are|were|is|was))\s+(?:they|those|these|them|it|that|he|she)"
    r"\W*$",
    re.IGNORECASE,
)
#: Idioms for dying and being born, each read as its plain verb ("When did X *breathe their last*" → "die", "which
#: laureates *passed on* in Dublin" → "died", "came into the world in X" → "born"): written over in place, padded with
#: spaces, so that every offset of the question stays valid. English only; no graph's relation is named.
_IDIOMS = [
    (re.compile(r"\bbreathed\s+(?:his|her|their|its)\s+last\b", re.I), "died"),
    (re.compile(r"\bbreathes?\s+(?:his|her|their|its)\s+last\b", re.I), "die"),
    (re.compile(r"\bpassed\s+(?:away|on)\b(?=\s*(?:in|at|on|,|\?|$|\.))", re.I), "died"),
    (re.compile(r"\bpass(?:es)?\s+(?:away|on)\b(?=\s*(?:in|at|on|,|\?|$|\.))", re.I), "die"),
    (re.compile(r"\bended\s+(?:his|her|their|its)\s+days\b", re.I), "died"),
    (re.compile(r"\bends?\s+(?:his|her|their|its)\s+days\b", re.I), "die"),
    (re.compile(r"\b(?:came|come|comes)\s+into\s+the\s+world\b", re.I), "born"),
    # "the laureates we lost in 1990", "which laureates did we lose": in lower case only, not in a title ("Things We
    # Lost in the Fire")
    (re.compile(r"(?<=\bwe\s)lost\b(?=\s+(?:in|on|during)\b)"), "died"),
    (re.compile(r"(?<=\bdid\swe\s)lose\b(?=\s+(?:in|on|during)\b)"), "die"),
]
#: An intensifier right after a question word ("who *in the world* wrote X", "what *on earth* is …"): written over
#: by spaces, so that "the world" is not read as a name (a film called "The World") nor "earth" as a place.
_INTENSIFIER = re.compile(
    r"\b(?:who|whom|what|which|where|when|why|how)\s+(?P<filler>in\s+the\s+world|on\s+earth)\b(?!\s+of\b)",
    re.IGNORECASE,
)
#: The answer written as a demonstrative at the end of a statement, as in a quiz ("X is a film written by *this
#: person*"): read as "whom", which asks for that person; only where no question word is written (a capitalised one
#: inside the text is a title's: "*He Who* Gets Slapped is a film written by this person").
_THIS_PERSON = re.compile(r"(?<=\s)th(?:is|ese)\s+(?:person|people|man|woman|individual)(?=\W*$)", re.IGNORECASE)
_AUXILIARY_OPENS = re.compile(
    r"\W*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|shall|may|might|must)\b", re.IGNORECASE
)
#: A compound whose second word is a participle or agent noun ("Spain-born", "prize-winners"): read as two words (the
#: hyphen written over by a space), so that the participle names its relation and the first word links on its own.
#: English only; a name's own hyphen ("Euler-Chelpin"), an adjective ("prize-winning work") and a prefix
#: ("co-winners", "self-educated") are left alone.
_COMPOUND = re.compile(
    r"(?<=[^\W\d_])(?<!\bco)(?<!\bnon)(?<!\bpre)(?<!\bre)(?<!\bself)-"
    r"(?=(?:born|bred|based|educated|trained|raised|winners?)\b)",
    re.I,
)
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH = r"(?P<month>" + "|".join([*_MONTHS, *(m[:3] for m in _MONTHS)]) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
#: A date written in words ("July 15, 1918", "15 July 1918"): read as its ISO form ("1918-07-15"), the form a graph's
#: date literals take, written over in place and padded with spaces (never longer than the words).
_WRITTEN_DATES = [
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+(?P<year>\d{{4}})\b", re.I | re.ASCII),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+(?P<year>\d{{4}})\b", re.I | re.ASCII),
]
#: A count asked after the set it counts ("Of the laureates born in X, how many were women?"): read as "how many
#: laureates born in X were women?", the opening written over and the later "how many" blanked in place.
_OF_THE_MANY = re.compile(
    r"^\W*(?:out\s+of|of|among)\s+(?:all\s+)?(?:the\s+|those\s+|these\s+)?(?=[^,?]+?(?P<many>,\s*how\s+many)\b)",
    re.IGNORECASE,
)
#: Whether any of a set is something ("Was any woman among the winners of X?", "any women among the 1904 peace
#: laureates"): read as the count "how many woman among the winners of X", answered yes when any counted item is one.
_ANY_AMONG = re.compile(
    r"^\W*(?:(?:is|are|was|were|has|have)\s+(?:there\s+)?)?any\s+(?=(?P<noun>[^\W\d_]+)\s+(?:among|of)\s)",
    re.IGNORECASE,
)
#: A closing "please" ("Dates of death for X, please."): a courtesy, no part of what is asked; with the punctuation
#: around it, not a bracket or quote it follows ("… (now Poland), please.").
_PLEASE = re.compile(r"[\s,;:.!?(—–-]*\bplease\W*$", re.IGNORECASE)
#: A question word anywhere ("the films that share actors with X were released in *which* years" asks already).
_ASKING = re.compile(r"\b(?:who|whom|whose|what|which|where|when|why|how)\b", re.IGNORECASE)
_NUMBER_OF = re.compile(r"the\s+(?:total\s+)?(?:number|(?-i:count))\s+of\b|a\s+(?-i:count)\s+of\b", re.IGNORECASE)
_DETERMINER = re.compile(r"(?:the|some|any|every|each)\s+", re.IGNORECASE)
_INDEFINITE = re.compile(r"(?:a|an)\s+", re.IGNORECASE)
#: A relational noun phrase: "the *birthplaces of* …", "the *cities of* …" (up to three words before "of").
_RELATIONAL = re.compile(r"(?:the\s+)?(?:[\w'-]+\s+){1,3}of\b", re.IGNORECASE)
#: "who" / "whom" as the question's own word: opening it ("who won …"), after an opening preposition ("with whom did
#: …"), opening the clause after an opening phrase ("Of the winners born in Rome, who …"), or closing it ("… is
#: who?"); not a relative clause ("Marie Curie, who was born in Warsaw, …").
_WHO = re.compile(
    r"^\W*(?:(?:with|to|by|for|from|of|among)\s+)?(?:who|whom)\b"
    r"|^\W*(?:of|among|from|between)\b[^,]*,\s*(?:who|whom)\b|\b(?:who|whom)\W*$"
    r"|[:;]\s*(?:who|whom)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Reworded:
    """A question as the rest of the path reads it.

    ``text[shift + i]`` is ``original[i]`` for every position ``i`` of ``original`` at or after ``kept``: only the
    command before ``kept`` was rewritten, so a span found in ``text`` maps back to the question the user wrote by
    :meth:`original_span`."""

    original: str
    text: str
    kept: int = 0
    shift: int = 0
    exists: str = ""  # "was any *woman* among …": the noun; the text is the count, asked whether any is one

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of ``original`` that ``text[start:end]`` reads (a span inside the rewritten command maps to
        where the kept text starts)."""
        return max(start - self.shift, self.kept), max(end - self.shift, self.kept)


def as_question(question: str) -> Reworded:
    """``question`` read as a question when it is written as a command (module docstring); unchanged otherwise.

    Examples
    --------
    >>> as_question("Name everyone who received the 1945 Nobel in literature.").text
    'who received the 1945 Nobel in literature.'
    >>> as_question("Tell me where George Hitchings was born.").text
    'where George Hitchings was born.'
    >>> as_question("name a soccer club that has a player from Mexico ?").text
    'name a soccer club that has a player from Mexico ?'
    >>> as_question("Who won the 2011 economics prize?").text
    'Who won the 2011 economics prize?'
    >>> as_question("physics laureates who died in the ussr").text
    'which physics laureates who died in the ussr'
    >>> as_question("Nobel-winning women born in Monrovia — who are they?").text
    'who are Nobel-winning women born in Monrovia'
    >>> as_question("When did Camilo Cela breathe their last?").text
    'When did Camilo Cela die               ?'
    >>> as_question("the films that share actors with the film Things We Lost in the Fire").text[-26:]
    'Things We Lost in the Fire'
    >>> as_question("Which Nobel laureate was born on July 15, 1918?").text
    'Which Nobel laureate was born on 1918-07-15   ?'
    >>> as_question("Who, among the Spain-born laureates, died in the 1980s?").text
    'Who, among the Spain born laureates, died in the 1980s?'
    >>> as_question("Who were the co-winners of X?").text
    'Who were the co-winners of X?'
    >>> as_question("Dates of death for the laureates of X, please.").text
    'Dates of death for the laureates of X'
    >>> as_question("Of the laureates born in Persia, how many were women?").text
    'how many laureates born in Persia           were women?'
    >>> form = as_question("Was any woman among the winners of X?")
    >>> form.text, form.exists
    ('how many woman among the winners of X?', 'woman')
    >>> as_question("who in the world wrote Night Ferry").text
    'who              wrote Night Ferry'
    >>> as_question("Night Ferry is a film written by this person").text
    'Night Ferry is a film written by whom       '
    >>> as_question("I need Arthur Kornberg's place of death.").text
    "Arthur Kornberg's place of death."
    >>> as_question("Were any Nobel laureates born in Strassburg? List them.").text
    'which were the Nobel laureates born in Strassburg?'
    >>> as_question("I'd like the names of whoever won the medicine Nobel in 1919.").text
    'who won the medicine Nobel in 1919.'
    >>> as_question("Why did X get the Nobel? Quote me the citation.").text
    'Why did X get the Nobel?'
    >>> as_question("Is it true that X was born in Y?").text
    'Is it true that X was born in Y?'
    >>> as_question("the films that share actors with X were released in which years").text
    'the films that share actors with X were released in which years'
    """
    plain = _plain_idioms(question)
    if plain != question:
        return dataclasses.replace(as_question(plain), original=question)
    courtesy = _PLEASE.search(question)
    if courtesy is not None and courtesy.start() > 0:
        return dataclasses.replace(as_question(question[: courtesy.start()]), original=question)
    why = _WHY_THEN_REASON.match(question)
    if why is not None:
        return dataclasses.replace(as_question(why.group("asked")), original=question)
    listed = _ANY_THEN_LIST.match(question)
    if listed is not None:
        rest, end = listed.span("rest")
        opening = "who were the " if re.search(r"\bwho\b", question[end:], re.I) else "which were the "
        return Reworded(question, opening + question[rest:end] + "?", kept=rest, shift=len(opening) - rest)
    any_of = _ANY_AMONG.match(question)
    if any_of is not None:
        rest = any_of.end()
        text = "how many " + question[rest:]
        return Reworded(question, text, kept=rest, shift=len("how many ") - rest, exists=any_of.group("noun"))
    many = _OF_THE_MANY.match(question)
    if many is not None:
        rest, (a, b) = many.end(), many.span("many")
        text = "how many " + question[rest:a] + " " * (b - a) + question[b:]
        return Reworded(question, text, kept=rest, shift=len("how many ") - rest)
    after = _ASKED_AFTER.search(question)
    if after is not None and after.start() > 0 and not _ASKING.search(question, 0, after.start()):
        opening = after.group("asked") + " "
        return Reworded(question, opening + question[: after.start()], kept=0, shift=len(opening))
    command = _COMMAND.match(question)
    fragment = _FRAGMENT.match(question) if command is None else None
    if fragment is not None and not _ASKING.search(question, fragment.end()):
        rest = fragment.start(1)  # "physics laureates who died in X": a noun phrase asked for by its clause
        if _EVERY.fullmatch(question, rest, fragment.end(1)):  # "All who won in 1950": who won in 1950
            return Reworded(question, question[fragment.end(1) :], kept=fragment.end(1), shift=-fragment.end(1))
        every = _EVERY.match(question, rest)
        rest = every.end() if every else rest  # "Every laureate whose …" asks for them all
        return Reworded(question, "which " + question[rest:], kept=rest, shift=len("which ") - rest)
    if command is None or _titled(question, command):
        return Reworded(question, question)
    rest = command.end()
    if not question[rest:].strip():
        return Reworded(question, question)  # "I need " asks for nothing
    if _QUESTION_WORD.match(question, rest) or _NUMBER_OF.match(question, rest) or command.group("need"):
        opening = ""  # "I need X's date of death": what is needed, as written
    elif people := _PEOPLE_WHO.match(question, rest):
        rest, opening = people.end(), ""
    elif names := _NAMES_OF_WHOEVER.match(question, rest):
        rest, opening = names.end(), "who"
    elif _INDEFINITE.match(question, rest):
        return Reworded(question, question)
    elif _RELATIONAL.match(question, rest):
        opening = "what are "
    elif question[rest : rest + 1].isupper():  # a name: "Could you tell me Edward Purcell's affiliation"
        opening = "what is "
    else:
        determiner = _DETERMINER.match(question, rest)
        rest, opening = (determiner.end() if determiner else rest), "which "
    text = opening + question[rest:]
    return Reworded(question, text, kept=rest, shift=len(opening) - rest)


def _plain_idioms(question: str) -> str:
    """``question`` with each of :data:`_IDIOMS` written over by its plain verb, each date of
    :data:`_WRITTEN_DATES` by its ISO form, an answer written as :data:`_THIS_PERSON` by "whom", padded to the
    length of what they replace, and each :data:`_INTENSIFIER` and the hyphen of each compound of :data:`_COMPOUND`
    by spaces."""
    for pattern, verb in _IDIOMS:
        question = pattern.sub(lambda m, verb=verb: verb.ljust(len(m.group(0))), question)  # type: ignore[misc]
    for pattern in _WRITTEN_DATES:
        question = pattern.sub(_iso_date, question)
    question = _INTENSIFIER.sub(lambda m: m.group(0).replace(m.group("filler"), " " * len(m.group("filler"))), question)
    opening = len(question) - len(question.lstrip())
    asking = any(m.start() == opening or question[m.start()].islower() for m in _ASKING.finditer(question))
    if not asking and not _AUXILIARY_OPENS.match(question):  # "Is X married to this woman?" asks yes or no
        question = _THIS_PERSON.sub(lambda m: "whom".ljust(len(m.group(0))), question)
    return _COMPOUND.sub(" ", question)


def _iso_date(m: re.Match[str]) -> str:
    """The ISO form of a date of :data:`_WRITTEN_DATES`, padded to its length; the words as written when the date
    does not exist ("February 30, 1999")."""
    month = next((i for i, name in enumerate(_MONTHS, 1) if name[:3] == m.group("month")[:3].casefold()), 0)
    try:
        return datetime.date(int(m.group("year")), month, int(m.group("day"))).isoformat().ljust(len(m.group(0)))
    except ValueError:
        return m.group(0)


def _titled(question: str, command: re.Match[str]) -> bool:
    """Whether the command word opens a title rather than a request: a capitalised pronoun ("*Find Me* Guilty"), or
    a capitalised word right after a bare command ("*Show Boat* was directed by whom?", "*Tell No One*", "NAME THE
    WINNERS"); "Tell me Émile Zola's birthplace" and "Could you name Marie Curie's prize" are requests."""
    pronoun = command.group("pronoun")
    if pronoun is not None:
        return pronoun != pronoun.lower()
    bare = all(command.group(g) is None for g in ("polite", "asked", "wish", "need"))
    return bare and question[command.end() : command.end() + 1].isupper()


#: "Who is X's *employer*": "who", a copula, a capitalised name in the genitive and one noun, then the end of the
#: question or a time phrase ("… at the time of the prize", "… when he won").
_WHO_IS_NOUN = re.compile(
    r"^\W*(?i:who\s+(?:is|was|are|were)\s+(?:the\s+)?)(?:[A-Z][\w.'-]*\s+){0,5}[A-Z][\w.-]*['\u2019]s\s+\w+"
    r"(?:\s+(?:at|in|when|during|while)\b[^?]*)?\W*$"
)


def asks_who(question: str) -> bool:
    """Whether ``question`` asks for a person by "who" / "whom" (``_WHO``): "who won …", "With whom did X share …",
    "Of the winners born in Rome, who …", "X's wife is who?", "The 1987 prize: who got it?"; not a relative "who"
    ("the films of people who …").

    >>> asks_who("1987 literature nobel: who got it?"), asks_who("the films of people who died")
    (True, False)
    """
    return _WHO.search(question) is not None


def asks_whose_noun(question: str) -> bool:
    """Whether a "who" question asks what a noun of a named entity names ("Who was X's *employer* at the time of the
    prize?"): the noun says the answer's class, not "who" (an employer may be an organisation).

    >>> asks_whose_noun("Who was Nicholas Murray Butler's employer?"), asks_whose_noun("Who directed X?")
    (True, False)
    >>> asks_whose_noun("Who was born in Bert Sakmann's hometown?"), asks_whose_noun("Who were the winners of X?")
    (False, False)
    """
    return _WHO_IS_NOUN.search(question) is not None
