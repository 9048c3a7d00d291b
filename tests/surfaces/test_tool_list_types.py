"""Every field of every tool list has a type, as the clients that read the lists check it.

Three checks, each a client's own rule:

- MCP Inspector's `--strict` schema lint (`@modelcontextprotocol/inspector` 2.12, CLI
  `--method tools/list`): a schema with no validating keyword (`{}`, or words only) accepts
  anything ("untyped-schema"); `type` as a list is less portable ("type-union"); a bare
  `true`/`false` where a schema object belongs ("boolean-schema"). It lints input and output
  schemas alike.
- gemini-cli's `hasValidTypes`: every property and array item has a `type` (or an
  `anyOf`/`oneOf`/`allOf` of typed branches), or the client drops the whole tool.
- Gemini's function declarations: an array without `items` fails the whole request.

Fields a tool lists in words (`Tool.brief`: tabulate's clauses) may be free-form objects;
they are typed all the same."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client

from gateway import Gateway
from gateway.surfaces.mcp import create_mcp_server
from gateway.tools import TOOLS
from tests.conftest import DEMO

Finding = tuple[str, str]
"""(rule, path)"""

CONSTRAINING = frozenset({
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema",
    "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
    "required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains",
    "additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties",
    "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef",
    "$recursiveRef",
})
"""The keywords that make a schema validate something (the inspector's list)."""

ONE = ("items", "contains", "not", "propertyNames", "if", "then", "else", "additionalProperties",
       "unevaluatedProperties", "additionalItems", "unevaluatedItems", "contentSchema")
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
MAPS = ("properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions")
BOOLEAN_VALUED = frozenset({"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"})


def _children(node: dict[str, Any], path: str) -> Iterator[tuple[Any, str, str]]:
    for key in MAPS:
        if isinstance(node.get(key), dict):
            for name, sub in node[key].items():
                yield sub, f"{path}.{key}.{name}", key
    for key in MANY:
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                yield sub, f"{path}.{key}[{i}]", key
    for key in ONE:
        if key in node:
            yield node[key], f"{path}.{key}", key


def inspector_lint(schema: Any, path: str = "", keyword: str | None = None, *, unions: bool = True) -> list[Finding]:
    """MCP Inspector's `--strict` findings for one schema (`unions=False`: type lists allowed,
    as OpenAI's strict mode spells a nullable field)."""
    if isinstance(schema, bool):
        return [] if keyword in BOOLEAN_VALUED else [("boolean-schema", path)]
    if not isinstance(schema, dict):
        return []
    found: list[Finding] = []
    if unions and isinstance(schema.get("type"), list):
        found.append(("type-union", path))
    if keyword != "not" and not (CONSTRAINING & set(schema)) and not ("if" in schema and {"then", "else"} & set(schema)):
        found.append(("untyped-schema", path))
    for sub, sub_path, sub_keyword in _children(schema, path):
        found += inspector_lint(sub, sub_path, sub_keyword, unions=unions)
    return found


def typed_lint(schema: Any, path: str = "") -> list[Finding]:
    """gemini-cli's rule (a `type`, or typed branches) with Gemini's `items` for an array."""
    if not isinstance(schema, dict):
        return []
    branches = [b for key in ("anyOf", "oneOf", "allOf") for b in schema.get(key, []) if isinstance(schema.get(key), list)]
    if "type" not in schema:
        if not branches:
            return [("no-type", path)]
        return [f for i, b in enumerate(branches) for f in typed_lint(b, f"{path}.anyOf[{i}]")]
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    found: list[Finding] = []
    if "array" in kinds and not isinstance(schema.get("items"), dict):
        found.append(("array-without-items", path))
    for name, sub in schema.get("properties", {}).items():
        found += typed_lint(sub, f"{path}.properties.{name}")
    if isinstance(schema.get("items"), dict):
        found += typed_lint(schema["items"], f"{path}.items")
    if isinstance(schema.get("additionalProperties"), dict):
        found += typed_lint(schema["additionalProperties"], f"{path}.additionalProperties")
    for i, branch in enumerate(branches):
        found += typed_lint(branch, f"{path}.anyOf[{i}]")
    return found


def test_the_lints_find_what_they_are_for() -> None:
    """The old shared-field copy (`{}`), a description alone, a list of types, an array of
    anything: each is found; a typed schema is not."""
    schema = {"type": "object", "properties": {
        "copy": {}, "words": {"description": "Walk only these."}, "union": {"type": ["integer", "string"]},
        "bare": {"type": "array"}, "typed": {"type": "array", "items": {"type": "string"}},
        "choice": {"anyOf": [{"type": "integer"}, {"type": "string"}]}, "flag": True,
    }}
    assert inspector_lint(schema) == [("untyped-schema", ".properties.copy"), ("untyped-schema", ".properties.words"),
                                      ("type-union", ".properties.union"), ("boolean-schema", ".properties.flag")]
    assert typed_lint(schema) == [("no-type", ".properties.copy"), ("no-type", ".properties.words"),
                                  ("array-without-items", ".properties.bare")]


def _mcp_tools() -> list[dict[str, Any]]:
    async def listed() -> list[dict[str, Any]]:
        async with Client(create_mcp_server(Gateway.open(DEMO))) as client:
            tools = (await client.list_tools()).tools
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]

    return asyncio.run(listed())


def _findings(schemas: dict[str, Any], lint: Callable[[Any], list[Finding]]) -> list[tuple[str, str, str]]:
    return [(name, rule, path) for name, schema in schemas.items() for rule, path in lint(schema)]


def test_mcp_tools_list_passes_the_inspectors_strict_lint_and_types_every_field() -> None:
    """What an MCP client receives (inputs and outputs): 0 findings (177 before: the shared
    fields' `{}` copies in every tool but bfs_query, 43, and the outputs' unnamed fields, 134)."""
    tools = _mcp_tools()
    assert sorted(tool["name"] for tool in tools) == sorted(TOOLS)
    inputs = {tool["name"]: tool["inputSchema"] for tool in tools}
    outputs = {tool["name"]: tool["outputSchema"] for tool in tools}
    assert _findings(inputs, inspector_lint) == [] and _findings(outputs, inspector_lint) == []
    assert _findings(inputs, typed_lint) == []


def test_every_input_property_is_typed_in_the_http_lists(client: httpx2.Client) -> None:
    """GET /v1/tools (OpenAI and MCP forms) and its strict form, where a nullable field is a
    list of types by OpenAI's own spelling."""
    listing = client.get("/v1/tools").json()
    strict = client.get("/v1/tools", params={"strict": "true"}).json()["openai"]
    openai = {tool["function"]["name"]: tool["function"]["parameters"] for tool in listing["openai"]}
    mcp = {tool["name"]: tool["inputSchema"] for tool in listing["mcp"]}
    closed = {tool["function"]["name"]: tool["function"]["parameters"] for tool in strict}
    for schemas in (openai, mcp):
        assert _findings(schemas, inspector_lint) == [] and _findings(schemas, typed_lint) == []
    assert _findings(closed, lambda s: inspector_lint(s, unions=False)) == []
    assert _findings(closed, typed_lint) == []


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_field_the_description_explains_is_named_in_it(name: str) -> None:
    """`Tool.told`: a field listed without words of its own is one the tool's description
    names, or the one field the tool requires (what the description says it takes: "one ID",
    "a name"), so rewording the description cannot leave it unexplained."""
    tool = TOOLS[name]
    required = [field for field, info in tool.input.model_fields.items() if info.is_required()]
    for field in tool.told:
        assert field in tool.input.model_fields, (name, field)
        assert field in tool.description or required == [field], (name, field)
