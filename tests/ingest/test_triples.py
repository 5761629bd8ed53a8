"""The triple-file mapping (DESIGN §3): stable IRIs and labels, and its two parsers agree."""

from __future__ import annotations

import io

import pytest

from kgsvc.errors import IngestError
from kgsvc.ingest import triples
from kgsvc.ingest.triples import _clean_rows, _parse_lines, triples_to_ntriples

ROWS = [
    ("Amélie | 2001", "directed_by", "Jean-Pierre Jeunet"),
    ('Say "Hi", 100% \\o/', "hasTags", "a~b.c_d-e#f?g&h=i"),
    ("padded", "birthDate", "東京"),
]

#: The N-Triples of ROWS under base ``http://b/``, as kgsvc has always written them: existing datasets rely on it.
EXPECTED = {
    '<http://b/entity/%E6%9D%B1%E4%BA%AC> <http://www.w3.org/2000/01/rdf-schema#label> "東京" .',
    "<http://b/entity/Am%C3%A9lie%20%7C%202001> <http://b/relation/directed_by> "
    "<http://b/entity/Jean-Pierre%20Jeunet> .",
    '<http://b/entity/Am%C3%A9lie%20%7C%202001> <http://www.w3.org/2000/01/rdf-schema#label> "Amélie | 2001" .',
    '<http://b/entity/Jean-Pierre%20Jeunet> <http://www.w3.org/2000/01/rdf-schema#label> "Jean-Pierre Jeunet" .',
    "<http://b/entity/Say%20%22Hi%22%2C%20100%25%20%5Co%2F> <http://b/relation/hasTags> "
    "<http://b/entity/a~b.c_d-e%23f%3Fg%26h%3Di> .",
    "<http://b/entity/Say%20%22Hi%22%2C%20100%25%20%5Co%2F> <http://www.w3.org/2000/01/rdf-schema#label> "
    '"Say \\"Hi\\", 100% \\\\o/" .',
    '<http://b/entity/a~b.c_d-e%23f%3Fg%26h%3Di> <http://www.w3.org/2000/01/rdf-schema#label> "a~b.c_d-e#f?g&h=i" .',
    "<http://b/entity/padded> <http://b/relation/birthDate> <http://b/entity/%E6%9D%B1%E4%BA%AC> .",
    '<http://b/entity/padded> <http://www.w3.org/2000/01/rdf-schema#label> "padded" .',
    '<http://b/relation/birthDate> <http://www.w3.org/2000/01/rdf-schema#label> "birth date" .',
    '<http://b/relation/birthDate> <https://w3id.org/kgsvc/ns#sourceText> "birthDate" .',
    '<http://b/relation/directed_by> <http://www.w3.org/2000/01/rdf-schema#label> "directed by" .',
    '<http://b/relation/directed_by> <https://w3id.org/kgsvc/ns#sourceText> "directed_by" .',
    '<http://b/relation/hasTags> <http://www.w3.org/2000/01/rdf-schema#label> "has tags" .',
    '<http://b/relation/hasTags> <https://w3id.org/kgsvc/ns#sourceText> "hasTags" .',
}


def _lines(data: str, fmt: str) -> list[str]:
    chunks = triples_to_ntriples(io.BytesIO(data.encode()), fmt=fmt, base="http://b/", file="kb")
    return b"".join(chunks).decode().splitlines()


def _tsv(rows: list[tuple[str, str, str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def _quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


@pytest.mark.parametrize(
    "fmt, data",
    [
        ("tsv", _tsv(ROWS)),  # clean: the whole-block parser
        ("triples", "# a comment\n\n" + _tsv(ROWS).replace("padded", "  padded ")),  # the line-by-line parser
        ("tsv", _tsv(ROWS).replace("\n", "\r\n").rstrip()),  # CRLF, no line break at the end
        ("csv", "head,relation,tail\n" + "".join(",".join(_quoted(c) for c in row) + "\n" for row in ROWS)),
    ],
    ids=["clean-tsv", "comments-and-padding", "crlf", "csv"],
)
def test_mapping_is_stable(fmt: str, data: str) -> None:
    lines = _lines(data, fmt)
    assert set(lines) == EXPECTED
    assert len(lines) == len(EXPECTED)  # each label once


def test_duplicate_rows_and_repeated_terms_emit_labels_once() -> None:
    lines = _lines(_tsv(ROWS * 3) + "padded|x|y\n".replace("|", "\t"), "tsv")
    assert sorted(set(lines)) != sorted(lines)  # duplicate data rows are passed on (the store keeps one)
    assert sum('"padded"' in line for line in lines) == 1


@pytest.mark.parametrize(
    "block",
    [
        "a\tr\tb\n# comment\tr\tb\n",
        "a\tr\tb\n\n",
        "a\tr\tb\n \t \t \n",
        "a\tr\t\n",
        "a\tr\n",
        "a\tr\tb\tc\n",
    ],
    ids=["comment", "blank", "whitespace-row", "empty-field", "two-columns", "four-columns"],
)
def test_irregular_blocks_take_the_line_by_line_parser(block: str) -> None:
    assert _clean_rows(block, "\t") is None


def test_the_two_parsers_agree_on_clean_blocks() -> None:
    block = _tsv(ROWS) + "x|y\tz\tw\n"
    assert _clean_rows(block, "\t") == _parse_lines(block, "\t", 1, None)
    assert _clean_rows(" a \tr\tb\n", "\t") == (["a"], ["r"], ["b"])  # stripped, as line by line
    assert _clean_rows("a|r|b\tc\n", "|") == (["a"], ["r"], ["b\tc"])


def test_errors_name_the_line_across_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triples, "BLOCK_CHARS", 64)
    good = _tsv([(f"e{i}", "r", f"e{i + 1}") for i in range(200)])
    assert len(_lines(good, "tsv")) == 200 + 201 + 2
    with pytest.raises(IngestError, match=r"^kb:201: expected 3 columns \(head, relation, tail\), found 2$"):
        _lines(good + "a\tb\n" + good, "tsv")
    with pytest.raises(IngestError, match=r"^kb:202: empty head, relation or tail$"):
        _lines(good + "# comment\n" + "a\t \tb\n", "triples")
    with pytest.raises(IngestError, match=r"^kb: no triples in the file$"):
        _lines("# only a comment\n\n", "triples")
