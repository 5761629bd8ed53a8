"""The HTTP service: SPARQL 1.1 Protocol, Graph Store Protocol and JSON API (:func:`create_app`)."""

from __future__ import annotations

from kgsvc.api.app import *  # noqa: F403
