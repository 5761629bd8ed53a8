"""Byte order marks and error positions: a BOM is skipped, and errors are reported where an editor shows them."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import kgsvc
from kgsvc.errors import IngestError

BOM = b"\xef\xbb\xbf"
TRIPLE = b"<http://ex/a> <http://ex/p> <http://ex/b> .\n"


@pytest.fixture(params=[False, True], ids=["transactional", "bulk"])
def loader(kg: kgsvc.KG, request: pytest.FixtureRequest) -> kgsvc.KG:
    """The KG, taking the transactional or the bulk path for every file."""
    threshold = 0 if request.param else 10**9
    return kgsvc.KG(kg.settings.model_copy(update={"bulk_threshold_bytes": threshold}), kg.store, kg.catalog)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bom.ttl", BOM + b"@prefix ex: <http://ex/> .\nex:a ex:p ex:b .\n"),
        ("bom.nt", BOM + TRIPLE),
        ("bom.nt.gz", gzip.compress(BOM + TRIPLE)),
        ("bom.tsv", BOM + b"a\tp\tb\n"),
    ],
)
def test_a_leading_bom_is_skipped(loader: kgsvc.KG, tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    result = loader.load(path, dataset="d")
    assert result.triples_added >= 1
    subjects = loader.sparql("SELECT DISTINCT ?s { ?s ?p ?o }", dataset="d").rows
    assert all("\ufeff" not in row["s"].value and "%EF%BB%BF" not in row["s"].value for row in subjects), subjects


def _error(kg: kgsvc.KG, path: Path, content: bytes) -> IngestError:
    path.write_bytes(content)
    with pytest.raises(IngestError) as info:
        kg.load(path, dataset="d")
    assert kg.catalog.get("d").triples == 0
    return info.value


def test_invalid_utf8_after_a_bom_is_reported_where_it_is(loader: kgsvc.KG, tmp_path: Path) -> None:
    bad = b'<http://ex/a> <http://ex/p> "x\xff" .\n'
    error = _error(loader, tmp_path / "bad.nt", BOM + TRIPLE + bad)
    # where the bad byte is (before the fix: line 1 column 1, "not a valid subject")
    assert (error.line, error.column) == (2, bad.index(b"\xff") + 1) == (2, 31)
    assert "UTF-8" in error.reason and "(line" not in error.reason


@pytest.mark.parametrize(
    ("name", "content", "position"),
    [
        # a 2-line file whose second statement lacks its dot: pyoxigraph says line 3 column 1 (past the end)
        ("truncated.nt", TRIPLE + b"<http://ex/a> <http://ex/p> <http://ex/c>\n", (2, 42)),
        ("truncated.ttl", b"@prefix ex: <http://ex/> .\nex:a ex:p ex:b\n\n", (2, 15)),
        # no final line break: pyoxigraph's own position is right and is kept
        ("cut.ttl", b"@prefix ex: <http://ex/> .\nex:a ex:p ex:b", (2, 15)),
    ],
)
def test_a_truncated_file_is_reported_at_its_last_line(
    loader: kgsvc.KG, tmp_path: Path, name: str, content: bytes, position: tuple[int, int]
) -> None:
    error = _error(loader, tmp_path / name, content)
    assert (error.line, error.column) == position, str(error)
    assert str(error).startswith(f"{tmp_path / name}:{position[0]}:{position[1]}: ")
