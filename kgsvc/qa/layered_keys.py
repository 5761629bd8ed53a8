"""A key → node-list table kept as an immutable base plus a small delta, for the entity linker's label index.

An index version patched from the previous one renumbers its nodes (ids are dense and sorted by term, so one new
node shifts every later id). Instead of re-walking every label, the linker's label index of the new version keeps
the base tables (keyed by folded label, listing base node ids) and reads them through ``to_current`` (base id →
this version's id, ``-1`` for a node gone or re-indexed in the delta); the nodes whose label changed or that are
new are indexed in a small ``delta`` table with this version's ids. :class:`LayeredLists` is that view: for every
key, the same ascending list a table built from scratch over this version's labels would hold.

Cost: O(entries of the key) per look-up (one numpy gather), no work at construction.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["LayeredLists"]


def _node(entry: Any) -> int:
    return int(entry[0]) if isinstance(entry, tuple) else int(entry)


class LayeredLists(Mapping[str, list[Any]]):
    """``key -> [node, …]`` (or ``[(node, qualifier), …]`` with ``pairs``), ascending by node: the base's entries
    renumbered by ``to_current`` (entries of dropped nodes left out) merged with the delta's.

    A key whose every entry was dropped is absent (``in`` is false, ``[]`` raises ``KeyError``), as in a table built
    from scratch. Iteration walks the whole base (O(base)); look-ups do not.
    """

    def __init__(
        self,
        base: Mapping[str, list[Any]],
        to_current: npt.NDArray[np.integer[Any]],
        delta: Mapping[str, list[Any]],
        *,
        pairs: bool,
    ) -> None:
        self.base, self.to_current, self.delta, self.pairs = base, to_current, delta, pairs

    def lookup(self, key: str) -> list[Any]:
        """The entries of ``key`` (empty when none)."""
        found: list[Any] = []
        old = self.base.get(key)
        if old:
            ids = self.to_current[[_node(e) for e in old]].tolist()
            if self.pairs:
                found = [(m, q) for m, (_, q) in zip(ids, old, strict=True) if m >= 0]
            else:
                found = [m for m in ids if m >= 0]
        extra = self.delta.get(key)
        if extra:
            found = sorted([*found, *extra], key=_node) if found else list(extra)  # stable: a node's order kept
        return found

    def __getitem__(self, key: str) -> list[Any]:
        found = self.lookup(key)
        if not found:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and bool(self.lookup(key))

    def __iter__(self) -> Iterator[str]:
        for key in self.base:
            if self.lookup(key):
                yield key
        for key in self.delta:
            if key not in self.base:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)
