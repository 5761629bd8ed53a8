"""Bulk loads of generated text: the store reads a pipe while the caller produces; errors stay all-or-nothing."""

from __future__ import annotations

import gzip
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgsvc
from kgsvc.errors import IngestError
from kgsvc.store import EmbeddedStore, RdfFormat, embedded

GRAPH = "urn:kgsvc:dataset:stream"


def _ntriples(start: int, stop: int) -> bytes:
    return "".join(f"<http://ex/s{i}> <http://ex/p> <http://ex/o{i}> .\n" for i in range(start, stop)).encode()


def _chunks(rows: int, *, then: bytes | Exception | None = None) -> Iterator[bytes]:
    for start in range(0, rows, 10_000):  # each chunk ~0.5 MB; 60,000 rows are ~3 MB, 3x the 1 MiB pipe
        yield _ntriples(start, min(rows, start + 10_000))
    if isinstance(then, Exception):
        raise then
    if then is not None:
        yield then
        yield _ntriples(rows, rows + 100_000)  # ~5 MB after the bad line, more than pipe and write buffer hold:
        # the writer must not block


def _loader_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "kgsvc-bulk-load"]


@pytest.fixture(params=[True, False], ids=["pipe", "reader"])
def store(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[EmbeddedStore]:
    """An on-disk store, bulk-loading through an OS pipe or (where there is none) a Python reader."""
    if request.param:
        assert embedded._pipes_usable() or os.name != "posix"
    else:
        monkeypatch.setattr(embedded, "_pipes_usable", lambda: False)
    handle = EmbeddedStore(tmp_path / "store")
    yield handle
    handle.close()


def test_chunks_are_bulk_loaded(store: EmbeddedStore) -> None:
    store.load_chunks(_chunks(60_000), RdfFormat.N_TRIPLES, graph=GRAPH, bulk=True, trusted=True)
    assert store.count(GRAPH) == 60_000
    assert not _loader_threads()


def test_a_producer_error_propagates_unchanged(store: EmbeddedStore) -> None:
    with pytest.raises(IngestError, match="^kb:7: bad row$"):
        store.load_chunks(
            _chunks(60_000, then=IngestError("bad row", file="kb", line=7)),
            RdfFormat.N_TRIPLES,
            graph=GRAPH,
            bulk=True,
        )
    assert not _loader_threads()


def test_a_parse_error_names_the_line_and_does_not_block_the_writer(store: EmbeddedStore) -> None:
    with pytest.raises(IngestError, match=r"^gen\.nt:60001:\d+: "):
        store.load_chunks(
            _chunks(60_000, then=b"<http://ex/s> <http://ex/p> oops .\n"),
            RdfFormat.N_TRIPLES,
            graph=GRAPH,
            bulk=True,
            file="gen.nt",
        )
    assert not _loader_threads()


def test_triple_file_bulk_load_reports_progress_and_counts(kg: kgsvc.KG, tmp_path: Path) -> None:
    text = "".join(f"e{i}\tr\te{i + 1}\n" for i in range(50_000))
    path = tmp_path / "kb.tsv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    bulk = kgsvc.KG(kg.settings.model_copy(update={"bulk_threshold_bytes": 0}), kg.store, kg.catalog)
    seen: list[tuple[int, int | None]] = []
    result = bulk.load(path, dataset="kb", progress=lambda done, total: seen.append((done, total)))
    assert result.bulk and result.format == "tsv"
    assert result.triples_added == result.triples_total == 50_000 + 50_001 + 2  # facts, entity labels, relation
    assert result.bytes_read == len(text.encode())  # uncompressed input bytes
    assert seen and seen[-1] == (path.stat().st_size, path.stat().st_size)  # progress counts compressed bytes
