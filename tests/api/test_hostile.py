"""Hostile requests get a clear status and cost nothing else: the server and its query workers stay up and keep
answering ordinary queries sent at the same time (issue 20)."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

import kgsvc
from kgsvc import interrupt
from kgsvc.api.executor import ProcessExecutor
from kgsvc.errors import Interrupted
from tests.api.conftest import AUTH, TOKEN, Served, _serve

NESTED = "{" * 3000 + "}" * 3000
ORDINARY = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"  # not a lookup: answered by a query worker


def _workers(server: Served) -> set[int]:
    executor = server.app.state.kgsvc.executor
    assert isinstance(executor, ProcessExecutor)
    return {w.process.pid for w in executor._workers}


class _Background:
    """Ordinary queries sent in a loop from another thread while a hostile request runs; every one must answer."""

    def __init__(self, server: Served) -> None:
        self.server = server
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with self.server.http() as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                response = client.get("/datasets/sample/sparql", params={"query": ORDINARY})
                self.latencies.append(time.perf_counter() - started)
                if response.status_code != 200:
                    self.failures.append(f"{response.status_code} {response.text[:200]}")

    def __enter__(self) -> _Background:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


T = TypeVar("T")


def under_load(server: Served, hostile: Callable[[], T]) -> T:
    """Send ``hostile`` while ordinary queries run; check those were all answered, return the hostile answer."""
    with _Background(server) as background:
        time.sleep(0.2)
        response = hostile()
        time.sleep(0.2)
    assert background.latencies, "no ordinary query was answered"
    assert not background.failures, background.failures[:3]
    assert max(background.latencies) < 20, "an ordinary query waited more than 20 s"  # a sanity bound only
    return response


def test_a_nested_brace_query_is_a_400_and_kills_no_worker(http: httpx.Client, server: Served) -> None:
    before = _workers(server)
    response = under_load(
        server, lambda: http.get("/datasets/sample/sparql", params={"query": f"SELECT * WHERE {NESTED}"})
    )
    assert response.status_code == 400, response.text
    assert response.json()["kind"] == "too_complex"
    assert "the limit is 32 (KGSVC_SPARQL_MAX_DEPTH)" in response.json()["message"]
    assert _workers(server) == before


def test_a_nested_brace_update_is_a_400_and_the_server_stays_up(http: httpx.Client, server: Served) -> None:
    update = f"INSERT {{ <urn:a> <urn:b> <urn:c> }} WHERE {NESTED}"
    for request in (
        lambda: http.post("/sparql", data={"update": update}, headers=AUTH),
        lambda: http.post("/sparql", content=update, headers={**AUTH, "Content-Type": "application/sparql-update"}),
    ):
        response = under_load(server, request)
        assert response.status_code == 400, response.text
        assert "KGSVC_SPARQL_MAX_DEPTH" in response.json()["message"]
    assert http.get("/health").status_code == 200


def test_an_operator_chain_is_a_400(http: httpx.Client) -> None:
    query = "SELECT * WHERE { ?s ?p ?o " + "OPTIONAL { ?s ?p ?o } " * 500 + "}"
    response = http.post("/sparql", content=query, headers={"Content-Type": "application/sparql-query"})
    assert response.status_code == 400
    assert "KGSVC_SPARQL_MAX_OPERATORS" in response.json()["message"]


def test_an_unknown_custom_function_is_a_400_without_losing_a_worker(http: httpx.Client, server: Served) -> None:
    before = _workers(server)
    for query in (
        "ASK { BIND(<http://x/f>(1) AS ?x) }",
        "SELECT ?x WHERE { ?s ?p ?o BIND(<http://x/f>(?o) AS ?x) }",
    ):
        response = http.get("/datasets/sample/sparql", params={"query": query})
        assert response.status_code == 400, response.text
        assert "custom function <http://x/f>" in response.json()["message"]
    assert _workers(server) == before


def _chunks(total: int, size: int = 1 << 20) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * min(size, total - sent)
        sent += size


EVIL = "http://evil.example:8080"
INSERT = "INSERT DATA { GRAPH <urn:kgsvc:dataset:sample> { <http://x/csrf> <http://x/p> 1 } }"


def _writes(http: httpx.Client, scratch: str, headers: dict[str, str]) -> list[httpx.Response]:
    """One request per kind of write, every one with the token."""
    headers = {**AUTH, **headers}
    turtle = {**headers, "Content-Type": "text/turtle"}
    return [
        http.post("/sparql", data={"update": INSERT}, headers=headers),
        http.post("/sparql", content=INSERT, headers={**headers, "Content-Type": "application/sparql-update"}),
        http.post(f"/datasets/{scratch}/sparql", data={"update": "CLEAR DEFAULT"}, headers=headers),
        http.put(f"/datasets/{scratch}/store", content=b"<http://x/a> <http://x/b> 1 .", headers=turtle),
        http.post(f"/datasets/{scratch}/store", content=b"<http://x/a> <http://x/b> 2 .", headers=turtle),
        http.delete(f"/datasets/{scratch}/store", headers=headers),
        http.post("/datasets", json={"name": "csrf"}, headers=headers),
        http.post(
            "/datasets",
            files={"file": ("a.nt", b"<http://x/a> <http://x/b> 3 .")},
            data={"name": "csrf2"},
            headers=headers,
        ),
        http.delete(f"/datasets/{scratch}", headers=headers),
        http.post(f"/datasets/{scratch}/exemplars", json={"question": "q"}, headers=headers),  # any future write
    ]


def test_cross_site_writes_are_refused_whatever_the_token(http: httpx.Client, server: Served, scratch: str) -> None:
    before = (server.count(), server.count(scratch))
    for headers in (
        {"Origin": EVIL},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:1"},  # another port on the same host
    ):
        for response in _writes(http, scratch, headers):
            assert response.status_code == 403, (headers, response.request.url, response.text)
            assert "cross-site request refused" in response.json()["message"]
    assert (server.count(), server.count(scratch)) == before
    assert not server.kg.catalog.exists("csrf") and not server.kg.catalog.exists("csrf2")


def test_same_origin_and_non_browser_writes_pass(http: httpx.Client, server: Served, scratch: str) -> None:
    origin = server.url  # what the bundled page sends
    for headers in ({"Origin": origin, "Sec-Fetch-Site": "same-origin"}, {}):
        response = http.post(
            f"/datasets/{scratch}/store",
            content=b"<http://x/a> <http://x/b> 'same origin' .",
            headers={**AUTH, **headers, "Content-Type": "text/turtle"},
        )
        assert response.status_code == 204, response.text
    # reads are never refused, wherever they come from
    query = http.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}, headers={"Origin": EVIL})
    assert query.status_code == 200


def _raw_post(server: Served, path: str, headers: dict[str, str], chunks: Iterator[bytes]) -> tuple[int, int]:
    """POST ``chunks`` over a raw socket until the server answers; the status and the bytes sent by then."""
    import select
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(server.url)
    sock = socket.create_connection((url.hostname, url.port), timeout=60)
    head = f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    sent = 0
    try:
        sock.sendall((head + "\r\n").encode())
        chunked = "Content-Length" not in headers
        for chunk in chunks:
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" if chunked else chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        answer = b""
        while b"\r\n" not in answer:
            data = sock.recv(4096)
            if not data:
                break
            answer += data
    finally:
        sock.close()
    return int(answer.split(b" ", 2)[1]), sent


BIG = 400 * 1024 * 1024


@pytest.mark.parametrize("declared", [True, False])
def test_a_400_mb_body_is_a_413_before_it_is_read(server: Served, declared: bool) -> None:
    headers = {"Content-Type": "application/sparql-query"}
    if declared:
        headers["Content-Length"] = str(BIG)
    else:
        headers["Transfer-Encoding"] = "chunked"
    status, sent = under_load(server, lambda: _raw_post(server, "/sparql", headers, _chunks(BIG)))
    assert status == 413
    assert sent < 64 * 1024 * 1024  # stopped near the 16 MiB limit, not after 400 MB


def test_an_unauthorised_update_body_is_not_read(server: Served) -> None:
    headers = {"Content-Type": "application/sparql-update", "Transfer-Encoding": "chunked"}
    status, sent = _raw_post(server, "/sparql", headers, _chunks(BIG))
    assert status == 401
    assert sent < 64 * 1024 * 1024


@pytest.fixture(scope="module")
def small_limits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server with a 1 MiB upload limit (so a gzip bomb needs only a few hundred KB of zeros)."""
    yield from _serve(tmp_path_factory.mktemp("api-limits") / "data", api_token=TOKEN, max_upload_bytes=1 << 20)


def test_a_gzip_bomb_is_a_413_and_leaves_nothing(small_limits: Served) -> None:
    line = b"<http://x/a> <http://x/b> <http://x/c> .\n"
    bomb = io.BytesIO()
    with gzip.GzipFile(fileobj=bomb, mode="wb") as sink:
        for _ in range(64):  # 64 MiB once inflated, about 200 KB compressed
            sink.write(line * ((1 << 20) // len(line)))
    assert len(bomb.getvalue()) < 1 << 20  # the compressed file is within the limit
    with small_limits.http() as http:
        response = under_load(
            small_limits,
            lambda: http.post(
                "/datasets",
                files={"file": ("bomb.nt.gz", bomb.getvalue())},
                data={"name": "bomb"},
                headers=AUTH,
            ),
        )
        assert response.status_code == 413, response.text
        assert "inflates to more than 1,048,576 bytes (KGSVC_MAX_UPLOAD_BYTES)" in response.json()["message"]
        assert not small_limits.kg.catalog.exists("bomb")
        small = gzip.compress(line)  # a small gzip upload still loads
        ok = http.post("/datasets", files={"file": ("ok.nt.gz", small)}, data={"name": "gz"}, headers=AUTH)
        assert ok.status_code == 201, ok.text
        assert small_limits.count("gz") == 1


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"max_hops": 12, "relation_k": 1000}, "max_hops=12"),
        ({"relation_k": 1000}, "relation_k=1000"),
        ({"k": 0}, "k=0"),
        ({"nodes_per_mention": 10_000}, "nodes_per_mention=10000"),
        ({"deadline_s": 3600}, "deadline_s=3600"),
        ({"deadline_s": -1}, "deadline_s=-1"),
        ({"max_hops": "3"}, "max_hops='3'"),
    ],
)
def test_out_of_range_ask_options_are_a_400(
    http: httpx.Client, server: Served, options: dict[str, object], named: str
) -> None:
    response = under_load(
        server,
        lambda: http.post("/ask", json={"question": "who directed Kill Bill", "dataset": "sample", "options": options}),
    )
    assert response.status_code == 400, response.text
    assert named in response.json()["message"] and "out of bounds" in response.json()["message"]


def test_jobs_show_no_server_paths(http: httpx.Client, server: Served, scratch: str) -> None:
    upload = http.post(
        "/datasets",
        files={"file": ("mine.nt", b'<http://x/a> <http://x/b> "1" .')},
        data={"name": scratch},
        headers=AUTH,
    )
    assert upload.status_code == 200, upload.text
    broken = http.post(
        "/datasets", files={"file": ("broken.nt", b"<http://x/a> <http://x/b> .")}, data={"name": scratch}, headers=AUTH
    )
    assert broken.status_code == 400
    listing = http.get("/jobs")
    assert listing.status_code == 200
    text = listing.text
    for secret in ("/tmp", str(server.settings.data_dir), str(kgsvc.sample_path().parent), "kgsvc-upload-"):
        assert secret not in text, secret
    files = {job["params"].get("file") for job in listing.json()}
    assert "mine.nt" in files and kgsvc.sample_path().name in files
    assert not any("/" in f for f in files if f)
    one = http.get(f"/jobs/{upload.json()['job_id']}").json()
    assert one["params"]["file"] == "mine.nt"


@pytest.fixture(scope="module")
def broken_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A kgsvc whose remote store does not answer: every query fails inside the server (a 500)."""
    import uvicorn

    from kgsvc.api import create_app
    from tests.api.conftest import _ThreadedServer
    from tests.conftest import free_port

    store_port, port = free_port(), free_port()
    settings = kgsvc.Settings(
        data_dir=tmp_path_factory.mktemp("api-broken") / "data", store_url=f"http://127.0.0.1:{store_port}/internal"
    )
    server = _ThreadedServer(uvicorn.Config(create_app(settings=settings), port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)


def test_a_500_names_no_internal_url(broken_store: str) -> None:
    response = httpx.get(broken_store + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 1"})
    assert response.status_code == 500
    body = response.json()
    assert body["error"] == "InternalError" and body["id"] in body["message"]
    assert "127.0.0.1" not in response.text and "internal" not in response.text.replace("InternalError", "")


HOSTILE_BASE = "http://x/> <http://evil/p> <http://evil/o> . #"


def test_a_hostile_base_iri_is_refused(http: httpx.Client, server: Served) -> None:
    before = len(server.kg.datasets())
    response = http.post(
        "/datasets",
        files={"file": ("t.tsv", b"Alice\tknows\tBob\n")},
        data={"name": "inject", "base_iri": HOSTILE_BASE},
        headers=AUTH,
    )
    assert response.status_code == 400, response.text
    assert "invalid base IRI" in response.json()["message"]
    created = http.post("/datasets", json={"name": "inject2", "base_iri": HOSTILE_BASE}, headers=AUTH)
    assert created.status_code == 400
    assert len(server.kg.datasets()) == before
    assert server.kg.sparql("ASK { ?s <http://evil/p> ?o }").boolean is False


def test_hostile_terms_in_a_bulk_loaded_triple_file_stay_data(http: httpx.Client, server: Served, scratch: str) -> None:
    rows = [
        "Alice> <http://evil/p> <http://evil/o> . #\tknows\tBob",
        'Carol"@en . <http://evil/s> <http://evil/p> "x\tlikes\tDan\\u003E',
    ]
    body = ("\n".join(rows) + "\n").encode() * 90_000  # past the 8 MiB bulk threshold: N-Triples loaded unchecked
    response = http.post("/datasets", files={"file": ("t.tsv", body)}, data={"name": scratch}, headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json()["bulk"] is True
    assert server.kg.sparql("ASK { { ?s <http://evil/p> ?o } UNION { <http://evil/s> ?p ?o } }").boolean is False
    query = 'SELECT ?l { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l FILTER(CONTAINS(?l, "evil")) }'
    labels = {row["l"].value for row in server.kg.sparql(query, dataset=scratch).rows}
    assert labels == {"Alice> <http://evil/p> <http://evil/o> . #", 'Carol"@en . <http://evil/s> <http://evil/p> "x'}


def test_the_cli_refuses_a_hostile_base(tmp_path: Path) -> None:
    source = tmp_path / "t.tsv"
    source.write_text("Alice\tknows\tBob\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "kgsvc", "load", str(source), "-n", "d", "--base", HOSTILE_BASE]
        + ["--data-dir", str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "invalid base IRI" in done.stderr and "Traceback" not in done.stderr
    with kgsvc.KG.open(tmp_path / "data") as kg:
        assert kg.sparql("ASK { ?s <http://evil/p> ?o }").boolean is False


@pytest.fixture(scope="module")
def hasty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server whose questions must be answered within 1 ms (every one is given up), its index built."""
    for served in _serve(tmp_path_factory.mktemp("api-hasty") / "data", api_token=TOKEN, ask_max_deadline_s=0.001):
        served.kg.build_index("sample")
        yield served


def test_a_question_past_its_deadline_is_stopped_not_left_running(
    hasty: Served, caplog: pytest.LogCaptureFixture
) -> None:
    heavy = {"max_hops": 4, "embed_top": 200, "k": 100, "nodes_per_mention": 20}  # within bounds, the most work
    with caplog.at_level("INFO", logger="kgsvc.api.json_api"), hasty.http() as http:
        response = http.post(
            "/ask", json={"question": "who acted in the films directed by Quentin Tarantino", "options": heavy}
        )
        assert response.status_code == 503, response.text
        assert "KGSVC_ASK_MAX_DEADLINE_S" in response.json()["message"]
        deadline = time.monotonic() + 120  # a fresh process loads its models first: that step cannot be cut
        while not [r for r in caplog.records if "was given up" in r.getMessage()]:
            assert time.monotonic() < deadline, "the question was never stopped"
            time.sleep(0.05)
    stopped = next(r.getMessage() for r in caplog.records if "was given up" in r.getMessage())
    assert stopped.endswith("was stopped")  # at one of the question path's steps, not at its end
    assert "/" not in stopped  # no server path in the log line either


def test_the_question_path_stops_at_its_next_step(hasty: Served) -> None:
    """``KG.ask`` under a set stop event raises at the first check, in the lookup path and in a kind's path."""
    stop = threading.Event()
    stop.set()
    for question in ("who directed Kill Bill", "how many films did Quentin Tarantino direct"):
        with interrupt.bound(stop, "given up"), pytest.raises(Interrupted, match="^given up: "):
            hasty.kg.ask(question, dataset="sample")
        assert hasty.kg.ask(question, dataset="sample").grounded  # unbound again: answered


def _bomb(mebibytes: int) -> bytes:
    line = b"<http://x/a> <http://x/b> <http://x/c> .\n"
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb") as sink:
        for _ in range(mebibytes):
            sink.write(line * ((1 << 20) // len(line)))
    return out.getvalue()


def test_a_gzip_bomb_under_the_size_limit_is_stopped_by_its_ratio(http: httpx.Client, server: Served) -> None:
    """64 MiB from ~200 KB is far under the 1 GiB default limit, but no RDF file inflates 300:1."""
    bomb = _bomb(64)
    upload = http.post("/datasets", files={"file": ("bomb.nt.gz", bomb)}, data={"name": "bomb2"}, headers=AUTH)
    assert upload.status_code == 413, upload.text
    assert "KGSVC_MAX_GZIP_RATIO" in upload.json()["message"]
    gsp = http.put(
        "/datasets/bomb3/store",
        content=bomb,
        headers={**AUTH, "Content-Type": "application/n-triples", "Content-Encoding": "gzip"},
    )
    assert gsp.status_code == 413, gsp.text
    assert "KGSVC_MAX_GZIP_RATIO" in gsp.json()["message"]
    assert not server.kg.catalog.exists("bomb2") and not server.kg.catalog.exists("bomb3")


def test_a_large_ordinary_gzip_file_passes_the_ratio_bound() -> None:
    """20 MiB of distinct triples (about 9:1) inflates whole; the same size of one repeated line does not."""
    from kgsvc.api.errors import ApiError
    from kgsvc.api.limits import RATIO_FLOOR, Inflater

    text = b"".join(f'<http://x/s{i}> <http://x/p{i % 97}> "v{i * 7919 % 100003}" .\n'.encode() for i in range(400_000))
    assert len(text) > RATIO_FLOOR
    data = gzip.compress(text)
    inflater = Inflater(1 << 30, 200)
    out = b"".join(b for i in range(0, len(data), 1 << 16) for b in inflater.feed(data[i : i + (1 << 16)]))
    assert out + b"".join(inflater.finish()) == text
    with pytest.raises(ApiError, match="inflates more than 200:1"):
        list(Inflater(1 << 30, 200).feed(_bomb(20)))
