"""The local LLM's loader applies ``KGSVC_TORCH_THREADS`` (real subprocess: the count is process-wide)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.llm.conftest import Converted

SCRIPT = """
import sys
import kgsvc
from kgsvc.llm.local import TransformersLLM

with kgsvc.KG.open(sys.argv[1]) as kg:
    TransformersLLM.open(kg.settings)
    import torch

    print(torch.get_num_threads())
"""


def test_loading_the_llm_applies_the_thread_setting(converted: Converted, tmp_path: Path) -> None:
    env = {**os.environ, "KGSVC_TORCH_THREADS": "3", "KGSVC_MODEL_CACHE_DIR": str(converted.settings.models_dir)}
    env.pop("OMP_NUM_THREADS", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "data")], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split()[-1] == "3"
