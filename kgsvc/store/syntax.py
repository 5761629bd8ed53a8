"""Short SPARQL syntax error messages: Oxigraph's parser lists every token it would have accepted, including the
Unicode ranges of a name's first character (hundreds of characters); a person needs the position and a few.
"""

from __future__ import annotations

import re

__all__ = ["MAX_EXPECTED", "shorten_syntax_error"]

#: Expected tokens kept in a message; the rest are counted.
MAX_EXPECTED = 8

_RANGES = re.compile(r"\[[^\[\]]*\\u\{[^\]]*\]", re.DOTALL)
_DIGITS = re.compile(r"\['0'\s*\.\.=\s*'9'\]")
_EXPECTED = re.compile(r"expected one of (.*)$", re.DOTALL)


def shorten_syntax_error(message: str, limit: int = MAX_EXPECTED) -> str:
    """``message`` with its character ranges named (``a name``, ``a digit``) and its list of expected tokens cut to
    ``limit`` items, on one line.

    >>> shorten_syntax_error("error at 1:9: expected one of (, ['0'..='9'], ['A' ..= 'Z' | '\\\\u{00C0}'..='Z']")
    'error at 1:9: expected one of (, a digit, a name'
    >>> shorten_syntax_error("error at 1:3: expected one of A, B, C, D", limit=2)
    'error at 1:3: expected one of A, B, … (2 more)'
    """
    text = _DIGITS.sub("a digit", _RANGES.sub("a name", message))
    text = " ".join(text.split())
    found = _EXPECTED.search(text)
    if found is None:
        return text
    items = found.group(1).split(", ")
    if len(items) > limit:
        kept = ", ".join(items[:limit])
        text = f"{text[: found.start(1)]}{kept}, … ({len(items) - limit} more)"
    return text
