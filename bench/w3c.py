"""The W3C SPARQL 1.1 test suites against SPARQL endpoints over HTTP: one checker for kgsvc and ``oxigraph serve``.

Reads the manifests in ``../shared/data/w3c-sparql11`` (README there) and runs, against each endpoint:

* syntax tests (``PositiveSyntaxTest11`` / ``NegativeSyntaxTest11`` and the update twins): a positive test passes
  when the endpoint answers 2xx, a negative one when it answers 400;
* ``QueryEvaluationTest`` / ``CSVResultFormatTest``: the endpoint's data is reset, the test's data is written with
  ``INSERT DATA`` (named graphs with ``GRAPH``: the "ng" tests), the query runs, and its results are compared with
  the expected ones — solutions as a multiset, equal up to blank-node renaming; graphs by isomorphism; CSV/TSV as
  text, line by line.

* the protocol suite (``protocol/``, ``ProtocolTest``): each test's HTTP requests are replayed in order against the
  endpoint (its path in place of the manifest's ``/sparql/``; an update goes to the endpoint's update URL), after
  a reset and the test's ``ut:graphData`` written into named graphs; each response must have an expected status
  class (``2xx``, ``4xx``…), and where the manifest says so a results format of the expected kind (boolean,
  tabular, RDF) and the expected ``ASK`` answer.

Every test goes over HTTP, the same way for every endpoint, so a count difference is a behaviour difference.
Run it with ``python bench/w3c.py`` (it starts ``oxigraph serve`` and ``kgsvc serve`` itself and prints the two
tables: the query/update suites and the protocol suite); ``--named`` adds the evaluation tests that need named
graphs, ``--failures`` lists every failing test per endpoint.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import rdflib
from rdflib.compare import isomorphic
from rdflib.query import Result

from kgsvc.eval.data import data_root

__all__ = [
    "Endpoint",
    "Outcome",
    "ProtocolRequest",
    "ProtocolTest",
    "W3CTest",
    "fetches_urls",
    "load_protocol_tests",
    "load_tests",
    "run_protocol",
    "run_suite",
    "serve_kgsvc",
    "serve_oxigraph",
]

BASE = "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/"
MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
UT = rdflib.Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
HT = rdflib.Namespace("http://www.w3.org/2011/http#")
CNT = rdflib.Namespace("http://www.w3.org/2011/content#")
SUITES = (
    "syntax-query",
    "syntax-update-1",
    "syntax-update-2",
    "aggregates",
    "bind",
    "bindings",
    "construct",
    "exists",
    "functions",
    "grouping",
    "json-res",
    "csv-tsv-res",
    "negation",
    "project-expression",
    "property-path",
    "subquery",
)
_SYNTAX = {
    "PositiveSyntaxTest11": ("query", True),
    "NegativeSyntaxTest11": ("query", False),
    "PositiveUpdateSyntaxTest11": ("update", True),
    "NegativeUpdateSyntaxTest11": ("update", False),
}


@dataclass(frozen=True)
class W3CTest:
    """One manifest entry: its IRI, kind, the action's files and the expected result file."""

    iri: str
    kind: str
    text_file: Path
    data: tuple[Path, ...] = ()
    graph_data: tuple[Path, ...] = ()
    result: Path | None = None

    @property
    def named(self) -> bool:
        return bool(self.graph_data)


@dataclass
class Outcome:
    passed: bool
    reason: str = ""


@dataclass
class Endpoint:
    """A SPARQL endpoint to test: query and update URLs, headers (a token), and how to empty it."""

    name: str
    query_url: str
    update_url: str
    reset: str = "DROP ALL"
    headers: dict[str, str] = field(default_factory=dict)


def _canonical(path: Path, root: Path) -> str:
    return BASE + path.relative_to(root).as_posix()


def load_tests(root: Path, suites: Sequence[str] = SUITES) -> list[W3CTest]:
    """The tests of ``suites`` (folders of ``root``) in manifest order."""
    tests = []
    for suite in suites:
        manifest = root / suite / "manifest.ttl"
        graph = rdflib.Graph()
        graph.parse(manifest, format="turtle", publicID=_canonical(manifest, root))
        entries = next(graph.objects(None, MF.entries))
        for entry in rdflib.collection.Collection(graph, entries):
            kind = str(graph.value(entry, rdflib.RDF.type)).rsplit("#", 1)[-1]
            action = graph.value(entry, MF.action)
            result = graph.value(entry, MF.result)
            if kind in _SYNTAX:
                text, data, named = action, [], []
            elif kind in ("QueryEvaluationTest", "CSVResultFormatTest"):
                text = graph.value(action, QT.query)
                data = list(graph.objects(action, QT.data))
                named = list(graph.objects(action, QT.graphData))
            else:
                continue
            tests.append(
                W3CTest(
                    iri=str(entry),
                    kind=kind,
                    text_file=_local(root, text),
                    data=tuple(_local(root, d) for d in data),
                    graph_data=tuple(_local(root, g) for g in named),
                    result=_local(root, result) if result is not None else None,
                )
            )
    return tests


def _local(root: Path, iri: object) -> Path:
    return root / str(iri)[len(BASE) :]


def fetches_urls(test: W3CTest) -> bool:
    """A positive syntax test with ``LOAD``: running it would make the server fetch a URL, so no endpoint runs it."""
    if test.kind != "PositiveUpdateSyntaxTest11":
        return False
    return re.search(r"(^|[;\s])LOAD\b", test.text_file.read_text(encoding="utf-8"), re.IGNORECASE) is not None


def run_suite(endpoint: Endpoint, tests: Sequence[W3CTest], root: Path) -> dict[str, Outcome]:
    """Run ``tests`` against ``endpoint``; returns an outcome per test IRI (an exception fails that test only)."""
    outcomes = {}
    with httpx.Client(timeout=60, headers=endpoint.headers) as http:
        for test in tests:
            if fetches_urls(test):
                continue
            try:
                outcomes[test.iri] = _run(http, endpoint, test, root)
            except Exception as exc:  # one broken exchange fails one test
                outcomes[test.iri] = Outcome(False, f"{type(exc).__name__}: {exc}")
    return outcomes


def _run(http: httpx.Client, endpoint: Endpoint, test: W3CTest, root: Path) -> Outcome:
    text = f"BASE <{_canonical(test.text_file, root)}>\n" + test.text_file.read_text(encoding="utf-8")
    if test.kind in _SYNTAX:
        form, positive = _SYNTAX[test.kind]
        if form == "update":
            _update(http, endpoint, endpoint.reset)
            response = _update(http, endpoint, text)
        else:
            response = _query(http, endpoint, text, "application/sparql-results+json, application/n-triples")
        ok = response.is_success if positive else response.status_code == 400
        return Outcome(ok, "" if ok else f"HTTP {response.status_code}: {response.text[:200]}")
    _update(http, endpoint, endpoint.reset, check=True)
    setup = _load(http, endpoint, test, root)
    if setup is not None and not setup.is_success:  # e.g. a dataset endpoint refusing the named graphs
        return Outcome(False, f"HTTP {setup.status_code} (setup: the test data): {setup.text[:160]}")
    assert test.result is not None
    suffix = test.result.suffix
    accept = {
        ".srx": "application/sparql-results+json",
        ".srj": "application/sparql-results+json",
        ".tsv": "text/tab-separated-values",
        ".csv": "text/csv",
    }.get(suffix, "application/n-triples")
    response = _query(http, endpoint, text, accept)
    if not response.is_success:
        return Outcome(False, f"HTTP {response.status_code}: {response.text[:200]}")
    if suffix in (".csv", ".tsv"):
        got = response.text.replace("\r\n", "\n").strip().splitlines()
        want = test.result.read_text(encoding="utf-8").replace("\r\n", "\n").strip().splitlines()
        return Outcome(_same_lines(got, want), "different text")
    if suffix in (".srx", ".srj"):
        expected = Result.parse(io.BytesIO(test.result.read_bytes()), format="xml" if suffix == ".srx" else "json")
        actual = Result.parse(io.BytesIO(response.content), format="json")
        if expected.type == "ASK":
            return Outcome(actual.askAnswer == expected.askAnswer, f"ASK {actual.askAnswer}")
        same = _same_solutions(list(actual.bindings), list(expected.bindings))
        return Outcome(same, "" if same else f"{len(actual.bindings)} solutions, {len(expected.bindings)} expected")
    expected_graph = rdflib.Graph().parse(test.result, publicID=_canonical(test.result, root))
    actual_graph = rdflib.Graph().parse(data=response.text, format="nt")
    return Outcome(isomorphic(actual_graph, expected_graph), "graphs differ")


def _same_lines(got: list[str], want: list[str]) -> bool:
    """CSV/TSV: the header line equal, the rows equal as a multiset (blank nodes compared by position only)."""
    if not got or not want or got[0] != want[0]:
        return False

    def norm(line: str) -> str:
        return "\t".join("_:b" if cell.startswith("_:") else cell for cell in line.split("\t"))

    return Counter(map(norm, got[1:])) == Counter(map(norm, want[1:]))


def _same_solutions(actual: list[dict], expected: list[dict]) -> bool:  # type: ignore[type-arg]
    """Multiset equality of solutions up to a bijective renaming of blank nodes (backtracking; results are small)."""
    if len(actual) != len(expected):
        return False

    def key(row: dict) -> tuple:  # type: ignore[type-arg]
        return tuple(sorted((str(k), v if not isinstance(v, rdflib.BNode) else "_") for k, v in row.items()))

    if Counter(map(key, actual)) != Counter(map(key, expected)):
        return False
    if not any(isinstance(v, rdflib.BNode) for row in actual for v in row.values()):
        return Counter(frozenset(r.items()) for r in actual) == Counter(frozenset(r.items()) for r in expected)
    return _match(actual, expected, {}, {})


def _match(actual: list[dict], expected: list[dict], fwd: dict, back: dict) -> bool:  # type: ignore[type-arg]
    if not actual:
        return True
    row, rest = actual[0], actual[1:]
    for i, candidate in enumerate(expected):
        if set(candidate) != set(row):
            continue
        f, b = dict(fwd), dict(back)
        ok = True
        for var, value in row.items():
            other = candidate[var]
            if isinstance(value, rdflib.BNode) and isinstance(other, rdflib.BNode):
                if f.setdefault(value, other) != other or b.setdefault(other, value) != value:
                    ok = False
                    break
            elif value != other:
                ok = False
                break
        if ok and _match(rest, expected[:i] + expected[i + 1 :], f, b):
            return True
    return False


def _load(http: httpx.Client, endpoint: Endpoint, test: W3CTest, root: Path) -> httpx.Response | None:
    parts = []
    for path in test.data:
        parts.append(_triples(path, root))
    for path in test.graph_data:
        parts.append(f"GRAPH <{_canonical(path, root)}> {{ {_triples(path, root)} }}")
    if any(p.strip() for p in parts):
        return _update(http, endpoint, "INSERT DATA { " + "\n".join(parts) + " }")
    return None


def _triples(path: Path, root: Path) -> str:
    fmt = "xml" if path.suffix == ".rdf" else "turtle"
    graph = rdflib.Graph().parse(path, format=fmt, publicID=_canonical(path, root))
    return graph.serialize(format="nt")


def _query(http: httpx.Client, endpoint: Endpoint, text: str, accept: str) -> httpx.Response:
    return http.post(endpoint.query_url, data={"query": text}, headers={"Accept": accept})


def _update(http: httpx.Client, endpoint: Endpoint, text: str, *, check: bool = False) -> httpx.Response:
    response = http.post(endpoint.update_url, data={"update": text})
    if check and not response.is_success:
        raise RuntimeError(f"setup update failed with HTTP {response.status_code}: {response.text[:200]}")
    return response


@dataclass(frozen=True)
class ProtocolRequest:
    """One HTTP exchange of a protocol test: the request as the manifest writes it, and what the answer must be."""

    method: str
    target: str  # the manifest's ht:absolutePath after "/sparql/": "" or "?query=…"
    body: bytes | None
    headers: tuple[tuple[str, str], ...]
    statuses: tuple[str, ...]  # status classes: "2xx", "3xx", "4xx", …
    boolean: bool | None = None
    format: str | None = None  # "boolean", "tabular" or "RDF"
    update: bool = False  # an update operation: sent to the endpoint's update URL


@dataclass(frozen=True)
class ProtocolTest:
    """A ``ProtocolTest``: its graph data (file, graph IRI) and its requests, run in order."""

    iri: str
    name: str
    graph_data: tuple[tuple[Path, str], ...]
    requests: tuple[ProtocolRequest, ...]


def load_protocol_tests(root: Path) -> list[ProtocolTest]:
    """The tests of the protocol suite (``root/protocol/manifest.ttl``) in manifest order."""
    manifest = root / "protocol" / "manifest.ttl"
    graph = rdflib.Graph()
    graph.parse(manifest, format="turtle", publicID=_canonical(manifest, root))
    tests = []
    for entry in rdflib.collection.Collection(graph, next(graph.objects(None, MF.entries))):
        data = tuple(
            (_local(root, graph.value(node, UT.graph)), str(graph.value(node, rdflib.RDFS.label)))
            for node in graph.objects(entry, UT.graphData)
        )
        action = graph.value(entry, MF.action)
        name = str(entry).rsplit("#", 1)[-1]
        requests = tuple(
            _protocol_request(graph, node, name)
            for node in rdflib.collection.Collection(graph, graph.value(action, HT.requests))
        )
        tests.append(ProtocolTest(str(entry), name, data, requests))
    return tests


def _protocol_request(graph: rdflib.Graph, node: object, name: str) -> ProtocolRequest:
    path = str(graph.value(node, HT.absolutePath))
    assert path.startswith("/sparql/"), path
    body_node = graph.value(node, HT.body)
    body = None
    if body_node is not None:
        encoding = str(graph.value(body_node, CNT.characterEncoding) or "UTF-8")
        body = str(graph.value(body_node, CNT.chars)).encode(encoding)
    headers_node = graph.value(node, HT.headers)
    headers = tuple(
        (str(graph.value(h, HT.fieldName)), str(graph.value(h, HT.fieldValue)))
        for h in (rdflib.collection.Collection(graph, headers_node) if headers_node is not None else ())
    )
    response = graph.value(node, HT.resp)
    statuses = tuple(sorted(str(s).rsplit("StatusCode", 1)[-1] for s in graph.objects(response, MF.expectedStatus)))
    boolean = graph.value(response, MF.expectedBoolean)
    fmt = graph.value(response, MF.expectedFormat)
    media = " ".join(v for k, v in headers if k.lower() == "content-type")
    text = (body or b"").decode("utf-8", "replace")
    target = path[len("/sparql/") :]
    if "sparql-query" in media or text.startswith("query=") or "query=" in target:
        update = False
    elif "sparql-update" in media or text.startswith("update=") or "update=" in target:
        update = True
    else:  # no telling from the request (a wrong media type): the test's name says which operation it is
        update = "update" in name
    return ProtocolRequest(
        method=str(graph.value(node, HT.methodName)),
        target=target,
        body=body,
        headers=headers,
        statuses=statuses,
        boolean=None if boolean is None else bool(boolean.toPython()),
        format=None if fmt is None else str(fmt),
        update=update,
    )


_RESULTS = {"application/sparql-results+json": "json", "application/sparql-results+xml": "xml"}
_TABULAR = {*_RESULTS, "text/csv", "text/tab-separated-values"}
_RDF = {
    "application/rdf+xml",
    "text/turtle",
    "application/n-triples",
    "text/plain",
    "application/ld+json",
    "text/n3",
    "application/n-quads",
    "application/trig",
}


def run_protocol(endpoint: Endpoint, tests: Sequence[ProtocolTest], root: Path) -> dict[str, Outcome]:
    """Replay the protocol ``tests`` against ``endpoint``; an outcome per test IRI.

    A test whose graph data the endpoint refuses to store fails with that answer (``HTTP 403 (setup) …``).
    """
    outcomes = {}
    with httpx.Client(timeout=60, headers=endpoint.headers) as http:
        for test in tests:
            try:
                outcomes[test.iri] = _replay(http, endpoint, test, root)
            except Exception as exc:  # one broken exchange fails one test
                outcomes[test.iri] = Outcome(False, f"{type(exc).__name__}: {exc}")
    return outcomes


def _replay(http: httpx.Client, endpoint: Endpoint, test: ProtocolTest, root: Path) -> Outcome:
    _update(http, endpoint, endpoint.reset, check=True)
    if test.graph_data:
        parts = [f"GRAPH <{iri}> {{ {_triples(path, root)} }}" for path, iri in test.graph_data]
        setup = _update(http, endpoint, "INSERT DATA { " + "\n".join(parts) + " }")
        if not setup.is_success:
            return Outcome(False, f"HTTP {setup.status_code} (setup: the graph data): {setup.text[:160]}")
    for number, request in enumerate(test.requests, 1):
        url = endpoint.update_url if request.update else endpoint.query_url
        target = request.target
        if target.startswith("?") and "?" in url:
            target = "&" + target[1:]
        response = http.request(request.method, url + target, content=request.body, headers=dict(request.headers))
        where = f"request {number}" if len(test.requests) > 1 else "the request"
        status = f"{response.status_code // 100}xx"
        if status not in request.statuses:
            return Outcome(
                False,
                f"HTTP {response.status_code} ({where}; expected {'/'.join(request.statuses)}): {response.text[:160]}",
            )
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if request.format == "boolean" and media not in _RESULTS:
            return Outcome(False, f"{where}: Content-Type {media!r} is not a boolean results format")
        if request.format == "tabular" and media not in _TABULAR:
            return Outcome(False, f"{where}: Content-Type {media!r} is not a tabular results format")
        if request.format == "RDF" and media not in _RDF:
            return Outcome(False, f"{where}: Content-Type {media!r} is not an RDF format")
        if request.boolean is not None:
            if media not in _RESULTS:
                return Outcome(False, f"{where}: Content-Type {media!r} is not a results format")
            answer = Result.parse(io.BytesIO(response.content), format=_RESULTS[media]).askAnswer
            if answer != request.boolean:
                return Outcome(False, f"{where}: ASK answered {answer}, expected {request.boolean}")
    return Outcome(True)


def _wait(url: str, process: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer in {seconds} s")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_oxigraph() -> Iterator[Endpoint]:
    """``oxigraph serve`` (the PyPI package's binary) in memory on a free port."""
    binary = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    port = _free_port()
    process = subprocess.Popen([binary, "serve", "--bind", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL)
    try:
        _wait(f"http://127.0.0.1:{port}/", process)
        yield Endpoint("oxigraph serve", f"http://127.0.0.1:{port}/query", f"http://127.0.0.1:{port}/update")
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def serve_kgsvc(dataset: str = "w3c") -> Iterator[tuple[Endpoint, Endpoint]]:
    """``kgsvc serve`` on a scratch data dir: its whole-store endpoint and the endpoint of an empty dataset."""
    token = "w3c-runner"
    with tempfile.TemporaryDirectory(prefix="kgsvc-w3c-") as data:
        seed = Path(data) / "seed.nt"
        seed.write_text("<urn:w3c:seed> <urn:w3c:seed> <urn:w3c:seed> .\n")
        env = {**os.environ, "KGSVC_DATA_DIR": data, "KGSVC_AUTO_INDEX": "false", "KGSVC_API_TOKEN": token}
        kgsvc = [sys.executable, "-m", "kgsvc"]
        subprocess.run([*kgsvc, "load", str(seed), "--dataset", dataset], env=env, check=True, capture_output=True)
        port = _free_port()
        process = subprocess.Popen(
            [*kgsvc, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env={**env, "KGSVC_MAX_RESULT_ROWS": "1000000", "KGSVC_QUERY_TIMEOUT_S": "30"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait(url + "/health", process)
            headers = {"Authorization": f"Bearer {token}"}
            whole = Endpoint("kgsvc /sparql", url + "/sparql", url + "/sparql", headers=headers)
            scoped = Endpoint(
                f"kgsvc /datasets/{dataset}/sparql",
                f"{url}/datasets/{dataset}/sparql",
                f"{url}/datasets/{dataset}/sparql",
                headers=headers,
            )
            yield whole, scoped
        finally:
            process.terminate()
            process.wait(timeout=30)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="the w3c-sparql11 folder (default: in the data root)")
    parser.add_argument("--named", action="store_true", help="also the evaluation tests that need named graphs")
    parser.add_argument("--failures", action="store_true", help="list every failing test per endpoint")
    args = parser.parse_args(argv)
    root = args.data or data_root() / "w3c-sparql11"
    every = [t for t in load_tests(root) if args.named or not t.named]
    tests = [t for t in every if not fetches_urls(t)]
    protocol = load_protocol_tests(root)
    results: dict[str, dict[str, Outcome]] = {}
    protocol_results: dict[str, dict[str, Outcome]] = {}
    with serve_oxigraph() as oxigraph, serve_kgsvc() as (whole, scoped):
        for endpoint in (oxigraph, whole, scoped):
            started = time.perf_counter()
            results[endpoint.name] = run_suite(endpoint, tests, root)
            protocol_results[endpoint.name] = run_protocol(endpoint, protocol, root)
            print(f"# {endpoint.name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    print(
        f"W3C SPARQL 1.1, {len(tests)} tests ({'with' if args.named else 'without'} the named-graph tests; "
        f"{len(every) - len(tests)} positive LOAD syntax tests not run: they would fetch URLs)"
    )
    _table(results)
    print(f"\nSPARQL 1.1 Protocol, {len(protocol)} tests")
    _table(protocol_results)
    if args.failures:
        for name in results:
            print(f"\n## {name}")
            for outcomes in (results[name], protocol_results[name]):
                for iri, outcome in outcomes.items():
                    if not outcome.passed:
                        print(f"- {iri.removeprefix(BASE)}: {outcome.reason[:160]}")


def _table(results: dict[str, dict[str, Outcome]]) -> None:
    print("| endpoint | passed | failed | of which 403 refusals |\n|---|---:|---:|---:|")
    for name, outcomes in results.items():
        passed = sum(o.passed for o in outcomes.values())
        refused = sum(not o.passed and o.reason.startswith("HTTP 403") for o in outcomes.values())
        print(f"| {name} | {passed} | {len(outcomes) - passed} | {refused} |")


if __name__ == "__main__":
    main()
