"""The local backend: a transformers causal LM on CPU with Outlines-constrained greedy decoding.

Outlines (``outlines.from_transformers`` + ``outlines.Generator``) turns each constraint into a logits
processor that masks every token that would leave the constraint, GraphRAFT's grounded constrained decoding
(Clemedtson & Shi, arXiv 2504.05478, §4.2, Eq. 2): :meth:`TransformersLLM.choose` compiles the options to
the regex ``opt1|opt2|…`` (each escaped), so the decoded text can only be one of them;
:meth:`TransformersLLM.generate_json` compiles the JSON schema; :meth:`TransformersLLM.generate` an optional
regex. Where GraphRAFT beam-searches the top-m candidates, this backend decodes greedily (one choice, no
beam rows to reorder, DESIGN §10). Every output is still validated (:mod:`kgsvc.llm.base`).

Prompts go through the tokenizer's chat template (Outlines applies it to a plain string prompt). One lock
serialises generation, so a model may be shared by threads.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgsvc import torch_threads
from kgsvc.errors import LLMError
from kgsvc.llm.base import (
    JsonSchema,
    check_generate_args,
    check_options,
    check_schema,
    validate_choice,
    validate_json,
    validate_text,
)
from kgsvc.llm.convert import MANIFEST, bundled_gguf, ensure_converted, is_complete

if TYPE_CHECKING:
    from kgsvc.settings import Settings

__all__ = ["JSON_LAYOUT", "TransformersLLM"]

JSON_LAYOUT = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}
"""llguidance JSON options (``x-guidance``): no free whitespace, so a weak model cannot spend its token budget
on newlines; one space after ``,`` and ``:`` as in ``json.dumps``."""


class TransformersLLM:
    """A transformers causal LM behind the :class:`~kgsvc.llm.base.LLM` interface (greedy, CPU, deterministic).

    Build it with :meth:`open` (from settings) or :meth:`load` (a model folder). ``load_seconds`` is the time
    the model and tokenizer took to load; ``convert_seconds`` the time spent converting the GGUF (0 when the
    converted folder was reused).
    """

    def __init__(self, model: Any, tokenizer: Any, *, name: str) -> None:
        import outlines

        self.name = name
        self.load_seconds = 0.0
        self.convert_seconds = 0.0
        self._hf_tokenizer = tokenizer
        self._model = outlines.from_transformers(model, tokenizer)
        self._lock = threading.Lock()
        self._grammar: Any = None

    @classmethod
    def load(cls, path: Path | str) -> TransformersLLM:
        """Load a transformers model folder (config, safetensors weights, tokenizer) on CPU in eval mode.

        Raises :class:`LLMError` if the folder cannot be loaded.
        """
        from transformers import AutoModelForCausalLM, AutoTokenizer

        folder = Path(path)
        started = time.perf_counter()
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder)
            model = AutoModelForCausalLM.from_pretrained(folder, device_map=None)
        except Exception as error:  # OSError, ValueError, safetensors errors, ...
            raise LLMError(f"could not load the LLM from {folder}: {error}") from error
        model.eval()  # type: ignore[no-untyped-call]
        torch_threads.apply()
        llm = cls(model, tokenizer, name=folder.name)
        llm.load_seconds = time.perf_counter() - started
        return llm

    @classmethod
    def open(cls, settings: Settings) -> TransformersLLM:
        """The model of ``settings.llm_model`` (a folder), or the bundled SmolLM2 converted under ``models_dir``.

        A converted folder that fails to load is rebuilt once from the GGUF.
        """
        if settings.llm_model:
            return cls.load(settings.llm_model)
        source = bundled_gguf()
        target = settings.models_dir / source.stem
        converted = 0.0
        if not is_complete(target, source):
            started = time.perf_counter()
            ensure_converted(source, settings.models_dir)
            converted = time.perf_counter() - started
        try:
            llm = cls.load(target)
        except LLMError:
            (target / MANIFEST).unlink(missing_ok=True)  # marks it incomplete: rebuilt below
            started = time.perf_counter()
            ensure_converted(source, settings.models_dir)
            converted += time.perf_counter() - started
            llm = cls.load(target)
        llm.convert_seconds = converted
        return llm

    # ----------------------------------------------------------------------- generation

    def _processor(self, kind: str, spec: str) -> Any:
        """A fresh logits processor for a ``"regex"`` or ``"json"`` constraint (call under the lock)."""
        if self._grammar is None:  # builds llguidance's token trie once per model (seconds), not per call
            from outlines.backends.llguidance import LLGuidanceBackend

            self._grammar = LLGuidanceBackend(self._model)
        if kind == "regex":
            return self._grammar.get_regex_logits_processor(spec)
        return self._grammar.get_json_schema_logits_processor(spec)

    def _run(self, prompt: str, constraint: tuple[str, str] | None, max_new_tokens: int, **kwargs: Any) -> str:
        import outlines

        if not isinstance(prompt, str):
            raise ValueError("prompt must be a string")
        with self._lock:
            try:
                processor = None if constraint is None else self._processor(*constraint)
                generator = outlines.Generator(self._model, processor=processor)
                result = generator(prompt, max_new_tokens=max_new_tokens, do_sample=False, num_beams=1, **kwargs)
            except Exception as error:  # torch / outlines / llguidance failures
                raise LLMError(f"{self.name} failed to generate: {error}") from error
        return str(result)

    def _token_count(self, text: str) -> int:
        return len(self._hf_tokenizer.encode(text, add_special_tokens=False))

    def choose(self, prompt: str, options: Sequence[str]) -> int:
        """Index of the option decoded under the constraint ``re.escape(o1)|re.escape(o2)|…``.

        See :meth:`kgsvc.llm.base.LLM.choose`. Raises :class:`LLMError` if the output is not an option.
        """
        items = check_options(options)
        pattern = "|".join(re.escape(item) for item in items)
        budget = max(self._token_count(item) for item in items) + 2
        raw = self._run(prompt, ("regex", pattern), budget)
        return validate_choice(raw, items)

    def generate_json(self, prompt: str, schema: JsonSchema, *, max_tokens: int = 256) -> Any:
        """JSON decoded under ``schema`` in the fixed layout :data:`JSON_LAYOUT`, parsed and validated.

        See :meth:`kgsvc.llm.base.LLM.generate_json`.
        """
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        as_dict = check_schema(schema)
        compact = {**as_dict, "x-guidance": JSON_LAYOUT}
        raw = self._run(prompt, ("json", json.dumps(compact)), max_tokens)
        return validate_json(raw, schema)

    def generate(self, prompt: str, *, max_tokens: int = 128, regex: str | None = None, stop: str | None = None) -> str:
        """Greedy text, constrained by ``regex`` or stopped at ``stop``. See :meth:`kgsvc.llm.base.LLM.generate`."""
        check_generate_args(max_tokens, regex, stop)
        if regex is not None:
            raw = self._run(prompt, ("regex", regex), max_tokens)
        elif stop is not None:
            raw = self._run(prompt, None, max_tokens, stop_strings=[stop], tokenizer=self._hf_tokenizer)
        else:
            raw = self._run(prompt, None, max_tokens)
        return validate_text(raw, regex=regex, stop=stop)
