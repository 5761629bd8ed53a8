"""Index versions end to end on a real embedded KG: build, current version, failure, auto-index, update, drop."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import kgsvc
from kgsvc.errors import IndexError_
from kgsvc.index import build as build_module
from kgsvc.index.dataset_index import DatasetIndex, open_index
from kgsvc.index.strings import read_strings
from kgsvc.index.vectors import NODE_LABELS, RELATION_LABELS
from kgsvc.settings import Settings

EX = "https://kgsvc.local/sample/"
GRAPH = "<urn:kgsvc:dataset:sample>"
KINDS = ("node", "relation")


def stored_triples(kg: kgsvc.KG, dataset: str) -> set[tuple[str, ...]]:
    """The dataset's triples as N-Triples term texts, read from the store."""
    return {tuple(line.rsplit(" .", 1)[0].split(" ", 2)) for line in kg.dump(dataset).decode().splitlines()}


def snapshot_triples(index: DatasetIndex) -> set[tuple[str, ...]]:
    """The index snapshot's triples as N-Triples term texts (comparable with :func:`stored_triples`)."""
    snap = index.snapshot
    columns = (snap.triple_heads.tolist(), snap.triple_relations.tolist(), snap.triple_tails.tolist())
    return {(index.node_term(h), index.relation_term(r), index.node_term(t)) for h, r, t in zip(*columns, strict=True)}


def _open(path: Path, *, auto_index: bool) -> kgsvc.KG:
    return kgsvc.KG.open(settings=Settings(data_dir=path, auto_index=auto_index))


@pytest.fixture
def manual(tmp_path: Path) -> Iterator[kgsvc.KG]:
    """The sample loaded without auto-indexing: builds happen only when a test asks."""
    with _open(tmp_path / "data", auto_index=False) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        yield kg


def test_build_complete_current_and_idempotent(manual: kgsvc.KG) -> None:
    with pytest.raises(IndexError_, match="'sample' has no complete index") as missing:
        manual.index("sample")
    assert missing.value.dataset == "sample"
    assert manual.build_index("sample") == 1
    (row,) = manual.catalog.index_versions("sample")
    assert (row.version, row.store_version, row.state, row.error) == (1, 1, "complete", None)
    stats = manual.stats("sample")
    assert row.counts["nodes"] == stats.nodes + stats.literals and row.counts["edges"] == stats.triples
    for stage in ("labels", "embedding", "vectors", "snapshot"):
        assert row.metrics[f"{stage}_s"] >= 0 and row.metrics[f"{stage}_peak_rss_mb"] > 0
    assert manual.build_index("sample") == 1  # covered: nothing built
    assert len(manual.catalog.index_versions("sample")) == 1

    index = manual.index("sample")
    assert manual.index("sample") is index  # cached
    assert (index.dataset, index.version, index.store_version) == ("sample", 1, 1)
    assert index.path == manual.settings.index_dir / "sample" / "v1"
    assert index.snapshot.n_nodes == len(index.node_terms) == len(index.node_labels) == row.counts["nodes"]
    assert index.snapshot.n_relations == len(index.relation_terms)
    assert isinstance(index.snapshot.indptr, np.memmap)
    assert snapshot_triples(index) == stored_triples(manual, "sample")


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's resettable peak RSS")
def test_stage_peak_rss_is_the_stage_s_not_an_earlier_peak_of_the_process(manual: kgsvc.KG) -> None:
    """An embedded KG loads and builds in one process: a big load before the build must not be its peak."""
    spike = np.ones(400 * 2**20, dtype=np.uint8)  # 400 MB touched, then returned to the system
    before = build_module._peak_rss_mb()
    del spike
    manual.build_index("sample")
    (row,) = manual.catalog.index_versions("sample")
    peaks = [row.metrics[f"{stage}_peak_rss_mb"] for stage in ("labels", "embedding", "vectors", "snapshot")]
    assert 0 < max(peaks) < before - 200, (peaks, before)


def test_candidates_match_brute_force_over_all_nodes(manual: kgsvc.KG) -> None:
    manual.build_index("sample")
    index = manual.index("sample")
    node_vectors = index.embedder.encode(list(index.node_texts))
    query = index.embedder.encode(["Satoshi Kon"])[0]
    distances = np.sqrt(((node_vectors.astype(np.float64) - query) ** 2).sum(axis=1))
    per_node = distances[np.asarray(index.node_text_ids)]
    ranked = sorted(range(len(per_node)), key=lambda i: (round(per_node[i], 6), i))
    expected = ranked[:7]
    found = index.node_candidates("Satoshi Kon", 7)
    assert found.ids.tolist() == expected
    np.testing.assert_allclose(found.distances, per_node[expected], atol=1e-5)
    kon = index.node_terms.index(f"<{EX}person_Satoshi_Kon>")
    assert found.ids[0] == kon and found.distances[0] < 1e-3  # the entity before its label literal (same text)
    assert index.node_label(int(found.ids[1])) == "Satoshi Kon" and index.node_term(int(found.ids[1])).startswith('"')
    # text search and expansion agree
    (hits,) = index.search_node_texts(query[None, :], 3)
    assert index.node_texts[hits[0][0]] == "Satoshi Kon"
    assert index.nodes_with_text(hits[0][0]).tolist() == found.ids[:2].tolist()
    # without the label copies: the next nodes by distance, entities only
    entities = index.node_candidates("Satoshi Kon", 4, label_literals=False)
    assert entities.ids.tolist() == [i for i in ranked if not index.label_literals[i]][:4]
    assert entities.ids[0] == kon and all(index.node_term(int(i)).startswith("<") for i in entities.ids)
    label_literals = manual.catalog.index_versions("sample")[0].counts["label_literals"]
    assert int(np.count_nonzero(index.label_literals)) == label_literals > 0
    relations = index.relation_candidates("directed by", 2)
    assert index.relation_term(int(relations.ids[0])) == f"<{EX}directedBy>"
    assert relations.distances[0] < 1e-3
    with pytest.raises(ValueError, match="one query vector"):
        index.node_candidates(np.zeros((2, 384), np.float32), 3)


def test_node_label_vectors_are_the_labels_embeddings_per_node(manual: kgsvc.KG, tmp_path: Path) -> None:
    manual.build_index("sample")
    index = manual.index("sample")
    features = build_module.node_label_vectors(index.path)
    assert features.shape == (index.snapshot.n_nodes, 384) and features.dtype == np.float32
    kon = index.node_terms.index(f"<{EX}person_Satoshi_Kon>")
    np.testing.assert_allclose(features[kon], index.embedder.encode(["Satoshi Kon"])[0], atol=1e-5)
    with pytest.raises(IndexError_, match="no node label embeddings"):
        build_module.node_label_vectors(tmp_path)


def test_failed_build_keeps_previous_version(manual: kgsvc.KG, monkeypatch: pytest.MonkeyPatch) -> None:
    assert manual.build_index("sample") == 1
    manual.update(f"INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_X> <{EX}genre> <{EX}genre_Animation> }} }}")

    def broken(folder: Path, tables: object, previous: object) -> None:
        (folder / "snapshot").mkdir()
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(build_module, "_write_snapshot", broken)
    with pytest.raises(IndexError_, match="version 2 of dataset 'sample' failed: disk full") as failed:
        manual.build_index("sample")
    assert (failed.value.dataset, failed.value.version) == ("sample", 2)
    states = [(v.version, v.state) for v in manual.catalog.index_versions("sample")]
    assert states == [(1, "complete"), (2, "failed")]
    assert "disk full" in (manual.catalog.index_versions("sample")[1].error or "")
    assert not (manual.settings.index_dir / "sample" / "v2").exists()
    assert manual.index("sample").version == 1  # still serving

    monkeypatch.undo()
    assert manual.build_index("sample") == 3
    states = [(v.version, v.state) for v in manual.catalog.index_versions("sample")]
    assert states == [(1, "complete"), (2, "failed"), (3, "complete")]  # v1 kept for queries still on it
    assert (manual.settings.index_dir / "sample" / "v1" / "manifest.json").exists()
    index = manual.index("sample")
    assert index.version == 3 and f"<{EX}film_X>" in index.node_terms
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Z> <{EX}releaseYear> "2032" }} }}')
    assert manual.build_index("sample") == 4
    states = [(v.version, v.state) for v in manual.catalog.index_versions("sample")]
    assert states == [(1, "removed"), (2, "failed"), (3, "complete"), (4, "complete")]
    assert not (manual.settings.index_dir / "sample" / "v1").exists()


def test_incomplete_folder_is_refused(manual: kgsvc.KG) -> None:
    manual.build_index("sample")
    folder = manual.settings.index_dir / "sample" / "v1"
    (folder / "manifest.json").unlink()
    with pytest.raises(IndexError_, match="missing or incomplete"):
        open_index(manual.settings, manual.catalog, "sample")


def test_auto_index_update_and_drop(tmp_path: Path) -> None:
    with _open(tmp_path / "data", auto_index=True) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        kg.wait()
        current = kg.catalog.current_index_version("sample")
        assert current is not None and (current.version, current.store_version) == (1, 1)
        first = kg.index("sample")
        assert f"<{EX}film_Y>" not in first.node_terms

        changed = kg.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Y> <{EX}releaseYear> "2031" }} }}')
        assert changed == ["sample"]
        kg.wait()
        current = kg.catalog.current_index_version("sample")
        assert current is not None and (current.version, current.store_version) == (2, 2)
        second = kg.index("sample")
        assert second is not first and second.version == 2
        assert f"<{EX}film_Y>" in second.node_terms and '"2031"' in second.node_terms
        manifest = json.loads((second.path / "manifest.json").read_text())
        # version 2 keeps the base of version 1 (kgsvc.index.layers): its Qdrant Edge shards
        assert manifest["backend"] == {"kind": "edge", "shards": "v1"} and manifest["version"] == 2

        kg.drop("sample")
        assert not (kg.settings.index_dir / "sample").exists()
        assert not kg.catalog.exists("sample")


def test_incremental_build_embeds_only_new_texts(manual: kgsvc.KG, tmp_path: Path) -> None:
    """A small update re-embeds only its new label texts, and the version equals a full build of the same data."""
    manual.build_index("sample")
    before = {kind: list(read_strings(manual.index("sample").path, f"{kind}_texts")) for kind in KINDS}
    manual.update(
        f"PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> INSERT DATA {{ GRAPH {GRAPH} {{ "
        f'<{EX}film_Q> rdfs:label "Quiet Harbour Nights" ; <{EX}directedBy> <{EX}person_Satoshi_Kon> }} }}'
    )
    assert manual.build_index("sample") == 2
    row = manual.catalog.current_index_version("sample")
    assert row is not None and row.version == 2
    second = manual.index("sample").path
    after = {kind: list(read_strings(second, f"{kind}_texts")) for kind in KINDS}
    new_texts = sum(len(set(after[kind]) - set(before[kind])) for kind in KINDS)
    assert new_texts == 1  # "Quiet Harbour Nights"; every other text (and every relation) was there before
    assert row.metrics["embedded_texts"] == new_texts
    assert row.metrics["reused_texts"] == sum(len(after[kind]) for kind in KINDS) - new_texts

    data = tmp_path / "sample.nt"
    data.write_bytes(manual.dump("sample"))
    with _open(tmp_path / "full", auto_index=False) as full:  # the same data, indexed from scratch
        full.load(data, dataset="sample")
        full.build_index("sample")
        scratch = full.index("sample")
        for kind in KINDS:
            assert list(read_strings(scratch.path, f"{kind}_texts")) == after[kind]
        for name in (NODE_LABELS, RELATION_LABELS):  # the new text's row is in the delta layer of version 2
            np.testing.assert_allclose(manual.index("sample").text_vectors(name), scratch.text_vectors(name), atol=1e-5)
    answer = manual.ask("who directed Quiet Harbour Nights", dataset="sample")
    assert answer.answers[0].label == "Satoshi Kon", answer
