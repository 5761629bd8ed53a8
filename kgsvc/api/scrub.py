"""Keep server file paths and internal URLs out of HTTP answers.

The layers below the API speak to operators: a job row keeps the full path of the file it loaded, a store error
names the store's URL or folder. An HTTP client needs none of it, and it tells an attacker the layout of the host
and the addresses of internal services. So the API layer scrubs what it returns:

* job rows (``GET /jobs``, ``GET /jobs/{id}``): a parameter or error that holds an absolute path keeps only the
  file name (:func:`public_job`; IRIs in an ingest error stay, they name the offending data);
* answers with status 500 carry no message of their own: a generic one with an ``id`` that the server's log
  repeats next to the full details (:mod:`kgsvc.api.errors`); a 502 from the LLM backend has its URLs removed
  (:func:`scrub_text`).
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from kgsvc.schemas import JobInfo

__all__ = ["public_job", "scrub_text"]

_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s'\"<>)]+", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w.:/~-])(?:~|[A-Za-z]:)?(?:/[^\s'\"<>/:,;)]+){2,}/?")


def _last_part(match: re.Match[str]) -> str:
    return PurePath(match.group().rstrip("/")).name


def scrub_text(text: str, *, urls: bool = True) -> str:
    """``text`` with absolute paths replaced by their last part, and URLs by ``<url>`` (unless ``urls=False``).

    >>> scrub_text("remote store http://oxigraph:7878/query failed; cannot read /srv/kgsvc/store/LOCK: busy")
    'remote store <url> failed; cannot read LOCK: busy'
    """
    return _PATH.sub(_last_part, _URL.sub("<url>", text) if urls else text)


def _public(value: Any) -> Any:
    if isinstance(value, str):
        return scrub_text(value, urls=False)
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_public(v) for v in value]
    return value


def public_job(job: JobInfo) -> JobInfo:
    """``job`` as an HTTP client may see it: paths in its parameters and error reduced to file names.

    >>> import datetime as dt
    >>> job = JobInfo(id="j", kind="ingest", dataset="d", state="failed", progress=0.0,
    ...               params={"file": "/tmp/kgsvc-upload-x1/films.nt"}, error="/tmp/kgsvc-upload-x1/films.nt:3: bad",
    ...               created_at=dt.datetime(2026, 1, 1))
    >>> public_job(job).params, public_job(job).error
    ({'file': 'films.nt'}, 'films.nt:3: bad')
    """
    return job.model_copy(
        update={
            "params": _public(job.params),
            "error": scrub_text(job.error, urls=False) if job.error is not None else None,
        }
    )
