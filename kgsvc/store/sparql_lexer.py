"""A small SPARQL lexer: tokens without a parser, for what kgsvc reads from query and update text.

pyoxigraph parses SPARQL but exposes no syntax tree, so the few facts kgsvc needs before (or beside) running a
text — its form, the graphs an update writes, where ``SERVICE`` occurs — are read from these tokens. The lexer
knows SPARQL's comments, string literals (all four quote forms), ``<IRIs>``, variables, prefixed names and
keywords; everything else is one-character punctuation. It never fails: any text gives a token list.

Entry points: :func:`tokens`, :func:`split_operations` (an update's operations, split at top-level ``;``),
:func:`block_end` and :func:`word_at`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgsvc.errors import QueryError

__all__ = ["PROLOGUE", "TOKEN", "Token", "block_end", "split_operations", "tokens", "word_at"]

#: The token grammar; the group name is the token kind.
TOKEN = re.compile(
    r"""
      (?P<ws>\s+)
    | (?P<escape>\\.)
    | (?P<comment>\#[^\r\n]*)
    | (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
                 |'(?:[^'\\\r\n]|\\.)*'|"(?:[^"\\\r\n]|\\.)*")
    | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
    | (?P<var>[?$][A-Za-z0-9_]+)
    | (?P<pname>(?:[A-Za-z](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?)?:(?P<local>[A-Za-z0-9_:][A-Za-z0-9_:\-]*)?)
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<punct>.)
    """,
    re.VERBOSE | re.DOTALL,
)
#: Keywords of the prologue (``PREFIX p: <iri>``, ``BASE <iri>``, ``VERSION "1.2"``).
PROLOGUE = frozenset({"PREFIX", "BASE", "VERSION"})


@dataclass(frozen=True)
class Token:
    """One token: its kind (a group name of :data:`TOKEN`), its span in the text and its text."""

    kind: str
    start: int
    end: int
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper()


def tokens(text: str) -> list[Token]:
    """Tokens of ``text`` without white space and comments.

    >>> [t.kind for t in tokens("SELECT ?s # a comment\\n{ ?s <p> 'x' }")]
    ['word', 'var', 'punct', 'var', 'iri', 'string', 'punct']
    """
    out = []
    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("ws", "comment"):
            continue
        out.append(Token(kind or "punct", match.start(), match.end(), match.group()))
    return out


def split_operations(toks: list[Token]) -> list[list[Token]]:
    """An update's operations: the tokens split at every ``;`` outside braces (empty operations dropped)."""
    operations: list[list[Token]] = [[]]
    depth = 0
    for token in toks:
        if token.kind == "punct" and token.text == "{":
            depth += 1
        elif token.kind == "punct" and token.text == "}":
            depth -= 1
        if depth == 0 and token.kind == "punct" and token.text == ";":
            operations.append([])
        else:
            operations[-1].append(token)
    return [op for op in operations if op]


def block_end(op: list[Token], start: int) -> int:
    """Index in ``op`` of the ``}`` closing the ``{`` at or after ``start``.

    Raises
    ------
    QueryError
        ``kind="syntax"`` when the braces do not balance.
    """
    depth = 0
    for i in range(start, len(op)):
        if op[i].kind == "punct" and op[i].text == "{":
            depth += 1
        elif op[i].kind == "punct" and op[i].text == "}":
            depth -= 1
            if depth == 0:
                return i
    raise QueryError("unbalanced braces in the update", kind="syntax")


def word_at(op: list[Token], i: int) -> str:
    """The upper-cased keyword at ``op[i]``, or ``""`` when there is none (past the end, or not a word)."""
    return op[i].upper if i < len(op) and op[i].kind == "word" else ""
