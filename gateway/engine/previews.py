"""What a list row shows of a node (expand_neighbors): `full_nodes`' names, types and
statement, without the properties a row never shows. On a small graph, building every
property of a few nodes cost a short list more than the query that read them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gateway.engine.context import GraphContext
from gateway.engine.presentation import Names, NodeRow, extra_types, node_rows, statement_details
from gateway.models import Edge
from gateway.values import STATEMENT_TYPE, entity_type


@dataclass(frozen=True)
class Preview:
    """A node's fields a row shows, each as its full node (`full_nodes`) has it."""

    id: str
    entity_type: str
    types: list[str] | None
    label: str | None
    label_language: str | None
    description: str | None
    description_language: str | None
    statement: Edge | None


def previews(
    ctx: GraphContext, nodes: Sequence[str], types: dict[str, list[str]], *, read: dict[str, list[NodeRow]] | None = None,
) -> dict[str, Preview]:
    """Each node's preview; `read`: its rows (node_data.rq's, or its names' alone), read already."""
    rows_by_node = node_rows(ctx, nodes)[0] if read is None else read
    statements = [n for n in nodes if STATEMENT_TYPE in types.get(n, ())]
    details = statement_details(ctx, statements) if statements else {}
    languages = tuple(ctx.settings.languages)
    return {node: _preview(ctx, node, rows_by_node.get(node, ()), types.get(node, ()), details, languages)
            for node in nodes}


def _preview(
    ctx: GraphContext, node: str, rows: Sequence[NodeRow], types: Sequence[str], details: dict[str, Edge],
    languages: tuple[str, ...],
) -> Preview:
    to_id = ctx.ids.to_id
    names = Names([(p, v) for p, v, _ in rows], languages)
    kind = entity_type(types, to_id)
    return Preview(
        id=to_id(node), entity_type=kind, types=extra_types(kind, [to_id(t) for t in types if t != STATEMENT_TYPE]),
        label=names.label.value if names.label else None, label_language=names.tag(names.label),
        description=names.description.value if names.description else None,
        description_language=names.tag(names.description), statement=details.get(node),
    )
