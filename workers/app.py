"""The Celery application, configured from kgsvc's settings.

Broker and result backend come from ``KGSVC_BROKER_URL`` / ``KGSVC_RESULT_BACKEND`` (Redis). Without a broker
(the embedded mode) the app runs tasks eagerly in the calling process — the same task code, no Redis.

Reliability settings: tasks are acknowledged late and re-queued when their worker dies
(``task_acks_late``, ``task_reject_on_worker_lost``), so a worker killed mid-task leaves its message for the next
worker; every task is idempotent (:mod:`kgsvc.jobs`), so the re-run converges to the state of one clean run.
"""

from __future__ import annotations

from celery import Celery

from kgsvc.settings import Settings

__all__ = ["app", "configure"]


def _transport_options(visibility_timeout_s: int) -> dict[str, int]:
    """Redis transport options: a message whose worker died goes to another worker ``visibility_timeout_s`` after
    its delivery, give or take one sweep.

    kombu looks for such messages every ``unacked_restore_interval`` seconds but scans Redis only on every
    ``unacked_restore_throttle``-th look (defaults 10 and 10: a killed task came back ~100 s late whatever the
    timeout). One scan (a ZRANGE of the unacked index) per sweep, with sweeps a third of the timeout apart (1–10 s).
    """
    return {
        "visibility_timeout": visibility_timeout_s,
        "unacked_restore_interval": max(1, min(10, visibility_timeout_s // 3)),
        "unacked_restore_throttle": 1,
    }


def configure(app: Celery, settings: Settings) -> None:
    """Apply ``settings`` to ``app`` (tests call it again with their own settings)."""
    broker = settings.broker_url
    app.conf.update(
        broker_url=broker or "memory://",
        result_backend=settings.result_backend or broker or "cache+memory://",
        task_always_eager=broker is None,
        task_eager_propagates=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=24 * 3600,
        broker_connection_retry_on_startup=True,
        broker_transport_options=_transport_options(settings.task_visibility_timeout_s),
        result_backend_transport_options={"visibility_timeout": settings.task_visibility_timeout_s},
    )


app = Celery("kgsvc", include=["workers.tasks"])
configure(app, Settings())
