"""The committed build in ``kgsvc/web/static`` matches its source in ``web/`` and needs nothing from a CDN."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
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


def test_the_committed_build_is_the_build_of_web_src(tmp_path: Path) -> None:
    """Rebuild the page from ``web/src`` (esbuild, the versions of web/package-lock.json, installed by
    scripts/install) into a temporary folder: every file must equal the committed one in kgsvc/web/static."""
    node = shutil.which("node")
    assert node, "node is missing: run scripts/install (it installs nodejs and web/node_modules)"
    assert (SOURCE / "node_modules" / "esbuild").is_dir(), "web/node_modules is missing: run scripts/install"
    out = tmp_path / "static"
    built = subprocess.run(
        [node, "build.mjs"],
        cwd=SOURCE,
        env={**os.environ, "KGSVC_WEB_OUT": str(out)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    fresh = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    committed = {p.relative_to(STATIC_DIR).as_posix(): p.read_bytes() for p in STATIC_DIR.rglob("*") if p.is_file()}
    assert sorted(fresh) == sorted(committed)
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"{stale} differ from a build of web/src: run `npm run build` in web/ and commit"
