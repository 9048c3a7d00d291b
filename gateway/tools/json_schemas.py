"""The tools' JSON Schemas, generated once from their pydantic models, for every surface:
OpenAPI, the HTTP tool list (OpenAI and MCP forms) and the MCP server's own `tools/list`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from gateway.tools import TOOLS, Tool


@dataclass(frozen=True)
class Schemas:
    components: dict[str, Any]
    """Every input (validation mode) and output (serialization mode, None fields omitted) definition."""
    inputs: dict[str, dict[str, Any]]
    outputs: dict[str, dict[str, Any]]
    """Per tool: a `$ref` (or union of them) into `components`."""

    def standalone(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A schema with every `$ref` inlined, for clients that resolve none (the models have no cycles)."""
        return _inline(schema, self.components, ())


def tool_schemas(tools: Mapping[str, Tool] = TOOLS, *, ref_prefix: str = "#/components/schemas/") -> Schemas:
    adapters = [((name, "in"), "validation", TypeAdapter(tool.input)) for name, tool in tools.items()]
    adapters += [((name, "out"), "serialization", TypeAdapter(tool.output)) for name, tool in tools.items()]
    roots, top = TypeAdapter.json_schemas(adapters, ref_template=ref_prefix + "{model}")  # type: ignore[arg-type]
    components: dict[str, Any] = top.get("$defs", {})
    inputs = {name: roots[((name, "in"), "validation")] for name in tools}
    outputs = {name: roots[((name, "out"), "serialization")] for name in tools}
    # Responses are dumped with exclude_none: a None field is absent, never null. Say so in
    # the output definitions (only those no input uses), or a conforming answer would
    # fail its own schema.
    from_inputs = _reachable(inputs.values(), components)
    for name in _reachable(outputs.values(), components) - from_inputs:
        components[name] = _omit_nulls(components[name])
    # And inputs take null for any optional field (it means "not given": gateway.arguments).
    for name in from_inputs:
        components[name] = _null_allowed(components[name])
    return Schemas(components, inputs, outputs)


SHARED_FIELDS: dict[str, str] = {
    **dict.fromkeys(("truth_status", "as_of", "valid_at", "direction", "node_filter", "edge_filter", "predicates",
                     "exclude_predicates", "topology_only", "max_nodes", "max_edges", "graphs"), "bfs_query"),
    "languages": "describe_entity",
}
"""Fields several tools share -> the one tool whose schema explains it in words (with its
allowed values); the other tools list it without words (`_typed_only`). Each explanation is
then loaded once, not eight times, and every tool still types every field."""

LISTED_TYPES: dict[str, dict[str, Any]] = {"as_of": {"type": "string"}, "valid_at": {"type": "string"}}
"""Fields the tool lists type more simply than OpenAPI does: a position is also taken as a
string ("485", like an ISO date), and one type reads in a third of the characters of the
union, in the eight tools that take one (a list of types is refused by some dialects)."""


def _typed_only(schema: Any) -> Any:
    """A shared field as a tool that does not explain it lists it: its type, bounds and
    default without words, and a list's items by their type only (truth_status's five values
    are spelled out where it is explained). The server checks it the same everywhere, with an
    error naming the field and what is allowed."""
    typed = lean(schema, descriptions=False)
    items = typed.get("items")
    if isinstance(items, dict) and "enum" in items and "type" in items:
        typed["items"] = {"type": items["type"]}
    return typed


UNLISTED_BOUNDS = frozenset({"maxLength", "maxItems", "maxProperties", "maximum", "pattern"})
"""Bounds the tool lists leave out: the server enforces them (a 422 naming the field) and
OpenAPI states them, but an agent never comes near the upper ones, a name's pattern (letters,
digits, `_`) is said in words, and every character of the list is paid on every turn."""


def lean(schema: Any, *, descriptions: bool = True, depth: int = 0) -> Any:
    """A schema without what pydantic adds and a client does not need: `title`s, null and
    false defaults (an optional flag is off unless given), `anyOf [X, null]` for an optional
    field (leaving it out is how a caller says "none"), the bounds in `UNLISTED_BOUNDS`, a
    name-keyed map's pattern; without descriptions if asked. Types, enums and lower bounds
    stay: the list refuses what the server refuses (tests/surfaces/conftest.py, REFUSED)."""
    if isinstance(schema, list):
        return [lean(item, descriptions=descriptions, depth=depth + 1) for item in schema]
    if not isinstance(schema, dict):
        return schema
    dropped = {"title", *UNLISTED_BOUNDS} if descriptions else {"title", "description", *UNLISTED_BOUNDS}
    if depth:  # refusing unknown fields is said once, at the root
        dropped = dropped | {"additionalProperties"} if schema.get("additionalProperties") is False else dropped
    kept = {key: lean(value, descriptions=descriptions, depth=depth + 1) for key, value in schema.items()
            if key not in dropped and not (key == "default" and (value is None or value is False))}
    if "properties" in schema:  # property names, not keywords: keep every one
        kept["properties"] = {name: lean(value, descriptions=descriptions, depth=depth + 1)
                              for name, value in schema["properties"].items()}
    return _without_null_option(_name_keyed(kept))


MCP_UNLISTED = frozenset({"minItems", "minLength", "minimum", "exclusiveMinimum"})
"""What the MCP list leaves out of the OpenAI one (`light`)."""


def light(schema: Any) -> Any:
    """An input schema as MCP's `tools/list` carries it: the OpenAI form without what the
    server checks all the same, each with an error naming the field and what is allowed
    (and, for an unknown field, the one it likely meant): `additionalProperties: false`,
    lower bounds (`MCP_UNLISTED`; a range is said in words, "1 to 256"), defaults but `true`
    (leaving a field out gets the tool's usual behaviour; a flag that is on unless turned off
    is the one default a caller would guess wrong), an empty `properties`. Every MCP session
    loads the list before its first call (held to 10,000 characters: tests/surfaces/
    test_mcp.py); types and enums stay in full (tests/surfaces/test_tool_list_types.py)."""
    if isinstance(schema, list):
        return [light(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {key: light(value) for key, value in schema.items()
            if key not in MCP_UNLISTED and key != "properties"
            and not (key == "default" and value is not True)
            and not (key == "additionalProperties" and value is False)}
    if schema.get("properties"):  # property names, not keywords: keep every one
        kept["properties"] = {name: light(value) for name, value in schema["properties"].items()}
    return kept


def _name_keyed(kept: dict[str, Any]) -> dict[str, Any]:
    """A map whose keys are names (one `patternProperties` entry) as the shape of its values."""
    patterns = kept.pop("patternProperties", None)
    if isinstance(patterns, dict) and len(patterns) == 1:
        kept["additionalProperties"] = next(iter(patterns.values()))
    elif patterns is not None:
        kept["patternProperties"] = patterns
    return kept


def _without_null_option(kept: dict[str, Any]) -> dict[str, Any]:
    """`anyOf` without its null branch; one branch left is the schema itself."""
    options = kept.get("anyOf")
    if isinstance(options, list):
        rest = [option for option in options if option != {"type": "null"}]
        if len(rest) < len(options):
            del kept["anyOf"]
            kept = {**rest[0], **kept} if len(rest) == 1 else {**kept, "anyOf": rest}
    return kept


def _names(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema that names its properties (`propertyNames`) and keeps only the values
    a property is limited to (an enum, a const): what an agent cannot learn from an answer's
    JSON, which shows every value's type itself. Every answer conforms (an answer holds its
    model's fields only), the output schemas of the tool list every session loads are half
    the size they were with each property's top-level type (bench/RESULTS.md, "Agent
    conversation"), and no property is a schema that accepts anything (`{}`), which schema
    linters (MCP Inspector's `--strict`) warn of."""

    def allowed(part: Any) -> dict[str, Any] | None:
        if isinstance(part, dict) and "enum" in part:
            return {"enum": part["enum"]}
        if isinstance(part, dict) and "const" in part:
            return {"enum": [part["const"]]}
        return None

    names = list(schema.get("properties", {}))
    if not names:
        return schema
    limited = {name: allowed(value) for name, value in schema["properties"].items()}
    named = {key: value for key, value in schema.items() if key != "properties"}
    named["propertyNames"] = {"enum": names}
    if any(limited.values()):
        named["properties"] = {name: value for name, value in limited.items() if value}
    return named


def _merged(schema: dict[str, Any]) -> dict[str, Any]:
    """A union of object schemas (an answer with one model per form, such as bfs_query's
    per layout) as one object: each property the union of what the branches allow, so
    every answer still conforms, at the size of one branch."""
    branches = next((schema[u] for u in ("oneOf", "anyOf") if isinstance(schema.get(u), list)), None)
    if branches is None:
        return schema
    options: dict[str, list[Any]] = {}
    for branch in branches:
        for name, value in branch.get("properties", {}).items():
            if value not in options.setdefault(name, []):
                options[name].append(value)
    properties = {}
    for name, values in options.items():
        if len(values) == 1:
            properties[name] = values[0]
        elif all("const" in v and set(v) <= {"const", "default", "type"} and v.get("type") == "string" for v in values):
            properties[name] = {"enum": [v["const"] for v in values], "type": "string"}
        else:
            properties[name] = {"anyOf": values}
    return {"properties": properties, "type": "object"}


def _open(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema without `additionalProperties: false`, `required` and defaults: none
    helps a client read an answer (`propertyNames` says which fields there are; docs/tools.md
    says which are always there), and all cost characters on every turn."""
    properties = {name: {k: v for k, v in value.items() if k != "default"}
                  for name, value in schema.get("properties", {}).items()}
    kept = {k: v for k, v in schema.items() if k not in ("additionalProperties", "required")}
    return {**kept, "properties": properties} if properties else kept


def _refs(schema: Any) -> Iterable[str]:
    if isinstance(schema, dict):
        if isinstance(schema.get("$ref"), str):
            yield schema["$ref"].rsplit("/", 1)[-1]
        for value in schema.values():
            yield from _refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _refs(value)


def _reachable(roots: Iterable[Any], components: Mapping[str, Any]) -> set[str]:
    seen: set[str] = set()
    stack = [name for root in roots for name in _refs(root)]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(_refs(components[name]))
    return seen


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


def _omit_nulls(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    nullable = set()
    new_properties = {}
    for name, prop in properties.items():
        options = prop.get("anyOf")
        if isinstance(options, list) and any(_is_null(option) for option in options):
            nullable.add(name)
            kept = [option for option in options if not _is_null(option)]
            rest = {k: v for k, v in prop.items() if k != "anyOf" and not (k == "default" and v is None)}
            prop = {**kept[0], **rest} if len(kept) == 1 else {**rest, "anyOf": kept}
        new_properties[name] = prop
    required = [name for name in schema.get("required", []) if name not in nullable]
    result = {**schema, "properties": new_properties}
    if required:
        result["required"] = required
    else:
        result.pop("required", None)
    return result


def _null_allowed(schema: dict[str, Any]) -> dict[str, Any]:
    """An input object schema whose optional properties also take null (`lean` drops that
    again from the tool lists, where leaving a field out says the same in fewer characters)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    required = set(schema.get("required", ()))
    nullable = {}
    for name, prop in properties.items():
        options = prop.get("anyOf")
        if name in required or (isinstance(options, list) and any(_is_null(o) for o in options)):
            nullable[name] = prop
            continue
        outer = {k: v for k, v in prop.items() if k in ("title", "description", "default")}
        inner = {k: v for k, v in prop.items() if k not in outer}
        nullable[name] = {"anyOf": [inner, {"type": "null"}], **outer}
    return {**schema, "properties": nullable}


def _inline(schema: Any, components: Mapping[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(schema, list):
        return [_inline(item, components, stack) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if isinstance(schema.get("$ref"), str):
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in stack:
            raise ValueError(f"the schema of {name} is recursive; it cannot be inlined")
        target = _inline(components[name], components, (*stack, name))
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return {key: _inline(value, components, stack) for key, value in schema.items()}


STRICT_UNSUPPORTED = frozenset({"default", "minLength", "maxLength", "title", "examples"})
"""Keywords OpenAI's strict mode refuses (or ignores) in a function's parameters."""


def strict(schema: Any, *, required: bool = True) -> Any:
    """A parameters schema in OpenAI's strict form: every object closed and every property
    required, an optional one nullable (null means "not given": the server drops nulls
    before checking arguments), and the keywords strict mode refuses removed (a default
    goes into the description). Leaves a strict schema as it is."""
    if not isinstance(schema, dict):
        return schema
    converted = {key: value for key, value in schema.items() if key not in STRICT_UNSUPPORTED}
    if not required:
        # A strict model must send every field: say which value means "not given", so it
        # never invents one (an as_of of 0 would hide every positioned statement).
        said = converted.get("description", "")
        known = schema.get("default")
        if known is not None and known != []:
            converted["description"] = f"{said} Default {json.dumps(known)}; null gives the default.".strip()
        else:
            converted["description"] = f"{said} Null when not wanted.".strip()
    if converted.get("type") == "object" and "additionalProperties" not in converted:
        converted.setdefault("properties", {})  # a tool of no arguments: closed all the same
    if "items" in converted:
        converted["items"] = strict(converted["items"])
    if "anyOf" in converted:
        converted["anyOf"] = [strict(option) for option in converted["anyOf"]]
    if "properties" in converted:
        needed = set(schema.get("required", ()))
        converted["properties"] = {name: strict(value, required=name in needed)
                                   for name, value in converted["properties"].items()}
        converted["required"] = list(converted["properties"])
        converted["additionalProperties"] = False
    return converted if required else _nullable(converted)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if "anyOf" in schema:
        options = schema["anyOf"]
        return schema if {"type": "null"} in options else {**schema, "anyOf": [*options, {"type": "null"}]}
    if kind == "object" or kind is None:  # an object (or an unknown shape) keeps its type; null is an option
        description = {"description": schema.pop("description")} if "description" in schema else {}
        return {"anyOf": [schema, {"type": "null"}], **description}
    kinds = kind if isinstance(kind, list) else [kind]
    nullable = {**schema, "type": [*kinds, "null"] if "null" not in kinds else kinds}
    if "enum" in schema and None not in schema["enum"]:
        nullable["enum"] = [*schema["enum"], None]
    return nullable


STRICT_UNLISTED = frozenset({"tabulate"})
"""Tools the strict list leaves out (see `strict_tool_list`)."""


def strict_tool_list(schemas: Schemas, tools: Mapping[str, Tool] = TOOLS) -> list[dict[str, Any]]:
    """The tools as OpenAI function-calling tools in strict mode (`"strict": true`). A tool
    whose arguments are maps keyed by the caller's names (tabulate's columns) is left out:
    strict mode closes every object, so such a map cannot be written in it."""
    listed = tool_list(schemas, {name: tool for name, tool in tools.items() if name not in STRICT_UNLISTED})["openai"]
    return [
        {"type": "function", "function": {**tool["function"], "parameters": strict(tool["function"]["parameters"]),
                                          "strict": True}}
        for tool in listed
    ]


def tool_list(schemas: Schemas, tools: Mapping[str, Tool] = TOOLS) -> dict[str, list[dict[str, Any]]]:
    """The tools in OpenAI function-calling format and in MCP `tools/list` format, compact
    (`lean`; MCP's input schemas `light` too): what an agent loads before its first call, so
    every character counts. Every field has a type (tests/surfaces/test_tool_list_types.py)."""
    openai, mcp = [], []
    for name, tool in tools.items():
        parameters = _parameters(schemas, name)
        properties = parameters.setdefault("properties", {})
        for field in SHARED_FIELDS.keys() & set(properties):
            if SHARED_FIELDS[field] != name:  # explained once, in the tool SHARED_FIELDS names
                properties[field] = _typed_only(properties[field])
        for field in set(tool.told) & set(properties):
            properties[field] = {key: value for key, value in properties[field].items() if key != "description"}
        properties.update(tool.brief)
        # Outputs validate answers; the tools' descriptions and docs/tools.md explain them,
        # so the list carries the names of their fields only (and the values an enum allows).
        output = _open(_names(_merged(lean(schemas.standalone(schemas.outputs[name]), descriptions=False))))
        output.setdefault("type", "object")  # MCP wants an object at the root
        openai.append({"type": "function", "function": {"name": name, "description": tool.description, "parameters": parameters}})
        mcp.append({
            "name": name, "description": tool.description, "inputSchema": light(parameters),
            "outputSchema": output, "annotations": {"readOnlyHint": True},
        })
    return {"openai": openai, "mcp": mcp}


def _parameters(schemas: Schemas, name: str) -> dict[str, Any]:
    parameters: dict[str, Any] = lean(schemas.standalone(schemas.inputs[name]))
    properties = parameters.get("properties", {})
    for field in LISTED_TYPES.keys() & set(properties):
        words = properties[field].get("description")
        properties[field] = {**LISTED_TYPES[field], **({"description": words} if words else {})}
    return parameters
