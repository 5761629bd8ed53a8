"""Every form of SPARQL update gives a dataset-changed event for each dataset it changed, and the index follows.

Real embedded KG (pyoxigraph on disk, SQLite catalog, in-process index builds with the real embedding model).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import kgsvc
from kgsvc.errors import DatasetError
from kgsvc.settings import Settings

EX = "http://example.org/"
D1, D2 = "<urn:kgsvc:dataset:d1>", "<urn:kgsvc:dataset:d2>"


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    data = tmp_path_factory.mktemp("updates")
    with kgsvc.KG.open(settings=Settings(data_dir=data / "data", auto_index=True)) as handle:
        yield handle


@pytest.fixture
def two(kg: kgsvc.KG, tmp_path: Path) -> kgsvc.KG:
    """Datasets d1 (three triples) and d2 (two triples), freshly loaded and indexed."""
    for name in ("d1", "d2"):
        if kg.catalog.exists(name):
            kg.drop(name)
    (tmp_path / "d1.ttl").write_text(
        f'<{EX}a> <{EX}knows> <{EX}b> . <{EX}b> <{EX}knows> <{EX}c> . <{EX}a> <{EX}name> "Alice" .\n'
    )
    (tmp_path / "d2.ttl").write_text(f'<{EX}x> <{EX}likes> <{EX}y> . <{EX}y> <{EX}name> "Yves" .\n')
    kg.load(tmp_path / "d1.ttl", dataset="d1")
    kg.load(tmp_path / "d2.ttl", dataset="d2")
    kg.wait()
    return kg


def _state(kg: kgsvc.KG) -> dict[str, tuple[int, int]]:
    return {d.name: (d.triples, d.store_version) for d in kg.datasets()}


def _store_count(kg: kgsvc.KG, name: str) -> int:
    return int(kg.sparql("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", dataset=name).rows[0]["n"].value)


def _check_followed(kg: kgsvc.KG, names: list[str]) -> None:
    """Catalog counts equal the store, and after the builds each dataset's index holds its stored triples."""
    kg.wait()
    for name in names:
        info = kg.catalog.get(name)
        assert info.triples == _store_count(kg, name)
        current = kg.catalog.current_index_version(name)
        assert current is not None and current.store_version == info.store_version
        if info.triples:
            index = kg.index(name)
            assert len(index.snapshot.triple_heads) == info.triples


UPDATES = {
    "graph variable in DELETE WHERE": (f"DELETE WHERE {{ GRAPH ?g {{ ?s <{EX}name> ?o }} }}", ["d1", "d2"]),
    "DROP ALL": ("DROP ALL", ["d1", "d2"]),
    "prefixed graph name": (
        f"PREFIX ds: <urn:kgsvc:dataset:> INSERT DATA {{ GRAPH ds:d1 {{ <{EX}c> <{EX}knows> <{EX}a> }} }}",
        ["d1"],
    ),
    "no GRAPH: the store's default graph": (f"INSERT DATA {{ <{EX}q> <{EX}r> <{EX}s> }}", []),
    "same count, other data (WITH)": (
        f'WITH {D1} DELETE {{ ?s <{EX}name> ?o }} INSERT {{ ?s <{EX}name> "Alicia" }} WHERE {{ ?s <{EX}name> ?o }}',
        ["d1"],
    ),
    "COPY": (f"COPY {D1} TO {D2}", ["d2"]),
    "MOVE": (f"MOVE {D1} TO GRAPH {D2}", ["d1", "d2"]),
    "CLEAR GRAPH": (f"CLEAR GRAPH {D2}", ["d2"]),
    "DELETE DATA of nothing": (f"DELETE DATA {{ GRAPH {D1} {{ <{EX}no> <{EX}such> <{EX}triple> }} }}", []),
    # INSERT DATA / DELETE DATA are counted on their own quads, not on the graphs (issue 23): every case of them
    "INSERT DATA of a stored triple": (f'INSERT DATA {{ GRAPH {D1} {{ <{EX}a> <{EX}name> "Alice" }} }}', []),
    "INSERT DATA partly stored, a triple twice": (
        f'INSERT DATA {{ GRAPH {D1} {{ <{EX}a> <{EX}name> "Alice" . <{EX}a> <{EX}name> "Al"@en . '
        f'<{EX}a> <{EX}name> "Al"@en }} }}',
        ["d1"],
    ),
    "DELETE DATA partly stored": (
        f'DELETE DATA {{ GRAPH {D1} {{ <{EX}a> <{EX}name> "Alice" . <{EX}a> <{EX}name> "Bob" }} }}',
        ["d1"],
    ),
    "INSERT DATA into two datasets": (
        f"INSERT DATA {{ GRAPH {D1} {{ <{EX}c> <{EX}knows> <{EX}a> }} GRAPH {D2} {{ <{EX}x> <{EX}likes> <{EX}y> }} }}",
        ["d1"],
    ),
    # 1,500 quads written short (PREFIX, commas: ~400 operators) are ~4,500 written out in full, more than one query
    # may hold (KGSVC_SPARQL_MAX_OPERATORS, 1,000): counted in batches (W3C syntax-update-other-01 is such an update)
    "INSERT DATA larger than one counting query": (
        f"PREFIX e: <{EX}> INSERT DATA {{ GRAPH {D1} {{ e:a e:n " + ", ".join(map(str, range(1500))) + " } }",
        ["d1"],
    ),
    # 30 brackets in a literal: the update nests 32 deep (the limit), a counting query's VALUES row 33: the graphs
    # are counted instead
    "INSERT DATA of a literal full of brackets": (
        f'INSERT DATA {{ GRAPH {D1} {{ <{EX}a> <{EX}note> "{"(" * 30}" }} }}',
        ["d1"],
    ),
    "INSERT DATA with a blank node": (f"INSERT DATA {{ GRAPH {D2} {{ _:n <{EX}likes> <{EX}y> }} }}", ["d2"]),
    "two operations": (
        f"INSERT DATA {{ GRAPH {D2} {{ <{EX}x> <{EX}likes> <{EX}z> }} }} ; CLEAR SILENT GRAPH {D1}",
        ["d1", "d2"],
    ),
}


@pytest.mark.parametrize("form", list(UPDATES))
def test_update_form_reports_exactly_the_changed_datasets(two: kgsvc.KG, form: str) -> None:
    update, expected = UPDATES[form]
    before = _state(two)
    changed = two.update(update)
    assert changed == expected
    after = _state(two)
    for name in ("d1", "d2"):
        assert after[name][0] == _store_count(two, name), name
        assert after[name][1] == before[name][1] + (name in expected), name
    _check_followed(two, expected)


def test_update_of_an_unknown_dataset_graph_is_refused_and_writes_nothing(two: kgsvc.KG) -> None:
    before = _state(two)
    with pytest.raises(DatasetError, match="unknown dataset 'ghost'"):
        two.update(
            f"INSERT DATA {{ GRAPH {D1} {{ <{EX}n> <{EX}p> 1 }} "
            f"GRAPH <urn:kgsvc:dataset:ghost> {{ <{EX}n> <{EX}p> 1 }} }}"
        )
    assert _state(two) == before
    assert "urn:kgsvc:dataset:ghost" not in two.store.graphs()


def test_variable_graph_writes_leave_no_graph_of_a_missing_dataset(two: kgsvc.KG) -> None:
    changed = two.update(
        f"INSERT {{ GRAPH ?g {{ <{EX}n> <{EX}p> 1 }} }} WHERE {{ VALUES ?g {{ <urn:kgsvc:dataset:ghost> {D2} }} }}"
    )
    assert changed == ["d2"]
    assert "urn:kgsvc:dataset:ghost" not in two.store.graphs()
    assert not two.catalog.exists("ghost")
