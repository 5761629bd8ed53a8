"""Type stub of the compiled matcher kernel (``_kernel.pyx``); see that module's docstring."""

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.retrieval.candidates import Candidates
from kgsvc.retrieval.order import MatchingOrder
from kgsvc.retrieval.pattern import Pattern
from kgsvc.retrieval.result import Match

SENTINEL_VALUE: int
REVERSE_MIN: int
ROOT_LOOKAHEAD_MIN: int
SCRATCH_KEEP: int

def free_scratch(n_nodes: int) -> list[npt.NDArray[np.int64]]: ...

class Graph:
    n_nodes: int
    n_relations: int
    def __init__(self, snapshot: GraphSnapshot) -> None: ...

class Search:
    expansions: int
    def __init__(
        self,
        graph: Graph,
        pattern: Pattern,
        candidates: Candidates,
        order: MatchingOrder,
        rem: list[int],
        k: int,
        reuse: bool,
        triple_reuse: bool,
        directed: bool,
        deadline: float | None,
        prune: bool,
        hook: Callable[[dict[int, int], dict[int, int], int], Any] | None,
        root_lookahead_min: int,
        reverse_min: int,
        lookahead: bool,
    ) -> None: ...
    def run(self) -> bool: ...
    def release(self) -> None: ...
    def matches(self) -> tuple[Match, ...]: ...
