"""What the routes share while the app runs: the KG, the settings, the query executor, a dataset cache."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from starlette.requests import Request

from kgsvc.api.errors import ApiError
from kgsvc.api.executor import Executor
from kgsvc.api.scope import DatasetGraphs
from kgsvc.errors import DatasetError
from kgsvc.sdk import KG
from kgsvc.settings import Settings
from kgsvc.store import check_dataset_name, dataset_graph

__all__ = ["ApiState", "get_state", "require_write"]

#: How long a dataset is known to exist without asking the metadata database again.
DATASET_CACHE_S = 1.0


@dataclass
class ApiState:
    """The running app's state (``app.state.kgsvc``)."""

    kg: KG
    settings: Settings
    executor: Executor
    #: Questions (``/ask``) worked on at once, each CPU-bound; one past its deadline keeps its slot until it ends.
    ask_slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(2))
    _known: dict[str, tuple[float, DatasetGraphs]] = field(default_factory=dict)

    def dataset_graph(self, name: str) -> str:
        """The graph IRI of dataset ``name``; raises ``DatasetError`` if it does not exist (cached: :meth:`graphs`)."""
        return self.graphs(name).graph

    def graphs(self, name: str) -> DatasetGraphs:
        """The RDF dataset of dataset ``name``'s endpoint: its graph and the named graphs it owns; raises
        ``DatasetError`` if it does not exist.

        Cached for :data:`DATASET_CACHE_S` (the query path must not hit the database each time); :meth:`changed`
        forgets it.
        """
        known = self._known.get(name)
        now = time.monotonic()
        if known is not None and now - known[0] <= DATASET_CACHE_S:
            return known[1]
        check_dataset_name(name)
        try:
            named = self.kg.catalog.named_graphs(name)  # one read; DatasetError naming the known datasets if unknown
        except DatasetError:
            self._known.pop(name, None)
            raise
        graphs = DatasetGraphs(name, dataset_graph(name).value, tuple(named))
        self._known[name] = (now, graphs)
        return graphs

    def changed(self) -> None:
        """Data or datasets changed through the API: new snapshot for the next query, forget known datasets."""
        self.executor.invalidate()
        self._known.clear()


def get_state(request: Request) -> ApiState:
    state: ApiState = request.app.state.kgsvc
    return state


def require_write(request: Request, state: ApiState) -> None:
    """Refuse a write: 403 in read-only mode; 401 without and 403 with a wrong ``Bearer`` token when one is set."""
    import hmac

    settings = state.settings
    if settings.read_only:
        raise ApiError(403, "the server is read-only (KGSVC_READ_ONLY): writes are refused", error="Forbidden")
    if settings.api_token:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                401,
                "this write needs an 'Authorization: Bearer <token>' header (KGSVC_API_TOKEN is set)",
                error="Unauthorized",
                headers={"WWW-Authenticate": 'Bearer realm="kgsvc"'},
            )
        if not hmac.compare_digest(token.strip().encode(), settings.api_token.encode()):
            raise ApiError(403, "the bearer token is wrong", error="Forbidden")
