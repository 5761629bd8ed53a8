"""The bundled SmolLM2-135M-Instruct end to end through transformers + Outlines (real model, CPU)."""

from __future__ import annotations

import re
import threading

import pytest
from pydantic import BaseModel, Field

from kgsvc.llm import LLM, open_llm
from kgsvc.llm.convert import MANIFEST
from kgsvc.llm.local import TransformersLLM

from .conftest import Converted

pytestmark = pytest.mark.slow

CITIES = ["Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Vienna", "Warsaw", "Prague", "Oslo", "Dublin"]


class Verdict(BaseModel):
    answer: str = Field(max_length=12)
    confident: bool


@pytest.mark.parametrize(
    ("prompt", "options"),
    [
        ("What is the capital of France? Answer with one city of: " + ", ".join(CITIES), CITIES),
        ("Which relation links a film to its director?", ["directed by", "written by", "starred actors"]),
        ("Pick the larger number: 7 or 12?", ["7", "12", "7 or 12"]),  # one option is a prefix of another
    ],
)
def test_choose_returns_an_index_of_the_options(smollm: TransformersLLM, prompt: str, options: list[str]) -> None:
    index = smollm.choose(prompt, options)
    assert isinstance(index, int) and 0 <= index < len(options)


def test_choose_is_constrained_even_when_the_model_would_say_something_else(smollm: TransformersLLM) -> None:
    # unconstrained, the model answers in prose; constrained, it must emit one of these odd strings exactly
    options = ["qzx-17", "vwk-42", "plm-99"]
    free = smollm.generate("Write one sentence about the sea.", max_tokens=6)
    assert free.strip() not in options
    index = smollm.choose("Write one sentence about the sea.", options)
    assert 0 <= index < 3
    assert smollm.choose("Write one sentence about the sea.", options) == index  # greedy: deterministic


def test_generate_json_with_a_pydantic_model_and_a_dict_schema(smollm: TransformersLLM) -> None:
    verdict = smollm.generate_json("Is Paris in France? Answer as JSON.", Verdict, max_tokens=32)
    assert isinstance(verdict, Verdict)
    schema = {
        "type": "object",
        "properties": {
            "relation": {"enum": ["directed by", "written by", "starred actors"]},
            "hops": {"type": "integer", "minimum": 1, "maximum": 3},
        },
        "required": ["relation", "hops"],
        "additionalProperties": False,
    }
    value = smollm.generate_json("Who directed Inception? Give the relation and number of hops as JSON.", schema)
    assert set(value) == {"relation", "hops"}
    assert value["relation"] in {"directed by", "written by", "starred actors"} and 1 <= value["hops"] <= 3


@pytest.mark.parametrize(
    ("prompt", "regex"),
    [
        ("In which year did the Second World War end?", r"[12][0-9]{3}"),
        ("Give a date in ISO format.", r"\d{4}-\d{2}-\d{2}"),
    ],
)
def test_generate_with_a_regex_matches_it(smollm: TransformersLLM, prompt: str, regex: str) -> None:
    text = smollm.generate(prompt, regex=regex, max_tokens=12)
    assert re.fullmatch(regex, text), text


def test_generate_free_text_respects_stop_and_max_tokens(smollm: TransformersLLM) -> None:
    text = smollm.generate("List three colours, one per line.", max_tokens=12, stop="\n")
    assert text and "\n" not in text
    short = smollm.generate("Tell me a long story about a dragon.", max_tokens=4)
    assert 0 < len(smollm._hf_tokenizer.encode(short, add_special_tokens=False)) <= 5  # re-tokenising may split


def test_generation_is_thread_safe(smollm: TransformersLLM) -> None:
    options = ["red", "blue"]
    expected = smollm.choose("What colour is the sky?", options)
    results: list[int] = []
    threads = [
        threading.Thread(target=lambda: results.append(smollm.choose("What colour is the sky?", options)))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 2


def test_open_reuses_the_converted_folder(converted: Converted) -> None:
    manifest = (converted.folder / MANIFEST).stat()
    llm = open_llm(converted.settings)
    assert isinstance(llm, TransformersLLM) and isinstance(llm, LLM)
    assert llm.convert_seconds == 0.0
    assert (converted.folder / MANIFEST).stat().st_mtime_ns == manifest.st_mtime_ns  # not rebuilt


def test_llm_model_setting_loads_any_transformers_folder(converted: Converted) -> None:
    settings = converted.settings.model_copy(update={"llm_model": str(converted.folder)})
    llm = open_llm(settings)
    assert isinstance(llm, TransformersLLM) and llm.name == converted.folder.name
    assert llm.generate("Say hi.", regex="hi|hello", max_tokens=4) in {"hi", "hello"}
