"""Fixtures of the LLM tests: the bundled SmolLM2 converted once per session, and the model loaded from it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgsvc.llm.convert import bundled_gguf, ensure_converted
from kgsvc.llm.local import TransformersLLM
from kgsvc.settings import Settings


@dataclass(frozen=True)
class Converted:
    settings: Settings
    folder: Path
    seconds: float


@pytest.fixture(scope="session")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Converted:
    """The bundled GGUF converted to safetensors (in the shared test model cache, KGSVC_MODEL_CACHE_DIR).

    Only the first session on a machine pays the conversion; ``test_convert.py`` measures one in a private dir.
    """
    settings = Settings(data_dir=tmp_path_factory.mktemp("llm-data"))
    started = time.perf_counter()
    folder = ensure_converted(bundled_gguf(), settings.models_dir)
    return Converted(settings, folder, time.perf_counter() - started)


@pytest.fixture(scope="session")
def smollm(converted: Converted) -> TransformersLLM:
    """The bundled SmolLM2-135M-Instruct, loaded from the converted folder."""
    return TransformersLLM.open(converted.settings)
