"""``kgsvc.sdk.client.Client``: the SDK over HTTP, with the methods and typed results of :class:`kgsvc.KG`.

Errors come back as the same kgsvc exceptions, with the server's message: ``QueryError`` (with its ``kind``:
``syntax``, ``forbidden``, ``too_large``, ``timeout``), ``DatasetError``, ``IngestError`` (with file, line,
column), …; a refused write (token, read-only) or a protocol error is a ``StoreError``, an unreachable server a
``StoreError`` chained to httpx's error, an unknown job a ``KeyError`` (as :meth:`KG.job`).

The constructor does no I/O; the HTTP connection pool opens on the first call.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from kgsvc.errors import (
    DatasetError,
    IndexError_,
    IngestError,
    KgsvcError,
    LinkError,
    LLMError,
    MatchError,
    PatternError,
    QueryError,
    StoreError,
)
from kgsvc.schemas import DatasetInfo, DatasetStats, JobInfo, LoadResult, SimilarNode, SparqlResult
from kgsvc.store import QueryResultsFormat, RdfFormat, Triple, parse_quads, parse_query_results, to_result

__all__ = ["Client"]

_RESULTS_ACCEPT = "application/sparql-results+json, application/n-triples;q=0.9"
_SIMPLE_ERRORS: dict[str, type[KgsvcError]] = {
    "StoreError": StoreError,
    "LinkError": LinkError,
    "MatchError": MatchError,
    "KgsvcError": KgsvcError,
}


class Client:
    """A kgsvc server reached over HTTP.

    Parameters
    ----------
    base_url
        The server root, e.g. ``http://127.0.0.1:8000``.
    token
        Bearer token for writes (the server's ``KGSVC_API_TOKEN``).
    timeout
        Seconds per HTTP request (uploads of large files may need more).
    transport
        An httpx transport (tests, proxies); default: the network.

    Examples
    --------
    >>> client = Client("http://127.0.0.1:8000", token="secret")
    >>> client.base_url
    'http://127.0.0.1:8000'
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._transport = transport
        self._client: httpx.Client | None = None

    @property
    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                base_url=self.base_url, headers=self._headers, timeout=self.timeout, transport=self._transport
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    # -- transport ------------------------------------------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise StoreError(f"cannot reach the kgsvc server at {self.base_url}: {exc}") from exc
        if response.status_code >= 400:
            raise _error(response)
        return response

    # -- data -----------------------------------------------------------------------------------------------

    def load(
        self,
        path: str | Path,
        *,
        dataset: str,
        format: str | None = None,
        base_iri: str | None = None,
        name_predicates: Sequence[str] | None = None,
    ) -> LoadResult:
        """Upload one file into ``dataset`` (created if new); all or nothing on the server.

        ``name_predicates`` (IRIs) become the dataset's configured name predicates (``KG.load``).
        Raises ``IngestError`` for a rejected file (its name, line and column), ``DatasetError`` for a bad name.
        """
        path = Path(path)
        fields: dict[str, str | list[str]] = {"name": dataset}
        if format:
            fields["format"] = format
        if base_iri:
            fields["base_iri"] = base_iri
        if name_predicates:
            fields["name_predicate"] = list(name_predicates)
        with path.open("rb") as handle:
            response = self._request("POST", "/datasets", data=fields, files={"file": (path.name, handle)})
        return LoadResult.model_validate_json(response.content)

    def create(
        self,
        name: str,
        *,
        base_iri: str | None = None,
        description: str | None = None,
        name_predicates: Sequence[str] | None = None,
    ) -> DatasetInfo:
        """Register an empty dataset. Raises ``DatasetError`` if it exists or the name is invalid."""
        body = {
            "name": name,
            "base_iri": base_iri,
            "description": description,
            "name_predicates": list(name_predicates) if name_predicates is not None else None,
        }
        return DatasetInfo.model_validate_json(self._request("POST", "/datasets", json=body).content)

    def sparql(self, query: str, *, dataset: str | None = None) -> SparqlResult:
        """Run a SPARQL query; with ``dataset`` its graph is the default graph, else the union of all graphs.

        Raises ``QueryError`` (``kind`` syntax, forbidden, too_large or timeout), ``DatasetError`` if unknown.
        """
        response = self._request(
            "POST",
            _endpoint(dataset),
            content=query.encode(),
            headers={"Content-Type": "application/sparql-query", "Accept": _RESULTS_ACCEPT},
        )
        media = response.headers.get("content-type", "").split(";")[0].strip()
        if media == "application/n-triples":
            quads = parse_quads(response.content, RdfFormat.N_TRIPLES)
            return to_result([Triple(q.subject, q.predicate, q.object) for q in quads])
        return to_result(parse_query_results(response.content, format=QueryResultsFormat.JSON))

    def update(self, update: str, *, dataset: str | None = None) -> list[str]:
        """Run a SPARQL update (all or nothing); returns the datasets whose data changed.

        Without ``dataset``, name dataset graphs ``<urn:kgsvc:dataset:NAME>``; with it, its graph is the
        default graph.
        """
        response = self._request(
            "POST", _endpoint(dataset), content=update.encode(), headers={"Content-Type": "application/sparql-update"}
        )
        changed: list[str] = response.json()["changed"]
        return changed

    def dump(self, dataset: str, *, format: str = "nt", graph: str | None = None) -> bytes:
        """The triples of a dataset's graph, or of its named graph ``graph`` (Graph Store GET); ``format``: ``nt``,
        ``ttl``, ``rdf``, ``jsonld`` or ``n3``. Raises ``KgsvcError`` (404) for a graph the dataset does not own."""
        params = {"format": format, **({"graph": graph} if graph is not None else {})}
        return self._request("GET", f"/datasets/{dataset}/store", params=params).content

    def ask(self, question: str, *, dataset: str | None = None, **options: Any) -> dict[str, Any]:
        """Answer a question (``POST /ask``): the server's ``KG.ask`` result as JSON.

        Raises ``KgsvcError`` when the server has no question path (HTTP 501).
        """
        body = {"question": question, "dataset": dataset, "options": options}
        result: dict[str, Any] = self._request("POST", "/ask", json=body).json()
        return result

    # -- exemplars ------------------------------------------------------------------------------------------

    def exemplars(self, dataset: str) -> list[dict[str, Any]]:
        """The dataset's exemplars (``GET /datasets/{name}/exemplars``), as :meth:`KG.exemplars`."""
        result: list[dict[str, Any]] = self._request("GET", f"/datasets/{dataset}/exemplars").json()
        return result

    def add_exemplars(self, dataset: str, exemplars: list[dict[str, Any]]) -> int:
        """Add exemplars (``POST /datasets/{name}/exemplars``), as :meth:`KG.add_exemplars`."""
        response = self._request("POST", f"/datasets/{dataset}/exemplars", json={"exemplars": exemplars})
        return int(response.json()["count"])

    def remove_exemplars(self, dataset: str, questions: list[str]) -> int:
        """Remove exemplars by question (``DELETE /datasets/{name}/exemplars``), as :meth:`KG.remove_exemplars`."""
        response = self._request("DELETE", f"/datasets/{dataset}/exemplars", json={"questions": questions})
        return int(response.json()["removed"])

    # -- catalog --------------------------------------------------------------------------------------------

    def similar(self, term: str, *, dataset: str, k: int = 10, literals: bool = False) -> list[SimilarNode]:
        """The nodes nearest to ``term`` by GNN embedding (as :meth:`KG.similar`, same exceptions)."""
        params: dict[str, Any] = {"term": term, "k": k, "literals": literals}
        response = self._request("GET", f"/datasets/{dataset}/similar", params=params)
        return [SimilarNode.model_validate(item) for item in response.json()]

    def health(self) -> dict[str, Any]:
        result: dict[str, Any] = self._request("GET", "/health").json()
        return result

    def datasets(self) -> list[DatasetInfo]:
        return [DatasetInfo.model_validate(item) for item in self._request("GET", "/datasets").json()]

    def stats(self, dataset: str) -> DatasetStats:
        return DatasetStats.model_validate_json(self._request("GET", f"/datasets/{dataset}").content)

    def drop(self, dataset: str) -> None:
        """Remove a dataset with its graph, metadata and indexes. Raises ``DatasetError`` if unknown."""
        self._request("DELETE", f"/datasets/{dataset}")

    def job(self, job_id: str) -> JobInfo:
        """One job; raises ``KeyError`` if unknown (as :meth:`KG.job`)."""
        try:
            return JobInfo.model_validate_json(self._request("GET", f"/jobs/{job_id}").content)
        except StoreError as exc:
            if getattr(exc, "status", None) == 404:
                raise KeyError(f"unknown job {job_id!r}") from exc
            raise

    def jobs(self, *, dataset: str | None = None) -> list[JobInfo]:
        params = {"dataset": dataset} if dataset else {}
        return [JobInfo.model_validate(item) for item in self._request("GET", "/jobs", params=params).json()]


def _endpoint(dataset: str | None) -> str:
    return f"/datasets/{dataset}/sparql" if dataset is not None else "/sparql"


def _error(response: httpx.Response) -> KgsvcError:
    """The kgsvc exception an error response stands for."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    name = str(body.get("error", ""))
    message = str(body.get("message") or response.text.strip() or response.reason_phrase)
    error: KgsvcError
    if name == "QueryError":
        error = QueryError(message, kind=str(body.get("kind", "syntax")))
    elif name == "DatasetError":
        error = DatasetError(message, dataset=body.get("dataset"))
    elif name == "IngestError":
        error = IngestError(
            str(body.get("reason") or message),
            file=body.get("file"),
            line=body.get("line"),
            column=body.get("column"),
            dataset=body.get("dataset"),
        )
    elif name in ("IndexError", "IndexError_"):  # older servers sent the Python name
        error = IndexError_(message, dataset=body.get("dataset"))
    elif name == "PatternError":
        error = PatternError(message)
    elif name == "LLMError":
        error = LLMError(message)
    elif name in _SIMPLE_ERRORS:
        error = _SIMPLE_ERRORS[name](message)
    elif response.status_code == 501:
        error = KgsvcError(f"{message} (HTTP 501)")
    else:
        error = StoreError(f"HTTP {response.status_code}: {message}")
    error.status = response.status_code  # type: ignore[attr-defined]
    return error
