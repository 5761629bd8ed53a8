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


@pytest.fixture
def pieces(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lines before each piece of a bulk load in pieces, recorded."""
    if not embedded._pipes_usable():
        pytest.skip("pieces are a pipe-path feature")
    return _record_pieces(monkeypatch)


def _record_pieces(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records the lines before each ``_bulk_load_piece`` call (a spy, the real call still made)."""
    starts: list[int] = []
    real = EmbeddedStore._bulk_load_piece

    def spy(self: EmbeddedStore, *args: object, **kwargs: object) -> None:
        starts.append(int(kwargs["lines_before"]))  # type: ignore[call-overload]
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(EmbeddedStore, "_bulk_load_piece", spy)
    return starts


@pytest.mark.parametrize("piece_bytes", [0, 1 << 20], ids=["one-call", "pieces"])
def test_a_parse_error_names_the_input_s_line_and_does_not_block_the_writer(
    store: EmbeddedStore, piece_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = _record_pieces(monkeypatch)
    with pytest.raises(IngestError, match=r"^gen\.nt:60001:\d+: "):  # in the last of 4 pieces of 1 MiB
        store.load_chunks(
            _chunks(60_000, then=b"<http://ex/s> <http://ex/p> oops .\n"),
            RdfFormat.N_TRIPLES,
            graph=GRAPH,
            bulk=True,
            file="gen.nt",
            piece_bytes=piece_bytes,
        )
    assert not _loader_threads()
    if piece_bytes and embedded._pipes_usable():  # the bad line opens the last piece
        assert starts[-1] == 60_000
    else:
        assert starts == []


def test_a_large_input_is_bulk_loaded_in_pieces(pieces: list[int], tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path / "store")
    try:
        store.load_chunks(
            _chunks(60_000), RdfFormat.N_TRIPLES, graph=GRAPH, bulk=True, trusted=True, piece_bytes=1 << 20
        )
        assert store.count(GRAPH) == 60_000
        assert pieces == [0, 20_000, 40_000]  # six chunks of 10,000 lines (~0.5 MB), two a piece of 1 MiB
    finally:
        store.close()


def test_a_triple_file_loads_the_same_in_pieces(kg: kgsvc.KG, tmp_path: Path, pieces: list[int]) -> None:
    text = "".join(f"e{i}\tr{i % 7}\te{(i * 31) % 40_000}\n" for i in range(40_000))
    path = tmp_path / "kb.tsv"
    path.write_text(text)

    def loader(piece_bytes: int) -> kgsvc.KG:
        update = {"bulk_threshold_bytes": 0, "bulk_piece_bytes": piece_bytes}
        return kgsvc.KG(kg.settings.model_copy(update=update), kg.store, kg.catalog)

    loader(0).load(path, dataset="whole")  # one bulk load of the whole file
    assert not pieces
    loader(64 << 10).load(path, dataset="pieces")  # below one chunk of the mapping (~1 MB): a piece per chunk
    assert len(pieces) == 3  # 40,000 facts and 40,000 labels: ~3 MB of N-Triples
    whole, parts = (set(kg.dump(name).decode().splitlines()) for name in ("whole", "pieces"))
    assert len(whole) == 40_000 + 40_000 + 14  # facts, entity labels, relation labels and source texts
    assert {line.replace("kgsvc.local/whole/", "kgsvc.local/pieces/") for line in whole} == parts


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
