"""Graph Store bodies sent with ``Content-Encoding: gzip``: decompressed, bounded, and refused when broken."""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.api.conftest import AUTH, Served, _serve

NT = b"".join(f'<http://example.org/n{i}> <http://example.org/name> "name {i}" .\n'.encode() for i in range(200))
HEADERS = {**AUTH, "Content-Type": "application/n-triples"}


def test_a_gzip_body_is_decompressed(http: httpx.Client, server: Served) -> None:
    name = f"g{uuid.uuid4().hex[:8]}"
    put = http.put(
        f"/datasets/{name}/store", content=gzip.compress(NT), headers={**HEADERS, "Content-Encoding": "gzip"}
    )
    assert put.status_code == 201, put.text
    assert server.count(name) == 200
    two_members = gzip.compress(NT[:1000].rsplit(b"\n", 1)[0] + b"\n") + gzip.compress(b'<urn:x:a> <urn:x:b> "c" .\n')
    post = http.post(f"/datasets/{name}/store", content=two_members, headers={**HEADERS, "Content-Encoding": "x-gzip"})
    assert post.status_code == 204, post.text
    assert server.count(name) == 201
    server.kg.drop(name)


@pytest.mark.parametrize(
    ("body", "encoding", "status", "message"),
    [
        (gzip.compress(NT)[:-20], "gzip", 400, "truncated"),
        (NT, "gzip", 400, "not valid gzip"),
        (gzip.compress(NT), "br", 415, "Content-Encoding"),
    ],
    ids=["truncated", "not-gzip", "unknown-coding"],
)
def test_a_broken_or_unknown_encoding_is_refused_and_changes_nothing(
    http: httpx.Client, server: Served, body: bytes, encoding: str, status: int, message: str
) -> None:
    name = f"g{uuid.uuid4().hex[:8]}"
    got = http.put(f"/datasets/{name}/store", content=body, headers={**HEADERS, "Content-Encoding": encoding})
    assert got.status_code == status, got.text
    assert message in got.json()["message"]
    assert not server.kg.catalog.exists(name)


@pytest.fixture(scope="module")
def small_limit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server whose bodies may hold at most 10,000 bytes (decompressed)."""
    data = tmp_path_factory.mktemp("gzip-limit") / "data"
    yield from _serve(data, api_token="secret", max_upload_bytes=10_000)


def test_the_decompressed_size_is_bounded(small_limit: Served) -> None:
    bomb = gzip.compress(b"\n" * 50_000_000)  # 50 MB of blank lines in a 49 KB body
    assert len(bomb) < 100_000
    with small_limit.http() as http:
        got = http.put("/datasets/bomb/store", content=bomb, headers={**HEADERS, "Content-Encoding": "gzip"})
        assert got.status_code == 413, got.text
        assert "10,000 bytes" in got.json()["message"]
        assert not small_limit.kg.catalog.exists("bomb")
        plain = http.put("/datasets/bomb/store", content=NT, headers=HEADERS)  # 12 KB: over the limit too
        assert plain.status_code == 413
        fits = http.put(
            "/datasets/bomb/store",
            content=gzip.compress(NT[:5000].rsplit(b"\n", 1)[0] + b"\n"),
            headers={**HEADERS, "Content-Encoding": "gzip"},
        )
        assert fits.status_code == 201, fits.text
