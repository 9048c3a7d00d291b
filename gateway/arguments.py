"""Tool arguments checked against their input model, each problem told in one line: the
field, what is wrong with it, and what is allowed instead (a misspelt or invented field
gets the nearest real one, so an agent's next call can be right)."""

from __future__ import annotations

import difflib
import functools
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gateway.errors import InvalidInput, MalformedInput

M = TypeVar("M", bound=BaseModel)

ALIASES: dict[str, tuple[str, ...]] = {
    "predicates": ("relationship_types", "relation_types", "relations", "relationships", "edge_types",
                   "edge_predicates", "predicate", "relationship", "relation", "properties"),
    "exclude_predicates": ("excluded_predicates", "exclude", "exclude_relationship_types", "not_predicates"),
    "max_hops": ("hops", "depth", "max_depth", "radius", "k"),
    "seeds": ("seed", "start", "entity_id", "entity_ids", "ids", "id", "nodes", "source"),
    "id": ("entity_id", "entity", "node", "ids", "seed"),
    "ids": ("entity_ids", "entities", "nodes", "seeds", "id"),
    "query": ("name", "text", "q", "search", "term"),
    "entity_types": ("types", "type", "node_types", "entity_type"),
    "node_types": ("types", "type", "entity_types", "entity_type"),
    "truth_status": ("truth_statuses", "status", "statuses"),
    "limit": ("max_results", "top_k", "count", "size", "k"),
    "entity_ids": ("seeds", "seed", "ids", "entities", "entity_id", "nodes", "id"),
    "relationship_types": ("predicates", "relations", "relationships", "edge_types", "relationship", "predicate"),
    "types": ("entity_types", "node_types", "type", "entity_type"),
    "depth": ("max_hops", "hops", "max_depth", "radius", "k"),
}
"""Names agents use for a field (from other graph tools), by the field they mean here."""


MALFORMED = "blank_id"
"""The validation error of a malformed argument (`gateway.models.Id`): `MalformedInput`."""


def validate(model: type[M], arguments: object) -> M:
    """Arguments (a model, a dict or None) as `model`, or `InvalidInput` naming the field
    (`MalformedInput` for an argument that cannot be what its field holds)."""
    if isinstance(arguments, model):
        return arguments
    try:
        return model.model_validate(without_nulls(model, arguments) if arguments is not None else {})
    except ValidationError as error:
        first = ordered(error.errors())[0]
        field, message = explain(model, first)
        raise (MalformedInput if first["type"] == MALFORMED else InvalidInput)(message, field=field) from None


def without_nulls(model: type[BaseModel] | None, arguments: object) -> object:
    """The arguments without the null members that name fields of `model`, at any depth:
    null means "not given" (OpenAI's strict mode sends every field, null for those the
    caller leaves out), and every field that takes none means the same by its default. A
    null under a name that is no field stays, to be refused as the unknown field it is."""
    if not isinstance(arguments, dict) or model is None:
        return arguments
    if not any(value is None or isinstance(value, dict) for value in arguments.values()):
        return arguments  # most calls: nothing to drop or look into (the walk below costs 3x the validation)
    fields = model.model_fields
    return {
        key: without_nulls(_model_in(fields[key].annotation), value) if key in fields and isinstance(value, dict)
        else value
        for key, value in arguments.items()
        if value is not None or key not in fields
    }


def ordered(errors: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Errors with invented fields first: a required field that seems missing was most
    often sent under another name, and the name sent is the one to correct."""
    return sorted(errors, key=lambda error: error["type"] != "extra_forbidden")


def explain(model: type[BaseModel], error: Mapping[str, Any]) -> tuple[str | None, str]:
    """(the field as a dotted path, one line saying what is wrong and what is allowed)."""
    location = [str(part) for part in error["loc"]]
    field = ".".join(location) or None
    kind = error["type"]
    if kind == "extra_forbidden":
        owner = _model_at(model, location[:-1])
        known = list(owner.model_fields) if owner is not None else []
        hint = _nearest(location[-1], known)
        return field, f"{field}: no such field{hint}; fields here: {', '.join(known)}"
    if kind == "missing":
        return field, f"{field}: required"
    if kind == "too_short" and error.get("ctx", {}).get("actual_length") == 0:
        owner = _model_at(model, location[:-1])
        info = owner.model_fields.get(location[-1]) if owner is not None else None
        if info is not None and not info.is_required():
            return field, (f"{field}: an empty list would match nothing, so it is refused; leave {field} out "
                           "(or null) for the default, or name at least one")
        return field, f"{field}: name at least {error['ctx']['min_length']}"
    if kind == MALFORMED:
        return field, f"{field}: an ID must not be blank"
    got = error.get("input")
    shown = repr(got) if len(repr(got)) <= 60 else repr(got)[:57] + "..."
    return field, f"{field or 'arguments'}: {error['msg']} (got {shown})"


def _nearest(name: str, known: list[str]) -> str:
    meant = [field for field, aliases in ALIASES.items() if field in known and name.lower() in aliases]
    meant += difflib.get_close_matches(name.lower(), known, n=2, cutoff=0.6)
    picks = list(dict.fromkeys(meant))[:2]
    return f"; did you mean {' or '.join(picks)}?" if picks else ""


def _model_at(model: type[BaseModel], path: list[str]) -> type[BaseModel] | None:
    """The model of the object at `path` inside `model` (list indexes skipped)."""
    current: type[BaseModel] | None = model
    for part in path:
        if current is None or part.isdigit():
            continue
        info = current.model_fields.get(part)
        current = _model_in(info.annotation) if info is not None else None
    return current


def _model_in(annotation: Any) -> type[BaseModel] | None:
    try:
        return _model_in_hashable(annotation)
    except TypeError:  # an annotation holding something unhashable: looked into each time
        return _find_model(annotation)


@functools.cache
def _model_in_hashable(annotation: Any) -> type[BaseModel] | None:
    return _find_model(annotation)


def _find_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, list):
        for arg in typing.get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None
