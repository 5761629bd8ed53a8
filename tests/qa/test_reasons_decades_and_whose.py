"""Issue 16, 2026-11-28: readings found on the twelfth and thirteenth held-out Nobel batches (n291–n330), on small
graphs of our own in Turtle with the Nobel graph's shapes (dates typed, prize years plain strings, a prize's
motivation a literal that reads "for …", an institution whose name ends in its place, organisations among the
laureates), the bundled MiniLM, no exemplars, answers checked against hand-written SPARQL. Each fails on the code
before it but where said:

* a **decade** ("born in Vienna, died *in the 1970s*", "how many … born *in the 1920s*", "was X born in the 1920s?"):
  main read no number it could filter by, and answered without the condition;
* "**whose** date of death is …": main read the noun after "whose" as the answer's class and walked on to a date;
* a question that asks **why** ("What did X win the prize for?", "the official *citation for* …"): main answered
  the prize or an institution, never the "for …" literal;
* "which Nobel **fields** saw a prize in 1960": in a graph with one classification (the prizes' *category*), a
  classifier noun asks for its values (on the Nobel graph main answered institutions; here it passes on main too);
* a **relative clause** whose subject is the entity ("born in the city *where X died*"): main read the two
  relations the other way round;
* "**the Royal Institution**" for *Royal Institution of Great Britain*: main linked nothing;
* "was **any** woman among the winners of X?": the count of the women among them, yes when above zero (main: no
  answer);
* "**Spain-born**" read as "Spain born" (passes on main here; on the Nobel graph main read the country's
  institutions);
* "**whom** did <an organisation> share its Nobel with": the answer may be of the entity's own class (main: "who"
  kept people only, and answered the organisation's member).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.qa.options import QAOptions
from kgsvc.qa.service import answerer_for
from tests.qa.conftest import answer_values, hand_answers, indexed_turtle, top_answers

CITIES = ["Vienna", "Graz", "Lyon", "Oslo", "Turin", "Bern", "Kyoto"]
FIELDS = ["physics", "chemistry", "economics", "peace"]
PRIZES = {f"P{i:02d}": (str(1930 + 5 * i), FIELDS[i % 4]) for i in range(16)}  # 16: the category is a handful
PEOPLE = {  # name: (born, born in, died, died in, prize)
    "Ada Quill": ("1924-03-01", "Vienna", "1962-05-02", "Lyon", "P01"),
    "Bo Hart": ("1899-01-10", "Lyon", "1975-11-18", "Oslo", "P02"),
    "Cy Hal": ("1926-07-07", "Vienna", "1978-01-01", "Turin", "P03"),
    "Dee Marsh": ("1840-02-02", "Graz", "1912-12-12", "Bern", "P04"),
    "Eli Stone": ("1930-05-05", "Kyoto", "2001-01-01", "Vienna", "P05"),
    "Fay Lund": ("1921-09-09", "Bern", "1999-09-09", "Graz", "P06"),
}
# quoted in the lexical form itself, as the Nobel graph's motivations are ('"for their discoveries …"')
MOTIVATIONS = {p: f'"for the discovery of effect number {i}"' for i, p in enumerate(PRIZES)}
MOTIVATIONS["P03"] = "in recognition of services to the theory of games"
TURTLE = "\n".join(
    [
        "@prefix ex: <http://example.org/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        'ex:Laureate rdfs:label "Laureate" . ex:NobelPrize rdfs:label "Nobel Prize" . ex:City rdfs:label "City" .',
        'ex:Organisation rdfs:label "Organisation" .',
        'ex:laureateAward rdfs:label "laureate award" . ex:year rdfs:label "year" . ex:comment rdfs:label "comment" .',
        'ex:birthDate rdfs:label "birth date" . ex:deathDate rdfs:label "death date" .',
        'ex:birthPlace rdfs:label "birth place" . ex:deathPlace rdfs:label "death place" .',
        'ex:category rdfs:label "category" . ex:awarded rdfs:label "awarded" .',
        *[f'ex:{f} rdfs:label "{f}" .' for f in FIELDS],
        *[f'ex:{c} a ex:City ; rdfs:label "{c}" .' for c in CITIES],
        *[
            f'ex:{p} a ex:NobelPrize ; rdfs:label "Nobel {y} {f}" ; ex:year "{y}" ; ex:category ex:{f} ; '
            f'ex:comment "{MOTIVATIONS[p].replace(chr(34), chr(92) + chr(34))}" .'
            for p, (y, f) in PRIZES.items()
        ],
        *[
            f'ex:{name.replace(" ", "_")} a ex:Laureate ; rdfs:label "{name}" ; ex:birthDate "{born}"^^xsd:date ; '
            f'ex:birthPlace ex:{born_in} ; ex:deathDate "{died}"^^xsd:date ; ex:deathPlace ex:{died_in} ; '
            f"ex:laureateAward ex:{prize} ."
            for name, (born, born_in, died, died_in, prize) in PEOPLE.items()
        ],
        'ex:RIGB a ex:Organisation ; rdfs:label "Royal Institution of Great Britain" ; ex:awarded ex:P01, ex:P02 .',
        'ex:Country rdfs:label "Country" . ex:France a ex:Country ; rdfs:label "France" .',
        "ex:Ada_Quill ex:deathPlace ex:France . ex:Fay_Lund ex:birthPlace ex:France .",  # a city and a country
    ]
)
EX = "http://example.org/"
YEAR = "<http://www.w3.org/2001/XMLSchema#integer>(SUBSTR(STR(?d), 1, 4))"


@pytest.fixture(scope="module")
def prizes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("reasons"), "prizes", TURTLE) as kg:
        yield kg


def test_a_decade_filters_by_the_year_of_the_date_the_verb_names(prizes: kgsvc.KG) -> None:
    seventies = f"FILTER({YEAR} >= 1970 && {YEAR} < 1980)"
    query = f"SELECT ?x WHERE {{ ?x <{EX}birthPlace> <{EX}Vienna> ; <{EX}deathDate> ?d {seventies} }}"
    expected = hand_answers(prizes, query, "prizes")
    assert expected == [f"{EX}Cy_Hal"]
    answer = prizes.ask("Which laureates born in Vienna died in the 1970s?", dataset="prizes")
    assert answer_values(answer) == expected
    assert answer.pattern is not None and "deathDate" in answer.pattern.sparql and "< 1980" in answer.pattern.sparql


def test_a_decade_in_a_count_and_in_a_yes_no_question(prizes: kgsvc.KG) -> None:
    query = f"SELECT ?x WHERE {{ ?x <{EX}birthDate> ?d FILTER({YEAR} >= 1920 && {YEAR} < 1930) }}"
    assert len(hand_answers(prizes, query, "prizes")) == 3  # Ada Quill, Cy Hal, Fay Lund
    counted = prizes.ask("How many laureates were born in the 1920s?", dataset="prizes")
    assert counted.grounded and counted.answers[0].value == "3", counted.text
    assert answer_values(prizes.ask("Was Ada Quill born in the 1920s?", dataset="prizes")) == ["true"]
    assert answer_values(prizes.ask("Was Bo Hart born in the 1920s?", dataset="prizes")) == ["false"]
    # compared with a decade: before its first year, after its last
    assert answer_values(prizes.ask("Was Bo Hart born before the 1900s?", dataset="prizes")) == ["true"]
    assert answer_values(prizes.ask("Was Eli Stone born after the 1920s?", dataset="prizes")) == ["true"]
    assert answer_values(prizes.ask("Was Cy Hal born after the 1920s?", dataset="prizes")) == ["false"]


def test_a_decade_of_the_prize_year_one_step_away(prizes: kgsvc.KG) -> None:
    """ "whose prize came in the 1940s": the year of the laureate's prize, the clause before the decade no step."""
    query = (
        f"SELECT ?x WHERE {{ ?x <{EX}birthPlace> <{EX}Vienna> ; <{EX}laureateAward> ?p . ?p <{EX}year> ?y "
        'FILTER(STR(?y) >= "1940" && STR(?y) < "1950") }'
    )
    expected = hand_answers(prizes, query, "prizes")
    assert expected == [f"{EX}Cy_Hal"]  # Ada Quill's prize came in 1935
    answer = prizes.ask("Laureates born in Vienna whose prize came in the 1940s?", dataset="prizes")
    assert answer_values(answer) == expected


def test_whose_asks_for_the_holder_of_the_noun(prizes: kgsvc.KG) -> None:
    """(main: Ada Quill's birth date, the noun after "whose" read as a date asked for.)"""
    answer = prizes.ask("Whose date of death is 2 May 1962?", dataset="prizes")
    assert answer_values(answer) == [f"{EX}Ada_Quill"]


def test_a_question_that_asks_why_ends_at_the_motivation(prizes: kgsvc.KG) -> None:
    for question, prize in [
        ("What did Ada Quill win the Nobel Prize for?", "P01"),
        ("Why did Cy Hal win the Nobel Prize?", "P03"),  # "in recognition of …" reads as a reason too
        ("Give me the official citation for the Nobel 1940 economics.", "P02"),
    ]:
        answer = prizes.ask(question, dataset="prizes")
        assert answer_values(answer) == [MOTIVATIONS[prize]], question


def test_a_classifier_noun_asks_for_the_one_classification(prizes: kgsvc.KG) -> None:
    """The candidates are kept to those that end at a category value. (On this small graph main's ranking finds the
    category too; on the Nobel graph, n299, "Nobel" in the question drew main to the institutions' *nobel
    laureates*: the keep is what changed.)"""
    qa = answerer_for(prizes, "prizes", QAOptions())
    field_nodes = {qa.graph.node_labels[n] for n in qa._scheme_asked("Which Nobel fields saw a prize in 1960?")}
    assert field_nodes == set(FIELDS)
    assert qa._scheme_asked("Which laureates won a prize in 1960?") == frozenset()
    query = f'SELECT ?x WHERE {{ ?p <{EX}year> "1960" ; <{EX}category> ?x }}'
    expected = hand_answers(prizes, query, "prizes")
    assert expected == [f"{EX}economics"]
    assert answer_values(prizes.ask("Which Nobel fields saw a prize in 1960?", dataset="prizes")) == expected


def test_a_relative_clause_reads_its_own_verb_first(prizes: kgsvc.KG) -> None:
    """ "born in the city where X died": X's death place, then who was born there (main: the other way round); the
    city, not the country X also died in (Fay Lund was born in France: main answered her too)."""
    query = f"SELECT ?x WHERE {{ <{EX}Ada_Quill> <{EX}deathPlace> ?c . ?c a <{EX}City> . ?x <{EX}birthPlace> ?c }}"
    expected = hand_answers(prizes, query, "prizes")
    assert expected == [f"{EX}Bo_Hart"]
    for question in (
        "Which laureates were born in the city where Ada Quill died?",
        "which laureates were born in the city ada quill died in",
    ):
        assert top_answers(prizes, question, "prizes") == expected, question


def test_an_institution_named_without_its_place(prizes: kgsvc.KG) -> None:
    counted = prizes.ask("How many Nobel Prizes has the Royal Institution been credited with?", dataset="prizes")
    assert counted.grounded and counted.answers[0].value == "2", counted.text


# -- found on the thirteenth held-out batch (n311–n330) -------------------------------------------------------------

GENDERED = {  # name: (gender, born in, prize); an organisation's gender is "org", as in the Nobel graph
    "Ida Vale": ("female", "Spain", "Q1"),
    "Jon Reed": ("male", "Spain", "Q2"),
    "Kai Moor": ("male", "Peru", "Q2"),
    "Lea Ford": ("female", "Peru", "Q3"),
    "Max Dunn": ("male", "Peru", "Q3"),
    "Ned Shaw": ("male", "Chile", "Q5"),
    "Ona Pike": ("female", "Chile", "Q5"),
    "Pia Rowe": ("female", "Chile", "Q6"),
    "Rob Tate": ("male", "Peru", "Q6"),
    "Sam Vick": ("male", "Chile", "Q7"),
    "Friends Council": ("org", None, "Q4"),
    "Friends Committee": ("org", None, "Q4"),
}
TURTLE2 = "\n".join(
    [
        "@prefix ex: <http://example.org/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        'ex:Person rdfs:label "Person" . ex:Organisation rdfs:label "Organisation" . ex:Country rdfs:label "Country" .',
        'ex:NobelPrize rdfs:label "Nobel Prize" . ex:laureateAward rdfs:label "laureate award" .',
        'ex:gender rdfs:label "gender" . ex:birthPlace rdfs:label "birth place" .',
        'ex:residence rdfs:label "residence" .',
        'ex:memberOf rdfs:label "member of" . ex:Ida_Vale ex:memberOf ex:Friends_Council .',
        "ex:Kai_Moor ex:residence ex:Spain . ex:Lea_Ford ex:residence ex:Spain . ex:Max_Dunn ex:residence ex:Spain .",
        *[f'ex:{c} a ex:Country ; rdfs:label "{c}" .' for c in ("Spain", "Peru", "Chile")],
        *[
            f'ex:{q} a ex:NobelPrize ; rdfs:label "Nobel 19{i}0 peace" .'
            for i, q in enumerate(["Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7"])
        ],
        *[
            f"ex:{name.replace(' ', '_')} a ex:{'Organisation' if gender == 'org' else 'Person'} ; "
            f'rdfs:label "{name}" ; ex:gender "{gender}" ; ex:laureateAward ex:{prize}'
            + (f" ; ex:birthPlace ex:{born}" if born else "")
            + " ."
            for name, (gender, born, prize) in GENDERED.items()
        ],
    ]
)


@pytest.fixture(scope="module")
def gendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("gendered"), "gendered", TURTLE2) as kg:
        yield kg


def test_whether_any_of_a_set_is_something_is_its_count_above_zero(gendered: kgsvc.KG) -> None:
    """(main: "any" read as nothing, the question a yes/no one with one mention, or a lookup of the genders.)"""
    yes = gendered.ask("Was any woman among the winners of the Nobel 1900 peace?", dataset="gendered")
    assert yes.grounded and yes.kind == "ask" and yes.truth is True, yes.text
    no = gendered.ask("Was any woman among the winners of the Nobel 1910 peace?", dataset="gendered")
    assert no.grounded and no.kind == "ask" and no.truth is False, no.text


def test_a_name_born_compound_reads_as_born_in(gendered: kgsvc.KG) -> None:
    """ "Spain-born" is "born in Spain", not the residents of Spain. (This small graph passes on main too; on the Nobel
    graph, n323 "Who, among the Spain-born laureates, died in the 1980s?", main read the country's institutions.)"""
    query = f"SELECT ?x WHERE {{ ?x <{EX}birthPlace> <{EX}Spain> }}"
    expected = hand_answers(gendered, query, "gendered")
    assert top_answers(gendered, "Who are the Spain-born winners?", "gendered") == expected


def test_who_shares_with_an_organisation_may_be_an_organisation(gendered: kgsvc.KG) -> None:
    """(main: "who" kept the answers to people, and no person shares the organisation's prize.)"""
    answer = gendered.ask("Whom did the Friends Council share its Nobel with?", dataset="gendered")
    assert answer_values(answer) == [f"{EX}Friends_Committee"]


# -- a review of the above (2026-11-28, session 25) ------------------------------------------------------------------


def test_any_with_a_noun_read_as_nothing_is_refused(gendered: kgsvc.KG) -> None:
    """ "any man among …": "man" reads as no value here (MiniLM: *male* 0.42) and as no class. (Before the review the
    count of all the winners answered yes: whether the set is empty.)"""
    answer = gendered.ask("Is there any man among the winners of the Nobel 1910 peace?", dataset="gendered")
    assert not answer.grounded and "names no value or class" in (answer.reason or ""), answer.text


def test_any_with_a_value_one_node_away_is_asked_of_the_graph(prizes: kgsvc.KG) -> None:
    """The laureates hold no *category*; their prizes do: "any chemist among the laureates born in Vienna" is
    answered by the laureates that reach *chemistry* through one node. (On this small graph the count's own pattern
    holds the value before the review too; on the Nobel graph, "Was any physicist among the laureates born in
    Warsaw?", it did not, and the answer was "No": Marie Curie's 1903 prize is a physics one.)"""
    query = f"SELECT ?x WHERE {{ ?x <{EX}birthPlace> <{EX}Vienna> ; <{EX}laureateAward>/<{EX}category> ?f }}"
    assert hand_answers(prizes, query.replace("?f", f"<{EX}chemistry>"), "prizes") == [f"{EX}Ada_Quill"]
    yes = prizes.ask("Was any chemist among the laureates born in Vienna?", dataset="prizes")
    assert yes.grounded and yes.kind == "ask" and yes.truth is True and "Ada Quill" in yes.text, yes.text
    assert hand_answers(prizes, query.replace("?f", f"<{EX}physics>"), "prizes") == []
    no = prizes.ask("Was any physicist among the laureates born in Vienna?", dataset="prizes")
    assert no.grounded and no.kind == "ask" and no.truth is False, no.text


def test_a_period_written_with_an_apostrophe_and_a_century(prizes: kgsvc.KG) -> None:
    """ "the 1920's" is the 1920s (before: the year 1920); "the 1800s" the nineteenth century, not 1800-1809."""
    assert answer_values(prizes.ask("Was Ada Quill born in the 1920's?", dataset="prizes")) == ["true"]
    query = f"SELECT ?x WHERE {{ ?x <{EX}birthDate> ?d FILTER({YEAR} >= 1800 && {YEAR} < 1900) }}"
    assert hand_answers(prizes, query, "prizes") == [f"{EX}Bo_Hart", f"{EX}Dee_Marsh"]
    assert answer_values(prizes.ask("Was Dee Marsh born in the 1800s?", dataset="prizes")) == ["true"]
    counted = prizes.ask("How many laureates were born in the 1800s?", dataset="prizes")
    assert counted.grounded and counted.answers[0].value == "2", counted.text


def test_a_year_after_the_names_a_thing_not_a_time() -> None:
    """ "Did X play in the 2014 World Cup?" is no comparison with the year 2014 (before the review it was one);
    "in 1942" and "in the 1940s" are."""
    from kgsvc.qa.kinds import classify

    assert classify("Did Ada Quill play in the 2014 World Cup?", [(4, 13)]).kind == "ask"
    assert classify("Did Ada Quill die in 1962?", [(4, 13)]).kind == "comparison"
    assert classify("Did Ada Quill die in the 1960s?", [(4, 13)]).kind == "comparison"
