"""Opening the metadata database and bringing its schema to the newest Alembic revision."""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from alembic import command

__all__ = ["MIGRATIONS_DIR", "migrate", "open_database"]

#: The Alembic folder at the top of the checkout (DESIGN §2).
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "alembic"


def _alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database behind ``engine`` to ``revision`` (idempotent)."""
    config = _alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def open_database(url: str, *, upgrade: bool = True) -> sessionmaker[Session]:
    """An engine for ``url`` wrapped in a session factory; the schema is migrated first unless ``upgrade=False``.

    SQLite gets WAL mode, foreign keys and a busy timeout so API, CLI and in-process workers can share it.
    """
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

    else:
        engine = create_engine(url, pool_pre_ping=True)
    if upgrade:
        migrate(engine)
    return sessionmaker(engine, expire_on_commit=False)
