"""A tiny OpenAI-compatible chat-completions server for tests, serving a local :class:`TransformersLLM`.

It stands in for vLLM / llama.cpp server (``llama-cpp-python`` ships only as a source archive here, and
building llama.cpp on two cores takes far longer than a test run). It honours the two constraint fields
real servers take: vLLM's ``structured_outputs`` (``regex`` or ``json``) and OpenAI's ``response_format``
(``json_schema``), by decoding them with Outlines through the wrapped model. With ``honour_constraints``
false it ignores both, as a server without guided decoding does (DESIGN §10).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from kgsvc.llm.local import TransformersLLM

__all__ = ["create_app", "serve"]


class ChatRequest(BaseModel):
    model: str
    messages: list[dict[str, Any]]
    max_tokens: int | None = None
    temperature: float | None = None
    stop: list[str] | str | None = None
    response_format: dict[str, Any] | None = None
    structured_outputs: dict[str, Any] | None = None


def create_app(llm: TransformersLLM, *, honour_constraints: bool = True) -> FastAPI:
    """A FastAPI app with ``POST /v1/chat/completions`` and ``GET /v1/models`` over ``llm``."""
    app = FastAPI()

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": llm.name, "object": "model"}]}

    @app.post("/v1/chat/completions")
    def chat(request: ChatRequest) -> dict[str, Any]:
        users = [m for m in request.messages if m.get("role") == "user"]
        if not users or not isinstance(users[-1].get("content"), str):
            raise HTTPException(400, "expected a user message with text content")
        prompt = users[-1]["content"]
        max_tokens = request.max_tokens or 128
        guided = request.structured_outputs or {}
        schema = guided.get("json")
        if schema is None and request.response_format and request.response_format.get("type") == "json_schema":
            schema = request.response_format["json_schema"]["schema"]
        stop: str | None = None
        if isinstance(request.stop, list):
            stop = request.stop[0] if request.stop else None
        else:
            stop = request.stop or None
        if honour_constraints and schema is not None:
            value = llm.generate_json(prompt, schema, max_tokens=max_tokens)
            text = json.dumps(value)
        elif honour_constraints and guided.get("regex") is not None:
            text = llm.generate(prompt, max_tokens=max_tokens, regex=guided["regex"])
        else:
            text = llm.generate(prompt, max_tokens=max_tokens, stop=stop)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    return app


@contextmanager
def serve(app: FastAPI, port: int) -> Iterator[str]:
    """Run ``app`` with uvicorn on ``127.0.0.1:port`` in a thread; yield its ``…/v1`` base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test OpenAI-compatible server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
