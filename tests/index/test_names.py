"""Which texts name nodes (kgsvc.index.names, issue 18), on a small untidy graph of our own in a real embedded KG.

The graph names its nodes every way real graphs do: a custom ``:name`` predicate (discovered), a predicate only the
dataset's configuration knows (``ex:called``), ``foaf:givenName`` + ``foaf:familyName``, ``rdfs:label``, and
nothing at all (the IRI: percent-encoded, with dots and ``_``). It holds a long description too, which must not
reach the embedding model.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import kgsvc
from kgsvc.errors import DatasetError
from kgsvc.index.build import build_index
from kgsvc.index.embed import Embedder
from kgsvc.index.names import EMBED_MAX_CHARS, LITERAL_EMBED_MAX_CHARS, iri_name
from kgsvc.index.strings import read_strings
from kgsvc.settings import Settings

EX = "http://example.org/"
CALLED = f"{EX}called"
DESCRIPTION = "An English rock band formed in Liverpool in 1960, " * 2  # 100 characters: a description, not a name
MUSIC = f"""
@prefix ex: <{EX}> .
@prefix : <{EX}music#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:Paul_McCartney a ex:Artist ; :name "Paul McCartney" ; ex:memberOf ex:The_Beatles .
ex:John_Lennon a ex:Artist ; :name "John Lennon" ; ex:memberOf ex:The_Beatles .
ex:The_Beatles a ex:Band ; :name "The Beatles" ; ex:description "{DESCRIPTION}" .
ex:ABBA_The_Album a ex:Album ; :name "ABBA: The Album" ; ex:artist ex:ABBA .
ex:ABBA a ex:Band ; :name "ABBA" .
<{EX}R.E.M.> a ex:Band ; ex:formedIn ex:Athens_GA .
ex:Athens_GA ex:called "Athens, Georgia" .
ex:Quincy_Jones a ex:Person ; foaf:givenName "Quincy" ; foaf:familyName "Jones" .
ex:Grameen_Bank a ex:Person ; foaf:givenName "Grameen Bank" .
<{EX}Thomas_C._S%C3%BCdhof> a ex:Person ; ex:born "1955" .
<{EX}Christopher_A._Sims> a ex:Person ; ex:born "1942" .
ex:Album rdfs:label "album" .
"""


class _Recording(Embedder):
    """The real embedder, remembering every text the build handed it."""

    seen: list[str]

    def encode(self, texts: Sequence[str], *, cache: bool = True) -> npt.NDArray[np.float32]:
        self.seen = [*getattr(self, "seen", []), *texts]
        return super().encode(texts, cache=cache)


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[kgsvc.KG, _Recording]]:
    folder = tmp_path_factory.mktemp("names")
    source = folder / "music.ttl"
    source.write_text(MUSIC, encoding="utf-8")
    with kgsvc.KG.open(folder / "data", settings=Settings(auto_index=False)) as kg:
        kg.load(source, dataset="music", name_predicates=[CALLED])
        recording = _Recording()
        build_index(kg.store, kg.catalog, kg.settings, "music", embedder=recording)
        yield kg, recording


def _labels(kg: kgsvc.KG, dataset: str) -> dict[str, str]:
    index = kg.index(dataset)
    return {term: index.node_labels[i] for i, term in enumerate(index.node_terms)}


def test_iri_names_are_read_faithfully() -> None:
    assert iri_name(f"{EX}R.E.M.") == "R.E.M."
    assert iri_name("http://dbpedia.org/resource/Paul_McCartney") == "Paul McCartney"
    assert iri_name(f"{EX}Christopher_A._Sims") == "Christopher A. Sims"
    assert iri_name(f"{EX}Thomas_C._S%C3%BCdhof") == "Thomas C. Südhof"
    assert iri_name(f"{EX}Queen_(band)") == "Queen (band)"


def test_every_way_of_naming_a_node(music: tuple[kgsvc.KG, _Recording]) -> None:
    kg, _ = music
    assert kg.catalog.get("music").name_predicates == [CALLED]
    labels = _labels(kg, "music")
    assert labels[f"<{EX}Paul_McCartney>"] == "Paul McCartney"  # discovered :name, not "Paul Mc Cartney"
    assert labels[f"<{EX}ABBA_The_Album>"] == "ABBA: The Album"
    assert labels[f"<{EX}Quincy_Jones>"] == "Quincy Jones"  # given + family
    assert labels[f"<{EX}Grameen_Bank>"] == "Grameen Bank"  # given name only
    assert labels[f"<{EX}Athens_GA>"] == "Athens, Georgia"  # the configured predicate
    assert labels[f"<{EX}R.E.M.>"] == "R.E.M."  # the IRI, punctuation kept
    assert labels[f"<{EX}Thomas_C._S%C3%BCdhof>"] == "Thomas C. Südhof"  # percent-escapes decoded
    assert labels[f"<{EX}Album>"] == "album"  # rdfs:label
    assert labels[f"<{EX}Band>"] == "Band"  # a class named by its IRI


def test_the_embedding_stage_never_sees_a_long_text(music: tuple[kgsvc.KG, _Recording]) -> None:
    kg, recording = music
    assert recording.seen and "Paul McCartney" in recording.seen
    assert max(len(text) for text in recording.seen) <= EMBED_MAX_CHARS
    names = set(_labels(kg, "music").values())
    assert all(len(text) <= LITERAL_EMBED_MAX_CHARS or text in names for text in recording.seen)
    assert DESCRIPTION not in recording.seen
    version = kg.catalog.current_index_version("music")
    assert version is not None
    folder = kg.catalog.index_path("music", version.version)
    vectors = np.load(folder / "node_vectors.npy")
    texts = list(read_strings(folder, "node_texts"))
    long_row = texts.index(DESCRIPTION)
    assert not vectors[long_row].any()  # a zero vector: never within a linking distance
    assert vectors[texts.index("Paul McCartney")].any()
    assert version.metrics["unembedded_texts"] == int(np.count_nonzero(~vectors.any(axis=1))) == 1


def test_the_setting_is_the_default_and_bad_predicates_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "m.ttl"
    source.write_text(MUSIC, encoding="utf-8")
    settings = Settings(auto_index=False, name_predicates=[CALLED])
    with kgsvc.KG.open(tmp_path / "data", settings=settings) as kg:
        kg.load(source, dataset="other")
        assert kg.catalog.get("other").name_predicates is None
        kg.build_index("other")
        assert _labels(kg, "other")[f"<{EX}Athens_GA>"] == "Athens, Georgia"
        with pytest.raises(DatasetError, match="'not an iri' is not an absolute IRI"):
            kg.set_name_predicates("other", ["not an iri"])
        info = kg.set_name_predicates("other", [f"{EX}born"])
        assert info.name_predicates == [f"{EX}born"]
        kg.build_index("other")  # the change counts as a change of the dataset: a new version
        assert _labels(kg, "other")[f"<{EX}Christopher_A._Sims>"] == "1942"


def test_relative_iris_resolve_against_the_dataset_base(tmp_path: Path) -> None:
    source = tmp_path / "relative.ttl"
    source.write_text('@prefix : <#> .\n<Christopher_A._Sims> :name "Christopher A. Sims" .\n', encoding="utf-8")
    with kgsvc.KG.open(tmp_path / "data", settings=Settings(auto_index=False)) as kg:
        kg.load(source, dataset="nobel")
        rows = kg.sparql("SELECT ?s ?p WHERE { ?s ?p ?o }", dataset="nobel").rows
        assert rows[0]["s"].value == "https://kgsvc.local/nobel/Christopher_A._Sims"
        assert rows[0]["p"].value == "https://kgsvc.local/nobel/#name"
        kg.load(source, dataset="based", base_iri="http://example.org/x/")
        rows = kg.sparql("SELECT ?s WHERE { ?s ?p ?o }", dataset="based").rows
        assert rows[0]["s"].value == "http://example.org/x/Christopher_A._Sims"
        with pytest.raises(DatasetError, match="invalid base IRI 'no scheme'"):
            kg.load(source, dataset="bad", base_iri="no scheme")
        assert not kg.catalog.exists("bad")
