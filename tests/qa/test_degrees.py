"""QAGraph.degrees: the CSR degrees read on demand equal np.diff of the snapshot's indptr."""

from __future__ import annotations

import numpy as np
import pytest

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.qa.graph import Degrees


def test_degrees_read_the_indptr() -> None:
    heads, relations, tails = np.array([0, 1, 2, 2]), np.array([0, 0, 1, 1]), np.array([1, 2, 2, 0])
    snapshot = GraphSnapshot.from_triples(heads, relations, tails, n_nodes=4, n_relations=2)
    degrees = Degrees(snapshot.indptr)
    assert list(degrees) == np.diff(snapshot.indptr).tolist() == [2, 2, 3, 0]
    assert len(degrees) == 4 and degrees[-1] == 0 and degrees[1:3] == [2, 3]
    with pytest.raises(IndexError):
        degrees[4]
