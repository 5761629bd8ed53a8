"""Entity linking: question spans → candidate KG nodes with scores (DESIGN §5 step 1; ByoKG-RAG §3.2).

Three strategies, tried in order; a later one runs only for the part of the question the earlier ones left
unlinked, and only when no *specific* mention was found yet (the fallbacks are measured in the eval report):

1. **exact / normalised** — an Aho-Corasick automaton over every node label, folded character by character
   (:func:`fold`: case, accents, ``_`` → space), matched on word boundaries; overlapping matches are resolved
   longest first (greedy, then leftmost). A span equal to a label as written scores 1.0, a folded match 0.9.
   All nodes sharing the label are kept as candidates (homonyms), exact-case ones first.
2. **fuzzy** — uncovered word n-grams (1–6 words, not made only of common words) against the folded labels with
   rapidfuzz's ``ratio`` (≥ ``fuzzy_cutoff``), restricted to labels of similar length.
3. **vector** — the same n-grams embedded and searched in the node-label vector index; a hit counts only within
   ``vector_max_distance`` (true L2 of normalised MiniLM vectors), so an entity absent from the KG stays unlinked
   instead of being replaced by its nearest neighbour.

**Names as people write them** (issue 18): besides its label, a node is found by its *aliases* (:func:`aliases`):
the label without a trailing qualifier in parentheses (``Queen (band)`` → ``Queen``; the qualifier's words and the
node's type words found in the question, then its degree, choose among homonyms; a one-word qualifier that is a
short form of the name is an alias too, since 2026-11-27: ``California Institute of Technology (Caltech)`` →
``Caltech``, :func:`short_form`) or after a comma (``Madison, WI`` → ``Madison``; a capitalised part after the
comma of three or more words is a name of its own, since 2026-11-27: ``London University, King's College Hospital
Medical School`` → both parts; a node named so only with a qualifier stands one label distance unit behind a node
named exactly so, since 2026-11-27: "Czechoslovakia" is also *Czechoslovakia (now Czech Republic)*; since 2026-11-27
a qualifier of one or two words that the question names, by a word or written in full right after the mention —
"Madison, *Wisconsin*", "Madison, *New Jersey*" for NJ, :func:`abbreviates` —, puts the other homonyms one label
distance unit of ``0.1`` behind, so their matches rank below by GSD), without middle names or initials (``Linda B.
Buck`` → ``Linda Buck``, ``Emil Theodor Kocher`` → ``Theodor Kocher``; not for a label
ending in the plural of a class noun: ``Nobel Prize Laureates`` is no person, "Nobel laureates" a class noun) and
without a subtitle after `` - `` or ``: `` (``Technion - Israel Institute of Technology`` → ``Technion``), and
without the head noun that ends an organisation's name of two or more capitalised words before it (``Carnegie Mellon
University`` → ``Carnegie Mellon``; 2026-11-27; one label distance unit of 0.1 behind a node whose name is written
so: "Niels Bohr" is the physicist before the *Niels Bohr Institute*), and with the head noun before an "of"
(``Basel University`` ↔ ``University of Basel``, 2026-11-27). Since 2026-11-27 (night) a two-word university's or
college's first word alone (``Yale University`` → ``Yale``; none where a node is named exactly so: "Munich" is the
city, not *Munich University*), and a given name with the family name from its particle on (``Hans Karl August Simon
von Euler-Chelpin`` → ``Hans von Euler-Chelpin``; not in an institution's name). Since 2026-11-29, a capitalised
translation in parentheses (``Office international Nansen … (Nansen International Office for Refugees)``), an
island's name without "Island", and initials (:func:`initials`: ``National Institutes of Health`` → ``NIH``, ``United
Nations (U.N.)`` → ``UN``, ``U.N.``), these only where the question writes them in capitals; and a titled person's
name without its title (:func:`untitled`: ``Lord (John) Boyd Orr of Brechin`` → ``John Boyd Orr``). An alias match
scores 0.85. A capitalised n-gram one edit away from exactly one key links (``Lech Walesa`` → ``Lech Wałęsa``; with
nothing else linked, any n-gram: ``thriler`` → ``Thriller``). A **word-set** match links an n-gram whose content
words equal a label's but for at most one word each way, order free, sharing a number or at least three words
(``2011 Nobel Prize in economics`` → ``Nobel 2011 economics``), punctuation and a possessive ending aside since
2026-11-27 (``Beckman Instruments' Semiconductor Laboratory`` → ``Semiconductor Laboratory of Beckman Instruments,
Inc.``).

**Class nouns** (:class:`TypeMention`): a span equal to a class label (a node used as an ``rdf:type`` object) or
its plural, or to a common noun of :data:`COMMON_NOUNS` (after ``the``/``a``/``an``, written in lower case), is
not an entity: :meth:`EntityLinker.link_types` returns it as a type constraint (with the class nodes, if any) so
that the pipeline filters answers by ``rdf:type`` instead of answering about the class node.

**Case** (2026-11-26): in a question written with capitals (:func:`is_cased`: a capital after its first word), a
one-word span in lower case that matched only labels with capitals ("born" ↔ the family name "Born", "co" of
"co-laureates" ↔ the country code "CO", "in" ↔ "IN") is a common word or a word fragment, not a name: its score is
multiplied by ``_CASE_MISMATCH`` (a stop word's weight), so it never stands beside a real mention. A question in
lower case throughout ("who directed paprika") says nothing by its case and links as before.

Every mention's score is multiplied by its **specificity**: ``1 / (1 + 40 · rate)`` where ``rate`` is how often
the mention's words occur in the dataset's exemplar questions with their entities masked (template words such
as "director" or "film" are frequent there), or a small stop-word list when there are no exemplars.

Entry points: :meth:`LabelIndex.build` once per dataset, then :meth:`EntityLinker.link` per question. For an index
version patched from the previous one (issue 23), :meth:`LabelIndex.extend` layers the new version's index over the
previous one's: the plain base's tables are read through renumbered node ids (:mod:`kgsvc.qa.layered_keys`) and
only the nodes changed since the base are folded and indexed (a small delta with its own automaton), so a new
version's first question costs O(changes) dictionary work instead of a walk of every label; every look-up answers
as a fresh :meth:`LabelIndex.build` would (``tests/qa/test_link_layers.py``).

(Over 800 lines: the label index, its layers and the linker share the folding and alias rules and the index's
private tables; the generic base + delta table view is in :mod:`kgsvc.qa.layered_keys`.)
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ahocorasick
import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from kgsvc.qa.layered_keys import LayeredLists

__all__ = [
    "COMMON_NOUNS",
    "STOPWORDS",
    "EntityLinker",
    "LabelIndex",
    "LinkResult",
    "LinkedSpan",
    "TypeMention",
    "abbreviates",
    "aliases",
    "fold",
    "is_cased",
    "short_form",
]

#: Words that never make a mention on their own (used for n-gram filtering and as the default "common" test).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be been before being below between both but by
    can could did do does doing down during each few for from further had has have having he her here hers him his
    how i if in into is it its itself me more most my no nor not of off on once only or other our out over own same
    she should so some such than that the their them then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your 's name names tell give list
    also share shares shared""".split()
)

#: Generic nouns that name a kind of thing, never one entity when written in lower case ("the band", "albums").
COMMON_NOUNS = frozenset(
    """album band song film movie book person people country city place prize award company organisation
    organization group team artist singer record track player university institution laureate winner
    researcher scientist writer author actor director""".split()
)
_DETERMINERS = ("the ", "a ", "an ")
#: Most nodes named only with a qualifier kept behind an exact name ("Czechoslovakia (now Czech Republic)").
_QUALIFIED_BEHIND = 8
_QUALIFIED = re.compile(r"^(?P<name>.+?)\s*\((?P<qualifier>[^()]+)\)$")
_SUBTITLE = re.compile(r"^(?P<name>.+?)(?:\s+-\s+|:\s+).+$")
_PLACE = re.compile(r"^(?P<name>[^,]+),\s+(?P<qualifier>[^,]+)$")
#: What ends or opens a clause: a word-set match (its words in any order) does not cross one ("born in *1949, list
#: the Nobel* Prizes", "everyone with a *Nobel who died in 1917*").
_CLAUSE_MARK = re.compile(r"[,;:?!]|\s[—–-]\s|\b(?:who|whom|whose|which)\b", re.IGNORECASE)
#: The last word of an organisation's name that people leave out ("worked at Carnegie Mellon"): a name of two or more
#: capitalised words before it is an alias (a one-word one only before :data:`_ACADEMIC_HEADS`: "Monsters
#: University" is a film title too).
_ORGANISATION_HEADS = frozenset(
    "University Institute College Hospital Laboratory Laboratories School Foundation Centre Center".split()
)
#: The last word of an island's name, which people leave out ("Guadeloupe" for *Guadeloupe Island*).
_ISLAND_HEADS = frozenset({"Island", "Islands", "Isle"})
#: A company's legal form, which people leave out of its name ("Shimadzu" for *Shimadzu Corp.*).
_LEGAL_FORMS = frozenset("Corp. Corp Corporation Inc. Inc Ltd. Ltd Co. AG GmbH SA S.A. plc PLC LLC N.V. B.V.".split())
#: The heads of the two-word names of universities and colleges whose first word alone is how people write them
#: ("Yale", "Harvard"); no alias where a node has that exact name ("Munich" for *Munich University*: the city).
_ACADEMIC_HEADS = frozenset({"University", "College"})
#: Lower-case particles of family names ("Hans Karl August Simon *von* Euler-Chelpin", "Johannes Diderik *van der*
#: Waals"): a given name with the family name from the particle on is an alias.
_NAME_PARTICLES = frozenset("von van der den de du da das del della di la le ten ter zu 't bin ibn al".split())
#: Words of an institution's name, which a family-name particle does not make a person's ("Institut Français *du*
#: Pétrole", "Istituto Superiore *di* Sanità").
_INSTITUTION_WORDS = _ORGANISATION_HEADS | frozenset(
    "Institut Instituto Istituto Université Universität Universidad Università Universiteit Laboratoire Zoologisches "
    "Hôpital École Ecole Escuela Scuola Academy Akademie Society Museum".split()
)
#: An organisation's name written "<head> of <name>" ("University of Basel"), for its alias "<name> <head>".
_OF_NAME = re.compile(r"^(?P<head>[A-Z]\w+) of (?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?)$")
#: An organisation's name with its place after "of" ("Royal Institution of Great Britain"), which people leave out:
#: one to three capitalised words and a head noun, "of", one to three capitalised words.
_NAME_OF_PLACE = re.compile(
    r"^(?P<name>(?:[A-Z][\w'.-]* ){1,3}(?P<head>[A-Z]\w+)) of (?P<place>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})$"
)
#: The head nouns of :data:`_NAME_OF_PLACE`.
_NAMED_HEADS = _INSTITUTION_WORDS | {"Institution"}
#: What an institution's "of …" names when it is its subject, not its place ("Massachusetts Institute *of
#: Technology*"): part of the name.
_SUBJECTS = frozenset(
    "Technology Science Sciences Medicine Arts Art Engineering Physics Chemistry Economics Music Law Mines Design "
    "Pharmacy Physicians Surgeons Agriculture Letters Research Health".split()
)
#: Endings of a subject's name ("Institute of *Biochemistry*", "of *Physiology*", "of *Mathematics*").
_SUBJECT_ENDINGS = ("chemistry", "physics", "logy", "matics", "nomics", "science", "sciences", "medicine", "ing")
#: The label distance of a homonym whose qualifier the question does not name when another's it does ("Madison,
#: Wisconsin": *Madison, NJ*), and of an organisation found without its head noun beside a name written so; its
#: matches rank below the others' by GSD.
_UNNAMED_HOMONYM = 0.1
#: A parenthesised qualifier that may be the name's short form: one capitalised word ("MIT", "Caltech").
_SHORT_NAME = re.compile(r"^[A-Z][A-Za-z]+$")
#: A parenthesised qualifier that is the name in another language: two or more words, the first and the last
#: capitalised ("Office international Nansen pour les Réfugiés (*Nansen International Office for Refugees*)"; not
#: a description: "Thriller (Michael Jackson *album*)").
_TRANSLATED = re.compile(r"^[A-Z][\w'.-]*(?: [\w'.-]+)* [A-Z][\w'.-]*$")
#: The words of a name that an initialism skips, and what each of its other words must look like.
_SMALL_WORDS = frozenset("of for the and on in at de du des la le et für der".split())
#: Initials written with full stops in parentheses at the end of a name ("United Nations (*U.N.*)").
_DOTTED = re.compile(r"\(((?:[A-Z]\.){2,})\)$")
_INITIAL_WORD = re.compile(r"^[A-Z\u00c0-\u00de][a-z\u00df-\u00ff]+$")
_NAME_TOKEN = re.compile(r"^[A-Z\u00c0-\u024f][\w'\u2019-]*\.?$")
_NUMBER = re.compile(r"^\d+$")
_INITIAL = re.compile(r"^[A-Z]\.$")
#: Titles before a person's name that people leave out ("*Sir* Alexander Fleming", "*Lord* (John) Boyd Orr of
#: Brechin", "*Earl* (Bertrand Arthur William) Russell"); "Earl" and "Count" are given names too ("Earl W.
#: Sutherland"), so they count as titles only before given names in parentheses (:data:`_PEER_TITLES`).
_TITLES = frozenset("Sir Dame Lord Lady Baron Baroness Viscount Viscountess".split())
_PEER_TITLES = _TITLES | {"Earl", "Count", "Countess"}
#: A peer's given names in parentheses after the title ("Lord *(John)* Boyd Orr of Brechin").
_TITLED_GIVEN = re.compile(r"^\((?P<given>[^()]+)\) (?P<rest>[^()]+)$")
#: Last words of an organisation's name that no person's has ("Max Planck *Society*"): no initials for it.
_GROUP_HEADS = _ORGANISATION_HEADS | frozenset(
    "Society Association Company Council Committee Office Bank Fund Party Union Trust Group Agency".split()
)
#: A generational suffix after a person's name ("Raymond Davis *Jr.*"); not a numeral ("Evil Dead II" is a film).
_SUFFIX = re.compile(r",? (?:Jr|Sr)\.?$")
#: A given name in parentheses inside a person's name ("The *(Theodor)* Svedberg").
_INNER_GIVEN = re.compile(
    r"^(?P<before>[A-Z][\w'-]*(?: [A-Z][\w'.-]*)*) "
    r"\((?P<given>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)\) (?P<rest>[A-Z][\w' -]*)$"
)
#: A peer's territorial designation ("Boyd Orr *of Brechin*"), which people leave out.
_SEAT = re.compile(r" of [A-Z][\w'-]*(?: [A-Z][\w'-]*)?$")
#: A parenthesised variant inside a name ("Maurice *(Mooris)* Polidore …").
_VARIANT = re.compile(r" \([^()]*\)")

_WORD = re.compile(r"\w+(?:[-'.]\w+)*", re.UNICODE)
#: The weight of a lower-case word of a cased question that only case folding links to a name (:func:`_common_word`):
#: the weight of a stop word, so that it never stands beside a real mention (``QAOptions.min_relative_score``).
_CASE_MISMATCH = 0.025

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]
#: ``search(vectors, k) -> (ids, distances)``, both of shape ``(len(vectors), k)``, distances true L2.
Search = Callable[[npt.NDArray[np.float32], int], tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]]


def _fold_char(c: str) -> str:
    if c == "_":
        return " "
    if c in "\u2018\u2019\u02bc`´":
        return "'"
    low = c.lower()
    if len(low) != 1:
        low = c
    base = unicodedata.normalize("NFD", low)[0]
    return base if base.isascii() or not low.isascii() else low


def fold(text: str) -> str:
    """Fold ``text`` one character to one character: lower case, accents removed, ``_`` and quotes unified.

    Positions are preserved, so a span found in ``fold(q)`` is the same span of ``q``.

    >>> fold("Amélie_Poulain")
    'amelie poulain'
    """
    return "".join(_fold_char(c) for c in text)


#: A German umlaut written as two letters between consonants, not before a word's last letter ("Go*e*ttingen",
#: "Mu*e*nchen"; not "Israel", "Samuel"): the form with the umlaut folds to the vowel alone (:func:`fold`:
#: "Göttingen" → "gottingen").
_UMLAUT_DIGRAPH = re.compile(r"(?<=[b-df-hj-np-tv-zß])([aou])e(?=[b-df-hj-np-tv-zß][^\W\d_])", re.IGNORECASE)


def _is_boundary(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() and text[start].isalnum()) and not (after.isalnum() and text[end - 1].isalnum())


def aliases(label: str, plurals: Collection[str] = ()) -> list[tuple[str, str]]:
    """The aliases of a label (module docstring) as ``(alias, qualifier)``; the qualifier is ``""`` but for a
    parenthesised one. A label whose last word is one of ``plurals`` (folded plural class nouns: "Nobel Prize
    Laureates" names a group, not a person) gets no name alias without its middle words.

    >>> aliases("Queen (band)"), aliases("Linda B. Buck"), aliases("Technion - Israel Institute of Technology")
    ([('Queen', 'band')], [('Linda Buck', '')], [('Technion', '')])
    >>> aliases("Emil Theodor Kocher"), aliases("Nobel Prize Laureates", plurals={"laureates"})
    ([('E. T. Kocher', ''), ('E.T. Kocher', ''), ('Emil Kocher', ''), ('Theodor Kocher', '')], [])
    >>> aliases("Carnegie Mellon University"), aliases("Harvard University")
    ([('Carnegie Mellon', 'University')], [('University of Harvard', ''), ('Harvard', 'University')])
    >>> aliases("Massachusetts Institute of Technology (MIT)")
    [('Massachusetts Institute of Technology', 'MIT'), ('MIT', '')]
    >>> aliases("Enrico Fermi Institute, University of Chicago")
    [('Enrico Fermi Institute', ''), ('University of Chicago', '')]
    >>> aliases("Shimadzu Corp."), aliases("Yukawa Institute (YITP), Kyoto University")[:2]
    ([('Shimadzu', 'Corp.')], [('Yukawa Institute (YITP)', 'Kyoto University'), ('Yukawa Institute', 'YITP')])
    >>> aliases("Royal Institution of Great Britain"), aliases("Max Planck Institute of Biochemistry")
    ([('RIGB', ''), ('Royal Institution', 'Great Britain')], [('MPIB', '')])
    >>> aliases("Basel University"), aliases("University of Basel")
    ([('University of Basel', ''), ('Basel', 'University')], [('Basel University', '')])
    >>> aliases("Goettingen University")[-3:]
    [('Gottingen University', ''), ('University of Gottingen', ''), ('Gottingen', 'University')]
    """
    found: list[tuple[str, str]] = [(short, "") for short in initials(label)]  # linked only as written, in capitals
    m = _QUALIFIED.match(label)
    if m:
        found.append((m.group("name"), m.group("qualifier")))
        if _SHORT_NAME.match(m.group("qualifier")) and short_form(_key(m.group("qualifier")), _key(m.group("name"))):
            found.append((m.group("qualifier"), ""))  # "California Institute of Technology (Caltech)": "Caltech"
        if _TRANSLATED.match(m.group("qualifier")):
            found.append((m.group("qualifier"), ""))  # "Institut de droit international (Institute of …)"
        label = m.group("name")
    m = _SUBTITLE.match(label) or _PLACE.match(label)
    if m and len(m.group("name")) >= 2:
        qualifier = m.groupdict().get("qualifier") or ""  # a place's state or country ("Madison, WI"), not a subtitle
        found.append((m.group("name"), qualifier if len(qualifier.split()) <= 2 else ""))
        inner = _QUALIFIED.match(m.group("name"))  # "Yukawa Institute … (YITP), Kyoto University": without "(YITP)"
        if inner:
            found.append((inner.group("name"), inner.group("qualifier")))
        if len(qualifier.split()) >= 3 and qualifier[:1].isupper():
            found.append((qualifier, ""))  # a name of its own ("London University, King's College Hospital …")
    tokens = label.split()
    if len(tokens) == 2 and tokens[-1] in _ISLAND_HEADS and _NAME_TOKEN.match(tokens[0]):
        found.append((tokens[0], tokens[-1]))  # "Guadeloupe Island" → "Guadeloupe"
    if len(tokens) >= 2 and tokens[-1] in _LEGAL_FORMS:
        found.append((" ".join(tokens[:-1]).rstrip(","), tokens[-1]))  # "Shimadzu Corp." → "Shimadzu"
    capitalised = all(_NAME_TOKEN.match(t) for t in tokens)
    if capitalised and len(tokens) >= 3 and tokens[-1] in _ORGANISATION_HEADS:
        found.append((" ".join(tokens[:-1]), tokens[-1]))  # "Carnegie Mellon University" → "Carnegie Mellon"
    if capitalised and len(tokens) == 2 and tokens[-1] in _ORGANISATION_HEADS:
        found.append((f"{tokens[-1]} of {tokens[0]}", ""))  # "Basel University" ↔ "University of Basel"
        if tokens[-1] in _ACADEMIC_HEADS and len(tokens[0]) >= 4:
            found.append((tokens[0], tokens[-1]))  # "worked at Yale"; none beside a node named "Yale" (the linker)
    of = _OF_NAME.match(label)
    if of is not None and of.group("head") in _ORGANISATION_HEADS:
        found.append((f"{of.group('name')} {of.group('head')}", ""))
    place = _NAME_OF_PLACE.match(label)
    if (
        place is not None
        and place.group("head") in _NAMED_HEADS
        and not any(w in _SUBJECTS or w.casefold().endswith(_SUBJECT_ENDINGS) for w in place.group("place").split())
    ):
        found.append((place.group("name"), place.group("place")))  # "the Royal Institution" (of Great Britain)
    particle = next((i for i, t in enumerate(tokens) if i >= 2 and t in _NAME_PARTICLES), None)
    given = tokens[:particle] if particle is not None else []
    if given and all(_NAME_TOKEN.match(t) and t not in _INSTITUTION_WORDS for t in given) and len(tokens) <= 8:
        family = " ".join(tokens[particle:])  # "Hans Karl August Simon von Euler-Chelpin": "Hans von Euler-Chelpin"
        if all(_NAME_TOKEN.match(t) or t in _NAME_PARTICLES for t in tokens[particle:]):
            found.extend((f"{t} {family}", "") for t in given if not t.endswith(".") and len(t) > 1)
    found.extend((alias, "") for alias in untitled(label))
    found.extend((alias, "") for alias in person_forms(label))
    named = 3 <= len(tokens) <= 5 and capitalised and not tokens[-1].endswith(".")
    if named and _key(tokens[-1]) not in plurals and tokens[-1] not in _ORGANISATION_HEADS:
        found.extend((short, "") for short in initialled(tokens))
        last = tokens[-1]
        for token in tokens[:-1]:
            if not token.endswith(".") and len(token) > 1:
                found.append((f"{token} {last}", ""))
    # "Goettingen University": as written with the umlaut ("Göttingen", folded "gottingen")
    found += [(umlauted, q) for a, q in [(label, ""), *found] if (umlauted := _UMLAUT_DIGRAPH.sub(r"\1", a)) != a]
    return [(a, q) for a, q in dict.fromkeys(found) if (a != label or q) and not _all_stopwords(a)]


def person_forms(label: str) -> list[str]:
    """Other ways a person's name is written: without a generational suffix ("Raymond Davis Jr." → "Raymond
    Davis"), and with a parenthesised given name (the name used) in place of the names before it or without it ("The
    (Theodor) Svedberg" → "The Svedberg", "Theodor Svedberg"; "Albert Arnold (Al) Gore Jr." → "Al Gore"), also
    with the family name alone after it.

    >>> person_forms("Raymond Davis Jr."), person_forms("The (Theodor) Svedberg"), person_forms("Linda B. Buck")
    (['Raymond Davis'], ['The Svedberg', 'Theodor Svedberg'], [])
    >>> person_forms("Albert Arnold (Al) Gore Jr.")
    ['Albert Arnold (Al) Gore', 'Albert Arnold Gore', 'Al Gore']
    >>> person_forms("Petrus (Peter) Josephus Wilhelmus Debye")[-1]
    'Peter Debye'
    """
    found: list[str] = []
    name = _SUFFIX.sub("", label)
    if name != label and len(name.split()) >= 2:
        found.append(name)
    inner = _INNER_GIVEN.match(name)
    if inner is not None:
        given, rest = inner.group("given"), inner.group("rest")
        found += [f"{inner.group('before')} {rest}", f"{given} {rest}"]
        if " " in rest:  # the name used and the family name ("Petrus (Peter) Josephus Wilhelmus Debye")
            found.append(f"{given} {rest.split()[-1]}")
    return found


def initialled(tokens: Sequence[str]) -> list[str]:
    """A person's name of two or more given names (a title before them aside) with the given names as initials,
    spaced and not ("Archibald Vivian Hill" → "A. V. Hill", "A.V. Hill"; "Sir Chandrasekhara Venkata Raman" → "C. V.
    Raman"); ``[]`` when a word is not a plain capitalised word.

    >>> initialled("Archibald Vivian Hill".split()), initialled("Linda B. Buck".split())
    (['A. V. Hill', 'A.V. Hill'], [])
    >>> initialled("Max Planck Society".split())
    []
    """
    words = list(tokens[1:] if tokens and tokens[0] in _TITLES else tokens)
    if len(words) < 3 or not all(_INITIAL_WORD.match(w) for w in words) or words[-1] in _GROUP_HEADS:
        return []
    given = [f"{w[0]}." for w in words[:-1]]
    return [f"{' '.join(given)} {words[-1]}", f"{''.join(given)} {words[-1]}"]


def untitled(label: str) -> list[str]:
    """A titled person's name as people write it: without the title, a peer's given names out of their
    parentheses and without the seat after "of", the first given name with the family name, and the title with the
    family name; ``[]`` for a name without a title (or with nothing but a title and one word: "Lord Rayleigh").

    >>> untitled("Lord (John) Boyd Orr of Brechin")
    ['John Boyd Orr', 'Lord Boyd Orr']
    >>> untitled("Earl (Bertrand Arthur William) Russell")
    ['Bertrand Arthur William Russell', 'Bertrand Russell', 'Earl Russell']
    >>> untitled("Count Maurice (Mooris) Polidore Marie Bernhard Maeterlinck")
    ['Maurice Polidore Marie Bernhard Maeterlinck', 'Maurice Maeterlinck']
    >>> untitled("Sir John Douglas Cockcroft"), untitled("Lord Rayleigh"), untitled("Earl W. Sutherland, Jr.")
    (['John Douglas Cockcroft', 'John Cockcroft'], [], [])
    >>> untitled("Lady Sings the Blues"), untitled("Lady Chatterley's Lover"), untitled("Earl Thomas Conley")
    ([], [], [])
    """
    title, _, rest = label.partition(" ")
    peer = _TITLED_GIVEN.match(rest)
    if title in _PEER_TITLES and peer is not None:
        given, family = peer.group("given").split(), _SEAT.sub("", peer.group("rest"))
        found = [" ".join([*given, family]), f"{given[0]} {family}", f"{title} {family}"]
    elif title in _TITLES or (title in _PEER_TITLES and "(" in rest):  # "Count Maurice (Mooris) …"
        words = _VARIANT.sub("", rest).split()
        plain = all(_INITIAL_WORD.match(w) or _INITIAL.match(w) for w in words)
        if len(words) < 2 or not plain or not _INITIAL_WORD.match(words[0]):
            return []  # "Lady Chatterley's Lover"
        found = [" ".join(words), f"{words[0]} {words[-1]}"]
    else:
        return []
    return list(dict.fromkeys(a for a in found if a != label))


def initialism(label: str) -> str:
    """The initials of an organisation's name of three to six capitalised words and small words between them
    ("National Institutes *of* Health" → "NIH"); ``""`` for any other label (one without a small word, or with an
    initial, a number or a parenthesis: people's and prizes' names). The linker takes it only where the question
    writes it in capitals.

    >>> initialism("National Institutes of Health"), initialism("Emil Theodor Kocher"), initialism("Yale University")
    ('NIH', '', '')
    """
    tokens = label.split()
    words = [w for w in tokens if w.casefold() not in _SMALL_WORDS]
    if len(words) == len(tokens) or not 3 <= len(words) <= 6 or not all(_INITIAL_WORD.match(w) for w in words):
        return ""
    return "".join(w[0] for w in words)


def initials(label: str) -> list[str]:
    """The initials a name is written by: its :func:`initialism`, and a parenthesised one written with full stops,
    with and without them ("United Nations (U.N.)" → "UN", "U.N."). The linker takes them only where a question
    writes them in capitals.

    >>> initials("United Nations (U.N.)"), initials("National Institutes of Health"), initials("Queen (band)")
    (['UN', 'U.N.'], ['NIH'], [])
    """
    dotted = _DOTTED.search(label)
    found = [initialism(label), *((dotted.group(1).replace(".", ""), dotted.group(1)) if dotted else ())]
    return [short for short in found if short]


def short_form(short: str, long: str) -> bool:
    """Whether the folded word ``short`` can be a short form of the folded ``long`` (Schwartz and Hearst 2003, "A
    Simple Algorithm for Identifying Abbreviation Definitions in Biomedical Text", PSB §2): its first letter opens
    ``long``, and its other letters follow in ``long`` in order ("mit" ↔ "massachusetts institute of technology",
    "caltech" ↔ "california institute of technology"; not "band" ↔ "queen").

    >>> short_form("caltech", "california institute of technology"), short_form("band", "queen")
    (True, False)
    """
    if len(short) < 2 or not short.isalpha() or len(short) >= len(long) or not long.startswith(short[0]):
        return False
    rest = iter(long[1:])
    return all(c in rest for c in short[1:])


def abbreviates(short: str, words: Sequence[str]) -> bool:
    """Whether ``short`` (a folded qualifier word of 2–3 letters: "wi", "nj") abbreviates the folded ``words``: their
    initials ("nj" ↔ "new jersey"), or one word it is a :func:`short_form` of ("wi" ↔ "wisconsin", "tx" ↔ "texas").

    >>> abbreviates("wi", ["wisconsin"]), abbreviates("nj", ["new", "jersey"]), abbreviates("nj", ["wisconsin"])
    (True, True, False)
    """
    if not 2 <= len(short) <= 3 or not short.isalpha():
        return False
    if len(words) == len(short) and all(w.startswith(c) for w, c in zip(words, short, strict=True)):
        return True
    return len(words) == 1 and short_form(short, words[0])


def _qualified(qualifier: str, question: str, end: int, question_words: Collection[str]) -> bool:
    """Whether ``question`` names a homonym's folded ``qualifier``: one of its words (``question_words``: the folded
    content words), or, right after the mention (which ends at ``end``), capitalised words it is a short form of
    ("Madison, *Wisconsin*" for *Madison, WI*; "Madison, *New Jersey*" for *NJ*; :func:`abbreviates`), or in a
    question written in lower case throughout, such words in lower case ("concord, *massachusetts*"). Words
    elsewhere do not count: "studied under *William* Bragg" names no WI."""
    if (set(qualifier.split()) - STOPWORDS) & set(question_words):
        return True
    after = []
    cased = is_cased(question)
    for word in _WORD.findall(question[end:])[:3]:
        if cased and not word[:1].isupper():
            break
        after.append(_key(word))
    return any(abbreviates(qualifier, after[:n]) for n in (1, len(qualifier)) if len(after) >= n)


def _qualifiers_absorbed(spans: list[LinkedSpan], question: str, written: dict[int, str]) -> list[LinkedSpan]:
    """``spans`` (in question order) with a span that writes out the qualifier of the alias span before it, after a
    comma, merged into it: "Haverhill, *Massachusetts*" is *Haverhill, MA*, not Haverhill and the state
    (``written``: an alias span's start -> its first node's qualifier, :func:`_qualified`)."""
    out: list[LinkedSpan] = []
    for span in spans:
        previous = out[-1] if out else None
        qualifier = written.get(previous.start, "") if previous is not None else ""
        if (
            previous is not None
            and qualifier
            and re.fullmatch(r"\s*,\s*", question[previous.end : span.start])
            and _qualified(qualifier, question, previous.end, ())
        ):
            out[-1] = dataclasses.replace(previous, text=question[previous.start : span.end], end=span.end)
            continue
        out.append(span)
    return out


def _all_stopwords(text: str) -> bool:
    return all(w in STOPWORDS for w in _key(text).split())


def _forms(words: Iterable[str]) -> set[str]:
    """Each word and its plural (``-s``, ``-es``, ``-y`` → ``-ies``)."""
    out = set()
    for word in words:
        out.add(word)
        if word.endswith("y") and not word.endswith(("ay", "ey", "oy", "uy")):
            out.add(word[:-1] + "ies")
        elif word.endswith(("s", "x", "ch", "sh")):
            out.add(word + "es")
        else:
            out.add(word + "s")
    return out


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


@dataclass(frozen=True, slots=True)
class TypeMention:
    """A question span naming a kind of thing (module docstring): ``classes`` are the class nodes it names
    (empty for a common noun that is no class label of the dataset)."""

    text: str
    start: int
    end: int
    classes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LinkedSpan:
    """A linked question span: ``nodes`` are ``(node id, score, label distance)`` best first."""

    text: str
    start: int
    end: int
    method: str
    score: float
    nodes: tuple[tuple[int, float, float], ...]


@dataclass(frozen=True, slots=True)
class LinkResult:
    """What :meth:`EntityLinker.link_types` found: entity spans and type constraints, each in question order."""

    spans: list[LinkedSpan]
    types: list[TypeMention]

    @property
    def classes(self) -> tuple[int, ...]:
        """Every class node the question names (the answers' ``rdf:type`` constraint)."""
        return tuple(dict.fromkeys(c for t in self.types for c in t.classes))


def _key(text: str) -> str:
    return " ".join(fold(text).split())


def _entry(label: str, plurals: Collection[str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The folded key of ``label`` and its aliases' folded keys with their folded qualifiers (capitalised labels
    only)."""
    if not (label[:1].isupper() or label[:1].isdigit()):
        return _key(label), ()
    return _key(label), tuple((_key(alias), _key(qualifier)) for alias, qualifier in aliases(label, plurals))


@dataclass
class LabelIndex:
    """Folded node labels and aliases: an Aho-Corasick automaton and key → node ids tables (built by
    :meth:`build`)."""

    labels: Sequence[str]
    keys: list[str] = field(default_factory=list)
    nodes_of_key: Mapping[str, list[int]] = field(default_factory=dict)
    automaton: ahocorasick.Automaton | None = None
    alias_nodes: Mapping[str, list[tuple[int, str]]] = field(default_factory=dict)
    class_keys: dict[str, list[int]] = field(default_factory=dict)
    degree: Sequence[int] | None = None
    _by_length: list[tuple[int, str]] = field(default_factory=list)
    _by_word: dict[str, list[str]] = field(default_factory=dict)
    _keys_by_length: list[str] = field(default_factory=list)
    _lengths: list[int] = field(default_factory=list)
    _min_length: int = 2
    #: label -> (its folded key, its aliases' folded keys and qualifiers), and the plurals they were made with:
    #: what a later build of the next index version reuses (``previous=``)
    _entries: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=dict, repr=False)
    _plurals: frozenset[str] = field(default_factory=frozenset, repr=False)
    _type_keys: frozenset[str] = field(default_factory=frozenset, repr=False)
    #: a layered index (:meth:`extend`): the plain index it reads through, and its delta (module docstring)
    _layer: _Layer | None = field(default=None, repr=False)

    @classmethod
    def build(
        cls,
        labels: Sequence[str],
        *,
        min_length: int = 2,
        classes: Sequence[int] = (),
        degree: Sequence[int] | None = None,
        previous: LabelIndex | None = None,
    ) -> LabelIndex:
        """Index the labels (``labels[i]`` is node ``i``'s text) and their aliases; labels shorter than
        ``min_length`` are skipped. ``classes``: the class nodes (their labels and plurals make type mentions);
        ``degree``: each node's number of edges (ties among homonyms go to the better connected); ``previous``:
        the index of an earlier version of the same graph, whose folded keys and aliases of the labels it shares
        are reused (when its class nouns were the same) instead of computed again.

        Notes
        -----
        O(total label length) time and memory; about 1 s and 100 MB for a million labels. With ``previous``,
        the folding and alias rules run only for the new labels: O(labels) dictionary work for the others.
        """
        index = cls(labels, degree=degree)
        index._min_length = min_length
        nouns = {_key(labels[node]) for node in classes} | COMMON_NOUNS
        index._plurals = frozenset(_forms(n for n in nouns if " " not in n) - nouns)
        known = previous._entries if previous is not None and previous._plurals == index._plurals else {}
        entries = index._entries
        nodes_of_key, alias_nodes = _fill(
            enumerate(labels), lambda label: entries.get(label) or known.get(label), index._plurals, entries, min_length
        )
        index.nodes_of_key, index.alias_nodes = nodes_of_key, alias_nodes
        index.class_keys = _class_keys(labels, classes, min_length)
        index._type_keys = _type_keys(index.class_keys)
        index.automaton = _automaton([*nodes_of_key, *alias_nodes, *index._type_keys])
        index.keys = sorted(nodes_of_key.keys() | alias_nodes.keys())
        index._by_length = sorted((len(k), k) for k in index.keys)
        index._keys_by_length = [k for _, k in index._by_length]
        index._lengths = [n for n, _ in index._by_length]
        index._by_word = _by_word(nodes_of_key)
        return index

    @classmethod
    def extend(
        cls,
        previous: LabelIndex,
        labels: Sequence[str],
        *,
        remap: npt.NDArray[np.integer[Any]],
        touched: npt.NDArray[np.integer[Any]],
        min_length: int = 2,
        classes: Sequence[int] = (),
        degree: Sequence[int] | None = None,
    ) -> LabelIndex | None:
        """The index of ``labels``, a version patched from ``previous``'s, without walking every label: a layered
        index that reads ``previous``'s plain base through renumbered ids and indexes only the changed nodes.

        ``remap[i]`` is the id in ``labels`` of ``previous``'s node ``i`` (``-1``: gone); ``touched`` the ids in
        ``labels`` of the nodes that are new or whose label may have changed (every other node keeps its label).
        Returns ``None`` when a layer cannot be made (the class nouns changed, ``min_length`` differs, or the delta
        passed :data:`LABEL_DELTA_MAX_SHARE` of the base): then :meth:`build` with ``previous=``.

        Every look-up (``nodes_of_key``, ``alias_nodes``, :meth:`matches`, :meth:`keys_near_length`,
        :meth:`words_match`, :meth:`type_of`) answers as :meth:`build` over ``labels`` would.

        Notes
        -----
        O(n) numpy work (renumbering the base ids) and O(d) dictionary work and folding for the d nodes of the
        delta (every node changed since the base), plus an automaton over the delta's keys.
        """
        class_keys = _class_keys(labels, classes, min_length)
        base = previous._layer.base if previous._layer is not None else previous
        if class_keys.keys() != previous.class_keys.keys() or min_length != base._min_length:
            return None
        remap = np.asarray(remap)  # in the width it was written in (node ids: int32 below 2^31 nodes)
        is_touched = np.zeros(len(labels) + 1, dtype=bool)  # the last slot stands for "gone" (-1)
        is_touched[np.asarray(touched, dtype=np.int64)] = True
        if previous._layer is None:
            before = np.arange(len(previous.labels), dtype=remap.dtype)  # base id -> previous id
            previous_delta: list[int] = []
        else:
            before = previous._layer.to_current
            previous_delta = previous._layer.delta_ids
        if remap.shape[0] != len(previous.labels):
            return None
        now = np.where(before >= 0, remap[before], -1)
        now[is_touched[now]] = -1
        moved = [int(m) for m in remap[np.asarray(previous_delta, dtype=np.int64)].tolist()] if previous_delta else []
        delta_ids = sorted({m for m in moved if m >= 0 and not is_touched[m]} | set(touched.tolist()))
        if len(delta_ids) > max(LABEL_DELTA_MIN, LABEL_DELTA_MAX_SHARE * len(base.labels)):
            return None
        # the keys of the base nodes dropped by this version (alive in the previous one): read from its labels
        newly = np.flatnonzero((before >= 0) & (now < 0))
        dropped = set(previous._layer.dropped_keys) if previous._layer is not None else set()
        for prev_id in before[newly].tolist():
            key, alias_keys = previous._entry_of(previous.labels[prev_id])
            dropped.add(key)
            dropped.update(k for k, _ in alias_keys)
        index = cls(labels, degree=degree)
        index._plurals, index._min_length = base._plurals, min_length
        index.class_keys, index._type_keys = class_keys, base._type_keys
        layer = _Layer(base, now, delta_ids, frozenset(dropped), previous._entries if previous._layer else {})
        entries = index._entries
        delta_nodes, delta_aliases = _fill(
            ((node, labels[node]) for node in delta_ids), layer.entry_of, base._plurals, entries, min_length
        )
        index.nodes_of_key = LayeredLists(base.nodes_of_key, now, delta_nodes, pairs=False)
        index.alias_nodes = LayeredLists(base.alias_nodes, now, delta_aliases, pairs=True)
        layer.dead_labels = frozenset(k for k in dropped if k not in index.nodes_of_key)
        layer.dead_keys = frozenset(k for k in layer.dead_labels if k not in index.alias_nodes)
        # keys the base lacks (two look-ups per delta key, not a set of every base key: O(d), not O(n))
        extra = [k for k in {*delta_nodes, *delta_aliases} if k not in base.nodes_of_key and k not in base.alias_nodes]
        layer.automaton = _automaton([k for k in extra if k not in base._type_keys])
        layer.extra_by_length = sorted((len(k), k) for k in extra)
        layer.extra_by_word = _by_word({k: [] for k in delta_nodes if k not in base.nodes_of_key})
        index._layer = layer
        return index

    def _entry_of(self, label: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The folded key and aliases of ``label``, as this index made them."""
        if self._layer is not None:
            return self._layer.entry_of(label) or _entry(label, self._plurals)
        return self._entries.get(label) or _entry(label, self._plurals)

    def matches(self, folded: str) -> Iterator[tuple[int, str]]:
        """``(end index, key)`` of every key (label, alias or class noun) found in the folded text."""
        base = self if self._layer is None else self._layer.base
        if base.automaton is not None and len(base.automaton):
            dead = self._layer.dead_keys if self._layer is not None else frozenset()
            for end, key in base.automaton.iter(folded):
                if key not in dead or key in base._type_keys:
                    yield end, key
        if self._layer is not None and len(self._layer.automaton):
            yield from self._layer.automaton.iter(folded)

    def nodes(self, key: str) -> list[int]:
        """Nodes with label ``key``, then nodes with alias ``key`` (each once)."""
        found = list(self.nodes_of_key.get(key, ()))
        return found + [n for n, _ in self.alias_nodes.get(key, ()) if n not in set(found)]

    def type_of(self, key: str) -> tuple[int, ...] | None:
        """The class nodes a folded span names (``None``: it names no kind of thing); module docstring."""
        bare = key
        for det in _DETERMINERS:
            if bare.startswith(det):
                bare = bare[len(det) :]
                break
        for form in (bare, _singular(bare)):
            if form in self.class_keys:
                return tuple(self.class_keys[form])
        if bare in COMMON_NOUNS or _singular(bare) in COMMON_NOUNS:
            return ()
        return None

    def words_match(self, phrase: str) -> list[tuple[str, int]]:
        """Label keys whose content words equal ``phrase``'s but for at most one word each way (module
        docstring), with the number of shared words, best first."""
        words = _content_words(phrase)
        numbers = [w for w in words if _NUMBER.match(w)]
        if len(words) < 2 or (not numbers and len(words) < 3):
            return []
        # a match shares every number, and at least two and all but at most one of the phrase's words: so it holds
        # each number, and one of the two rarest words (the rarest when the phrase has two); the shortest of those
        # posting lists is read (a number such as "2" can be in a quarter of the labels: "Part 2", a date)
        sizes = {word: self._word_keys_bound(word) for word in words}
        read = sorted(words, key=lambda w: (sizes[w], w))[: 1 if len(words) == 2 else 2]
        if numbers:
            number = min(numbers, key=lambda w: (sizes[w], w))
            if sizes[number] < sum(sizes[w] for w in read):
                read = [number]
        pool = [key for word in read for key in self._word_keys(word)]
        found = []
        for key in set(pool):
            label_words = _content_words(key)
            shared = len(words & label_words)
            if shared < 2:
                continue
            if len(label_words - words) > 1 or len(words - label_words) > 1:
                continue
            every = {w for w in words | label_words if _NUMBER.match(w)}
            if (every and not every <= (words & label_words)) or (not every and shared < 3):
                continue
            found.append((key, shared))
        found.sort(key=lambda kv: (-kv[1], kv[0]))
        return found

    def keys_near_length(self, length: int, slack: float = 0.3) -> list[str]:
        """Keys whose length is within ``slack`` (relative) of ``length`` (a slice of the keys sorted by length:
        O(log keys + result))."""
        lo, hi = int(length * (1 - slack)), int(length * (1 + slack)) + 1
        layer = self._layer
        base = self if layer is None else layer.base
        keys = base._keys_by_length[bisect.bisect_left(base._lengths, lo) : bisect.bisect_right(base._lengths, hi)]
        if layer is None:
            return keys
        if layer.dead_keys:
            keys = [k for k in keys if k not in layer.dead_keys]
        extra = layer.extra_by_length
        for n, key in extra[bisect.bisect_left(extra, (lo, "")) : bisect.bisect_left(extra, (hi + 1, ""))]:
            keys.insert(bisect.bisect_left(keys, (n, key), key=lambda k: (len(k), k)), key)
        return keys

    def _word_keys_bound(self, word: str) -> int:
        """At least ``len(self._word_keys(word))`` (the keys dropped by a layer are counted). O(1)."""
        if self._layer is None:
            return len(self._by_word.get(word, ()))
        return len(self._layer.base._by_word.get(word, ())) + len(self._layer.extra_by_word.get(word, ()))

    def _word_keys(self, word: str) -> list[str]:
        """The label keys (not aliases) with at least two content words, ``word`` one of them."""
        if self._layer is None:
            return self._by_word.get(word, [])
        layer = self._layer
        keys = [k for k in layer.base._by_word.get(word, ()) if k not in layer.dead_labels]
        return keys + layer.extra_by_word.get(word, [])


#: A layered label index (:meth:`LabelIndex.extend`) is rebuilt plain once its delta holds more nodes than this
#: share of the base and than :data:`LABEL_DELTA_MIN`.
LABEL_DELTA_MAX_SHARE = 0.1
LABEL_DELTA_MIN = 4_096

_Entry = tuple[str, tuple[tuple[str, str], ...]]


def _fill(
    items: Iterable[tuple[int, str]],
    known: Callable[[str], _Entry | None],
    plurals: Collection[str],
    entries: dict[str, _Entry],
    min_length: int,
) -> tuple[dict[str, list[int]], dict[str, list[tuple[int, str]]]]:
    """Key -> nodes and alias key -> (node, qualifier) of the ``(node, label)`` items (ascending nodes); the entry
    of each label (``known``, else folded now) goes to ``entries``."""
    nodes_of_key: dict[str, list[int]] = {}
    alias_nodes: dict[str, list[tuple[int, str]]] = {}
    for node, label in items:
        entry = known(label) or _entry(label, plurals)
        entries[label] = entry
        key, alias_keys = entry
        if len(key) < min_length:
            continue
        nodes_of_key.setdefault(key, []).append(node)
        for alias_key, qualifier in alias_keys:
            if len(alias_key) >= min_length:
                alias_nodes.setdefault(alias_key, []).append((node, qualifier))
    return nodes_of_key, alias_nodes


def _class_keys(labels: Sequence[str], classes: Sequence[int], min_length: int) -> dict[str, list[int]]:
    class_keys: dict[str, list[int]] = {}
    for node in classes:
        key = _key(labels[node])
        if len(key) >= min_length:
            class_keys.setdefault(key, []).append(node)
    return class_keys


def _type_keys(class_keys: Iterable[str]) -> frozenset[str]:
    """The folded class nouns, singular and plural, with and without a determiner."""
    return frozenset(f"{det}{form}" for det in ("", *_DETERMINERS) for form in _forms((*class_keys, *COMMON_NOUNS)))


def _automaton(keys: Iterable[str]) -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    for key in dict.fromkeys(keys):
        automaton.add_word(key, key)
    if len(automaton):
        automaton.make_automaton()
    return automaton


def _content_words(text: str) -> set[str]:
    """The folded ``text``'s words but stopwords, without punctuation or a possessive ending ("beckman instruments'
    semiconductor laboratory" and "semiconductor laboratory of beckman instruments, inc." share four)."""
    words = (w[:-2] if w.endswith("'s") else w for w in _WORD.findall(text))
    return {w for w in words if w not in STOPWORDS}


def _by_word(keys: Iterable[str]) -> dict[str, list[str]]:
    """Content word -> the keys with at least two content words that hold it."""
    by_word: dict[str, list[str]] = {}
    for key in keys:
        words = _content_words(key)
        if len(words) >= 2:
            for word in words:
                by_word.setdefault(word, []).append(key)
    return by_word


@dataclass(eq=False)
class _Layer:
    """What a layered :class:`LabelIndex` adds to its plain ``base`` (:meth:`LabelIndex.extend`)."""

    base: LabelIndex
    to_current: npt.NDArray[np.integer[Any]]  # base node id -> this version's id; -1: gone, or indexed in the delta
    delta_ids: list[int]  # this version's ids of the nodes indexed in the delta, ascending
    dropped_keys: frozenset[str]  # keys (labels and aliases) of every base node dropped so far
    known: dict[str, _Entry]  # folded entries of the previous layer's delta labels
    dead_labels: frozenset[str] = frozenset()  # base label keys no node has now
    dead_keys: frozenset[str] = frozenset()  # base keys neither a label nor an alias of any node now
    automaton: ahocorasick.Automaton = field(default_factory=ahocorasick.Automaton)  # keys the base lacks
    extra_by_length: list[tuple[int, str]] = field(default_factory=list)
    extra_by_word: dict[str, list[str]] = field(default_factory=dict)

    def entry_of(self, label: str) -> _Entry | None:
        return self.known.get(label) or self.base._entries.get(label)


@dataclass
class EntityLinker:
    """Links question spans to nodes with the strategies of the module docstring.

    Parameters
    ----------
    index
        The dataset's :class:`LabelIndex`.
    embed, search
        The embedding model and the node-label vector search; without them the vector strategy is off.
    common_rate
        ``rate(folded phrase) -> float`` in [0, 1]: how often a phrase occurs in the exemplar questions.
    context
        ``context(node) -> text``: words about a node (its types' labels) that choose among homonyms of an
        alias together with their qualifiers.
    """

    index: LabelIndex
    embed: Embed | None = None
    search: Search | None = None
    common_rate: Callable[[str], float] | None = None
    context: Callable[[int], str] | None = None
    fuzzy_cutoff: float = 88.0
    vector_max_distance: float = 0.55
    max_ngram: int = 6

    def specificity(self, folded: str) -> float:
        """1 for a rare phrase, towards 0 for template words (module docstring)."""
        words = folded.split()
        if self.common_rate is not None:
            rate = self.common_rate(" ".join(words))
        else:
            rate = 1.0 if all(w in STOPWORDS for w in words) else 0.0
        if all(w in STOPWORDS for w in words):
            rate = max(rate, 1.0)
        return 1.0 / (1.0 + 40.0 * rate)

    def link(self, question: str, *, strategies: Sequence[str] = ("exact", "fuzzy", "vector")) -> list[LinkedSpan]:
        """The linked entity spans of ``question``, in question order (:meth:`link_types`'s ``spans``)."""
        return self.link_types(question, strategies=strategies).spans

    def link_types(self, question: str, *, strategies: Sequence[str] = ("exact", "fuzzy", "vector")) -> LinkResult:
        """The linked spans of ``question`` and the kinds of thing it names (module docstring).

        Parameters
        ----------
        question : str
            The question text.
        strategies : sequence of str
            Which strategies may run: ``exact`` (includes normalised, aliases, word sets and capitalised one-edit
            typos), ``fuzzy``, ``vector``.

        Returns
        -------
        LinkResult
            Non-overlapping entity spans (empty when nothing links) and type mentions.

        Notes
        -----
        Exact: O(len(question) + matches). Fuzzy: O(n-grams × labels of similar length). Vector: one embedding
        batch and one search per n-gram batch.
        """
        folded = fold(question)
        spans: list[LinkedSpan] = []
        types: list[TypeMention] = []
        if "exact" in strategies:
            spans, types = self._exact(question, folded)
            blocked = [LinkedSpan(t.text, t.start, t.end, "type", 0.0, ()) for t in types]
            words = self._words(folded, question, [])
            types = [t for t in types if not any(t.start < w.end and w.start < t.end for w in words)]
            blocked = [LinkedSpan(t.text, t.start, t.end, "type", 0.0, ()) for t in types]
            spans = _prefer_longer(spans, [w for w in words if not any(_overlaps(w, b) for b in blocked)])
            typos = self._typos(folded, question, blocked, capitalised=True, covered=spans)
            spans = _prefer_longer(spans, typos)
            spans = _prefer_longer(spans, self._shortened_given(folded, question, spans))
        blocked = [*spans, *(LinkedSpan(t.text, t.start, t.end, "type", 0.0, ()) for t in types)]
        if any(s.score >= 0.5 for s in spans):
            return LinkResult(spans, types)
        if "fuzzy" in strategies:
            spans = _merge(spans, self._typos(folded, question, blocked, capitalised=False))
            spans = _merge(spans, self._fuzzy(folded, question, [*spans, *blocked]))
        if any(s.score >= 0.5 for s in spans):
            return LinkResult(spans, types)
        if "vector" in strategies and self.embed is not None and self.search is not None:
            spans = _merge(spans, self._vector(folded, question, [*spans, *blocked]))
        return LinkResult(spans, types)

    # -- strategies ----------------------------------------------------------------------------------------------

    def _rank(
        self, nodes: Sequence[int], question_words: set[str], qualifiers: dict[int, str], named: Collection[int] = ()
    ) -> list[int]:
        """Homonyms best first: qualifier and type words found in the question (``named``: those whose qualifier the
        question names in full, :func:`_qualified`), then degree, then id."""

        def key(node: int) -> tuple[int, int, int]:
            words = set(qualifiers.get(node, "").split())
            if self.context is not None:
                words |= set(_key(self.context(node)).split())
            hits = len((words - STOPWORDS) & question_words) or int(node in named)
            degree = self.index.degree[node] if self.index.degree is not None else 0
            return (-hits, -degree, node)

        return sorted(nodes, key=key)

    def _exact(self, question: str, folded: str) -> tuple[list[LinkedSpan], list[TypeMention]]:
        found: list[tuple[int, int, str]] = []
        for end_index, key in self.index.matches(folded):
            start, end = end_index - len(key) + 1, end_index + 1
            if _is_boundary(folded, start, end):
                found.append((start, end, key))
        found.sort(key=lambda m: (-(m[1] - m[0]), m[0]))
        taken: list[tuple[int, int]] = []
        spans = []
        types = []
        question_words = {w for w in folded.split() if w not in STOPWORDS}
        cased = is_cased(question)
        alias_qualifier: dict[int, str] = {}  # an alias span's start -> the qualifier of its first node
        for start, end, key in found:
            if any(start < b and a < end for a, b in taken):
                continue
            text = question[start:end]
            kind = self.index.type_of(key)
            labelled = key in self.index.nodes_of_key or key in self.index.alias_nodes
            if kind is not None and (kind or not labelled or text == text.lower()):
                taken.append((start, end))
                types.append(TypeMention(text, start, end, kind))
                continue
            if not labelled or (key not in self.index.nodes_of_key and self._initialism_only(key, text)):
                continue
            taken.append((start, end))
            nodes = self.index.nodes_of_key.get(key, [])
            if nodes:
                exact = [n for n in nodes if self.index.labels[n] == text]
                written = set(exact)
                rest = [n for n in nodes if n not in written]
                ranked = [(n, 1.0, 0.0) for n in self._rank(exact, question_words, {})]
                ranked += [(n, 0.9, 0.0) for n in self._rank(rest, question_words, {})]
                # a node named so only without its qualifier stands behind ("Czechoslovakia" is also *Czechoslovakia
                # (now Czech Republic)*, where the graph's laureates were born); the first few, as the match reads
                labelled_so = set(nodes)
                # a one-word name without its head noun ("Munich" for *Munich University*) is none beside the city
                one_word = " " not in key
                qualifiers = {
                    n: q
                    for n, q in self.index.alias_nodes.get(key, ())
                    if q and n not in labelled_so and not (one_word and q.capitalize() in _ACADEMIC_HEADS)
                }
                homonyms = self._rank(list(qualifiers), question_words, qualifiers)[:_QUALIFIED_BEHIND]
                ranked += [(n, 0.85, _UNNAMED_HOMONYM) for n in homonyms]
                base, method = (1.0, "exact") if exact else (0.9, "normalised")
            else:
                qualifiers = dict(self.index.alias_nodes[key])
                named = {n for n, q in qualifiers.items() if _qualified(q, question, end, question_words)}
                # an organisation's name without its head noun stands behind a name that is written so
                # ("Niels Bohr" for *Niels Bohr Institute* and for the physicist)
                headless = {n for n, q in qualifiers.items() if q.capitalize() in _ORGANISATION_HEADS}
                behind: set[int] = set()
                if named:
                    behind = set(qualifiers) - named
                elif headless != set(qualifiers):
                    behind = headless
                ranked = [
                    (n, 0.85, _UNNAMED_HOMONYM if n in behind else 0.0)
                    for n in self._rank(list(qualifiers), question_words, qualifiers, named)
                ]
                base, method = 0.85, "alias"
                if ranked:
                    alias_qualifier[start] = qualifiers.get(ranked[0][0], "")
            labels = [self.index.labels[n] for n, _, _ in ranked]
            weight = _CASE_MISMATCH if cased and _common_word(text, labels) else 1.0
            spans.append(LinkedSpan(text, start, end, method, base * weight * self.specificity(key), tuple(ranked)))
        spans.sort(key=lambda s: s.start)
        types.sort(key=lambda t: t.start)
        return _qualifiers_absorbed(spans, question, alias_qualifier), types

    def _initialism_only(self, key: str, text: str) -> bool:
        """Whether the alias ``key`` is only the :func:`initials` of its nodes' names and ``text`` does not write it in
        capitals ("who" is no *World Health Organization*, "un" no *United Nations*)."""
        return not text.isupper() and all(
            key in {_key(short) for short in initials(self.index.labels[n])} for n, _ in self.index.alias_nodes[key]
        )

    def _words(self, folded: str, question: str, taken: Sequence[LinkedSpan]) -> list[LinkedSpan]:
        """Word-set matches (module docstring) of the n-grams outside ``taken``."""
        hits: list[tuple[tuple[int, int, int], LinkedSpan]] = []
        for start, end in self._ngrams(folded, taken):
            phrase = " ".join(folded[start:end].split())
            if " or " in f" {phrase} ":  # "… in Medicine *or* the 2002 Nobel …" joins two names, it is none
                continue
            if _CLAUSE_MARK.search(question, start, end):  # two clauses, no name
                continue
            found = self.index.words_match(phrase)
            if not found:
                continue
            best = found[0][1]
            keys = [k for k, shared in found if shared == best]
            nodes = self._rank([n for k in keys for n in self.index.nodes_of_key[k]], set(), {})
            extra = len(_content_words(phrase)) - best
            score = 0.9 * self.specificity(phrase)
            span = LinkedSpan(question[start:end], start, end, "words", score, tuple((n, 0.9, 0.0) for n in nodes))
            hits.append(((-best, extra, -(end - start)), span))
        chosen: list[LinkedSpan] = []
        for _, span in sorted(hits, key=lambda h: h[0]):
            if all(span.end <= c.start or c.end <= span.start for c in chosen):
                chosen.append(span)
        return sorted(chosen, key=lambda s: s.start)

    def _shortened_given(self, folded: str, question: str, spans: Sequence[LinkedSpan]) -> list[LinkedSpan]:
        """A capitalised word that opens a label's longer first word, right before a linked span that ends that
        label: a given name as people shorten it ("Gerard 't Hooft" for *Gerardus 't Hooft*, "Fred Sanger" for
        *Frederick Sanger*). The word and the span make one alias span of the labels so read (2026-11-28).

        O(linked spans × labels sharing the span's last word).
        """
        hits = []
        for span in spans:
            before = re.search(r"(\w{3,})\s+$", folded[: span.start])
            if before is None or not question[before.start()].isupper():
                continue
            family = folded[span.start : span.end]
            last = _WORD.findall(family)
            if not last or not _last_word_capitalised(question[span.start : span.end]):
                continue
            given = before.group(1)
            keys = [
                k
                for k in self.index._word_keys(last[-1])
                if k.endswith(" " + family)
                and " " not in (first := k[: -len(family) - 1])
                and first.startswith(given)
                and len(first) > len(given)
            ]
            nodes = self._rank([n for k in keys for n in self.index.nodes(k)], set(), {})
            if nodes:
                start = before.start()
                score = 0.85 * self.specificity(folded[start : span.end])
                ranked = tuple((n, 0.85, 0.0) for n in nodes)
                hits.append(LinkedSpan(question[start : span.end], start, span.end, "alias", score, ranked))
        return hits

    def _typos(
        self,
        folded: str,
        question: str,
        taken: Sequence[LinkedSpan],
        *,
        capitalised: bool,
        covered: Sequence[LinkedSpan] = (),
    ) -> list[LinkedSpan]:
        """N-grams one edit (Levenshtein) away from exactly one key; only capitalised ones when ``capitalised``."""
        hits: list[LinkedSpan] = []
        for start, end in self._ngrams(folded, taken):
            if capitalised and not (question[start].isupper() and _last_word_capitalised(question[start:end])):
                continue
            if any(s.start <= start and end <= s.end for s in covered):
                continue  # inside a linked span: it could never replace it
            phrase = " ".join(folded[start:end].split())
            if len(phrase) < 5:
                continue
            near = process.extract(
                phrase,
                self.index.keys_near_length(len(phrase), slack=0.2),
                scorer=Levenshtein.distance,
                score_cutoff=1,
                limit=2,
            )
            if len(near) != 1 or near[0][1] != 1:
                continue
            nodes = self._rank(self.index.nodes(near[0][0]), set(), {})
            if self._case_mismatch(question, question[start:end], nodes):
                continue
            score = 0.8 * self.specificity(phrase)
            hits.append(
                LinkedSpan(question[start:end], start, end, "fuzzy", score, tuple((n, 0.8, 0.0) for n in nodes))
            )
        return _non_overlapping(hits)

    def _case_mismatch(self, question: str, text: str, nodes: Sequence[int]) -> bool:
        """Whether ``text`` is a lower-case word of a cased question near only capitalised names: a common word,
        never a misspelt name ("towns" ↔ the family name "Townes")."""
        return is_cased(question) and _common_word(text, [self.index.labels[n] for n in nodes])

    def _ngrams(self, folded: str, taken: Sequence[LinkedSpan]) -> list[tuple[int, int]]:
        words = [(m.start(), m.end()) for m in _WORD.finditer(folded)]
        out = []
        for i in range(len(words)):
            for j in range(i, min(i + self.max_ngram, len(words))):
                start, end = words[i][0], words[j][1]
                if any(start < s.end and s.start < end for s in taken):
                    break
                phrase = folded[start:end]
                tokens = phrase.split()
                if all(t in STOPWORDS for t in tokens) or len(phrase) < 3:
                    continue
                if tokens[0] in STOPWORDS or tokens[-1] in STOPWORDS:
                    continue
                out.append((start, end))
        return out

    def _fuzzy(self, folded: str, question: str, taken: Sequence[LinkedSpan]) -> list[LinkedSpan]:
        hits: list[LinkedSpan] = []
        for start, end in self._ngrams(folded, taken):
            phrase = " ".join(folded[start:end].split())
            keys = self.index.keys_near_length(len(phrase))
            if not keys:
                continue
            best = process.extract(phrase, keys, scorer=fuzz.ratio, score_cutoff=self.fuzzy_cutoff, limit=3)
            if not best:
                continue
            nodes: list[tuple[int, float, float]] = []
            for key, score, _ in best:
                for n in self.index.nodes(key):
                    nodes.append((n, score / 100.0, 0.0))
            if self._case_mismatch(question, question[start:end], [n for n, _, _ in nodes]):
                continue
            top = best[0][1] / 100.0
            score = 0.8 * top * self.specificity(phrase)
            hits.append(LinkedSpan(question[start:end], start, end, "fuzzy", score, tuple(nodes)))
        return _non_overlapping(hits)

    def _vector(self, folded: str, question: str, taken: Sequence[LinkedSpan]) -> list[LinkedSpan]:
        assert self.embed is not None and self.search is not None
        grams = self._ngrams(folded, taken)
        if not grams:
            return []
        texts = [question[s:e] for s, e in grams]
        ids, dists = self.search(self.embed(texts), 3)
        hits = []
        for (start, end), row_ids, row_d in zip(grams, ids, dists, strict=True):
            nodes = [
                (int(n), 1.0 - float(d) / 2.0, float(d))
                for n, d in zip(row_ids, row_d, strict=True)
                if n >= 0 and d <= self.vector_max_distance
            ]
            if nodes:
                score = 0.7 * nodes[0][1] * self.specificity(folded[start:end])
                hits.append(LinkedSpan(question[start:end], start, end, "vector", score, tuple(nodes)))
        return _non_overlapping(hits)


def is_cased(question: str) -> bool:
    """Whether ``question`` is written with capitals (a capital letter after its first word): then its lower-case
    words are common words, not names.

    >>> is_cased("When were the co-laureates of Roderick MacKinnon born?"), is_cased("who directed paprika")
    (True, False)
    >>> is_cased("Who directed paprika?"), is_cased("MIT laureates born in the 1920s")
    (False, True)
    """
    first = _WORD.search(question)
    if first is not None and any(c.isupper() for c in first.group()[1:]):
        return True  # "MIT laureates born in the 1920s": a capital inside the first word is one written on purpose
    rest = question[first.end() :] if first is not None else question
    return any(c.isupper() for c in rest)


def _common_word(text: str, labels: Sequence[str]) -> bool:
    """Whether ``text`` is one word in lower case and every label it matched has a capital letter: in a cased
    question (:func:`is_cased`) a common word or a word fragment ("born", "co" of "co-laureates", "in") that only
    case folding made equal to a name ("Born", a family name; "CO", a country code).

    >>> _common_word("born", ["Born"]), _common_word("female", ["female"]), _common_word("Born", ["Born"])
    (True, False, False)
    """
    return (
        bool(labels)
        and len(text.split()) == 1
        and text == text.lower()
        and all(label != label.lower() for label in labels)
    )


def _non_overlapping(spans: list[LinkedSpan]) -> list[LinkedSpan]:
    """Best score first, then longer, then leftmost; drop spans overlapping a chosen one."""
    chosen: list[LinkedSpan] = []
    for span in sorted(spans, key=lambda s: (-s.score, -(s.end - s.start), s.start)):
        if all(span.end <= c.start or c.end <= span.start for c in chosen):
            chosen.append(span)
    return sorted(chosen, key=lambda s: s.start)


def _last_word_capitalised(text: str) -> bool:
    words = text.split()
    return bool(words) and words[-1][:1].isupper()


def _overlaps(a: LinkedSpan, b: LinkedSpan) -> bool:
    return a.start < b.end and b.start < a.end


def _prefer_longer(spans: list[LinkedSpan], longer: list[LinkedSpan]) -> list[LinkedSpan]:
    """``spans`` with each span of ``longer`` that contains the spans it overlaps replacing them."""
    out = list(spans)
    for span in longer:
        overlapping = [s for s in out if s.start < span.end and span.start < s.end]
        if all(
            span.start <= s.start and s.end <= span.end and (s.end - s.start) < (span.end - span.start)
            for s in overlapping
        ):
            out = [s for s in out if s not in overlapping] + [span]
    return sorted(out, key=lambda s: s.start)


def _merge(first: list[LinkedSpan], more: list[LinkedSpan]) -> list[LinkedSpan]:
    return sorted(
        [*first, *[m for m in more if all(m.end <= f.start or f.end <= m.start for f in first)]], key=lambda s: s.start
    )
