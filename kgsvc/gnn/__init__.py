"""Link prediction over the graph snapshot (issue 7): R-GCN encoder + DistMult decoder, and name rules.

``kgsvc.gnn.model`` and ``kgsvc.gnn.train`` need torch and torch-geometric (the ``gnn`` extra) and are imported
explicitly by the training job; this package re-exports only the numpy-only parts used at query time.
"""

from __future__ import annotations

from kgsvc.gnn.artifacts import *  # noqa: F403
from kgsvc.gnn.calibration import *  # noqa: F403
from kgsvc.gnn.metrics import *  # noqa: F403
from kgsvc.gnn.predict import *  # noqa: F403
from kgsvc.gnn.rules import *  # noqa: F403
from kgsvc.gnn.split import *  # noqa: F403
