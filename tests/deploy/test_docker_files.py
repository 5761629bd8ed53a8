"""The distributed-mode deployment files agree with the code: settings names, entry points, services."""

from __future__ import annotations

from pathlib import Path

import yaml

from kgsvc.settings import Settings

DOCKER = Path(__file__).resolve().parents[2] / "docker"


def test_compose_sets_only_real_settings_and_runs_every_part() -> None:
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert {"api", "worker", "redis", "postgres", "qdrant", "oxigraph"} <= set(services)
    fields = {f"KGSVC_{name.upper()}" for name in Settings.model_fields}
    for name in ("api", "worker"):
        env = services[name]["environment"]
        unknown = set(env) - fields
        assert not unknown, f"{name} sets variables kgsvc does not read: {sorted(unknown)}"
        settings = Settings(**{k.removeprefix("KGSVC_").lower(): v for k, v in env.items()})
        assert not settings.embedded  # a broker is set: tasks go to the Celery workers
        assert settings.store_url and settings.qdrant_url and (settings.database_url or "").startswith("postgresql")
    assert services["worker"]["command"][:3] == ["celery", "-A", "workers.app"]


def test_dockerfile_pins_torch_before_the_project() -> None:
    lines = (DOCKER / "Dockerfile").read_text().splitlines()
    torch = next(i for i, line in enumerate(lines) if "torch==2.13.0" in line)
    project = next(i for i, line in enumerate(lines) if 'pip install ".[' in line)
    assert torch < project
