"""Language-model backends with constrained outputs (DESIGN §7): the interface, transformers, OpenAI-compatible.

Only the interface is imported here; the backends (torch, transformers, outlines) load on first use through
:func:`open_llm` or by importing ``kgsvc.llm.local`` / ``kgsvc.llm.remote``.
"""

from kgsvc.llm.base import *  # noqa: F403
