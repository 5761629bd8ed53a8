"""owner of running jobs and building index versions

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25 18:40:00

The process that runs a job or builds an index version is recorded as ``host/boot id/pid/start time``
(:mod:`kgsvc.recovery`), so that startup recovery fails only the rows whose process is provably dead.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("owner", sa.String(length=255), nullable=True))
    with op.batch_alter_table("index_versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("owner", sa.String(length=255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("index_versions", schema=None) as batch_op:
        batch_op.drop_column("owner")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_column("owner")
