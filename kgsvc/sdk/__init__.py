"""The Python SDK: :class:`KG` (embedded) and, over HTTP, :class:`Client` (the same methods against a running
``kgsvc serve``)."""

from __future__ import annotations

from kgsvc.sdk.client import *  # noqa: F403
from kgsvc.sdk.embedded import *  # noqa: F403
