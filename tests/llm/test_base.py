"""The interface helpers: argument checks, output validation, ScriptedLLM and open_llm (no model needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from kgsvc.errors import LLMError
from kgsvc.llm import LLM, ScriptedLLM, open_llm, validate_choice, validate_json, validate_text
from kgsvc.settings import Settings


class Person(BaseModel):
    name: str = Field(max_length=20)
    age: int = Field(ge=0)


def test_validate_choice_returns_the_index_and_rejects_anything_else() -> None:
    assert validate_choice("beta\n", ["alpha", "beta"]) == 1
    with pytest.raises(LLMError) as info:
        validate_choice("gamma", ["alpha", "beta"])
    assert info.value.raw == "gamma"
    with pytest.raises(LLMError):
        validate_choice("alph", ["alpha", "beta"])  # a prefix is not a choice


def test_validate_json_against_a_model_and_a_dict_schema() -> None:
    assert validate_json('{"name": "Ada", "age": 36}', Person) == Person(name="Ada", age=36)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert validate_json('{"n": 3}', schema) == {"n": 3}
    for raw in ['{"n": "three"}', "{}", "not json", '{"n": 3']:
        with pytest.raises(LLMError) as info:
            validate_json(raw, schema)
        assert info.value.raw == raw
    with pytest.raises(LLMError):
        validate_json('{"name": "Ada", "age": -1}', Person)


def test_validate_text_regex_and_stop() -> None:
    assert validate_text("1945", regex=r"[0-9]{4}") == "1945"
    with pytest.raises(LLMError):
        validate_text("1945 AD", regex=r"[0-9]{4}")
    assert validate_text("red\ngreen", stop="\n") == "red"


def test_scripted_llm_validates_like_a_model() -> None:
    llm = ScriptedLLM(["Paris", '{"name": "Ada", "age": 36}', "2024", "Lyon", "oops"])
    assert isinstance(llm, LLM)
    assert llm.choose("Capital?", ["Berlin", "Paris"]) == 1
    assert llm.generate_json("Who?", Person).age == 36
    assert llm.generate("Year?", regex=r"\d{4}") == "2024"
    with pytest.raises(LLMError):
        llm.choose("Capital?", ["Berlin", "Paris"])  # "Lyon" is not an option
    with pytest.raises(LLMError):
        llm.generate_json("Who?", Person)  # "oops" is not JSON
    with pytest.raises(LLMError, match="no scripted answer"):
        llm.generate("more?")
    assert [method for method, _ in llm.calls] == [
        "choose",
        "generate_json",
        "generate",
        "choose",
        "generate_json",
        "generate",
    ]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda llm: llm.choose("q", []), "must not be empty"),
        (lambda llm: llm.choose("q", ["a", "a"]), "distinct"),
        (lambda llm: llm.choose("q", "ab"), "not one string"),
        (lambda llm: llm.generate("q", regex="("), "invalid regex"),
        (lambda llm: llm.generate("q", regex="a", stop="b"), "not both"),
        (lambda llm: llm.generate("q", max_tokens=0), "at least 1"),
        (lambda llm: llm.generate_json("q", {"type": 12}), "invalid JSON schema"),
        (lambda llm: llm.generate_json("q", [1]), "pydantic model class or a JSON-schema dict"),
    ],
)
def test_bad_arguments_raise_value_error_before_any_call(call: object, message: str) -> None:
    llm = ScriptedLLM(["unused"])
    with pytest.raises(ValueError, match=message):
        call(llm)  # type: ignore[operator]
    assert llm.calls == []


def test_open_llm_none_and_openai_without_url(tmp_path: Path) -> None:
    assert open_llm(Settings(data_dir=tmp_path, llm_backend="none")) is None
    with pytest.raises(ValueError, match="KGSVC_LLM_BASE_URL"):
        open_llm(Settings(data_dir=tmp_path, llm_backend="openai", llm_model="m"))
