"""Every supported format loads, and dump → reload gives the same triples."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import rdflib

import kgsvc
from kgsvc.ingest import detect_format, entity_iri, text_of_iri

TTL = """@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:film ex:directedBy ex:kon ; rdfs:label "Tokyo Godfathers"@en ; ex:year "2003"^^xsd:gYear .
ex:kon rdfs:label "Satoshi Kon" ; ex:note "line\\nbreak \\"quoted\\"" .
"""


def _triples(kg: kgsvc.KG, dataset: str) -> set[tuple[str, str, str]]:
    result = kg.sparql("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", dataset=dataset)
    return {(r["s"].value, r["p"].value, f"{r['o'].value}|{r['o'].datatype}|{r['o'].lang}") for r in result.rows}


@pytest.mark.parametrize("fmt", ["ttl", "nt", "nq", "trig", "rdf", "jsonld", "n3", "trix"])
def test_every_format_round_trips(kg: kgsvc.KG, tmp_path: Path, fmt: str) -> None:
    source = tmp_path / "source.ttl"
    source.write_text(TTL, encoding="utf-8")
    kg.load(source, dataset="orig")
    expected = _triples(kg, "orig")
    assert len(expected) == 5
    path = tmp_path / f"dump.{fmt}"
    if fmt in ("trix", "n3"):  # pyoxigraph writes no TriX; rdflib writes TriX and N3
        graph = rdflib.Graph()
        graph.parse(data=kg.dump("orig", format="nt").decode(), format="nt")
        if fmt == "trix":
            dataset = rdflib.Dataset()
            named = dataset.graph(rdflib.URIRef("http://example.org/g"))
            for triple in graph:
                named.add(triple)
            dataset.serialize(destination=str(path), format="trix")
        else:
            path.write_text(graph.serialize(format="n3"), encoding="utf-8")
    else:
        path.write_bytes(kg.dump("orig", format=fmt))
    result = kg.load(path, dataset=f"copy-{fmt}")
    assert result.triples_added == 5
    if fmt == "trix":  # a named graph stays one, the dataset's own
        assert kg.catalog.named_graphs("copy-trix") == ["http://example.org/g"]
        query = "SELECT ?s ?p ?o WHERE { GRAPH <http://example.org/g> { ?s ?p ?o } }"
        rows = kg.sparql(query, dataset="copy-trix").rows
        seen = {(r["s"].value, r["p"].value, f"{r['o'].value}|{r['o'].datatype}|{r['o'].lang}") for r in rows}
        assert seen == expected
    else:
        assert _triples(kg, f"copy-{fmt}") == expected


def test_gzip_and_bulk_path(kg: kgsvc.KG, tmp_path: Path) -> None:
    path = tmp_path / "data.nt.gz"
    lines = "".join(f"<http://ex/s{i}> <http://ex/p> <http://ex/o{i % 97}> .\n" for i in range(20_000))
    path.write_bytes(gzip.compress(lines.encode()))
    small = kgsvc.KG(kg.settings.model_copy(update={"bulk_threshold_bytes": 1000}), kg.store, kg.catalog)
    seen: list[tuple[int, int | None]] = []
    result = small.load(path, dataset="big", progress=lambda done, total: seen.append((done, total)))
    assert result.bulk and result.triples_added == 20_000 and result.format == "N-Triples"
    assert seen and seen[-1][0] == path.stat().st_size  # progress counts the compressed bytes read
    # a second bulk load into the now non-empty graph adds only what is new
    more = tmp_path / "more.nt"
    more.write_text(lines[: lines.index("\n") + 1] + "<http://ex/new> <http://ex/p> <http://ex/o1> .\n" * 2000)
    assert small.load(more, dataset="big").triples_added == 1


def test_triple_files_keep_every_string_as_label(kg: kgsvc.KG, tmp_path: Path) -> None:
    rows = [
        ("Amélie", "directed_by", "Jean-Pierre Jeunet"),
        ("Amélie", "release_year", "2001"),
        ('Say "Hi", 100%', "has_tags", "a/b?c#d <x>"),
        ("Tokyo Godfathers", "directed_by", "Satoshi Kon"),
    ]
    (tmp_path / "kb.txt").write_text("\n".join("|".join(r) for r in rows) + "\n", encoding="utf-8")
    (tmp_path / "kb.tsv").write_text("\n".join("\t".join(r) for r in rows) + "\n", encoding="utf-8")
    (tmp_path / "kb.csv").write_text(
        "head,relation,tail\n" + "\n".join(",".join('"' + c.replace('"', '""') + '"' for c in r) for r in rows) + "\n",
        encoding="utf-8",
    )
    for name in ("kb.txt", "kb.tsv", "kb.csv"):
        dataset = name.replace(".", "-")
        kg.load(tmp_path / name, dataset=dataset)
        labels = {
            r["l"].value
            for r in kg.sparql(
                "SELECT ?l WHERE { ?x <http://www.w3.org/2000/01/rdf-schema#label> ?l }", dataset=dataset
            ).rows
        }
        strings = {s for row in rows for s in (row[0], row[2])}
        assert strings <= labels
        assert {"directed by", "release year", "has tags"} <= labels  # relations humanised
        facts = kg.sparql("SELECT ?h ?r ?t WHERE { ?h ?r ?t FILTER(isIRI(?t)) }", dataset=dataset).rows
        decoded = {(text_of_iri(f["h"].value), text_of_iri(f["r"].value), text_of_iri(f["t"].value)) for f in facts}
        assert decoded == set(rows)  # the IRIs decode back to the original strings
        source = kg.sparql("SELECT ?s WHERE { ?r <https://w3id.org/kgsvc/ns#sourceText> ?s }", dataset=dataset).rows
        assert {s["s"].value for s in source} == {"directed_by", "release_year", "has_tags"}
    assert entity_iri("https://kgsvc.local/kb-txt/", "Amélie").startswith("https://kgsvc.local/kb-txt/entity/Am%C3%A9")


def test_format_detection(tmp_path: Path) -> None:
    assert detect_format(tmp_path / "x.ttl.gz").name == "Turtle"  # type: ignore[union-attr]
    assert detect_format(tmp_path / "x.txt") == "triples"
    assert detect_format(tmp_path / "x.data", "application/n-quads").name == "N-Quads"  # type: ignore[union-attr]
