"""The Ask tab in a real Chromium: the /ask answer, and evidence subgraphs drawn as graphs.

``test_evidence_is_drawn`` renders an Answer (the pydantic model of :mod:`kgsvc.qa.result`, filled with a real
3-hop path read from the sample KG) through the page's own renderer, so the drawing is tested with a known
3-hop path. ``test_ask_question`` goes through the server's ``/ask``.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from kgsvc.qa.result import Answer, AnswerTerm, Evidence, EvidenceNode, EvidenceTriple, Term
from tests.api.conftest import Served
from tests.web.conftest import open_tab

PATH_QUERY = """PREFIX ex: <https://kgsvc.local/sample/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?f ?fl ?p ?pl ?c ?cl ?g ?gl WHERE {
  ?f ex:directedBy ?p . ?p ex:bornIn ?c . ?g ex:directedBy ?p . FILTER(?g != ?f)
  ?f rdfs:label ?fl . ?p rdfs:label ?pl . ?c rdfs:label ?cl . ?g rdfs:label ?gl .
  ?f rdfs:label "Spirited Away" .
} ORDER BY ?gl LIMIT 1"""
EX = "https://kgsvc.local/sample/"


def three_hop_answer(served: Served) -> Answer:
    """An Answer whose one evidence subgraph is a real 3-triple path of the sample KG (one edge marked inferred)."""
    row = served.kg.sparql(PATH_QUERY, dataset="sample").rows[0]
    film, person, city, other = (Term(value=row[v].value, label=row[v + "l"].value) for v in ("f", "p", "c", "g"))
    directed = Term(value=EX + "directedBy", label="directed by")
    born = Term(value=EX + "bornIn", label="born in")
    triples = [
        EvidenceTriple(head=film, relation=directed, tail=person, edge_id=1, relation_distance=0.0),
        EvidenceTriple(head=person, relation=born, tail=city, edge_id=2, relation_distance=0.12),
        EvidenceTriple(head=other, relation=directed, tail=person, edge_id=3, relation_distance=None, inferred=True),
    ]
    sparql = (
        f"SELECT ?c WHERE {{ <{film.value}> <{directed.value}> ?p . ?p <{born.value}> ?c . ?g <{directed.value}> ?p }}"
    )
    evidence = Evidence(
        rank=1,
        gsd=0.123,
        triples=triples,
        nodes=[
            EvidenceNode(variable=film.label, term=film, distance=0.0),
            EvidenceNode(variable="?p", term=person, distance=None),
            EvidenceNode(variable="?c", term=city, distance=None),
        ],
        answer=city,
        sparql=sparql,
    )
    return Answer(
        question=f"where was the director of {film.label} born",
        dataset="sample",
        grounded=True,
        text=f"{city.label}.",
        answers=[AnswerTerm(value=city.value, label=city.label, gsd=0.123)],
        evidence=[evidence],
        sparql=sparql,
        strategy="grounded",
        timings={"link": 0.01, "pattern": 0.2, "match": 0.003, "answer": 0.1, "total": 0.313},
    )


def test_evidence_is_drawn(page: Page, web_server: Served, shots: Path) -> None:
    answer = three_hop_answer(web_server)
    open_tab(page, "ask")
    page.fill("#question", answer.question)
    page.evaluate("answer => window.kgsvc.renderAnswer(answer)", answer.model_dump(mode="json"))
    results = page.locator("#ask-results")
    expect(results.locator(".answer-text")).to_contain_text(answer.answers[0].label)
    expect(results.locator(".strategy")).to_have_text("strategy: grounded")
    expect(results.locator(".timings")).to_contain_text("total 313 ms")
    evidence = results.locator("section.evidence")
    expect(evidence).to_have_count(1)
    expect(evidence.locator(".gsd")).to_have_text("GSD 0.123")
    graph = evidence.locator(".evidence-graph")
    expect(graph.locator("canvas").first).to_be_attached()
    triples = answer.evidence[0].triples
    labels = {t.head.label for t in triples} | {t.tail.label for t in triples}
    assert set(page.eval_on_selector(".evidence-graph", "el => JSON.parse(el.dataset.nodes)")) == labels
    edges = page.eval_on_selector(".evidence-graph", "el => JSON.parse(el.dataset.edges)")
    assert edges == [f"{t.head.label} -{t.relation.label}-> {t.tail.label}" for t in triples]  # stored direction
    assert graph.get_attribute("data-inferred") == "1"
    # the drawing really painted something: the canvas holds non-white pixels
    painted = page.eval_on_selector(
        ".evidence-graph",
        """el => { let n = 0; for (const c of el.querySelectorAll('canvas')) {
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 200 || d[i + 1] < 200)) n++; }
           return n; }""",
    )
    assert painted > 500, painted
    page.screenshot(path=str(shots / "ask-evidence.png"), full_page=True)
    # the grounded SPARQL opens in the editor, and it runs there
    evidence.locator(".open-in-editor").click()
    expect(page.locator("#panel-sparql")).to_be_visible()
    assert page.evaluate("() => window.kgsvc.editorText()").strip() == answer.evidence[0].sparql
    page.click("#run")
    expect(page.locator("#sparql-results table.results tbody tr").first).to_contain_text(answer.answers[0].label)


def test_ask_question(page: Page, web_server: Served, shots: Path) -> None:
    open_tab(page, "ask")
    page.fill("#question", "who directed Tokyo Godfathers")
    page.click("#ask")
    results = page.locator("#ask-results")
    expect(results.locator(".answer-text")).to_contain_text("Satoshi Kon", timeout=120_000)
    expect(results.locator("section.evidence").first.locator("canvas").first).to_be_attached()
    page.screenshot(path=str(shots / "ask.png"), full_page=True)


def test_empty_question_is_refused(page: Page) -> None:
    open_tab(page, "ask")
    page.click("#ask")
    expect(page.locator("#ask-results .error")).to_have_text("Type a question first.")


def test_kinds_are_shown(page: Page, web_server: Served, shots: Path) -> None:
    """A count shows the number and the counted answers; a yes/no says it is the graph's answer (issue 17)."""
    open_tab(page, "ask")
    results = page.locator("#ask-results")
    page.fill("#question", "How many films did Satoshi Kon direct?")
    page.click("#ask")
    expect(results.locator(".kind-count")).to_contain_text("count: 3", timeout=120_000)
    expect(results.locator("ol.items li")).to_have_count(3)
    expect(results.locator("section.evidence")).to_have_count(3)
    page.screenshot(path=str(shots / "ask-count.png"), full_page=True)
    page.fill("#question", "Did Hayao Miyazaki direct Paprika?")
    page.click("#ask")
    expect(results.locator(".kind-yesno.no")).to_contain_text("no such fact in the graph", timeout=120_000)
    expect(results.locator(".kind-yesno")).to_contain_text("not the world's")
    page.fill("#question", "Which film by Akira Kurosawa was released first?")
    page.click("#ask")
    expect(results.locator(".kind-order")).to_contain_text("ranked by release year, least first", timeout=120_000)
    expect(results.locator("ol.items li").first).to_contain_text("Rashomon 1950")
