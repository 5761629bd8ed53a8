"""Embedding many label texts in chunks that survive a kill and that several processes can share.

A build that must embed ``n`` new texts writes a **plan** and works through it::

    index_dir/NAME/embedding/<plan key>/plan.json     model folder, chunk size, the texts (in build order)
    index_dir/NAME/embedding/<plan key>/<i>.npy       float32 rows of chunk i (written by rename: whole or absent)
    index_dir/NAME/embedding/<plan key>/<i>.lock      held while some process embeds chunk i

The plan key is a hash of the model and the texts, so a build retried after a kill (same data, same new texts) finds
its plan and the chunks already done, and embeds only the rest (:func:`embed_planned`, the ``reused_chunks``
metric). Any number of processes may run :func:`work_on_plan` on the same plan — the Celery task
``kgsvc.embed_chunks`` does, on every worker it reaches — and the build assembles the chunks in order when all
exist. A chunk is claimed by creating its lock file exclusively (it names the holder's host and pid); a lock whose
holder process is gone (same host) or older than :data:`STALE_LOCK_S` (another host) is taken over. The build
deletes the plan folder once its version is complete.

Memory per process: the model plus one chunk of vectors, and the plan's texts (a list of strings). A build passes
each chunk's rows, in order, to a callback (:func:`embed_planned_into`: the build writes them into the version's
row file, :mod:`kgsvc.index.rows`), so it holds one chunk at a time; :func:`embed_planned` assembles them in memory
(O(texts x dimension): for small inputs and tests). Chunks are embedded without the :class:`Embedder`'s text cache
(``cache=False``), which would otherwise keep up to :data:`kgsvc.index.embed.CACHE_TEXTS` rows per process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kgsvc.index.embed import Embedder

__all__ = [
    "CHUNK_TEXTS",
    "STALE_LOCK_S",
    "embed_planned",
    "embed_planned_into",
    "forget_plans",
    "plan_folder",
    "work_on_plan",
    "write_plan",
]

#: Texts per chunk: about 4 s of MiniLM forward passes on 2 cores, 6 MB of vectors.
CHUNK_TEXTS = 4_096
#: A chunk lock untouched this long belongs to a killed process and is taken over.
STALE_LOCK_S = 600.0
_PLAN = "plan.json"


def plan_folder(root: Path, model: Path, texts: list[str]) -> Path:
    """The plan folder under ``root`` for embedding ``texts`` with ``model`` (same inputs → same folder). BLAKE2b,
    CPython's own code: no OpenSSL lock, which a process forked while another thread held one would wait on forever."""
    digest = hashlib.blake2b(str(model).encode(), digest_size=12)
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
    return root / digest.hexdigest()  # 24 hex digits


def write_plan(folder: Path, model: Path, texts: list[str], chunk: int) -> None:
    """Write the plan (atomically; an existing one is kept, so chunks already done stay valid)."""
    if (folder / _PLAN).exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f"{_PLAN}.{os.getpid()}.tmp"
    temporary.write_text(json.dumps({"model": str(model), "chunk": chunk, "texts": texts}), encoding="utf-8")
    os.replace(temporary, folder / _PLAN)


_HOLDER = f"{socket.gethostname()} {os.getpid()}"


def _claim(lock: Path) -> bool:
    """Create ``lock`` exclusively (holding the host name and pid); else remove it when its holder is gone."""
    own = lock.with_name(f"{lock.name}.{os.getpid()}.{threading.get_ident()}")
    own.write_text(_HOLDER, encoding="utf-8")
    try:
        os.link(own, lock)  # atomic and exclusive: the lock never exists without its holder
    except FileExistsError:
        try:
            holder = lock.read_text(encoding="utf-8").split()
            stale = time.time() - lock.stat().st_mtime > STALE_LOCK_S
        except (FileNotFoundError, UnicodeDecodeError):
            return False
        if len(holder) == 2 and holder[0] == socket.gethostname() and holder[1].isdigit():
            try:
                os.kill(int(holder[1]), 0)
            except ProcessLookupError:
                stale = True  # killed on this host
            except PermissionError:
                pass
        if stale:
            lock.unlink(missing_ok=True)
        return False
    finally:
        own.unlink(missing_ok=True)
    return True


def work_on_plan(
    folder: Path,
    embedder: Embedder | None = None,
    *,
    wait: bool = False,
    progress: Callable[[int, int], None] | None = None,
    device: str = "cpu",
) -> int:
    """Embed the chunks of the plan in ``folder`` that no process has done or is doing; returns how many this
    call embedded. With ``wait``, also wait for chunks other processes hold until every chunk exists.
    ``progress(chunks done, chunks)`` is called after each chunk this call embeds and each round of waiting.
    Without ``embedder``, the plan's model runs on ``device`` (:class:`~kgsvc.index.embed.Embedder`).

    Raises
    ------
    FileNotFoundError
        When ``folder`` holds no plan (it was completed and deleted: nothing to do for a helper).
    """
    plan = json.loads((folder / _PLAN).read_text(encoding="utf-8"))
    texts, size = plan["texts"], int(plan["chunk"])
    embedder = embedder or Embedder(plan["model"], device=device)
    done = 0
    total = (len(texts) + size - 1) // size
    pending = list(range(total))

    def report() -> None:
        if progress is not None:
            progress(sum(1 for i in range(total) if (folder / f"{i}.npy").exists()), total)

    while pending:
        waiting = []
        for i in pending:
            target = folder / f"{i}.npy"
            if target.exists():
                continue
            lock = folder / f"{i}.lock"
            if not _claim(lock):
                waiting.append(i)
                continue
            try:
                if not target.exists():
                    rows = embedder.encode(texts[i * size : (i + 1) * size], cache=False)
                    temporary = folder / f"{i}.{os.getpid()}.tmp.npy"
                    np.save(temporary, rows, allow_pickle=False)
                    os.replace(temporary, target)
                    done += 1
                    report()
            finally:
                lock.unlink(missing_ok=True)
        if not wait:
            break
        pending = waiting
        if pending:
            time.sleep(0.2)
            report()
    return done


def embed_planned_into(
    embedder: Embedder,
    texts: list[str],
    root: Path,
    into: Callable[[int, npt.NDArray[np.float32]], None],
    *,
    chunk: int | None = None,
    helpers: Callable[[Path], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Embed ``texts`` through a plan under ``root`` and pass the rows to ``into(first text, rows)`` chunk by chunk,
    in order: chunks done by an earlier, killed attempt are reused, ``helpers(plan folder)`` may start other
    processes on the plan, and this process works on it too. ``chunk``: texts per chunk (default
    :data:`CHUNK_TEXTS`); a plan found from an earlier attempt keeps its own. ``progress`` as in
    :func:`work_on_plan`.

    Returns counts ``{"chunks", "reused_chunks", "embedded_chunks"}``. The plan folder is left for the caller to
    delete (:func:`shutil.rmtree`) once the result is safely stored.

    Notes
    -----
    Memory: one chunk of rows at a time (read back from its file after every chunk exists), plus ``texts``.
    """
    if not texts:
        return {"chunks": 0, "reused_chunks": 0, "embedded_chunks": 0}
    folder = plan_folder(root, embedder.model_path, texts)
    write_plan(folder, embedder.model_path, texts, chunk or CHUNK_TEXTS)
    size = int(json.loads((folder / _PLAN).read_text(encoding="utf-8"))["chunk"])
    chunks = (len(texts) + size - 1) // size
    reused = sum(1 for i in range(chunks) if (folder / f"{i}.npy").exists())
    if helpers is not None and reused < chunks - 1:
        helpers(folder)
    embedded = work_on_plan(folder, embedder, wait=True, progress=progress)
    for i in range(chunks):
        into(i * size, np.load(folder / f"{i}.npy", allow_pickle=False))
    return {"chunks": chunks, "reused_chunks": reused, "embedded_chunks": embedded}


def embed_planned(
    embedder: Embedder,
    texts: list[str],
    root: Path,
    *,
    chunk: int | None = None,
    helpers: Callable[[Path], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[npt.NDArray[np.float32], dict[str, int]]:
    """:func:`embed_planned_into` with the rows assembled in memory (O(texts x dimension)): returns the rows (in
    ``texts`` order) and the counts."""
    parts: list[npt.NDArray[np.float32]] = []
    counts = embed_planned_into(
        embedder, texts, root, lambda _, rows: parts.append(rows), chunk=chunk, helpers=helpers, progress=progress
    )
    return (np.concatenate(parts) if parts else embedder.encode([])), counts


def forget_plans(root: Path) -> None:
    """Delete every plan under ``root``."""
    shutil.rmtree(root, ignore_errors=True)
