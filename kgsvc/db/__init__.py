"""Metadata database (SQLAlchemy 2 + Alembic): datasets, jobs, index versions."""

from __future__ import annotations

from kgsvc.db.models import *  # noqa: F403
from kgsvc.db.session import *  # noqa: F403
