"""QAGraph.times read per distinct label text and per typed literal (issue 23: one pass per node made the first
"when" question on a new version of a 342k-node graph 3.5 s slower) equals QAGraph.is_time node by node, and
StringTable.rows_containing finds a byte string in every window of the blob, never across two strings."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.index.strings import StringTable, TextLabels
from kgsvc.qa.graph import QAGraph

TERMS = [
    "<http://x/a>",
    "<http://x/1999>",
    '"1956-02-19"^^<http://www.w3.org/2001/XMLSchema#date>',
    '"2001"^^<http://www.w3.org/2001/XMLSchema#gYear>',
    '"12:30:00"^^<http://www.w3.org/2001/XMLSchema#time>',
    '"42"^^<http://www.w3.org/2001/XMLSchema#integer>',
    '"a ^^< b"',
    '"x"@en',
    '"ends with ^^"',
    "<starts>",
    "_:b1",
]
LABELS = [
    *("a", "1999", " 1956-02-19 ", "2001", "noon", "42", "2003-05", "x", "ends", "1999-01-01T10:00Z", "b", ""),
    *("\xa01999", "\u0662\u0660\u0660\u0663", "\t2001-02\n", "\x1c1999", "é1999", "19999", "(1999)", "1999 ~2"),
]


def _graph(rng: random.Random, n: int, *, tables: bool) -> QAGraph:
    terms = [rng.choice(TERMS) for _ in range(n)]
    texts = sorted(set(LABELS))
    text_ids = np.array([rng.randrange(len(texts)) for _ in range(n)], dtype=np.int32)
    heads = np.arange(n) % max(n, 1)
    snapshot = GraphSnapshot.from_triples(
        heads, np.zeros(n, dtype=np.int64), heads[::-1].copy(), n_nodes=n, n_relations=1
    )
    labels = TextLabels(StringTable.from_strings(texts), text_ids)
    return QAGraph(
        snapshot=snapshot,
        node_terms=StringTable.from_strings(terms) if tables else terms,
        node_labels=labels if tables else list(labels),
        relation_terms=["<http://x/r>"],
        relation_labels=["r"],
        embed=lambda texts: np.zeros((len(texts), 384), np.float32),
    )


@pytest.mark.parametrize("tables", [True, False])
@pytest.mark.parametrize("seed", range(20))
def test_times_equal_is_time_node_by_node(seed: int, tables: bool) -> None:
    graph = _graph(random.Random(seed), 8 + seed * 7, tables=tables)
    expected = frozenset(n for n in range(graph.snapshot.n_nodes) if graph.is_time(n))
    assert graph.times() == expected
    assert expected  # the labels and literals above hold times


@pytest.mark.parametrize("window", [1, 2, 3, 5, 64, 1 << 24])
def test_rows_containing_finds_the_needle_in_every_window_and_not_across_strings(window: int) -> None:
    strings = ['"a"^^<d>', "^^", "<x", "", "é^^<", "^^<", "plain", "x^^<y^^<z", "^", "^<"]
    table = StringTable.from_strings(strings)
    expected = [i for i, s in enumerate(strings) if "^^<" in s]
    assert table.rows_containing(b"^^<", window=window).tolist() == expected
    assert table.rows_containing(b"", window=window).tolist() == list(range(len(strings)))
    assert StringTable.from_strings([]).rows_containing(b"^^<").tolist() == []


def test_time_labels_of_a_string_table_read_every_label_that_can_open_a_time() -> None:
    """Only texts whose first byte cannot open a time label are skipped: white space (ASCII or not) and another
    script's digits are read like a plain year."""
    texts = sorted(set(LABELS))
    graph = QAGraph(
        snapshot=GraphSnapshot.from_triples(
            np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), n_nodes=len(texts), n_relations=1
        ),
        node_terms=StringTable.from_strings([f"<http://x/{i}>" for i in range(len(texts))]),
        node_labels=TextLabels(StringTable.from_strings(texts), np.arange(len(texts), dtype=np.int32)),
        relation_terms=["<http://x/r>"],
        relation_labels=["r"],
        embed=lambda texts: np.zeros((len(texts), 384), np.float32),
    )
    found = {texts[n] for n in graph.times()}
    assert {"\xa01999", "\u0662\u0660\u0660\u0663", "\t2001-02\n", "\x1c1999", " 1956-02-19 ", "1999"} <= found
    assert not found & {"é1999", "19999", "(1999)", "1999 ~2", "", "noon"}
