"""Inferred edges end to end: the GNN trained by the workers after an index build proposes a missing edge, and
``ask(..., infer=True)`` answers from it, marked as inferred (issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import kgsvc
from kgsvc.gnn import artifacts
from kgsvc.index.build import GNN_FOLDER
from kgsvc.qa.graph import parse_term
from kgsvc.qa.pipeline import QAOptions
from kgsvc.qa.service import answerer_for
from kgsvc.settings import Settings

MISSING = "ex:film_Tokyo_Godfathers ex:directedBy ex:person_Satoshi_Kon ."
OTHERS = (
    "ex:film_Perfect_Blue ex:directedBy ex:person_Satoshi_Kon .",
    "ex:film_Paprika ex:directedBy ex:person_Satoshi_Kon .",
)
GNN = {"dim": 32, "epochs": 40, "batch_size": 512, "valid_fraction": 0.1, "test_fraction": 0.1, "patience": 4}


@pytest.fixture(scope="module")
def incomplete(tmp_path_factory: pytest.TempPathFactory) -> kgsvc.KG:
    """The sample without Satoshi Kon as a director (of Tokyo Godfathers and his two other films), loaded with
    auto-index and GNN training on."""
    folder = tmp_path_factory.mktemp("inferred")
    text = kgsvc.sample_path().read_text(encoding="utf-8")
    for line in (MISSING, *OTHERS):
        assert line in text
        text = text.replace(line, "")
    data = folder / "movies.ttl"
    data.write_text(text, encoding="utf-8")
    settings = Settings(data_dir=folder / "data", auto_index=True, gnn_train=True, gnn_options=GNN)
    kg = kgsvc.KG.open(settings=settings)
    kg.load(data, dataset="movies")
    kg.wait(600)  # the load's event queues the index build, which queues the GNN training
    return kg


def test_training_follows_the_index_build(incomplete: kgsvc.KG) -> None:
    (job,) = [j for j in incomplete.jobs(dataset="movies") if j.kind == "train_gnn"]
    assert job.state == "succeeded" and job.progress == 1.0, job
    model = incomplete.index("movies").path / GNN_FOLDER
    metrics = json.loads((model / "metrics.json").read_text())
    assert metrics["calibration"] is not None
    assert metrics["features"] == 384  # the version's label embeddings were the node input
    assert isinstance(metrics["name_rules"], int)  # name rules learned from the version's node labels
    assert (model / "name_rules.npy").is_file() and (model / "vectors").is_dir()
    version = incomplete.catalog.current_index_version("movies")
    assert version is not None and version.metrics["gnn"]["held_out"] == metrics["held_out"]
    assert incomplete.submit_train_gnn("movies") is None  # this version is trained already


def test_ask_uses_inferred_edges_only_when_asked(incomplete: kgsvc.KG) -> None:
    question = "who directed Tokyo Godfathers"
    plain = incomplete.ask(question, dataset="movies")
    assert not any(t.inferred for e in plain.evidence for t in e.triples)
    assert not any(a.inferred for a in plain.answers)

    inferred = incomplete.ask(question, dataset="movies", infer=True, infer_threshold=0.0, infer_penalty=1.0)
    assert inferred.grounded and inferred.evidence, inferred.reason
    assert "inferred" in inferred.text
    for evidence in inferred.evidence:
        (triple,) = evidence.triples
        assert triple.inferred and triple.edge_id == -1 and triple.probability is not None
        assert triple.head.label == "Tokyo Godfathers" and triple.relation.label == "directed by"
        assert evidence.gsd == pytest.approx(1.0 - triple.probability, abs=1e-6)
        assert evidence.answer == triple.tail and "not a stored triple" in evidence.sparql
    assert [e.gsd for e in inferred.evidence] == sorted(e.gsd for e in inferred.evidence)
    assert all(a.inferred for a in inferred.answers)
    # nothing is proposed above an impossible threshold: the stored readings answer as before
    strict = incomplete.ask(question, dataset="movies", infer=True, infer_threshold=0.999999)
    assert not any(t.inferred for e in strict.evidence for t in e.triples)


def test_incoming_edges_are_inferred_too(incomplete: kgsvc.KG) -> None:
    """Satoshi Kon directs nothing in the stored graph: the head query (?, directed by, Satoshi Kon) is proposed as
    a one-hop candidate (the grounded ranking then decides among candidates; not asserted here)."""
    options = QAOptions(infer=True, infer_threshold=0.0)
    qa = answerer_for(incomplete, "movies", options)
    graph = qa.graph
    spans = [s for s in qa.linker.link("Satoshi Kon") if s.nodes]
    kon = spans[0].nodes[0][0]
    assert graph.node_labels[kon] == "Satoshi Kon"
    directed = [r for r, label in enumerate(graph.relation_labels) if label == "directed by"]
    found = qa._inferred_candidates(spans[:1], options)
    incoming = {c: p for c, p in found.items() if c.branches[0].steps == ((directed[0], False),)}
    (predictions,) = incoming.values()
    assert predictions and all(p.tail == kon and p.relation == directed[0] for p in predictions)
    assert all(p.head != kon and graph.node_labels[p.head] for p in predictions)
    # the stored outgoing relations of Satoshi Kon (born in, …) get no outgoing candidate
    born = list(graph.relation_labels).index("born in")
    assert not [c for c in found if c.branches[0].steps == ((born, True),)]


def test_similar_nodes_come_from_the_gnn_embeddings(incomplete: kgsvc.KG) -> None:
    index = incomplete.index("movies")
    z = np.load(index.path / GNN_FOLDER / artifacts.NODE_EMBEDDINGS)
    unit = z / np.linalg.norm(z, axis=1, keepdims=True)
    terms = list(index.node_terms)
    film = terms.index("<https://kgsvc.local/sample/film_Paprika>")
    cosine = unit @ unit[film]
    cosine[film] = -np.inf
    ranked = [parse_term(terms[n], "") for n in np.argsort(-cosine, kind="stable")]

    found = incomplete.similar("https://kgsvc.local/sample/film_Paprika", dataset="movies", k=4)
    assert [s.term.value for s in found] == [t.value for t in ranked if t.kind == "uri"][:4]  # no literals
    assert all(s.term.type == "uri" and s.label for s in found)
    assert [s.distance for s in found] == sorted(s.distance for s in found)
    assert found == incomplete.similar("<https://kgsvc.local/sample/film_Paprika>", dataset="movies", k=4)
    everything = incomplete.similar("https://kgsvc.local/sample/film_Paprika", dataset="movies", k=4, literals=True)
    assert [s.term.value for s in everything] == [t.value for t in ranked[:4]]
    with pytest.raises(kgsvc.LinkError, match="is not a node of dataset 'movies'"):
        incomplete.similar("https://kgsvc.local/sample/film_Nope", dataset="movies")
    with pytest.raises(ValueError, match="k >= 1"):
        incomplete.similar("https://kgsvc.local/sample/film_Paprika", dataset="movies", k=0)
    with pytest.raises(kgsvc.DatasetError, match="unknown dataset"):
        incomplete.similar("https://kgsvc.local/sample/film_Paprika", dataset="nope")


def test_no_model_means_no_inferred_edges(tmp_path: Path) -> None:
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path, auto_index=True)) as kg:
        kg.load(kgsvc.sample_path(), dataset="movies")
        kg.wait(120)
        answer = kg.ask("who directed Tokyo Godfathers", dataset="movies", infer=True, infer_threshold=0.0)
        assert answer.answers[0].label == "Satoshi Kon" and not answer.answers[0].inferred
        with pytest.raises(kgsvc.IndexError_, match="has no trained GNN"):
            kg.similar("https://kgsvc.local/sample/film_Paprika", dataset="movies")


def test_a_small_change_fine_tunes_from_the_previous_model(incomplete: kgsvc.KG) -> None:
    """Runs last in this module: it changes the shared KG (a new index version and its GNN)."""
    before = incomplete.index("movies")
    incomplete.update(
        "INSERT DATA { GRAPH <urn:kgsvc:dataset:movies> { <https://kgsvc.local/sample/film_Paprika> "
        '<http://www.w3.org/2000/01/rdf-schema#comment> "a film about dreams" } }'
    )
    incomplete.wait(600)  # the new index version, then its GNN
    after = incomplete.index("movies")
    assert after.version > before.version
    metrics = json.loads((after.path / GNN_FOLDER / "metrics.json").read_text())
    warm = metrics["warm_start"]
    assert warm is not None and warm["from"] == str(before.path / GNN_FOLDER)
    assert warm["nodes_copied"] == after.snapshot.n_nodes - 1  # all but the new comment literal
    assert metrics["epochs"] <= metrics["config"]["finetune_epochs"] == 4
    assert metrics["calibration"] is not None
