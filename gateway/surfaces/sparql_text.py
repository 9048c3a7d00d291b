"""What `/sparql` reads in a caller's query text before any parser sees it.

pyoxigraph offers no way to parse a query without running it, nor to inspect its
algebra, so the text is read here at the lexer level: strings, IRIs, comments, variables,
language tags and blank node labels are told apart exactly as SPARQL's grammar delimits
them, and what is left (keywords, prefixed names, numbers, punctuation) is checked.
SPARQL decodes ``\\uXXXX`` escapes before parsing (pyoxigraph 0.5 only inside strings and
IRIs), so the text is read twice, as written and decoded, and neither reading may hide
anything.

SERVICE. Oxigraph's grammar matches a keyword as a case-insensitive prefix of the text,
with no word boundary after it: ``SERVICESILENT <x> {...}`` is SERVICE SILENT, and
``SERVICEex:p {...}`` is SERVICE ``ex:p``. Nor is a boundary needed before it, after a
token such as ``1`` or ``true``. So SERVICE is found as a case-insensitive *substring* of
any keyword, number or prefix name; only variables, local names (after the colon of a
prefixed name), language tags, blank node labels, strings, IRIs and comments may contain
it. A prefix whose own name contains "service" (``PREFIX myservice: <...>``) is refused
with the rest, on the safe side: rename the prefix.

Bounds. Oxigraph parses and evaluates recursively; deep nesting or a long chain of
operators overflows its stack and kills the process (measured with pyoxigraph 0.5: 1,000
nested function calls, 3,000 nested groups, sub-selects, MINUS or BIND, 10,000 `||`,
`&&`, `+`, UNION or FILTER). A query may nest brackets (``{ ( [ << {|``) at most
`MAX_DEPTH` deep and hold at most `MAX_OPERATORS` operators (``|| && | / ^ + - * ! = !=
< > <= >= . ;`` and UNION, OPTIONAL, MINUS, FILTER, BIND, LATERAL, GRAPH, EXISTS) — far
beyond hand-written queries, far below the measured failures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_DEPTH = 64
MAX_OPERATORS = 1000
UPDATE_KEYWORDS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"})
_OPERATOR_WORDS = frozenset({"UNION", "OPTIONAL", "MINUS", "FILTER", "BIND", "LATERAL", "GRAPH", "EXISTS"})
_OPENERS = frozenset({"{", "(", "[", "<<", "<<(", "{|"})
_CLOSERS = frozenset({"}", ")", "]", ">>", ")>>", "|}"})
_OPERATORS = frozenset({"||", "&&", "|", "/", "^", "+", "-", "*", "!", "=", "!=", "<", ">", "<=", ">=", ".", ";"})

_NAME_CHARS = r"\w\u00b7\u0300-\u036f\u203f-\u2040"
_LEXEMES = re.compile(
    rf'''(?P<skip>
        """(?:(?:"|"")?(?:[^"\\]|\\.))*"""          # STRING_LITERAL_LONG2
      | \'\'\'(?:(?:'|'')?(?:[^'\\]|\\.))*\'\'\'     # STRING_LITERAL_LONG1
      | "(?:[^"\\\n\r]|\\.)*"                        # STRING_LITERAL2
      | '(?:[^'\\\n\r]|\\.)*'                        # STRING_LITERAL1
      | <[^<>"{{}}|^`\\\x00-\x20]*>                  # IRIREF
      | \#[^\n\r]*                                   # a comment
      | [?$][{_NAME_CHARS}]+                         # a variable
      | @[A-Za-z]+(?:-[A-Za-z0-9]+)*                 # a language tag
      | _:[{_NAME_CHARS}.\-]*                        # a blank node label
      | \s+
    )
    | (?P<prefixed>[{_NAME_CHARS}.\-]*):(?:[{_NAME_CHARS}.\-:%]|\\.)*   # prefix:local (only the prefix is code)
    | (?P<word>[{_NAME_CHARS}]+(?:\.[0-9]+)?)                           # keywords, numbers, booleans
    | (?P<punct><<\(|\)>>|\{{\||\|}}|<<|>>|\|\||&&|<=|>=|!=|\^\^)
    | (?P<other>\\.|.)''',
    re.VERBOSE | re.DOTALL,
)
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


@dataclass(frozen=True)
class QueryText:
    """What a query's text holds, as far as the checks need to know."""

    words: tuple[str, ...]
    """The bare words (keywords, numbers, booleans), upper-cased, in order."""
    service: str | None
    """The first token in which SERVICE may be hiding, as written; None if there is none."""
    depth: int
    """The deepest bracket nesting."""
    operators: int

    @property
    def operation(self) -> str | None:
        """The query's first keyword after its prologue (SELECT, ASK, ... or an update's)."""
        return next((w for w in self.words if w not in ("PREFIX", "BASE")), None)

    @property
    def looks_like_update(self) -> bool:
        return self.operation in UPDATE_KEYWORDS

    @property
    def uses_from(self) -> bool:
        return "FROM" in self.words


def read_query(query: str) -> QueryText:
    """The checks' view of `query`: both readings (as written, escapes decoded) merged."""
    decoded = _decode_codepoints(query)
    first = _read(decoded)
    if decoded == query:
        return first
    second = _read(query)
    return QueryText(
        words=first.words + second.words,
        service=first.service or second.service,
        depth=max(first.depth, second.depth),
        operators=max(first.operators, second.operators),
    )


def _read(text: str) -> QueryText:
    words: list[str] = []
    service: str | None = None
    depth = deepest = operators = 0
    for match in _LEXEMES.finditer(text):
        kind = match.lastgroup
        if kind == "skip":
            continue
        token = match.group()
        if kind == "prefixed":
            code = token.partition(":")[0].upper()
            if "SERVICE" in code and service is None:
                service = token
            continue
        if kind == "word":
            upper = token.upper()
            words.append(upper)
            if "SERVICE" in upper and service is None:
                service = token
            if upper in _OPERATOR_WORDS:
                operators += 1
            continue
        if token in _OPENERS:
            depth += 1
            deepest = max(deepest, depth)
        elif token in _CLOSERS:
            depth -= 1
        elif token in _OPERATORS:
            operators += 1
    return QueryText(tuple(words), service, deepest, operators)


def _decode_codepoints(text: str) -> str:
    def decode(match: re.Match[str]) -> str:
        value = int(match.group(1) or match.group(2), 16)
        return chr(value) if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else match.group(0)

    return _CODEPOINT.sub(decode, text)
