"""The JSON API: health, datasets (list, create/upload, stats, drop), jobs, and the question path.

Every change goes through :class:`KG` methods, so :meth:`Catalog.mark_changed` emits the dataset-changed event.
Uploads are loaded synchronously (the answer is the :class:`LoadResult`, with its job id); a rejected file
changes nothing and a dataset created for it is removed again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

import kgsvc
from kgsvc import interrupt
from kgsvc.api.errors import ApiError
from kgsvc.api.limits import check_ask_options, gunzip_bounded
from kgsvc.api.scrub import public_job
from kgsvc.api.state import ApiState, get_state, require_write
from kgsvc.errors import IngestError, Interrupted
from kgsvc.schemas import DatasetInfo, DatasetStats, JobInfo, LoadResult, SimilarNode

__all__ = ["AddExemplars", "AskRequest", "CreateDataset", "RemoveExemplars", "router"]

log = logging.getLogger(__name__)

router = APIRouter()

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class CreateDataset(BaseModel):
    """``POST /datasets`` with a JSON body: register an empty dataset."""

    name: str = Field(description="1-64 letters, digits, '_', '.', '-'")
    base_iri: str | None = None
    description: str | None = None
    name_predicates: list[str] | None = Field(
        default=None, description="IRIs of the predicates that name the nodes (kgsvc.index.names)"
    )


class AskRequest(BaseModel):
    """``POST /ask``: a question about a dataset; ``options`` go to ``KG.ask`` as keyword arguments."""

    question: str
    dataset: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class Health(BaseModel):
    status: str
    version: str
    read_only: bool
    auto_index: bool
    store: str
    executor: str


@router.get("/health", response_model=Health, tags=["service"])
async def health(request: Request) -> Health:
    """Readiness (answered once the service has started, its indexes loaded), and how the service runs."""
    state = get_state(request)
    return Health(
        status="ok",
        version=kgsvc.__version__,
        read_only=state.settings.read_only,
        auto_index=state.kg.settings.auto_index,
        store=type(state.kg.store).__name__,
        executor=state.executor.name,
    )


@router.get("/datasets", response_model=list[DatasetInfo], tags=["datasets"])
async def list_datasets(request: Request) -> list[DatasetInfo]:
    """All datasets with their triple counts and data versions."""
    return await run_in_threadpool(get_state(request).kg.datasets)


_CREATE_BODY = {
    "requestBody": {
        "content": {
            "application/json": {"schema": CreateDataset.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["name", "file"],
                    "properties": {
                        "name": {"type": "string"},
                        "file": {"type": "string", "format": "binary"},
                        "format": {"type": "string", "description": "ttl, nt, rdf, jsonld, tsv, csv, …"},
                        "base_iri": {"type": "string"},
                        "name_predicate": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "IRIs of the predicates that name the nodes (repeat the field)",
                        },
                    },
                }
            },
        },
        "required": True,
    }
}


@router.post(
    "/datasets",
    status_code=201,
    tags=["datasets"],
    openapi_extra=_CREATE_BODY,
    responses={201: {"description": "DatasetInfo (JSON body) or LoadResult (upload)"}, 409: {}, 400: {}},
)
async def create_dataset(request: Request) -> Response:
    """Create a dataset (JSON body), or upload a file into a dataset, creating it if new (multipart form).

    The upload answers 201 when it created the dataset and 200 when it added to an existing one.
    """
    state = get_state(request)
    require_write(request, state)
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media == "application/json":
        try:
            spec = CreateDataset.model_validate_json(await request.body())
        except ValidationError as exc:
            raise ApiError(422, f"invalid dataset description: {exc}", error="ValidationError") from None
        info = await run_in_threadpool(
            lambda: state.kg.catalog.create(
                spec.name, base_iri=spec.base_iri, description=spec.description, name_predicates=spec.name_predicates
            )
        )
        state.changed()
        return JSONResponse(jsonable_encoder(info), status_code=201)
    if media != "multipart/form-data":
        raise ApiError(
            415,
            f"unsupported Content-Type {media or '(none)'!r}: expected application/json or multipart/form-data",
            error="UnsupportedMediaType",
        )
    async with request.form() as form:
        upload, name = form.get("file"), form.get("name")
        if not isinstance(upload, UploadFile) or not isinstance(name, str):
            raise ApiError(400, "the upload form needs a 'name' field and a 'file' part")
        fmt, base_iri = form.get("format"), form.get("base_iri")
        names = [p for p in form.getlist("name_predicate") if isinstance(p, str) and p]
        result, created = await _load_upload(
            request,
            upload,
            name,
            format=fmt if isinstance(fmt, str) and fmt else None,
            base_iri=base_iri if isinstance(base_iri, str) and base_iri else None,
            name_predicates=names or None,
        )
    return JSONResponse(jsonable_encoder(result), status_code=201 if created else 200)


async def _load_upload(
    request: Request,
    upload: UploadFile,
    name: str,
    *,
    format: str | None,
    base_iri: str | None,
    name_predicates: list[str] | None = None,
) -> tuple[LoadResult, bool]:
    state = get_state(request)
    kg = state.kg
    created = not await run_in_threadpool(kg.catalog.exists, name)
    filename = _UNSAFE.sub("_", Path(upload.filename or "upload").name) or "upload"
    with tempfile.TemporaryDirectory(prefix="kgsvc-upload-") as folder:
        path = Path(folder) / filename
        with path.open("wb") as sink:
            while chunk := await upload.read(1 << 20):
                sink.write(chunk)
        if path.suffix == ".gz":  # un-gzip here, under the upload limit (a gzip bomb is a 413)
            inflated = path.with_suffix("")
            await run_in_threadpool(
                gunzip_bounded, path, inflated, state.settings.max_upload_bytes, state.settings.max_gzip_ratio
            )
            path.unlink()
            path = inflated
        try:
            result = await run_in_threadpool(
                lambda: kg.load(path, dataset=name, format=format, base_iri=base_iri, name_predicates=name_predicates)
            )
        except IngestError as exc:
            if created and await run_in_threadpool(kg.catalog.exists, name):
                await run_in_threadpool(kg.drop, name)
            raise IngestError(
                exc.reason, file=upload.filename or filename, line=exc.line, column=exc.column, dataset=name
            ) from exc
        finally:
            state.changed()
    return result, created


@router.get("/datasets/{name}", response_model=DatasetStats, tags=["datasets"])
async def dataset_stats(request: Request, name: str) -> DatasetStats:
    """Triple, node, literal and relation counts of a dataset, and its index versions."""
    return await run_in_threadpool(get_state(request).kg.stats, name)


@router.get("/datasets/{name}/similar", response_model=list[SimilarNode], tags=["datasets"])
async def similar(request: Request, name: str, term: str, k: int = 10, literals: bool = False) -> list[SimilarNode]:
    """The ``k`` nodes nearest to ``term`` (an IRI) by GNN embedding, as ``KG.similar``: 409 when the dataset has no
    trained GNN yet, 422 when the term is not a node of the graph, 400 for ``k < 1``."""
    kg = get_state(request).kg
    try:
        return await run_in_threadpool(lambda: kg.similar(term, dataset=name, k=k, literals=literals))
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None


@router.delete("/datasets/{name}", status_code=204, tags=["datasets"])
async def drop_dataset(request: Request, name: str) -> Response:
    """Remove a dataset with its graph, metadata and indexes."""
    state = get_state(request)
    require_write(request, state)
    try:
        await run_in_threadpool(state.kg.drop, name)
    finally:
        state.changed()
    return Response(status_code=204)


class AddExemplars(BaseModel):
    """``POST /datasets/{name}/exemplars``: exemplars to add (question, entities, triples, answer)."""

    exemplars: list[dict[str, Any]]


class RemoveExemplars(BaseModel):
    """``DELETE /datasets/{name}/exemplars``: the questions of the exemplars to remove."""

    questions: list[str]


@router.get("/datasets/{name}/exemplars", tags=["datasets"])
async def list_exemplars(request: Request, name: str) -> list[dict[str, Any]]:
    """The dataset's user-supplied exemplars (question → pattern), as ``KG.exemplars``."""
    kg = get_state(request).kg
    return await run_in_threadpool(kg.exemplars, name)


@router.post("/datasets/{name}/exemplars", tags=["datasets"])
async def add_exemplars(request: Request, name: str, body: AddExemplars) -> dict[str, int]:
    """Add exemplars (a question already there is replaced); the next question uses them, no restart. 400 names
    an invalid exemplar (nothing is added then)."""
    state = get_state(request)
    require_write(request, state)
    try:
        count = await run_in_threadpool(lambda: state.kg.add_exemplars(name, body.exemplars))
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    return {"added": len(body.exemplars), "count": count}


@router.delete("/datasets/{name}/exemplars", tags=["datasets"])
async def remove_exemplars(request: Request, name: str, body: RemoveExemplars) -> dict[str, int]:
    """Remove the exemplars with these questions; answers how many were removed."""
    state = get_state(request)
    require_write(request, state)
    removed = await run_in_threadpool(lambda: state.kg.remove_exemplars(name, body.questions))
    return {"removed": removed}


@router.get("/jobs", response_model=list[JobInfo], tags=["jobs"])
async def list_jobs(request: Request, dataset: str | None = None) -> list[JobInfo]:
    """Recent jobs, newest first (optionally of one dataset)."""
    kg = get_state(request).kg
    return [public_job(job) for job in await run_in_threadpool(lambda: kg.jobs(dataset=dataset))]


@router.get("/jobs/{job_id}", response_model=JobInfo, tags=["jobs"])
async def get_job(request: Request, job_id: str) -> JobInfo:
    """One job: state, progress, counts, error, timings."""
    try:
        return public_job(await run_in_threadpool(get_state(request).kg.job, job_id))
    except KeyError:
        raise ApiError(404, f"unknown job {job_id!r}", error="NotFound") from None


@router.post("/ask", tags=["questions"])
async def ask(request: Request, body: AskRequest) -> Response:
    """Answer a question from the graph with ``KG.ask`` (answer, evidence subgraphs, grounded SPARQL).

    Without ``dataset`` the only dataset is asked (400 when there are several). An empty question or an unknown
    option is a 400; a dataset whose index is not built yet a 409 (see :mod:`kgsvc.api.errors`).
    """
    state = get_state(request)
    kg, limit = state.kg, state.settings.ask_max_deadline_s
    check_ask_options(body.options, limit)
    dataset = body.dataset
    if dataset is None:
        names = [info.name for info in await run_in_threadpool(kg.datasets)]
        if len(names) != 1:
            raise ApiError(400, f"name the dataset to ask about (there are {len(names)}: {', '.join(names)})")
        dataset = names[0]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    try:
        async with asyncio.timeout_at(deadline):
            await state.ask_slots.acquire()
    except TimeoutError:
        raise ApiError(503, f"every question slot was busy for {limit:g} s (KGSVC_ASK_MAX_DEADLINE_S)") from None
    stop = threading.Event()  # set past the deadline or when the client goes: the question path stops at its next step

    def work() -> Any:
        with interrupt.bound(stop, "the question was given up (its deadline passed or its client left)"):
            return kg.ask(body.question, dataset=dataset, **body.options)

    future = loop.run_in_executor(None, work)
    future.add_done_callback(_ask_done(state))  # the slot is held until the work really ends
    try:
        while not future.done():  # answer by the deadline; stop waiting when the client has gone
            await asyncio.wait({future}, timeout=min(0.25, max(0.0, deadline - loop.time())))
            if loop.time() >= deadline and not future.done():
                stop.set()
                raise ApiError(
                    503,
                    f"the question was not answered within {limit:g} s (KGSVC_ASK_MAX_DEADLINE_S)",
                    headers={"Retry-After": "1"},
                )
            if await request.is_disconnected():
                stop.set()
                return Response(status_code=499)
        result = future.result()
    except (ValueError, TypeError) as exc:
        raise ApiError(400, str(exc)) from None
    return JSONResponse(_jsonable(result))


def _ask_done(state: ApiState) -> Callable[[asyncio.Future[Any]], None]:
    """A done callback: free the question slot, and read the outcome of a question nobody waits for any more: given
    up past its deadline or with its client gone, it ends in :class:`~kgsvc.errors.Interrupted` (logged at INFO,
    naming the step where it stopped), never as an exception nobody retrieved."""

    def done(future: asyncio.Future[Any]) -> None:
        state.ask_slots.release()
        if not future.cancelled() and isinstance(exc := future.exception(), Interrupted):
            log.info("%s", exc)

    return done


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable_encoder(dataclasses.asdict(value))
    return jsonable_encoder(value)
