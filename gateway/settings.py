"""Bounds and preferences of a gateway: budgets, caps, the call deadline, the language."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gateway.errors import InvalidInput

LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
"""A BCP 47 language tag as RDF writes one: en, pt-br, zh-hant."""


@dataclass(frozen=True)
class Settings:
    """Bounds and preferences. Budgets beyond the caps are clamped, never refused."""

    languages: tuple[str, ...] = ("en", "mul")
    """Label, description and alias languages, most wanted first (a tag also takes its
    subtags: "en" takes "en-gb"); after them, a value without a language, then any.
    "mul" is Wikidata's one label for every language (a name spelled the same in all)."""
    max_hops: int = 6
    default_max_nodes: int = 1000
    max_nodes: int = 10_000
    default_max_edges: int = 2000
    max_edges: int = 50_000
    description: str | None = None
    cursor_secret: str | None = None
    """Seals scan cursors; None: the deployment's key (`gateway.deployment_key`)."""
    communities_max_edges: int = 100_000
    deadline: float = 30.0
    """Seconds a tool call may take (see `gateway.deadline`); a caller may ask for less."""
    max_deadline: float = 300.0
    """The most a trusted caller may ask for."""
    llm_url: str | None = None
    """An OpenAI-compatible chat-completions base URL for `answer` (e.g. http://127.0.0.1:8080/v1);
    None: `BFSQL_LLM_URL`. Over MCP the client's own model is used when it offers sampling."""
    llm_model: str | None = None
    """The model name sent to `llm_url`; None: `BFSQL_LLM_MODEL`."""
    llm_api_key: str | None = field(default=None, repr=False)
    """A bearer token for `llm_url`; None: `BFSQL_LLM_API_KEY`, or none."""
    llm_timeout: float = 120.0
    """Seconds one model call may take."""
    census_memory: int = 64 << 20
    """Bytes the census (`bfsql load`'s whole-graph counts) may hold of its counts per
    entity before it puts them in temporary files."""

    def __post_init__(self) -> None:
        for tag in self.languages:
            if not isinstance(tag, str) or not LANGUAGE_TAG.match(tag):
                raise InvalidInput(f"not a language tag: {tag!r} (say en, mul, pt-br, ...)", field="languages")

    @property
    def language(self) -> str:
        """The first wanted language: where one must be named (an entity search service)."""
        return self.languages[0] if self.languages else "en"


def clamp(value: int | None, default: int, low: int, high: int, *, field: str, warnings: list[str]) -> int:
    """A budget within its bounds (`default` when not given); a value moved into them is
    said in `warnings`, so an answer is never smaller than asked without saying so."""
    if value is None:
        return default
    used = max(low, min(value, high))
    if used != value:
        warnings.append(f"{field}: {value} is outside {low} to {high}; {used} was used")
    return used
