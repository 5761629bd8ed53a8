"""The SPARQL 1.1 Service Description answered by ``GET /sparql`` (and a dataset endpoint) without a query.

It says (``sd:`` vocabulary, https://www.w3.org/TR/sparql11-service-description/): the endpoint URL, SPARQL 1.1
Query and Update, the result formats, ``sd:UnionDefaultGraph`` at ``/sparql``, ``sd:BasicFederatedQuery`` only
when SERVICE is allowed, and the default dataset: at ``/sparql`` one ``sd:NamedGraph`` per dataset with its
triple count (``void:triples``); at a dataset endpoint, the dataset graph as the default graph.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from kgsvc.api.negotiation import GRAPH_FORMATS, RESULT_FORMATS, negotiate
from kgsvc.api.state import ApiState
from kgsvc.store import BlankNode, Literal, NamedNode, RdfFormat, Triple, serialize

__all__ = ["service_description"]

SD = "http://www.w3.org/ns/sparql-service-description#"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
VOID_TRIPLES = NamedNode("http://rdfs.org/ns/void#triples")
XSD_INTEGER = NamedNode("http://www.w3.org/2001/XMLSchema#integer")
_FORMAT_IRIS = {
    "application/sparql-results+json": "http://www.w3.org/ns/formats/SPARQL_Results_JSON",
    "application/sparql-results+xml": "http://www.w3.org/ns/formats/SPARQL_Results_XML",
    "text/csv": "http://www.w3.org/ns/formats/SPARQL_Results_CSV",
    "text/tab-separated-values": "http://www.w3.org/ns/formats/SPARQL_Results_TSV",
    "text/turtle": "http://www.w3.org/ns/formats/Turtle",
    "application/n-triples": "http://www.w3.org/ns/formats/N-Triples",
    "application/rdf+xml": "http://www.w3.org/ns/formats/RDF_XML",
    "application/ld+json": "http://www.w3.org/ns/formats/JSON-LD",
    "text/n3": "http://www.w3.org/ns/formats/N3",
}
PREFIXES = {"sd": SD, "void": "http://rdfs.org/ns/void#", "formats": "http://www.w3.org/ns/formats/"}


def _sd(name: str) -> NamedNode:
    return NamedNode(SD + name)


def describe(
    endpoint: str, datasets: list[tuple[str, str, int]], *, dataset: str | None, federated: bool
) -> list[Triple]:
    """The description's triples; ``datasets`` lists (name, graph IRI, triples) of what the endpoint serves.

    >>> len(describe("http://h/sparql", [("m", "urn:kgsvc:dataset:m", 3)], dataset=None, federated=False)) > 10
    True
    """
    service = BlankNode()
    triples = [
        Triple(service, RDF_TYPE, _sd("Service")),
        Triple(service, _sd("endpoint"), NamedNode(endpoint)),
        Triple(service, _sd("supportedLanguage"), _sd("SPARQL11Query")),
        Triple(service, _sd("supportedLanguage"), _sd("SPARQL11Update")),
        Triple(service, _sd("defaultEntailmentRegime"), NamedNode("http://www.w3.org/ns/entailment/Simple")),
    ]
    for fmt in (*RESULT_FORMATS, *GRAPH_FORMATS):
        triples.append(Triple(service, _sd("resultFormat"), NamedNode(_FORMAT_IRIS[fmt.media_type])))
    if dataset is None:
        triples.append(Triple(service, _sd("feature"), _sd("UnionDefaultGraph")))
    if federated:
        triples.append(Triple(service, _sd("feature"), _sd("BasicFederatedQuery")))
    default_dataset, default_graph = BlankNode(), BlankNode()
    triples += [
        Triple(service, _sd("defaultDataset"), default_dataset),
        Triple(default_dataset, RDF_TYPE, _sd("Dataset")),
        Triple(default_dataset, _sd("defaultGraph"), default_graph),
        Triple(default_graph, RDF_TYPE, _sd("Graph")),
    ]
    for _name, graph_iri, count in datasets:
        size = Literal(str(count), datatype=XSD_INTEGER)
        if dataset is not None:
            triples.append(Triple(default_graph, VOID_TRIPLES, size))
        named, graph = BlankNode(), BlankNode()
        triples += [
            Triple(default_dataset, _sd("namedGraph"), named),
            Triple(named, RDF_TYPE, _sd("NamedGraph")),
            Triple(named, _sd("name"), NamedNode(graph_iri)),
            Triple(named, _sd("graph"), graph),
            Triple(graph, RDF_TYPE, _sd("Graph")),
            Triple(graph, VOID_TRIPLES, size),
        ]
    return triples


async def service_description(request: Request, state: ApiState, dataset: str | None) -> Response:
    """The description in the negotiated RDF format (Turtle by default)."""
    fmt = negotiate(request.headers.get("accept"), "graph", request.query_params.get("format"))
    infos = await run_in_threadpool(state.kg.datasets)
    served = [(i.name, i.graph, i.triples) for i in infos if dataset is None or i.name == dataset]
    endpoint = str(request.url.replace(query=""))
    triples = describe(endpoint, served, dataset=dataset, federated=state.settings.allow_remote_sparql)
    assert isinstance(fmt.native, RdfFormat)
    body = (
        serialize(triples, format=fmt.native, prefixes=PREFIXES)
        if fmt.native in (RdfFormat.TURTLE, RdfFormat.N3)
        else serialize(triples, format=fmt.native)
    )
    return Response(body, media_type=fmt.content_type)
