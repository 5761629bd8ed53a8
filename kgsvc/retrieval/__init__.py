"""GSD top-k subgraph matching (SimGRAG §5.2): patterns, candidate sets, the bound and the search."""

from kgsvc.retrieval.bound import *  # noqa: F403
from kgsvc.retrieval.candidates import *  # noqa: F403
from kgsvc.retrieval.gsd import *  # noqa: F403
from kgsvc.retrieval.order import *  # noqa: F403
from kgsvc.retrieval.pattern import *  # noqa: F403
from kgsvc.retrieval.result import *  # noqa: F403
from kgsvc.retrieval.search import *  # noqa: F403
