"""Incremental index versions on a real embedded KG (store, catalog, Qdrant Edge): after a series of adds, removals
and label changes, the incrementally built version equals a from-scratch build of the same data."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import kgsvc
from kgsvc import faults
from kgsvc.errors import IndexError_
from kgsvc.index import build as build_module
from kgsvc.index import exact
from kgsvc.index import labels as labels_module
from kgsvc.index import layers as layers_module
from kgsvc.index import strings as strings_module
from kgsvc.index.changes import changed_subjects
from kgsvc.index.dataset_index import DatasetIndex, load_index
from kgsvc.index.labels import find_node
from kgsvc.index.strings import SplicedTable, StringTable, read_strings
from kgsvc.index.vectors import NODE_LABELS, RELATION_LABELS
from kgsvc.qa.graph import QAGraph
from kgsvc.qa.link import LabelIndex, fold
from kgsvc.qa.options import QAOptions
from kgsvc.qa.service import answerer_for
from kgsvc.settings import Settings

EX = "https://kgsvc.local/sample/"
GRAPH = "<urn:kgsvc:dataset:sample>"
LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
QUERIES = ("Satoshi Kon", "Paprika", "Glass Harbour", "film genre", "directed by", "Northern Echo", "1997")


def _open(path: Path) -> kgsvc.KG:
    return kgsvc.KG.open(settings=Settings(data_dir=path, auto_index=False))


@pytest.fixture
def manual(tmp_path: Path) -> Iterator[kgsvc.KG]:
    with _open(tmp_path / "data") as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        yield kg


def _mode(kg: kgsvc.KG, version: int | None) -> str:
    (row,) = [v for v in kg.catalog.index_versions("sample") if v.version == version]
    return str(row.metrics["mode"])


def _changes(kg: kgsvc.KG, tmp_path: Path) -> list[str]:
    """Apply a series of changes, building after each; returns each build's mode."""
    modes = []

    def build() -> None:
        modes.append(_mode(kg, kg.build_index("sample")))

    # a new film: new label text, a new literal, a new unlabelled person (humanised IRI), an existing director
    kg.update(
        f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Glass_Harbour> {LABEL} "Glass Harbour" ; '
        f'<{EX}directedBy> <{EX}person_Satoshi_Kon> ; <{EX}releaseYear> "2031" ; '
        f"<{EX}starring> <{EX}person_New_Face> }} }}"
    )
    build()
    # a label changes (the old text may vanish), a relation gets a preferred English label
    kg.update(f'DELETE DATA {{ GRAPH {GRAPH} {{ <{EX}film_Glass_Harbour> {LABEL} "Glass Harbour" }} }}')
    kg.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Glass_Harbour> {LABEL} "Northern Echo" }} }}')
    kg.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}genre> {LABEL} "film genre"@en }} }}')
    build()  # three changes in one build
    # a subject loses every triple: its unique literal and person go, the director stays
    kg.update(
        f'DELETE DATA {{ GRAPH {GRAPH} {{ <{EX}film_Glass_Harbour> {LABEL} "Northern Echo" ; '
        f'<{EX}directedBy> <{EX}person_Satoshi_Kon> ; <{EX}releaseYear> "2031" ; '
        f"<{EX}starring> <{EX}person_New_Face> }} }}"
    )
    build()
    # a file load (the loader's path): a new predicate, which is also a subject with a label
    extra = tmp_path / "extra.nt"
    extra.write_text(
        f'<{EX}film_Paprika> <{EX}basedOn> <{EX}novel_Paprika> .\n<{EX}basedOn> {LABEL} "based on" .\n'
        f'<{EX}novel_Paprika> {LABEL} "Paprika (novel)" .\n',
        encoding="utf-8",
    )
    kg.load(extra, dataset="sample")
    build()
    # a new preferred label: English beats the untagged "Animation"
    kg.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}genre_Animation> {LABEL} "animated film"@en }} }}')
    build()
    return modes


def _scratch(kg: kgsvc.KG, tmp_path: Path) -> kgsvc.KG:
    """A fresh KG holding the same triples, indexed from scratch."""
    dump = tmp_path / "dump.nt"
    dump.write_bytes(kg.dump("sample"))
    fresh = _open(tmp_path / "fresh")
    fresh.load(dump, dataset="sample")
    fresh.build_index("sample")
    return fresh


def _version(kg: kgsvc.KG, version: int) -> DatasetIndex:
    """Index version ``version`` of the sample dataset, opened on its own (a context manager)."""
    row = next(v for v in kg.catalog.index_versions("sample") if v.version == version)
    path = kg.catalog.index_path("sample", version)
    return load_index(kg.settings, path, dataset="sample", version=version, store_version=row.store_version)


def _assert_same(index: DatasetIndex, reference: DatasetIndex) -> None:
    assert list(index.node_terms) == list(reference.node_terms)
    assert list(index.relation_terms) == list(reference.relation_terms)
    assert list(index.node_texts) == list(reference.node_texts)
    assert list(index.relation_texts) == list(reference.relation_texts)
    for name in ("node_text_ids", "relation_text_ids", "label_literals"):
        np.testing.assert_array_equal(getattr(index, name), getattr(reference, name), err_msg=name)
    for name in ("indptr", "neighbors", "relations", "edge_ids", "outgoing", "triple_heads", "triple_tails"):
        np.testing.assert_array_equal(getattr(index.snapshot, name), getattr(reference.snapshot, name), name)
    for collection in (NODE_LABELS, RELATION_LABELS):
        np.testing.assert_allclose(index.text_vectors(collection), reference.text_vectors(collection), atol=1e-5)
        # the live points of the layers are the scratch build's collection; the base collection holds the base
        assert index.layers[collection].points.shape[0] == reference.vectors.count(collection)
        assert index.vectors.count(collection) == index.layers[collection].n_base
    for query in QUERIES:
        for k in (1, 5, 40):
            found, expected = index.node_candidates(query, k), reference.node_candidates(query, k)
            np.testing.assert_array_equal(found.ids, expected.ids)
            np.testing.assert_allclose(found.distances, expected.distances, atol=1e-5)
        assert index.relation_candidates(query, 3).ids.tolist() == reference.relation_candidates(query, 3).ids.tolist()


def _through_qdrant(index: DatasetIndex, query: str, k: int, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Node text ids found through the Qdrant Edge base collection (not the exact numpy scan) and the delta."""
    with monkeypatch.context() as patch:
        patch.setattr(exact, "EXACT_MAX_VALUES", 0)  # small k: the HNSW path
        return [t for t, _ in index.search_node_texts(index.embedder.encode([query]), k)[0]]


def test_incremental_versions_equal_a_scratch_build(
    manual: kgsvc.KG, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert manual.build_index("sample") == 1 and _mode(manual, 1) == "full"
    assert _changes(manual, tmp_path) == ["incremental"] * 5
    index = manual.index("sample")
    (row,) = [v for v in manual.catalog.index_versions("sample") if v.version == index.version]
    assert row.metrics["changed_subjects"] == 1 and row.metrics["embedded_texts"] == 1  # "animated film"
    # one point upserted; none deleted: the label literal "Animation" still carries the old text
    assert row.metrics["node_points_upserted"] == 1 and row.metrics["node_points_deleted"] == 0
    deletions = [v.metrics.get("node_points_deleted") for v in manual.catalog.index_versions("sample")]
    assert any(deletions)  # "Northern Echo" went with its film
    # no change touched rdf:type or a name predicate outside the plan: the store was not scanned for names again
    assert [v.metrics["name_plan"] for v in manual.catalog.index_versions("sample")[1:]] == ["kept"] * 5
    # the term and text tables are splices of version 1's, whose files every version hard-links
    previous = manual.catalog.index_path("sample", index.version - 1)
    for name in ("node_terms", "node_texts"):
        assert isinstance(getattr(index, name), SplicedTable)
        assert (index.path / f"{name}_blob.npy").stat().st_ino == (previous / f"{name}_blob.npy").stat().st_ino
    with _scratch(manual, tmp_path) as fresh:
        reference = fresh.index("sample")
        assert _mode(fresh, reference.version) == "full"
        _assert_same(index, reference)
        # the base collection of version 1 serves, with the new texts in the delta and removed ones tombstoned
        layers = index.layers[NODE_LABELS]
        assert layers.delta.shape[0] > 0 and layers.tombstones > 0
        for query in QUERIES:
            assert _through_qdrant(index, query, 6, monkeypatch) == _through_qdrant(reference, query, 6, monkeypatch)


@pytest.mark.parametrize("fallback", ["tables written whole", "triples sorted whole"])
def test_incremental_versions_equal_a_scratch_build_on_the_general_paths(
    fallback: str, manual: kgsvc.KG, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A splice past its share is written as a plain table again, and triples that cannot be merged in are sorted
    whole: both give what a scratch build gives."""
    if fallback == "tables written whole":
        monkeypatch.setattr(strings_module, "SPLICE_MIN", 0)
        monkeypatch.setattr(strings_module, "SPLICE_MAX_SHARE", 0.0)
    else:
        monkeypatch.setattr(labels_module, "_merged_triples", lambda kept, added: None)
    assert manual.build_index("sample") == 1
    assert _changes(manual, tmp_path) == ["incremental"] * 5
    index = manual.index("sample")
    if fallback == "tables written whole":
        assert isinstance(index.node_terms, StringTable) and not (index.path / "node_terms_splice.npz").exists()
    with _scratch(manual, tmp_path) as fresh:
        _assert_same(index, fresh.index("sample"))


def test_incremental_hnsw_collections_answer_like_a_scratch_build(
    manual: kgsvc.KG, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the exact-search cap lowered, the node collection is an HNSW one (searched through Qdrant Edge for small
    k): the shared base with the version's tombstones filtered out, plus its delta, answers what a fresh collection
    does; the replaced version searches the same base shard at the same time with its own tombstones."""
    monkeypatch.setattr(exact, "EXACT_MAX_VALUES", 1_000)
    manual.build_index("sample")
    assert _changes(manual, tmp_path) == ["incremental"] * 5
    index = manual.index("sample")
    manifest = json.loads((index.path / "manifest.json").read_text())
    assert manifest["hnsw"][NODE_LABELS] is True and manifest["backend"]["shards"] == "v1"
    with _scratch(manual, tmp_path) as fresh:
        _assert_same(index, fresh.index("sample"))
    with _version(manual, index.version - 1) as older:
        assert "animated film" not in older.node_texts  # the last change's text is not in the older version
        found = older.search_node_texts(older.embedder.encode(["animated film"]), 3)[0]
        assert all(t < len(older.node_texts) for t, _ in found)
        assert index.search_node_texts(index.embedder.encode(["animated film"]), 1)[0][0][0] == list(
            index.node_texts
        ).index("animated film")


def test_a_change_to_a_possible_name_predicate_discovers_the_plan_again(manual: kgsvc.KG, tmp_path: Path) -> None:
    manual.build_index("sample")
    # "fullTitle" may name films (kgsvc.index.names.discover): the plan is read from the store again (here it
    # qualifies, so the plan changes and the build is full)
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Paprika> <{EX}fullTitle> "Paprika (2006 film)" }} }}')
    version = manual.build_index("sample")
    (row,) = [v for v in manual.catalog.index_versions("sample") if v.version == version]
    assert row.metrics["name_plan"] == "discovered"
    assert json.loads((manual.index("sample").path / "manifest.json").read_text())["name_plan"]["discovered"] == [
        f"{EX}fullTitle"
    ]
    # a new type for a film changes the type sizes discovery weighs
    manual.update(f"INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Paprika> a <{EX}AnimatedFilm> }} }}")
    version = manual.build_index("sample")
    (row,) = [v for v in manual.catalog.index_versions("sample") if v.version == version]
    assert row.metrics["name_plan"] == "discovered"
    with _scratch(manual, tmp_path) as fresh:
        _assert_same(manual.index("sample"), fresh.index("sample"))


def test_node_ids_are_found_by_bisection(manual: kgsvc.KG) -> None:
    """The name plan check and the question path (QAGraph.node_id of an index's graph: no dictionary of every
    term per version, issue 23) look terms up in the sorted node terms (IRIs and blank nodes, then literals): every
    term is found at its id, an absent one is not."""
    manual.build_index("sample")
    index = manual.index("sample")
    tables = build_module.load_tables(index.path)
    graph = QAGraph.from_index(index)
    assert graph.term_lookup is not None
    assert [find_node(tables.node_terms, term) for term in tables.node_terms] == list(range(tables.n_nodes))
    assert [graph.node_id(term) for term in tables.node_terms] == list(range(tables.n_nodes))
    for absent in (f"<{EX}film_absent>", '"zzz never a label"', "", '"'):
        assert find_node(tables.node_terms, absent) is None and graph.node_id(absent) is None


def test_unknown_change_falls_back_to_a_full_build(manual: kgsvc.KG, tmp_path: Path) -> None:
    manual.build_index("sample")
    manual.update(
        f"DELETE {{ GRAPH {GRAPH} {{ ?film <{EX}genre> ?genre }} }} "
        f"WHERE {{ GRAPH {GRAPH} {{ ?film <{EX}genre> ?genre . FILTER(?genre = <{EX}genre_Thriller>) }} }}"
    )
    version = manual.build_index("sample")
    assert _mode(manual, version) == "full"
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Paprika> {LABEL} "Paprika!"@en }} }}')
    version = manual.build_index("sample")
    assert _mode(manual, version) == "incremental"
    with _scratch(manual, tmp_path) as fresh:
        _assert_same(manual.index("sample"), fresh.index("sample"))


def test_change_log_covers_every_version_and_is_dropped_once_built(manual: kgsvc.KG) -> None:
    index_dir = manual.settings.index_dir
    manual.build_index("sample")
    first = manual.catalog.get("sample").store_version
    assert not list((index_dir / "sample" / "changes").glob("*.log"))
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_A> {LABEL} "A" . <{EX}film_B> {LABEL} "B" }} }}')
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ _:b {LABEL} "blank" }} }}')
    now = manual.catalog.get("sample").store_version
    assert changed_subjects(index_dir, "sample", first, first + 1) == {f"<{EX}film_A>", f"<{EX}film_B>"}
    assert changed_subjects(index_dir, "sample", first, now) is None  # a blank node: not looked up by SPARQL
    assert changed_subjects(index_dir, "sample", first, now + 1) is None  # not logged (yet)
    version = manual.build_index("sample")
    assert _mode(manual, version) == "full"
    assert not list((index_dir / "sample" / "changes").glob("*.log"))


def test_failed_incremental_build_keeps_the_previous_version(
    manual: kgsvc.KG, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manual.build_index("sample")
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Q> {LABEL} "Quiet Moon" }} }}')

    def broken(folder: Path, tables: object, previous: object) -> None:
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(build_module, "_write_snapshot", broken)
    with pytest.raises(IndexError_, match="disk full"):
        manual.build_index("sample")
    assert manual.index("sample").version == 1
    previous = manual.settings.index_dir / "sample" / "v1"
    assert json.loads((previous / "manifest.json").read_text())["version"] == 1
    monkeypatch.undo()
    version = manual.build_index("sample")  # the change log is still there: incremental again
    assert _mode(manual, version) == "incremental"
    with _scratch(manual, tmp_path) as fresh:
        _assert_same(manual.index("sample"), fresh.index("sample"))


def test_bulk_load_and_replace_make_the_next_build_full(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", auto_index=False, bulk_threshold_bytes=256)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")  # bulk: not atomic, subjects not collected
        kg.build_index("sample")
        extra = tmp_path / "extra.nt"
        extra.write_text(f'<{EX}film_Q> {LABEL} "Quiet Moon" .\n' * 8, encoding="utf-8")  # over 256 bytes
        kg.load(extra, dataset="sample")
        assert _mode(kg, kg.build_index("sample")) == "full"
        small = tmp_path / "small.nt"
        small.write_text(f'<{EX}film_R> {LABEL} "Red Moon" .\n', encoding="utf-8")
        kg.load(small, dataset="sample")
        assert _mode(kg, kg.build_index("sample")) == "incremental"
        kg.load(small, dataset="sample", replace=True)
        assert _mode(kg, kg.build_index("sample")) == "full"
        assert list(kg.index("sample").node_terms) == sorted(
            [f"<{EX}film_R>", '"Red Moon"'], key=lambda t: (t.startswith('"'), t)
        )


def _shards(kg: kgsvc.KG) -> tuple[set[str], set[str]]:
    """The base shard folders on disk and those the kept versions' manifests refer to."""
    folder = kg.settings.index_dir / "sample"
    on_disk = {p.name for p in (folder / build_module.SHARDS_FOLDER).iterdir()}
    used = {json.loads(m.read_text())["backend"]["shards"] for m in folder.glob("v*/manifest.json")}
    return on_disk, used


def test_layers_compact_and_old_bases_go_once_unreferenced(
    manual: kgsvc.KG, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Successive changes stack on the base of version 1 until the delta and tombstones pass the threshold; that
    build writes a new base (a compaction, same embeddings), and the old base stays while a kept version uses it."""
    monkeypatch.setattr(layers_module, "LAYER_MIN_POINTS", 3)
    monkeypatch.setattr(layers_module, "LAYER_MAX_SHARE", 0.0)
    manual.build_index("sample")
    assert _changes(manual, tmp_path) == ["incremental"] * 5
    rows = {v.version: v for v in manual.catalog.index_versions("sample")}
    kinds = [rows[v].metrics["layers"] for v in sorted(rows)]
    assert kinds[0] == "base" and "delta" in kinds[1:] and "base" in kinds[1:], kinds
    on_disk, used = _shards(manual)
    assert on_disk == used  # every base a kept version refers to, and no other
    current, previous = sorted(v for v, row in rows.items() if row.state == "complete")[-2:][::-1]
    with _version(manual, previous) as older:  # the replaced version still answers from its base
        assert older.node_candidates("Satoshi Kon", 1).ids.shape == (1,)
    with _scratch(manual, tmp_path) as fresh:
        _assert_same(manual.index("sample"), fresh.index("sample"))
    # a new compaction drops the base no kept version refers to
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Z> {LABEL} "Zephyr One", "Zephyr Two", "Zephyr 3" }} }}')
    manual.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Y> {LABEL} "Yonder One", "Yonder Two", "Yonder 3" }} }}')
    assert manual.build_index("sample") == current + 1
    on_disk, used = _shards(manual)
    assert on_disk == used and len(on_disk) <= 2


@pytest.mark.parametrize("point", ["index-mid-build", "index-before-publish"])
def test_killed_incremental_build_keeps_the_previous_version(point: str, tmp_path: Path) -> None:
    """A layered build killed between its stages (a real ``kgsvc index`` that SIGKILLs itself): the previous version
    serves, and the next build is incremental again and equals a scratch build."""
    data = tmp_path / "data"
    with _open(data) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        kg.build_index("sample")
        kg.update(f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Q> {LABEL} "Quiet Moon" }} }}')
    env = {**os.environ, "KGSVC_DATA_DIR": str(data), "KGSVC_AUTO_INDEX": "false", faults.ENV: point}
    killed = subprocess.run(
        [sys.executable, "-m", "kgsvc", "index", "sample"], env=env, capture_output=True, timeout=300, check=False
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with _open(data) as kg:
        assert kg.index("sample").version == 1
        assert kg.index("sample").node_candidates("Satoshi Kon", 1).ids.shape == (1,)
        version = kg.build_index("sample")
        assert version is not None and version > 1 and _mode(kg, version) == "incremental"
        with _scratch(kg, tmp_path) as fresh:
            _assert_same(kg.index("sample"), fresh.index("sample"))


def test_the_label_index_of_an_incremental_version_is_a_layer_equal_to_a_fresh_one(manual: kgsvc.KG) -> None:
    """An incremental version names its node changes since the previous version (node_remap / node_touched); the
    first question on it layers the linker's label index over the previous one's, and every look-up equals a label
    index built from scratch over the version's labels."""
    manual.build_index("sample")
    manual.ask("who directed Paprika", dataset="sample")
    updates = [
        f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Glass_Harbour> {LABEL} "Glass Harbour" ; '
        f"<{EX}directedBy> <{EX}person_Satoshi_Kon> ; <{EX}starring> <{EX}person_New_Face> }} }}",
        f'DELETE DATA {{ GRAPH {GRAPH} {{ <{EX}film_Glass_Harbour> {LABEL} "Glass Harbour" }} }}',
        f'INSERT DATA {{ GRAPH {GRAPH} {{ <{EX}film_Glass_Harbour> {LABEL} "Northern Echo" }} }}',
    ]
    for update in updates:
        before = manual.index("sample")
        old_terms = list(before.node_terms)
        manual.update(update)
        version = manual.build_index("sample")
        assert _mode(manual, version) == "incremental"
        index = manual.index("sample")
        assert index.node_changes is not None
        source, remap, touched = index.node_changes
        assert source == before.version
        new_terms = list(index.node_terms)
        assert all(r < 0 or new_terms[r] == t for t, r in zip(old_terms, remap.tolist(), strict=True))
        assert {t for t in new_terms if t not in old_terms} <= {new_terms[i] for i in touched.tolist()}
        manual.ask("who directed Glass Harbour", dataset="sample")  # the first question builds the label index
        layered = answerer_for(manual, "sample", QAOptions())
        labels = layered.linker.index
        assert labels._layer is not None  # a layer, not a walk of every label
        fresh = LabelIndex.build(list(index.node_labels), classes=layered.graph.classes())
        assert dict(labels.nodes_of_key) == fresh.nodes_of_key and dict(labels.alias_nodes) == fresh.alias_nodes
        for text in ("Northern Echo", "Glass Harbour", "Satoshi Kon", "Paprika"):
            key = fold(text).strip()
            assert sorted(labels.matches(key)) == sorted(fresh.matches(key))
            assert labels.keys_near_length(len(key)) == fresh.keys_near_length(len(key))


def test_a_version_with_json_tables_is_read_and_patched(manual: kgsvc.KG, tmp_path: Path) -> None:
    """A version written before the binary string tables (JSON lists) opens and is patched; the next versions
    write binary tables equal to a scratch build's."""
    assert manual.build_index("sample") == 1
    folder = manual.catalog.index_path("sample", 1)
    for name in ("node_terms", "relation_terms", "node_texts", "relation_texts"):
        strings = list(read_strings(folder, name))
        (folder / f"{name}.json").write_text(json.dumps(strings, ensure_ascii=False), encoding="utf-8")
        for part in ("offsets", "blob"):
            (folder / f"{name}_{part}.npy").unlink()
    with _version(manual, 1) as old:
        assert isinstance(old.node_terms, list) and old.node_label(0) == old.node_labels[0]
    assert _changes(manual, tmp_path) == ["incremental"] * 5
    index = manual.index("sample")
    tables = StringTable | SplicedTable  # the first patch writes the lists as a table, the next ones splice it
    assert isinstance(index.node_terms, tables) and isinstance(index.node_texts, tables)
    with _scratch(manual, tmp_path) as fresh:
        _assert_same(index, fresh.index("sample"))
