"""The OpenAI-compatible backend: vLLM, llama.cpp server, Ollama, or any ``/v1/chat/completions`` server.

Requests go through Outlines' vLLM model (``outlines.from_vllm`` over an ``openai.OpenAI`` client), which
sends each constraint in the request body as ``structured_outputs`` (``{"regex": …}`` or ``{"json": …}``,
vLLM ≥ 0.12). JSON requests also carry the OpenAI ``response_format`` (``{"type": "json_schema", …}``), which
llama.cpp server, Ollama and OpenAI honour. :meth:`OpenAILLM.choose` sends the regex ``opt1|opt2|…`` of the
escaped options, GraphRAFT's grounded constrained decoding (Clemedtson & Shi, arXiv 2504.05478, §4.2).

A server may ignore either field without saying so (DESIGN §10), so **every output is validated** and a
misfit raises :class:`~kgsvc.errors.LLMError` with the raw text. Decoding is requested greedy
(``temperature=0``); whether it is deterministic is up to the server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from kgsvc.settings import Settings

__all__ = ["OpenAILLM"]


class OpenAILLM:
    """An OpenAI-compatible chat-completions server behind the :class:`~kgsvc.llm.base.LLM` interface.

    Parameters
    ----------
    base_url
        The server's API root, ending in ``/v1`` (for example ``http://127.0.0.1:8000/v1``).
    model
        The server-side model id sent with each request.
    api_key
        Sent as a bearer token; local servers ignore it.
    timeout_s
        Seconds per request before :class:`LLMError`.
    """

    def __init__(self, base_url: str, model: str, *, api_key: str = "none", timeout_s: float = 120.0) -> None:
        import openai
        import outlines

        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"llm base URL must start with http:// or https://, not {base_url!r}")
        if not model:
            raise ValueError("an OpenAI-compatible backend needs a model name (KGSVC_LLM_MODEL)")
        self.name = model
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)
        self._model = outlines.from_vllm(self._client, model)

    @classmethod
    def open(cls, settings: Settings) -> OpenAILLM:
        """Build from ``settings.llm_base_url``, ``settings.llm_model`` and ``settings.llm_api_key``."""
        if not settings.llm_base_url:
            raise ValueError("llm_backend 'openai' needs KGSVC_LLM_BASE_URL (for example http://127.0.0.1:8000/v1)")
        return cls(settings.llm_base_url, settings.llm_model or "", api_key=settings.llm_api_key)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> OpenAILLM:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _run(self, prompt: str, output_type: Any, max_tokens: int, **kwargs: Any) -> str:
        import openai

        if not isinstance(prompt, str):
            raise ValueError("prompt must be a string")
        try:
            result = self._model.generate(prompt, output_type, max_tokens=max_tokens, temperature=0, **kwargs)
        except (openai.OpenAIError, OSError) as error:
            raise LLMError(f"the LLM server failed for model {self.name!r}: {error}") from error
        except Exception as error:  # outlines re-raises provider errors as its own exception types
            raise LLMError(f"the LLM server failed for model {self.name!r}: {error}") from error
        if not isinstance(result, str):
            raise LLMError(f"the LLM server returned no text for model {self.name!r}", raw=repr(result))
        return result

    def choose(self, prompt: str, options: Sequence[str]) -> int:
        """Index of the option the server returns under the regex constraint; validated.

        See :meth:`kgsvc.llm.base.LLM.choose`.
        """
        import outlines

        items = check_options(options)
        pattern = "|".join(re.escape(item) for item in items)
        raw = self._run(prompt, outlines.types.regex(pattern), max(len(item) for item in items) + 8)
        return validate_choice(raw, items)

    def generate_json(self, prompt: str, schema: JsonSchema, *, max_tokens: int = 256) -> Any:
        """JSON requested with ``structured_outputs`` and ``response_format``; parsed and validated.

        See :meth:`kgsvc.llm.base.LLM.generate_json`.
        """
        import outlines

        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        as_dict = check_schema(schema)
        response_format = {"type": "json_schema", "json_schema": {"name": "output", "schema": as_dict}}
        raw = self._run(
            prompt, outlines.types.JsonSchema(json.dumps(as_dict)), max_tokens, response_format=response_format
        )
        return validate_json(raw, schema)

    def generate(self, prompt: str, *, max_tokens: int = 128, regex: str | None = None, stop: str | None = None) -> str:
        """Text, constrained by ``regex`` (validated) or cut at ``stop``; see :meth:`kgsvc.llm.base.LLM.generate`."""
        import outlines

        check_generate_args(max_tokens, regex, stop)
        output_type = None if regex is None else outlines.types.regex(regex)
        extra = {} if stop is None else {"stop": [stop]}
        raw = self._run(prompt, output_type, max_tokens, **extra)
        return validate_text(raw, regex=regex, stop=stop)
