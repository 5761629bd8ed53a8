"""``unquote_plus`` decodes exactly as ``urllib.parse.unquote_plus`` does, on its fast path and off it."""

from __future__ import annotations

import urllib.parse

from hypothesis import example, given
from hypothesis import strategies as st

from kgsvc.api.query_string import parse_form, unquote_plus

#: Pieces that meet every branch: valid, invalid and partial escapes, ``=`` and ``%`` of their own, ``+``,
#: line breaks, bytes beyond ASCII and multi-byte UTF-8 split or whole.
PIECES = ["%", "=", "+", "a", "F", "0", "%2", "%3D", "%3d", "%C3%A9", "%c3%a9", "%E2%82", "%zz", "%%", "%0A"]
PIECES += ["\r", "\n"]


def _reference(raw: bytes) -> str:
    return urllib.parse.unquote_plus(raw.decode("latin-1"))


@given(st.lists(st.sampled_from(PIECES) | st.binary(max_size=3).map(lambda b: b.decode("latin-1")), max_size=16))
@example(["%", "\n"])
@example(["a", "%"])
def test_decodes_as_urllib(pieces: list[str]) -> None:
    raw = "".join(pieces).encode("latin-1")
    assert unquote_plus(raw) == _reference(raw)


def test_an_encoded_query_comes_back_whole() -> None:
    query = 'SELECT ?s WHERE { ?s <http://e/r> "Café + 100% = ☃" } LIMIT 5'
    assert unquote_plus(urllib.parse.quote_plus(query).encode()) == query
    assert unquote_plus(urllib.parse.quote(query, safe="{}<>?/: ").encode()) == query


@given(st.lists(st.sampled_from([*PIECES, "&", "&&", "=", "é", "query"]), max_size=20))
@example(["&", "=", "&"])
def test_a_form_parses_as_urllib(pieces: list[str]) -> None:
    body = "".join(pieces).encode()
    assert parse_form(body) == urllib.parse.parse_qsl(body.decode(), keep_blank_values=True)
