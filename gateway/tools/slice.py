"""fetch_slice: widen one passage into the window of its document's passages around it.

A document cut into passages (`bfs:passageOf`, `bfs:passageIndex`, `bfs:passageText`;
the bundle importer writes a paper's evidence texts so) is read a window at a time: given
a passage, the window centred on it; given the document, from its first passage. Anything
else comes back whole, with `sliced: false`. A passage is never more readable than its
document: a reader who may not read the document's own data gets the same not-found
answer for its passages as for an ID that is in no graph.
"""

from __future__ import annotations

from gateway.engine.context import GraphContext, quoted
from gateway.engine.presentation import full_nodes, node_types
from gateway.engine.seeds import resolve_seeds
from gateway.errors import NotFound
from gateway.models import FetchSliceInput, Passage, Slice
from gateway.profiles.base import HopPlan
from gateway.settings import clamp
from gateway.sparql import integer, iri
from gateway.terms import Literal, Term, pick_literal, text_of

DEFAULT_WINDOW, MAX_WINDOW = 3, 64
DEFAULT_CHARS, MAX_CHARS = 18_000, 200_000


def fetch_slice(ctx: GraphContext, query: FetchSliceInput) -> Slice:
    warnings: list[str] = []
    window = clamp(query.window, DEFAULT_WINDOW, 1, MAX_WINDOW, field="window", warnings=warnings)
    budget = clamp(query.content_max_chars, DEFAULT_CHARS, 1, MAX_CHARS, field="content_max_chars", warnings=warnings)
    present = resolve_seeds(ctx, [query.entity_id], HopPlan(), "entity_id", warnings, cap=1).iris
    if not present:
        raise _not_found(query.entity_id)
    entity = present[0]
    kind, document, index, total = _place(ctx, entity)
    to_id = ctx.ids.to_id
    if kind is None:  # never cut: the entity whole
        node = full_nodes(ctx, [entity], node_types(ctx, [entity]))[entity]
        text, language = (node.description, node.description_language) if node.description else (
            node.label or "", node.label_language)
        passage, used = _cut(Passage(id=node.id, name=node.label, name_language=node.label_language, content=text,
                                     content_language=language), budget)
        return Slice(entity_id=node.id, parent_id=node.id, parent_name=node.label,
                     parent_name_language=node.label_language, parent_type=node.entity_type,
                     passages=[passage], window=window, sliced=False, covers_parent=not passage.truncated, total=1,
                     content_chars=used, warnings=warnings + _budget_note(passage.truncated, budget))
    if not ctx.select("own_data", id=iri(document)):
        raise _not_found(query.entity_id)  # the document is not the reader's to read: nor its passages
    start = 0 if index is None else max(0, min(index - window // 2, total - window))
    passages: list[Passage] = []
    left = budget
    for passage_iri, (at, content, labels) in _window(ctx, document, start, window).items():
        position = int(at.value) if isinstance(at, Literal) else None
        label = pick_literal(labels, ctx.settings.languages) if labels else None
        passage, used = _cut(Passage(id=to_id(passage_iri), name=label.value if label else None,
                                     name_language=ctx.told_language(label) if label else None,
                                     content=text_of(content) if content else "", passage_index=position,
                                     passage_total=total), left)
        passages.append(passage)
        left -= used
    parent = full_nodes(ctx, [document], node_types(ctx, [document]))[document]
    covers = bool(passages) and start == 0 and len(passages) == total and not any(p.truncated for p in passages) \
        and any(text_of(v) in ("true", "1") for (v,) in ctx.select("covers", id=iri(document)))
    return Slice(
        entity_id=to_id(entity), parent_id=parent.id, parent_name=parent.label,
        parent_name_language=parent.label_language, parent_type=parent.entity_type,
        passages=passages, window=window, sliced=True, window_start=start, passage_total=total,
        covers_parent=covers, total=total, content_chars=budget - left,
        warnings=warnings + _budget_note(any(p.truncated for p in passages), budget),
    )


def _window(ctx: GraphContext, document: str, start: int, window: int) -> dict[str, tuple[Term | None, Term | None, list[Term]]]:
    """The window's passages in order: passage -> (its index, its text, its labels). A
    passage labelled in several languages is one passage (one row a label)."""
    found: dict[str, tuple[Term | None, Term | None, list[Term]]] = {}
    for passage, at, content, label in ctx.select("passages", document=iri(document), first=integer(start),
                                                  window=integer(window)):
        labels = found.setdefault(str(passage), (at, content, []))[2]
        if label is not None and label not in labels:
            labels.append(label)
    return found


def _place(ctx: GraphContext, entity: str) -> tuple[str | None, str, int | None, int]:
    """(kind "passage" / "document" / None, the document, the passage's index, passages of the document)."""
    for kind, document, index, total in ctx.select("passage", id=iri(entity)):
        count = int(total.value) if isinstance(total, Literal) else 0
        if text_of(kind) == "passage" and isinstance(index, Literal):
            return "passage", str(document), int(index.value), count
        if text_of(kind) == "document":
            return "document", entity, None, count
    return None, entity, None, 0


def _cut(passage: Passage, left: int) -> tuple[Passage, int]:
    """The passage within what is left of the window's budget, and the characters it used."""
    if len(passage.content) <= left:
        return passage, len(passage.content)
    kept = max(left, 0)
    return passage.model_copy(update={"content": passage.content[:kept], "truncated": True}), kept


def _budget_note(cut: bool, budget: int) -> list[str]:
    if not cut:
        return []
    return [f"content_max_chars: the window's text was cut at {budget} characters (truncated passages say so); "
            "ask a smaller window or a larger budget"]


def _not_found(asked: str) -> NotFound:
    """One answer for an ID in no graph and one the reader may not read."""
    return NotFound(f"{quoted(asked)} is not in this graph; search_entities finds IDs by name", field="entity_id")
