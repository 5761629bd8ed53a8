"""The Python SDK: :class:`KG` (embedded) and, over HTTP, ``Client``."""

from __future__ import annotations

from kgsvc.sdk.embedded import *  # noqa: F403
