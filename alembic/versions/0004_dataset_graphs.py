"""dataset_graphs: the named graphs a dataset owns besides its default graph (issue 21)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26 05:05:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dataset_graphs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("graph_iri", sa.String(length=2048), nullable=False),
        sa.ForeignKeyConstraint(["dataset_id"], ["datasets.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("graph_iri"),
    )
    op.create_index(op.f("ix_dataset_graphs_dataset_id"), "dataset_graphs", ["dataset_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_dataset_graphs_dataset_id"), table_name="dataset_graphs")
    op.drop_table("dataset_graphs")
