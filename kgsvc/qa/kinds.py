"""The kind of a question, read from its words: lookup, count, yes/no, ordering (superlative) or comparison.

:func:`classify` reads the question with its linked mentions masked (an entity named "The Last of Us" holds no
superlative) and returns a :class:`QuestionKind`:

* ``lookup`` — "who directed X": the answer variable's bindings (the default). "both X and Y" sets
  ``conjunction``: the two mentions meet at the answer (the grounded two-entity conjunction).
* ``count`` — "how many …", "the number of …": the number of distinct answers.
* ``ask`` — a yes/no question ("is/was/did/does … ?") naming two things: is the second an answer of the first's
  relation? An alternative question ("is X a man or a woman?") is a lookup.
* ``ordering`` — a superlative ("the oldest", "the three longest", "… first"): the answers ranked by a literal
  attribute, the best ``limit`` kept. With " or " between two mentions ("who was born first, X or Y?"), or
  "between X and Y", the ranked items are the mentions themselves (``choice``).
* ``comparison`` — a comparative between two values: "was X released before Y?", "was X born before 1900?"
  (yes/no); "which films … after 2000?" is a lookup or count with a ``constant`` filter.
* **by a count** (``counted``, since 2026-11-27): "which institution in X has *the most laureates*" is an
  ``ordering`` of the answers by how many of the counted things each has; "which has *more laureates*, A or B" an
  ``ordering`` of the two mentions (``choice``); "were *more laureates* born in A than in B" a ``comparison``.
* ``unsupported`` — words asking for arithmetic the path cannot do (averages, sums, "how old", "the second
  oldest", "has X had the most prizes?"): the pipeline answers "no grounded answer: this kind of question is not
  supported".

A comparative or superlative word is a :class:`Cue`: which way it orders dates (and years) and which way numbers
("oldest" is the earliest birth date but the largest age), and words that name the attribute it usually means
(``hint``), used to pick the attribute relation (:mod:`kgsvc.qa.aggregate`).

The rules are English word patterns; they name no benchmark relation or template.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kgsvc.qa.link import STOPWORDS
from kgsvc.qa.question_form import asks_who

__all__ = [
    "CUES",
    "KIND_SCHEMA",
    "Cue",
    "KindName",
    "QuestionKind",
    "answer_noun",
    "classify",
    "constants",
    "cue_window",
    "period",
    "from_spec",
    "date_part",
    "month_day",
    "shown",
    "year_within",
]

KindName = Literal["lookup", "count", "ask", "ordering", "comparison", "unsupported"]


@dataclass(frozen=True, slots=True)
class Cue:
    """A comparative or superlative word.

    Attributes
    ----------
    word : str
        The word (or words) as written.
    date_greater, number_greater : bool
        Whether the cue prefers the greater value on dates/years and on numbers ("oldest": earliest date, largest
        number; "before": the smaller value on both).
    hint : str
        Words naming the attribute the cue usually compares ("birth date" for "oldest").
    """

    word: str
    date_greater: bool
    number_greater: bool
    hint: str = ""


def _cues(words: str, date_greater: bool, number_greater: bool, hint: str = "") -> dict[str, Cue]:
    return {w: Cue(w, date_greater, number_greater, hint) for w in words.split("|")}


#: Superlative cues (ordering).
CUES: dict[str, Cue] = {
    **_cues("oldest|eldest", False, True, "birth date age"),
    **_cues("youngest", True, False, "birth date age"),
    **_cues("first|earliest", False, False, "date year"),
    **_cues("last|latest|newest|most recent|most recently", True, True, "date year"),
    **_cues("longest", True, True, "length duration runtime"),
    **_cues("shortest", False, False, "length duration runtime"),
    **_cues("tallest", True, True, "height"),
    **_cues("highest|largest|biggest|greatest|heaviest", True, True, ""),
    **_cues("lowest|smallest|lightest", False, False, ""),
}
#: Comparative cues (comparison): the subject's value is greater (or smaller) than the other's.
COMPARATIVES: dict[str, Cue] = {
    **_cues("older than|elder than", False, True, "birth date age"),
    **_cues("younger than", True, False, "birth date age"),
    **_cues("before|earlier than|prior to|by the time", False, False, "date year"),
    **_cues("after|later than|more recently than|since", True, True, "date year"),
    **_cues("longer than", True, True, "length duration runtime"),
    **_cues("shorter than", False, False, "length duration runtime"),
    **_cues("outlive|outlived|outlives", True, True, "life"),  # a span of a life (kind_path._LIFE)
    **_cues("taller than", True, True, "height"),
    **_cues("higher than|larger than|bigger than|greater than|heavier than|more than|over", True, True, ""),
    **_cues("lower than|smaller than|lighter than|less than|fewer than|under", False, False, ""),
}
#: Comparatives without "than", for "which is older, X or Y" and "was X born earlier" (X vs. the other mention).
_BARE = {
    **_cues("older|elder", False, True, "birth date age"),
    **_cues("younger", True, False, "birth date age"),
    **_cues("earlier|sooner", False, False, "date year"),
    **_cues("later|more recent|more recently", True, True, "date year"),
    **_cues("longer", True, True, "length duration runtime"),
    **_cues("shorter", False, False, "length duration runtime"),
    **_cues("taller", True, True, "height"),
    **_cues("higher|larger|bigger|greater|heavier", True, True, ""),
    **_cues("lower|smaller|lighter", False, False, ""),
}

_AUX = re.compile(r"^\s*(is|are|was|were|did|does|do|has|have|had|can|could|will|would)\b(?!\s+you\b)", re.I)
_COUNT = re.compile(
    r"(?:\bin\s+)?\bhow\s+many\b|\b(?:the|what)\s+(?:total\s+)?(?:number|count)\s+of\b|\ba\s+count\s+of\b"
    r"|^\W*(?:total\s+)?(?:number|headcount|tally)\s+of\b|^\s*count\b"
    # "Total Nobel Prizes won by …": a plural noun, no auxiliary, and no question word after ("Total Recall was
    # directed by whom?" is a title)
    r"|^\W*(?:the\s+)?total\s+(?=(?:[a-z]+\s+){0,2}(?!(?:was|is|has|does|as|his|its|this)\b)[a-z]+s\b)"
    r"(?!.*\b(?:whom|what|which|when|where|why|how)\b)",
    re.I,
)
#: Numbers written as words in a tally (:data:`_TALLY`), beside :data:`_NUMBER_WORDS`.
_TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3, "one": 1, "a single": 1}
#: A number of one entity's values compared with a small number ("more than *once*", "more than one *institution*",
#: "at least two prizes"; not "over", also a preposition, nor "more than 5000 inhabitants", a value):
#: :attr:`QuestionKind.tally`. Masked mentions are "#", so a number is not one of them.
_TALLY = re.compile(
    r"\b(?P<cue>more\s+than|fewer\s+than|less\s+than|at\s+least|at\s+most)\s+"
    r"(?P<n>once|twice|thrice|one|a\s+single|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\b"
    r"(?:\s+(?P<noun>[^\W\d_][\w-]*))?",
    re.I,
)
#: Nouns after a number that measure a value rather than count the entity's values ("over 300 *metres*").
_UNITS = frozenset(
    "year years month months week weeks day days hour hours minute minutes second seconds metre metres meter meters "
    "foot feet km kilometres kilometers mile miles kg kilograms pound pounds ton tons tonnes percent per degrees "
    "hundred thousand million billion old m cm km ft decade decades century centuries dollars euros".split()
)


def _tallied(tally: re.Match[str]) -> bool:
    """Whether a :data:`_TALLY` match counts the entity's values: a noun after the number that is no unit ("more
    than one *institution*"), or a number of times ("more than *once*", "more than two *times*").

    >>> [_tallied(_TALLY.search(q)) for q in ("more than once?", "more than one institution", "more than 4 when he")]
    [True, True, False]
    """
    noun = (tally.group("noun") or "").lower()
    if " ".join(tally.group("n").lower().split()) in ("once", "twice", "thrice"):
        return noun not in _UNITS
    return bool(noun) and noun not in _UNITS and noun not in STOPWORDS  # "over 40 *when* he won": an age


_HOW_MANY = re.compile(r"\bhow\s+many\b|\b(?:number|count|headcount|tally)\s+of\b", re.I)
#: "in total" in a count says nothing more than the count ("In total, how many …"); elsewhere it asks for a sum.
_IN_TOTAL = re.compile(r"\bin\s+total\b\s*,?", re.I)
_UNSUPPORTED = [
    (
        re.compile(r"\b(average|mean|median|sum|total\s+of|in\s+total|percent(?:age)?|ratio|proportion)\b", re.I),
        "it asks for arithmetic over values (an average, a sum or a share)",
    ),
    (
        re.compile(r"\bhow\s+(long\s+ago|much\s+older|much\s+younger|many\s+years)\b", re.I),
        "it asks for arithmetic on dates",
    ),
    (
        re.compile(r"\b(second|third|fourth|fifth|2nd|3rd|4th|5th)\s+(?:" + "|".join(CUES) + r")\b", re.I),
        "it asks for a rank other than the first",
    ),
    (re.compile(r"\b(?:not|never|no\s+one|nobody|except|without)\b", re.I), "it asks for a negation"),
]
#: A superlative by a count: "the most *Nobel laureates*", "the fewest films", "the biggest crop of *laureates*" (up to
#: two words before a plural noun).
_BY_COUNT = re.compile(
    r"\b(?:the\s+)?(most|fewest|least|(?:largest|biggest|greatest|highest|smallest|lowest)\s+(?:number|count|crop|tally)"
    r"\s+of)\s+(?!recent)((?:[a-z#-]+\s+){0,2}?[a-z]+s)\b",
    re.I,
)
#: Why a filter by two numbers or dates is refused: the path applies one, which would answer another question.
_TWO_CONSTANTS = "it compares with two numbers or dates, and only one filter is applied"
_FEWEST = ("fewest", "least", "smallest", "lowest")
#: A comparison of counts: "more *Nobel laureates*", "fewer films" (up to two words before a plural noun).
_MORE = re.compile(r"\b(more|fewer|less)\s+(?!recent|than\b)((?:[a-z#-]+\s+){0,2}?[a-z]+s)\b", re.I)
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_NOT_SUPERLATIVE = re.compile(r"\b(first|last)\s+(name|names|names?\s+of)\b|\bat\s+(first|last)\b", re.I)
_CONSTANT = re.compile(r"(?<![\w.-])(-?\d{4}-\d{2}-\d{2}|\d{3}0'?s|-?\d+(?:\.\d+)?)(?![\w-]|\.\d)")  # "before 1900."
#: A decade a value falls in: "in the 1940s", "during the 1990's", "from the 1960s" (the constant "1940s").
_IN_DECADE = re.compile(r"\b(?:in|during|from|of)\s+the\s+(\d{3}0'?s)\b", re.I)
#: A span of years: "between 1900 and 1909", "from 1950 to 1959" (the constant "1900–1909").
_BETWEEN_YEARS = re.compile(r"\b(?:between|from)\s+(\d{4})\s+(?:and|to|until|till|through)\s+(\d{4})\b", re.I)
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH = "(" + "|".join(_MONTHS) + ")"
#: A month or a day of the year a date falls on, with no year: "born in February", "in the month of May", "on July
#: 19", "on the 19th of July" (the constants "--02", "--07-19": XSD's gMonth and gMonthDay forms). A year after the
#: month or day ("in May 1945") is a date, not read here.
_IN_MONTH = re.compile(
    rf"\b(?:(?:in|during)\s+(?:the\s+month\s+of\s+)?{_MONTH}(?!\s*,?\s*\d)"
    rf"|on\s+(?:the\s+)?(?:{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH})"
    rf"(?!\s*,?\s*\d))\b",
    re.I,
)
#: A month of one year: "died in November 1999", "in May, 1997" (the constant "1999-11").
_IN_MONTH_OF_YEAR = re.compile(rf"\b(?:in|during)\s+(?:the\s+month\s+of\s+)?{_MONTH}\s*,?\s+(\d{{4}})\b", re.I)


@dataclass(frozen=True, slots=True)
class QuestionKind:
    """What a question asks for (module docstring).

    Attributes
    ----------
    kind : {"lookup", "count", "ask", "ordering", "comparison", "unsupported"}
        The kind.
    cue : Cue, optional
        The superlative (ordering) or comparative (comparison, filter) word; a comparison without one asks for
        equality ("was X released in 2003?").
    limit : int
        Ordering: how many of the best are asked for ("the three oldest": 3).
    choice : bool
        Ordering: the items are the question's mentions ("X or Y").
    constant : str, optional
        A number or date of the question the value is compared with ("before 1900"): a filter for lookup and count,
        the right-hand side for a yes/no comparison.
    conjunction : bool
        Lookup: "both X and Y" — the mentions meet at the answer.
    reason : str, optional
        Unsupported: why.
    cue_at : (int, int), optional
        Where the cue is in the question: the attribute is read from the words around it.
    noun : str
        The words naming what is counted, ranked or filtered ("how many *Nobel laureates*", "the youngest
        *laureate*"; ``person`` for a "who" question): the answers' ``rdf:type`` should fit it.
    words : str
        The question with the kind's words blanked ("how many" reads "which", a cue becomes spaces), so that the
        mentions keep their character positions: what the relation ranking reads.

    counted : str
        Ordering by a count: the things whose number ranks the answers ("which institution has the most *Nobel
        laureates*"); empty for an ordering by a value.
    alive : bool
        "still alive", "still living": the answers (or the entity asked about) have the date that opens a life and
        not the one that closes it (:data:`_ALIVE`; the words are blanked in ``words``).
    besides : frozenset of int
        Nodes that are no answer: the entity whose date gave the constant ("died in the same year as *X*": X shares
        its own year; set by the pipeline, which has the graph).
    tally : bool
        Comparison: the number of the one entity's values is compared with ``constant``, not a value ("Has X won
        the Nobel *more than once*?", "Is X tied to *more than one* institution?", :data:`_TALLY`).
    """

    kind: KindName
    cue: Cue | None = None
    limit: int = 1
    choice: bool = False
    constant: str | None = None
    conjunction: bool = False
    reason: str | None = None
    words: str = ""
    noun: str = ""
    cue_at: tuple[int, int] | None = None
    counted: str = ""
    alive: bool = False
    besides: frozenset[int] = frozenset()
    tally: bool = False

    @property
    def over_a_class(self) -> bool:
        """Whether the kind can be answered without an entity, over the things of the asked noun's class: a lookup or
        count filtered by a constant ("which laureates were born before 1850"), an ordering by a count ("which
        institution has the most laureates")."""
        filtered = self.constant is not None and self.kind in ("lookup", "count")
        return filtered or (self.kind == "ordering" and bool(self.counted) and not self.choice)

    @property
    def sparql_form(self) -> str:
        """The SPARQL form of the kind: ``SELECT``, ``COUNT``, ``ASK``, ``ORDER BY … LIMIT`` or ``FILTER``."""
        if self.kind == "count":
            return "COUNT"
        if self.kind == "ask" or (self.kind == "comparison" and not self.choice):
            return "ASK"
        if self.kind == "ordering":
            return "ORDER BY … LIMIT"
        return "FILTER" if self.constant is not None else "SELECT"


def _mask(question: str, spans: Sequence[tuple[int, int]]) -> str:
    chars = list(question)
    for start, end in spans:
        for i in range(max(start, 0), min(end, len(chars))):
            chars[i] = "#"
    return "".join(chars)


#: A verb, then a year it happened in ("born in 1924", "died in the year 1962", "died during 1962").
_YEAR_WITHIN = re.compile(
    r"\b([^\W\d_]+)\s+(?:in|during)\s+(?:the\s+(?:year|course)\s+(?:of\s+)?)?(\d{4})(?![\w-]|\.\d)", re.IGNORECASE
)

#: A year before the plural noun of a life's event, as lists of people are titled ("*1971 deaths*", "1880 births").
_YEAR_EVENTS = re.compile(r"\b(\d{4})\s+(deaths|births)\b", re.IGNORECASE)


def year_within(question: str, spans: Sequence[tuple[int, int]] = ()) -> tuple[str, str, tuple[int, int]] | None:
    """The verb, the year and the verb's span of "<verb> in <year>" in ``question`` (the year in no linked span of
    ``spans`` but its own), or ``None``; ``None`` too when the question writes more than one number outside the named
    spans ("born in 1924 and died in 1962": one year filter would drop the other condition). Grammar only: whether
    the verb names a date of the graph, which the year then says the year of ("which laureates *died in 1962*"), is
    the caller's question (:mod:`kgsvc.qa.pipeline`).

    >>> year_within("how many nobel laureates died in the year 1962.", [(42, 46)])
    ('died', '1962', (25, 29))
    >>> year_within("Who won the prize in 1996?"), year_within("Who won the 1996 prize?")
    (('prize', '1996', (12, 17)), None)
    >>> year_within("Which laureates born in 1924 died in 1962?") is None
    True
    >>> year_within("1971 deaths among nobel laureates")
    ('deaths', '1971', (5, 11))
    """
    m = _YEAR_WITHIN.search(question)
    named = [(a, b) for a, b in spans if not re.fullmatch(r"\d{4}", question[a:b].strip())]
    if m is None:
        nominal = _YEAR_EVENTS.search(question)  # "1971 deaths among nobel laureates"
        if nominal is None or len(constants(question, named)) != 1:
            return None
        return nominal.group(2), nominal.group(1), nominal.span(2)
    if any(a < m.end(2) and m.start(2) < b for a, b in named) or len(constants(question, named)) != 1:
        return None
    return m.group(1), m.group(2), m.span(1)


def period(constant: str) -> tuple[int, int] | None:
    """The first year and the length of a period constant, ``None`` for another constant: a decade ("1940s" → 1940,
    ten years) or, written with two zeros before 2000, the century it is usually read as ("the 1800s": a hundred
    years; "the 2000s" is a decade), or a span of years from one to another, both included ("1900–1909", read from
    "between 1900 and 1909").

    >>> period("1940s"), period("1800s"), period("2000s"), period("1940"), period("1900–1909")
    ((1940, 10), (1800, 100), (2000, 10), None, (1900, 10))
    """
    years = re.fullmatch(r"(\d{4})–(\d{4})", constant)
    if years is not None:
        return int(years.group(1)), int(years.group(2)) - int(years.group(1)) + 1
    if not re.fullmatch(r"\d{3}0s", constant):
        return None
    first = int(constant[:-1])
    return first, 100 if first % 100 == 0 and first < 2000 else 10


def month_day(constant: str) -> str | None:
    """The ``MM`` or ``MM-DD`` a month or day-of-year constant fixes (``"--02"``, ``"--07-19"``), ``None`` for
    another constant: a date's characters 6–7 (6–10) must equal it.

    >>> month_day("--07-19"), month_day("--02"), month_day("1940s")
    ('07-19', '02', None)
    """
    return constant[2:] if re.fullmatch(r"--\d{2}(?:-\d{2})?", constant) else None


def date_part(constant: str) -> tuple[int, str] | None:
    """Where a date's lexical form must hold what a month, day-of-year or month-of-a-year constant fixes: the
    1-based position and the characters (``"--07-19"`` → ``(6, "07-19")``; ``"1934-09"``, read from "in September
    1934", → ``(1, "1934-09")``); ``None`` for another constant.

    >>> date_part("--07-19"), date_part("1934-09"), date_part("1934")
    ((6, '07-19'), (1, '1934-09'), None)
    """
    fixed = month_day(constant)
    if fixed is not None:
        return 6, fixed
    return (1, constant) if re.fullmatch(r"\d{4}-\d{2}", constant) else None


def shown(constant: str) -> str:
    """A constant as a person writes it: a month or day of the year by its name ("--07-19" → "July 19", "1934-09" →
    "September 1934"), another as it is."""
    if re.fullmatch(r"\d{4}-\d{2}", constant):
        return f"{_MONTHS[int(constant[5:]) - 1].capitalize()} {constant[:4]}"
    fixed = month_day(constant)
    if fixed is None:
        return constant
    month = _MONTHS[int(fixed[:2]) - 1].capitalize()
    return month if len(fixed) == 2 else f"{month} {int(fixed[3:])}"


def _within_month(masked: str) -> tuple[re.Match[str], str] | None:
    """ "in February", "on July 19", "in September 1934": the match and its constant (:data:`_IN_MONTH`,
    :data:`_IN_MONTH_OF_YEAR`), when the month, its day or its year are the question's only numbers."""
    m = _IN_MONTH_OF_YEAR.search(masked)
    if m is not None:
        rest = masked[: m.start()] + masked[m.end() :]
        return None if constants(rest) else (m, f"{m.group(2)}-{_MONTHS.index(m.group(1).lower()) + 1:02d}")
    m = _IN_MONTH.search(masked)
    if m is None:
        return None
    month, day = m.group(1) or m.group(2) or m.group(5), m.group(3) or m.group(4)
    rest = masked[: m.start()] + masked[m.end() :]
    if constants(rest) or (day is not None and not 1 <= int(day) <= 31):
        return None
    constant = f"--{_MONTHS.index(month.lower()) + 1:02d}" + (f"-{int(day):02d}" if day else "")
    return m, constant


def constants(question: str, spans: Sequence[tuple[int, int]] = ()) -> list[str]:
    """Numbers and ISO dates written in ``question`` outside the linked ``spans``, in order.

    >>> constants("Was Paprika released after 2000?"), constants("Who won in the 1940's?")
    (['2000'], ['1940s'])
    """
    return [m.group(1).replace("'", "") for m in _CONSTANT.finditer(_mask(question, spans))]


def _find(table: dict[str, Cue], text: str) -> tuple[Cue, re.Match[str]] | None:
    best: tuple[Cue, re.Match[str]] | None = None
    for word, cue in table.items():
        m = re.search(r"\b" + r"\s+".join(word.split()) + r"\b", text)
        if m is not None and (best is None or len(word) > len(best[0].word)):  # "most recent" over "most"
            best = (cue, m)
    return best


def _two_filters(masked: str, values: Sequence[str]) -> bool:
    """Whether two comparatives compare with two numbers or dates ("born *before 1850* and died *after 1900*"); a
    number in a title ("20,000 Leagues *Under* the Sea") has one cue."""
    spans = {m.span() for word in COMPARATIVES for m in re.finditer(r"\b" + r"\s+".join(word.split()) + r"\b", masked)}
    return len(values) > 1 and len({start for start, _ in spans}) > 1


def _unmasked_words(question: str, masked: str, start: int, end: int) -> str:
    """The words of ``question[start:end]`` that are no part of a mention: "the most *NIST* researchers" counts
    researchers (NIST is a condition on them, read by the path)."""
    words = re.finditer(r"\S+", masked[start:end])
    return " ".join(question[start + w.start() : start + w.end()] for w in words if "#" not in w.group())


def _blank(question: str, m: re.Match[str], word: str = "") -> str:
    """``question`` with the match replaced by ``word`` padded with spaces: character positions are kept."""
    width = m.end() - m.start()
    return question[: m.start()] + word[:width].ljust(width) + question[m.end() :]


_STOP = set(
    "the a an of in on at by from with for to that which who whom whose what is are was were did do does have has had "
    "been be and or there ever than as his her their its this these those all any each besides except apart".split()
)


def _noun(question: str, masked: str, start: int) -> str:
    """Up to three words from ``start`` on (articles and mentions before the first skipped), stopping at a stop
    word, a verb-like word or a mention (``#``)."""
    words: list[str] = []
    for token in masked[start:].split():
        word = token.strip("?,.!;:")
        if not words and (word in ("the", "a", "an", "all", "of", "other") or set(word) == {"#"}):
            continue  # an article, or a mention modifying the noun ("how many [Nobel] laureates")
        if not word.isalpha() or word in _STOP or word.endswith("ed") or word in ("born", "won", "died", "win"):
            break
        words.append(word)
        if len(words) == 3:
            break
    return " ".join(words)


def answer_noun(question: str, spans: Sequence[tuple[int, int]] = ()) -> str:
    """The noun of what ``question`` asks for (outside the linked ``spans``): after "which" / "what", or "person"
    for "who"; ``""`` without one.

    >>> answer_noun("which economics laureates born in 1924"), answer_noun("Who died in 1962?")
    ('economics laureates', 'person')
    >>> answer_noun("1971 deaths among nobel laureates")
    'nobel laureates'
    """
    return _answer_noun(question, _mask(question, spans).lower())


#: "Out of the *institutions* in X, which one …": the noun of the opening phrase is what "which one" asks for.
_OPENING = re.compile(r"^\W*(?:out\s+of|of|among|from)\s+(?=.*,\s*which\s+ones?\b)", re.I)


def _answer_noun(question: str, masked: str, after: int | None = None) -> str:
    if after is not None and (noun := _noun(question, masked, after)):
        return noun
    opening = _OPENING.match(masked)
    if opening is not None and (noun := _noun(question, masked, opening.end())):
        return noun
    m = re.match(r"^\s*(?:[^,?]{1,60},\s*)?(?:which|what)\b", masked)  # "In Mexico, which city …"
    if m is not None and (noun := _noun(question, masked, m.end())):
        return noun
    if asks_who(masked):
        return "person"
    fragment = _FRAGMENT.match(masked)  # "nobel laureates born in 1880", "list the chemists born in the 1830s"
    if fragment is not None and (noun := _noun(question, masked, fragment.end())):
        return noun
    among = _AMONG.search(masked)  # "1971 deaths *among nobel laureates*"
    return _noun(question, masked, among.end()) if fragment is not None and among is not None else ""


#: A question written as a noun phrase, or as a command before one: what it opens with is what it asks for. Not a
#: question opened by a question word or an auxiliary.
_FRAGMENT = re.compile(
    r"^\W*(?!(?:who|whom|whose|what|which|when|where|why|how|is|are|was|were|did|does|do|has|have|had|can|could)\b)"
    r"(?:(?:list|name|show|give|find|get|tell)(?:\s+me)?\s+)?(?:all\s+)?(?:of\s+)?(?:the\s+)?"
)

#: The group a noun phrase opened by no noun picks its answers from ("1971 deaths *among* nobel laureates").
_AMONG = re.compile(r"\bamong\s+(?:the\s+)?", re.I)


def cue_window(question: str, kind: QuestionKind, spans: Sequence[tuple[int, int]] = (), width: int = 3) -> str:
    """The ``width`` words before and after the cue (mentions left out): what names the compared attribute
    ("who *died most recently*", "was X *born earlier than* Y"); the whole question without a cue.

    >>> cue_window("Among laureates born in Scotland, who died most recently?", classify("Among laureates born in "
    ...     "Scotland, who died most recently?", [(24, 32)]), [(24, 32)])
    'who died most recently'
    """
    masked = _mask(question, spans)
    if kind.cue_at is None:
        return " ".join(w for w in masked.split() if "#" not in w)
    start, end = kind.cue_at
    before = [w for w in masked[:start].replace(",", " , ").split() if "#" not in w]
    after = [w for w in re.sub(r"^-", " ", masked[end:]).replace(",", " , ").split() if "#" not in w]  # "-born"
    if "," in before:
        before = before[len(before) - before[::-1].index(",") :]
    if "," in after:
        after = after[: after.index(",")]
    words = [*before[-width:], question[start:end], *after[:width]]
    return " ".join(w.strip("?.!") for w in words if w.strip("?.!"))


#: "still alive", "still living", "alive today", with a source after it ("…, going by the graph"): a condition on
#: the answers (:attr:`QuestionKind.alive`), not a relation to walk (2026-11-28).
_ALIVE = re.compile(
    r"\b(?:(?:still|yet)\s+(?:alive|living|with\s+us)|alive(?:\s+(?:today|now))?)\b"
    r"(?:\s*,?\s*(?:according\s+to|going\s+by|as\s+per|in)\s+(?:the\s+)?(?:data|graph|dataset|records?))?",
    re.I,
)


def classify(question: str, spans: Sequence[tuple[int, int]] = ()) -> QuestionKind:
    """The kind of ``question`` (module docstring); ``spans`` are the linked mentions' ``(start, end)``.

    Parameters
    ----------
    question : str
        The question as asked.
    spans : sequence of (int, int)
        Character spans of linked mentions: their words are never read as kind words.

    Returns
    -------
    QuestionKind

    Notes
    -----
    O(length · cues) regular-expression scans.

    Examples
    --------
    >>> classify("How many films did Satoshi Kon direct?", [(19, 30)]).kind
    'count'
    >>> classify("In total, how many laureates died in Argentina?", [(37, 46)]).kind
    'count'
    >>> classify("Headcount of Nobel laureates who are natives of X?", [(48, 49)]).kind
    'count'
    >>> classify("who are the actors in The Count of Monte Cristo").kind  # a title, even when not linked
    'lookup'
    >>> classify("Which laureates were born before 1850 and died after 1900?").kind
    'unsupported'
    >>> k = classify("Which film by Satoshi Kon was released first?", [(14, 25)])
    >>> k.kind, k.cue.word, k.limit
    ('ordering', 'first', 1)
    >>> classify("Is Willard considered good?", [(3, 10)]).kind
    'ask'
    >>> classify("is X 's husband a man or a woman ?", [(3, 4)]).kind
    'lookup'
    >>> k = classify("X vs Y: which of them was younger when they won?", [(0, 1), (5, 6)])
    >>> k.kind, k.choice
    ('ordering', True)
    >>> k = classify("how many X laureates are still alive according to the graph", [(9, 10)])
    >>> k.kind, k.alive, k.words
    ('count', True, 'which    X laureates are                                   ')
    """
    alive = _ALIVE.search(_mask(question, spans))
    if alive is None:
        return _classify(question, spans)
    blanked = _blank(question, alive)
    kind = _classify(blanked, spans)
    return dataclasses.replace(kind, alive=True, words=kind.words or blanked)


def _classify(question: str, spans: Sequence[tuple[int, int]]) -> QuestionKind:
    numeric = [(a, b) for a, b in spans if _CONSTANT.fullmatch(question[a:b].strip())]
    named = [sp for sp in spans if sp not in numeric]
    masked = _mask(question, named).lower()
    if _HOW_MANY.search(masked):  # "In total, how many …", "how many … in total": a count, not a sum
        masked = _IN_TOTAL.sub(lambda m: " " * len(m.group(0)), masked)
    n_mentions = len(named)
    for pattern, why in _UNSUPPORTED:
        if pattern.search(masked):
            return QuestionKind("unsupported", reason=why, words=question)
    values = constants(question, named)
    alternative = re.search(r"#\s*,?\s+(?:or|vs\.?|versus)\s+(?:[a-z]+\s+){0,2}#", masked) is not None or (
        re.search(r"\bor\b", masked) is not None and n_mentions < 2
    )
    between = re.search(r"^\W*between\s+#+\s+and\s+#", masked) is not None  # "Between X and Y, who …"
    m = _COUNT.search(masked)
    if m is not None and "Count" in question[max(m.start(), 1) : m.end()]:
        m = None  # "The Count of Monte Cristo": a title, not "the count of …"
    if m is not None and _AUX.match(masked) and not _COUNT.match(masked):
        m = None  # "Did X say how many prizes he wanted?": a yes/no question
    opening = question[: m.start()].rstrip() if m is not None else ""
    if m is not None and opening and opening[-1] not in ",:;" and question[m.start() : m.end()].istitle():
        m = None  # "Who directed How Many Miles to Babylon?": a title
    if m is not None:
        words = _blank(question, m, "which")
        noun = _answer_noun(question, masked, m.end())
        comparative = _find(COMPARATIVES, masked)
        if comparative is not None and _two_filters(masked, values):
            return QuestionKind("unsupported", reason=_TWO_CONSTANTS, words=question)
        if comparative is not None and values:
            return QuestionKind(
                "count", cue=comparative[0], constant=values[-1], words=words, noun=noun, cue_at=comparative[1].span()
            )
        if (within := _within_period(masked, values)) is not None:  # "how many … in the 1940s"
            words = _period_blanked(words, masked, within[0])
            return QuestionKind("count", constant=within[1], words=words, noun=noun, cue_at=within[0].span())
        if comparative is None and (month := _within_month(masked)) is not None:  # "how many … on July 19"
            words = _period_blanked(words, masked, month[0])
            return QuestionKind("count", constant=month[1], words=words, noun=noun, cue_at=month[0].span())
        return QuestionKind("count", words=words, noun=noun)
    tally = _TALLY.search(masked)
    if tally is not None and n_mentions == 1 and _AUX.match(masked) and _tallied(tally):
        said = " ".join(tally.group("cue").lower().split())
        written = " ".join(tally.group("n").lower().split())
        count = {**_NUMBER_WORDS, **_TIMES_WORDS}.get(written) or int(written)
        greater = said in ("more than", "at least")
        bound = count - 1 if said == "at least" else count + 1 if said == "at most" else count  # "at least 2": "> 1"
        return QuestionKind(
            "comparison",
            cue=Cue(tally.group("cue"), greater, greater),
            constant=str(bound),
            words=question[: tally.start()] + " " * (tally.end("n") - tally.start()) + question[tally.end("n") :],
            noun=tally.group("noun") or "",
            cue_at=tally.span(),
            tally=True,
        )
    by_count = _BY_COUNT.search(masked)
    if by_count is not None and not _AUX.match(masked):  # "which institution has the most laureates"
        most = by_count.group(1).split()[0].lower() not in _FEWEST  # "the biggest crop of laureates": most
        return QuestionKind(
            "ordering",
            cue=Cue(by_count.group(1), most, most),
            words=_blank(question, by_count),
            noun=_answer_noun(question, masked),
            cue_at=by_count.span(),
            counted=_unmasked_words(question, masked, *by_count.span(2)),
        )
    if by_count is not None:
        return QuestionKind("unsupported", reason="it asks whether something ranks first by a count", words=question)
    more = _MORE.search(masked)
    if more is not None and n_mentions >= 2 and (alternative or _AUX.match(masked)):
        greater = more.group(1).lower() == "more"
        yes_no = _AUX.match(masked) is not None and not alternative  # "Were more laureates born in X than in Y?"
        return QuestionKind(
            "comparison" if yes_no else "ordering",
            cue=Cue(more.group(1), greater, greater),
            choice=not yes_no,  # "Which can claim more laureates, X or Y?"
            words=_blank(question, more),
            noun=_answer_noun(question, masked),
            cue_at=more.span(),
            counted=_unmasked_words(question, masked, *more.span(2)),
        )
    superlative = None if _NOT_SUPERLATIVE.search(masked) else _find(CUES, masked)
    comparative = _find(COMPARATIVES, masked)
    if (
        comparative is not None
        and comparative[0].word == "by the time"
        and masked[comparative[1].end() :].lstrip()[:1] != "#"
    ):
        comparative = None  # "by the time *he* won": when X did something, not a comparison with another mention
    bare = _find(_BARE, masked)
    if _AUX.match(masked) and not (alternative and superlative is None and bare is None):
        cue = comparative or bare
        if cue is not None and (values or n_mentions >= 2):
            return QuestionKind(
                "comparison",
                cue=cue[0],
                constant=values[-1] if values and n_mentions < 2 else None,
                words=_blank(question, cue[1]),
                cue_at=cue[1].span(),
            )
        if values and n_mentions == 1 and re.search(r"\b(?:in|on)\s+" + _written(values[-1]), masked):
            return QuestionKind("comparison", constant=values[-1], words=question)  # "was X born in 1942?"
        if superlative is not None:
            return QuestionKind("unsupported", reason="it asks whether something is a superlative", words=question)
        return QuestionKind("ask", words=question)
    chosen = superlative or bare
    if (alternative or between) and n_mentions >= 2 and chosen is not None:
        return QuestionKind(
            "ordering", cue=chosen[0], choice=True, words=_blank(question, chosen[1]), cue_at=chosen[1].span()
        )
    if superlative is not None:
        found, m = superlative
        limit = 1
        before = masked[: m.start()].split()
        if before and (before[-1] in _NUMBER_WORDS or before[-1].isdigit()):
            limit = _NUMBER_WORDS.get(before[-1]) or int(before[-1])
        # the verb the cue ranks by is no condition of the things ranked ("who was *born* earliest", "the
        # earliest-*born* prize-winner among those who died in X"): blanked with the cue from what the path reads
        start, end = m.span()
        compound = re.match(r"-[a-z]+", masked[end:])
        end += compound.end() if compound else 0
        verb = re.search(r"\b(?:born|died|dead|[a-z]+ed)\s+$", masked[:start])
        if verb is not None and re.match(r"\s*(?:[?!.,]|$)", masked[end:]):
            start = verb.start()
        words = question[:start] + " " * (end - start) + question[end:]
        noun = _answer_noun(question, masked, m.end())
        return QuestionKind("ordering", cue=found, limit=max(limit, 1), words=words, noun=noun, cue_at=m.span())
    if comparative is not None and _two_filters(masked, values):  # "born before 1850 and died after 1900"
        return QuestionKind("unsupported", reason=_TWO_CONSTANTS, words=question)
    if comparative is not None and values:
        noun = _answer_noun(question, masked)
        return QuestionKind(
            "lookup",
            cue=comparative[0],
            constant=values[-1],
            words=_blank(question, comparative[1]),
            noun=noun,
            cue_at=comparative[1].span(),
        )
    if comparative is None and (within := _within_period(masked, values)) is not None:  # "… in the 1940s"
        noun = _answer_noun(question, masked)
        words = _period_blanked(question, masked, within[0])
        return QuestionKind("lookup", constant=within[1], words=words, noun=noun, cue_at=within[0].span())
    if comparative is None and (month := _within_month(masked)) is not None:  # "… born in February"
        noun = _answer_noun(question, masked)
        words = _period_blanked(question, masked, month[0])
        return QuestionKind("lookup", constant=month[1], words=words, noun=noun, cue_at=month[0].span())
    both = re.search(r"\bboth\b", masked) is not None and n_mentions >= 2
    return QuestionKind("lookup", conjunction=both, words=question)


def _period_blanked(words: str, masked: str, within: re.Match[str]) -> str:
    """``words`` with the decade of ``within`` blanked, and, when it ends the question, the one to three words between
    the last mention (or comma) and it: they say whose year it is, no step of the path ("born in X *whose prize came*
    in the 1940s", "born in X *died* in the 1970s"; :meth:`~kgsvc.qa.kind_path._KindPath.attribute_text` reads them).

    >>> k = classify("Which laureates born in Vienna died in the 1970s?", [(24, 30)])
    >>> k.kind, k.constant, k.words
    ('lookup', '1970s', 'Which laureates born in Vienna                  ?')
    """
    start = within.start()
    last = max(masked.rfind("#", 0, start), masked.rfind(",", 0, start))  # "among the X-born laureates, *died* in …"
    clause = masked[last + 1 : start]
    if last >= 0 and 1 <= len(clause.split()) <= 3 and not masked[within.end() :].strip(" ?.!"):
        start = last + 1
    return words[:start] + " " * (within.end() - start) + words[within.end() :]


def _within_period(masked: str, values: Sequence[str]) -> tuple[re.Match[str], str] | None:
    """ "in the 1940s" when a decade is the question's only number or date, or "between 1900 and 1909" when those
    are its two (a filter: the value's year falls in it): the match and the period's constant (:func:`period`)."""
    m = _IN_DECADE.search(masked)
    decade = m.group(1).lower().replace("'", "") if m is not None else ""
    if m is not None and list(values) == [decade]:
        return m, decade
    m = _BETWEEN_YEARS.search(masked)
    if m is not None and list(values) == [m.group(1), m.group(2)] and m.group(1) < m.group(2):
        return m, f"{m.group(1)}–{m.group(2)}"
    return None


def _written(value: str) -> str:
    """The pattern of a constant as written after "in"/"on": a decade after "the" ("in the 1920's"), a year, number
    or date bare ("in 1942"; "in the 2014 World Cup" names a thing, not a time)."""
    return rf"the\s+{value[:-1]}'?s\b" if period(value) is not None else re.escape(value) + r"(?![\w-])"


#: The kind fields of an LLM-written pattern's JSON schema (``QuestionAnswerer.pattern_schema`` adds ``order_by``,
#: an enum of the dataset's relation labels): what the pattern computes over its ``?answer`` bindings.
KIND_SCHEMA: dict[str, Any] = {
    "kind": {"type": "string", "enum": ["lookup", "count", "ask", "ordering", "comparison"]},
    "direction": {"type": "string", "enum": ["ascending", "descending"]},
    "limit": {"type": "integer", "minimum": 1, "maximum": 10},
    "operator": {"type": "string", "enum": ["<", ">", "="]},
    "value": {"type": "string", "pattern": r"^-?\d+(\.\d+)?$|^\d{4}-\d{2}-\d{2}$"},
}


def from_spec(spec: dict[str, Any]) -> QuestionKind:
    """The :class:`QuestionKind` an LLM pattern declares (:data:`KIND_SCHEMA` fields; ``order_by`` a relation label).

    ``ordering`` ranks by ``order_by`` in ``direction`` (default descending), best ``limit``; ``comparison``
    compares with ``value`` by ``operator`` (``=`` without a cue); a comparison without a value is unsupported.

    >>> from_spec({"kind": "ordering", "order_by": "birth date", "direction": "ascending"}).cue.hint
    'birth date'
    """
    kind = spec.get("kind", "lookup")
    hint = str(spec.get("order_by", ""))
    if kind == "ordering":
        greater = spec.get("direction", "descending") == "descending"
        return QuestionKind("ordering", cue=Cue("ordering", greater, greater, hint), limit=int(spec.get("limit", 1)))
    if kind == "comparison":
        value = spec.get("value")
        if value is None:
            return QuestionKind("unsupported", reason="the pattern compares two values without naming one")
        operator = spec.get("operator", "=")
        cue = None if operator == "=" else Cue(operator, operator == ">", operator == ">", hint)
        return QuestionKind("comparison", cue=cue, constant=str(value))
    if kind in ("count", "ask"):
        return QuestionKind(kind)
    return QuestionKind("lookup")
