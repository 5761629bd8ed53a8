"""The public surface is what ``kgsvc.__all__`` lists: sorted, complete, importable (as httpx checks its own)."""

from __future__ import annotations

import inspect

import pydantic

import kgsvc


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in vars(kgsvc) if not name.startswith("_")} - {"annotations"}
    modules = {name for name in public if type(getattr(kgsvc, name)).__name__ == "module"}
    assert kgsvc.__all__ == sorted(kgsvc.__all__)
    assert set(kgsvc.__all__) == public - modules


def test_every_name_is_a_documented_kgsvc_class_or_function() -> None:
    for name in kgsvc.__all__:
        obj = getattr(kgsvc, name)
        assert inspect.isclass(obj) or inspect.isfunction(obj), name
        assert obj.__name__ == name and obj.__module__.startswith("kgsvc."), (name, obj.__module__)
        assert inspect.getdoc(obj), f"kgsvc.{name} has no docstring"


def test_the_exceptions_and_the_results_are_what_they_say() -> None:
    errors = [getattr(kgsvc, n) for n in kgsvc.__all__ if n.endswith(("Error", "Error_"))]
    assert len(errors) == 10 and all(issubclass(e, kgsvc.KgsvcError) for e in errors)
    assert issubclass(kgsvc.QueryError, kgsvc.StoreError)
    results = (kgsvc.DatasetInfo, kgsvc.DatasetStats, kgsvc.JobInfo, kgsvc.LoadResult, kgsvc.SparqlResult)
    assert all(issubclass(r, pydantic.BaseModel) for r in results)
    assert kgsvc.sample_path().is_file() and kgsvc.sample_questions()
