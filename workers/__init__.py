"""kgsvc's Celery workers: the app (:mod:`workers.app`) and thin tasks over :mod:`kgsvc.jobs` (:mod:`workers.tasks`).

Start a worker with ``celery -A workers.app worker``; it reads the same ``KGSVC_*`` settings as the API.
"""
