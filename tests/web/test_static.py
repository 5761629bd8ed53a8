"""The committed build in ``kgsvc/web/static`` matches its source in ``web/`` and needs nothing from a CDN."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from starlette.applications import Starlette

from kgsvc.web import STATIC_DIR, mount_page

SOURCE = Path(__file__).resolve().parents[2] / "web"


@pytest.mark.parametrize("name", ["index.html", "app.css"])
def test_copied_files_are_current(name: str) -> None:
    assert (STATIC_DIR / name).read_bytes() == (SOURCE / "src" / name).read_bytes(), "run `npm run build` in web/"


def test_no_remote_urls_at_run_time() -> None:
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "the page must not load from a CDN"
    locked = json.loads((SOURCE / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    for name in ("node_modules/codemirror", "node_modules/cytoscape", "node_modules/esbuild"):
        assert name in locked, f"{name} is missing from web/package-lock.json"


def test_mount_refuses_a_missing_build(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="npm run build"):
        mount_page(Starlette(), directory=tmp_path)
