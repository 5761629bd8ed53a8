"""The public surface is what ``kgsvc.__all__`` lists: sorted, complete, importable (as httpx checks its own)."""

from __future__ import annotations

import kgsvc


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in vars(kgsvc) if not name.startswith("_")} - {"annotations"}
    modules = {name for name in public if type(getattr(kgsvc, name)).__name__ == "module"}
    assert kgsvc.__all__ == sorted(kgsvc.__all__)
    assert set(kgsvc.__all__) == public - modules


def test_every_name_resolves() -> None:
    for name in kgsvc.__all__:
        assert getattr(kgsvc, name) is not None
