"""The ``kgsvc`` command line, built on the SDK. Each module registers its commands on :data:`app`.

Exit codes: 0 success, 1 a kgsvc error (bad input, unknown dataset, bad query), 2 usage error, 143 stopped by
SIGTERM (the work in progress was interrupted cleanly and the data dir closed).
"""

from __future__ import annotations

from kgsvc.cli import ask, data, demo, eval, exemplars, serve, similar  # noqa: F401  (they register their commands)
from kgsvc.cli._app import app

__all__ = ["app"]
