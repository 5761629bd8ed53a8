"""The language-model interface of the question path, output validation, and a scripted test double.

Every backend (``kgsvc.llm.local`` for transformers, ``kgsvc.llm.remote`` for OpenAI-compatible servers)
implements :class:`LLM`. Its three calls are the structured outputs the question path needs (DESIGN §5, §7):

- :meth:`LLM.choose` picks one of a closed set of options. This is GraphRAFT's grounded constrained
  decoding (Clemedtson & Shi, arXiv 2504.05478, §4.2, Eq. 2): the decoded text is forced to be exactly one
  of the candidates, so a choice is grounded by construction.
- :meth:`LLM.generate_json` forces the output to a JSON schema (a pydantic model or a JSON-schema dict).
- :meth:`LLM.generate` is free text, optionally constrained by a regular expression or cut at a stop string.

Constraints can be silently ignored (an OpenAI-compatible server without guided decoding, outlines with
llama.cpp but no ``numba``: DESIGN §10), so every backend **validates every output** with the functions
here and raises :class:`~kgsvc.errors.LLMError`, carrying the raw text, when it does not fit.
Bad arguments (no options, duplicate options, an invalid regex or schema) raise ``ValueError`` before any
model call.

:func:`open_llm` builds the backend chosen by ``Settings.llm_backend``; heavy imports (torch, transformers,
outlines) happen only there.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import jsonschema
from pydantic import BaseModel, ValidationError

from kgsvc.errors import LLMError

if TYPE_CHECKING:
    from kgsvc.settings import Settings

__all__ = [
    "LLM",
    "JsonSchema",
    "ScriptedLLM",
    "check_generate_args",
    "check_options",
    "check_regex",
    "check_schema",
    "open_llm",
    "schema_dict",
    "validate_choice",
    "validate_json",
    "validate_text",
]

JsonSchema = type[BaseModel] | dict[str, Any]
"""What :meth:`LLM.generate_json` accepts: a pydantic model class or a JSON-schema dict."""


@runtime_checkable
class LLM(Protocol):
    """A language model with constrained outputs. Implementations are thread-safe.

    Every method raises :class:`~kgsvc.errors.LLMError` (with ``raw`` set to the model's text when there is
    one) if the model fails or its output does not satisfy the constraint, and ``ValueError`` for bad
    arguments. Decoding is deterministic (greedy) where the backend allows it.
    """

    name: str
    """The model's name, for logs and results (a folder name or the server-side model id)."""

    def choose(self, prompt: str, options: Sequence[str]) -> int:
        """Return the index in ``options`` of the option the model picks.

        Decoding is constrained to the options' exact texts (GraphRAFT Eq. 2). ``options`` must be non-empty
        and free of duplicates. The prompt should list the options; the backend does not add them.
        """
        ...

    def generate_json(self, prompt: str, schema: JsonSchema, *, max_tokens: int = 256) -> Any:
        """Return an object matching ``schema``.

        For a pydantic model class the result is an instance of it; for a JSON-schema dict it is the parsed
        JSON value (``dict``/``list``/scalar), validated with ``jsonschema``. Output cut by ``max_tokens``
        before the JSON is complete raises :class:`~kgsvc.errors.LLMError`; bound string lengths in the schema
        (``maxLength``) to keep weak models from rambling.
        """
        ...

    def generate(self, prompt: str, *, max_tokens: int = 128, regex: str | None = None, stop: str | None = None) -> str:
        """Return generated text (at most ``max_tokens`` tokens, cut before ``stop`` if it occurs).

        With ``regex`` the whole returned text fully matches it (``re.fullmatch``); ``regex`` and ``stop``
        are exclusive. Without ``regex`` an output cut by ``max_tokens`` is returned as is.
        """
        ...


# --------------------------------------------------------------------------- argument checks


def check_options(options: Sequence[str]) -> list[str]:
    """Return ``options`` as a list; raise ``ValueError`` if empty, not strings, or duplicated."""
    if isinstance(options, str):
        raise ValueError("options must be a sequence of strings, not one string")
    items = list(options)
    if not items:
        raise ValueError("options must not be empty")
    if not all(isinstance(item, str) and item for item in items):
        raise ValueError("every option must be a non-empty string")
    if len(set(items)) != len(items):
        raise ValueError("options must be distinct")
    return items


def check_regex(regex: str) -> re.Pattern[str]:
    """Compile ``regex``; raise ``ValueError`` if it is not a valid Python regular expression."""
    try:
        return re.compile(regex)
    except re.error as error:
        raise ValueError(f"invalid regex {regex!r}: {error}") from error


def check_generate_args(max_tokens: int, regex: str | None, stop: str | None) -> None:
    """Raise ``ValueError`` for bad :meth:`LLM.generate` arguments.

    ``max_tokens`` must be at least 1, ``regex`` must compile, ``stop`` must be non-empty, and ``regex`` and
    ``stop`` are exclusive (a regex already says where the text ends).
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    if regex is not None and stop is not None:
        raise ValueError("give regex or stop, not both: a regex already says where the text ends")
    if regex is not None:
        check_regex(regex)
    if stop is not None and not stop:
        raise ValueError("stop must be a non-empty string")


def schema_dict(schema: JsonSchema) -> dict[str, Any]:
    """The JSON schema as a dict (``model_json_schema()`` for a pydantic model class)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, dict):
        return schema
    raise ValueError(f"schema must be a pydantic model class or a JSON-schema dict, not {type(schema).__name__}")


def check_schema(schema: JsonSchema) -> dict[str, Any]:
    """Return :func:`schema_dict` of ``schema``; raise ``ValueError`` if it is not a valid JSON schema."""
    as_dict = schema_dict(schema)
    try:
        jsonschema.validators.validator_for(as_dict).check_schema(as_dict)
    except jsonschema.SchemaError as error:
        raise ValueError(f"invalid JSON schema: {error.message}") from error
    return as_dict


# --------------------------------------------------------------------------- output validation


def validate_choice(raw: str, options: Sequence[str]) -> int:
    """Index of ``raw`` in ``options``; raise :class:`LLMError` if it is not exactly one of them.

    Surrounding whitespace is ignored (chat models often append a newline).
    """
    text = raw.strip()
    for index, option in enumerate(options):
        if text == option.strip():
            return index
    raise LLMError(f"the model's choice is not one of the {len(options)} options", raw=raw)


def validate_json(raw: str, schema: JsonSchema) -> Any:
    """Parse ``raw`` as JSON and validate it against ``schema``; raise :class:`LLMError` if either fails."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise LLMError(f"the model's output is not JSON: {error}", raw=raw) from error
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        try:
            return schema.model_validate(value)
        except ValidationError as error:
            raise LLMError(f"the model's JSON does not match {schema.__name__}: {error}", raw=raw) from error
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as error:
        raise LLMError(f"the model's JSON does not match the schema: {error.message}", raw=raw) from error
    return value


def validate_text(raw: str, *, regex: str | None = None, stop: str | None = None) -> str:
    """Cut ``raw`` before ``stop``, then check it fully matches ``regex``; raise :class:`LLMError` if not."""
    text = raw
    if stop:
        text = text.split(stop, 1)[0]
    if regex is not None and check_regex(regex).fullmatch(text) is None:
        raise LLMError(f"the model's output does not match the regex {regex!r}", raw=raw)
    return text


# --------------------------------------------------------------------------- test double


class ScriptedLLM:
    """A deterministic :class:`LLM` for tests: returns scripted raw texts, validated like a real backend.

    Each call consumes the next scripted text and validates it against that call's constraint, so a
    script that does not fit raises :class:`LLMError` exactly as a misbehaving model would. For
    :meth:`choose` the script holds the option text. ``calls`` records ``(method, prompt)`` pairs.
    An exhausted script raises :class:`LLMError`.

    Examples
    --------
    >>> llm = ScriptedLLM(["Paris", '{"city": "Paris"}'])
    >>> llm.choose("Capital of France?", ["Berlin", "Paris"])
    1
    >>> llm.generate_json("As JSON", {"type": "object", "required": ["city"]})
    {'city': 'Paris'}
    """

    def __init__(self, answers: Iterable[str], *, name: str = "scripted") -> None:
        self.name = name
        self._answers = list(answers)
        self._lock = threading.Lock()
        self.calls: list[tuple[str, str]] = []

    def _next(self, method: str, prompt: str) -> str:
        with self._lock:
            self.calls.append((method, prompt))
            if not self._answers:
                raise LLMError(f"ScriptedLLM has no scripted answer left for {method}()")
            return self._answers.pop(0)

    def choose(self, prompt: str, options: Sequence[str]) -> int:
        items = check_options(options)
        return validate_choice(self._next("choose", prompt), items)

    def generate_json(self, prompt: str, schema: JsonSchema, *, max_tokens: int = 256) -> Any:
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        check_schema(schema)
        return validate_json(self._next("generate_json", prompt), schema)

    def generate(self, prompt: str, *, max_tokens: int = 128, regex: str | None = None, stop: str | None = None) -> str:
        check_generate_args(max_tokens, regex, stop)
        return validate_text(self._next("generate", prompt), regex=regex, stop=stop)


# --------------------------------------------------------------------------- factory


def open_llm(settings: Settings) -> LLM | None:
    """Build the backend named by ``settings.llm_backend``; ``None`` for ``"none"``.

    ``"transformers"`` loads ``settings.llm_model`` (a transformers model folder) or, unset, the bundled
    SmolLM2-135M-Instruct converted once under ``settings.models_dir`` (see :mod:`kgsvc.llm.local`).
    ``"openai"`` talks to the OpenAI-compatible server at ``settings.llm_base_url`` (see
    :mod:`kgsvc.llm.remote`). Raises :class:`LLMError` if the model cannot be loaded or reached.
    """
    backend = settings.llm_backend
    if backend == "none":
        return None
    if backend == "transformers":
        from kgsvc.llm.local import TransformersLLM

        return TransformersLLM.open(settings)
    if backend == "openai":
        from kgsvc.llm.remote import OpenAILLM

        return OpenAILLM.open(settings)
    raise ValueError(f"unknown llm_backend {backend!r}")
