"""The kgsvc web page: built static assets and the routes that serve them (:func:`mount_page`)."""

from __future__ import annotations

from kgsvc.web.page import *  # noqa: F403
