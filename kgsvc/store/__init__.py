"""The RDF store: one interface over embedded pyoxigraph and remote SPARQL 1.1 stores."""

from __future__ import annotations

from kgsvc.settings import Settings
from kgsvc.store.base import *  # noqa: F403
from kgsvc.store.base import Store
from kgsvc.store.embedded import *  # noqa: F403
from kgsvc.store.embedded import EmbeddedStore
from kgsvc.store.rdf import *  # noqa: F403
from kgsvc.store.remote import *  # noqa: F403
from kgsvc.store.remote import RemoteStore
from kgsvc.store.results import *  # noqa: F403
from kgsvc.store.sparql_limits import *  # noqa: F403


def open_store(settings: Settings) -> Store:
    """The store the settings ask for: remote when ``store_url`` is set, else embedded in the data dir."""
    store: Store
    if settings.store_url:
        store = RemoteStore(
            settings.store_url,
            query_url=settings.store_query_url,
            update_url=settings.store_update_url,
            gsp_url=settings.store_gsp_url,
        )
    else:
        store = EmbeddedStore(settings.store_dir)
    store.sparql_max_depth = settings.sparql_max_depth
    store.sparql_max_operators = settings.sparql_max_operators
    return store
