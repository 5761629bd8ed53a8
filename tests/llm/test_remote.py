"""The OpenAI-compatible backend against a real HTTP server on localhost (tests/llm/openai_server.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, Field

from kgsvc.errors import LLMError
from kgsvc.llm import open_llm
from kgsvc.llm.local import TransformersLLM
from kgsvc.llm.remote import OpenAILLM
from tests.conftest import free_port

from .conftest import Converted
from .openai_server import create_app, serve

pytestmark = pytest.mark.slow


class Answer(BaseModel):
    answer: str = Field(max_length=20)
    confident: bool


@pytest.fixture(scope="module")
def server(smollm: TransformersLLM) -> Iterator[str]:
    with serve(create_app(smollm), free_port()) as url:
        yield url


@pytest.fixture(scope="module")
def lax_server(smollm: TransformersLLM) -> Iterator[str]:
    """A server that ignores every constraint, like one without guided decoding."""
    with serve(create_app(smollm, honour_constraints=False), free_port()) as url:
        yield url


@pytest.fixture
def remote(server: str, smollm: TransformersLLM) -> Iterator[OpenAILLM]:
    with OpenAILLM(server, smollm.name) as llm:
        yield llm


def test_choose_json_and_regex_through_the_server(remote: OpenAILLM, smollm: TransformersLLM) -> None:
    options = ["directed by", "written by", "starred actors"]
    prompt = "Which relation links a film to its director?"
    index = remote.choose(prompt, options)
    assert index == smollm.choose(prompt, options)  # same model, same greedy constrained decoding
    answer = remote.generate_json("Is Paris in France? Answer as JSON.", Answer)
    assert isinstance(answer, Answer)
    year = remote.generate("In which year did the Second World War end?", regex=r"[12][0-9]{3}", max_tokens=8)
    assert re.fullmatch(r"[12][0-9]{3}", year)


def test_open_llm_builds_the_openai_backend(server: str, converted: Converted, smollm: TransformersLLM) -> None:
    settings = converted.settings.model_copy(
        update={"llm_backend": "openai", "llm_base_url": server, "llm_model": smollm.name}
    )
    llm = open_llm(settings)
    assert isinstance(llm, OpenAILLM)
    try:
        assert llm.choose("Is ice cold? yes or no", ["yes", "no"]) in (0, 1)
    finally:
        llm.close()


def test_a_server_that_ignores_constraints_is_caught(lax_server: str, smollm: TransformersLLM) -> None:
    with OpenAILLM(lax_server, smollm.name) as llm:
        with pytest.raises(LLMError) as info:
            llm.choose("Write one sentence about the sea.", ["qzx-17", "vwk-42", "plm-99"])
        assert info.value.raw  # the unconstrained text is kept for the log
        with pytest.raises(LLMError) as info:
            llm.generate("Write one sentence about the sea.", regex=r"[0-9]{4}", max_tokens=8)
        assert info.value.raw


def test_an_unreachable_server_raises_llm_error() -> None:
    with OpenAILLM(f"http://127.0.0.1:{free_port()}/v1", "nothing", timeout_s=5) as llm:
        with pytest.raises(LLMError, match="failed"):
            llm.generate("hello", max_tokens=2)
