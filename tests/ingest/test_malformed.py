"""Bad input gets a one-line error naming file, line and problem, and the dataset is left exactly as before."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import kgsvc
from kgsvc.errors import IngestError

COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"

CASES = {
    "truncated.ttl": (
        b'@prefix ex: <http://ex/> .\nex:a ex:p ex:b .\nex:c ex:p "unfinished',
        r"truncated\.ttl:3:\d+: ",
    ),
    "bad_iri.nt": (
        b"<http://ex/a> <http://ex/p> <http://ex/b> .\n<http://ex/a> <http://ex/p> <http://bad iri> .\n",
        r"bad_iri\.nt:2:\d+: .*IRI",
    ),
    "columns.tsv": (b"a\tr\tb\nc\tr\n", r"columns\.tsv:2: expected 3 columns \(head, relation, tail\), found 2"),
    "columns.txt": (b"a|r|b\nc|r|d|e\n", r"columns\.txt:2: expected 3 columns"),
    "empty.ttl": (b"", r"empty\.ttl: the file is empty"),
    "blank.nt": (b"\n  \n", r"blank\.nt: the file is empty"),
    "junk.ttl": (bytes(range(256)) * 4, r"junk\.ttl: the file is binary"),
    "latin1.nt": ('<http://ex/a> <http://ex/p> "caf\u00e9" .\n'.encode("latin-1"), r"latin1\.nt.*(UTF-8|utf-8)"),
    "unknown.xyz": (b"<a> <b> <c> .", r"unknown\.xyz: unknown format 'xyz'"),
    "bad.rdf": (b"<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description>", r"bad\.rdf"),
    "bad.jsonld": (b'{"@id": "http://ex/a", "http://ex/p": [', r"bad\.jsonld"),
    "bad.trix": (b"<TriX xmlns='http://www.w3.org/2004/03/trix/trix-1/'><graph><triple>", r"bad\.trix"),
    "emptycell.csv": (b"head,relation,tail\na,r,\n", r"emptycell\.csv:2: empty head"),
}


def _count(kg: kgsvc.KG) -> int:
    return int(kg.sparql(COUNT, dataset="sample").rows[0]["n"].value)


@pytest.mark.parametrize("bulk", [False, True], ids=["transactional", "bulk"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_input_is_rejected_and_changes_nothing(
    sample_kg: kgsvc.KG, tmp_path: Path, name: str, bulk: bool
) -> None:
    content, pattern = CASES[name]
    path = tmp_path / name
    path.write_bytes(content)
    kg = kgsvc.KG(
        sample_kg.settings.model_copy(update={"bulk_threshold_bytes": 0 if bulk else 10**9}),
        sample_kg.store,
        sample_kg.catalog,
    )
    before = _count(kg)
    with pytest.raises(IngestError, match=pattern) as info:
        kg.load(path, dataset="sample")
    assert "\n" not in str(info.value)
    assert _count(kg) == before
    job = kg.jobs(dataset="sample")[0]
    assert job.state == "failed" and name in (job.error or "")


@pytest.mark.parametrize("dataset", ["fresh", "sample"], ids=["into-empty-graph", "into-non-empty-graph"])
@pytest.mark.parametrize(
    ("name", "row", "rows", "bad", "error"),
    [
        # RDF: the store's own bulk parser
        (
            "large.nt.gz",
            "<http://ex/s{i}> <http://ex/p> <http://ex/o{i}> .\n",
            300_000,
            "<http://ex/s> <http://ex/p> oops .\n",
            r"large\.nt\.gz:300001:",
        ),
        # a triple file (~3 MB): mapped block by block and fed to the bulk loader through a pipe
        (
            "large.tsv.gz",
            "entity {i}\trelated_to\tentity {j}\n",
            100_000,
            "entity\tmissing a column\n",
            r"large\.tsv\.gz:100001: expected 3 columns",
        ),
    ],
    ids=["n-triples", "triple-file"],
)
def test_bulk_error_deep_in_a_large_file_leaves_no_partial_load(
    sample_kg: kgsvc.KG, tmp_path: Path, dataset: str, name: str, row: str, rows: int, bad: str, error: str
) -> None:
    good = "".join(row.format(i=i, j=i + 1) for i in range(rows))
    path = tmp_path / name
    path.write_bytes(gzip.compress((good + bad).encode()))
    kg = kgsvc.KG(sample_kg.settings.model_copy(update={"bulk_threshold_bytes": 0}), sample_kg.store, sample_kg.catalog)
    before = {d.name: d.triples for d in kg.datasets()}
    with pytest.raises(IngestError, match=error):
        kg.load(path, dataset=dataset)
    assert kg.store.count(f"urn:kgsvc:dataset:{dataset}") == before.get(dataset, 0)


def test_missing_file_and_bad_dataset_name(kg: kgsvc.KG, tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no such file"):
        kg.load(tmp_path / "nope.ttl", dataset="x")
    with pytest.raises(kgsvc.DatasetError, match="invalid dataset name"):
        kg.load(kgsvc.sample_path(), dataset="bad name")
