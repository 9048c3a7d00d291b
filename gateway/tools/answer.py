"""answer: a question whose place in the graph is unknown, map-reduced over communities.

The shape is the temporal assertion graph paper's "An answer over the whole graph"
(shared/seeds): nothing summarised in advance, every citation checked.

1. The coarsest communities of the graph (`communities`, the call's traversal filters)
   are ordered: those holding an entity the question's words find (full-text search,
   best rank first), then the rest by size.
2. Their statements are read in that order into batches of facts, each labelled `[i]`:
   at most 12 KiB a batch, `max_batches` batches (8), 2,048 members in all, 256 a
   community, 64 statements a member; within a community the members the question names
   come first, then the most connected.
3. One model call a batch (asked together) returns findings (at most 10), each citing labels: a label not
   in that batch is dropped, a finding left citing nothing, or scoring itself 0, is
   discarded.
4. One more call gets the findings, best score first, as `(k)`, and answers citing them.

Every statement a cited finding rests on was given to the model in a batch, so the model
can leave a citation out but cannot invent one. No finding: `ungrounded`, with no reduce
call. A non-empty answer citing no finding is refused (`ModelError`), and any failed model
call fails the whole answer: one reduced from the batches that worked would read as
complete. Citations prove where a finding came from, not that the fact supports it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gateway import deadline as deadlines
from gateway.engine.context import GraphContext
from gateway.engine.search import search_index
from gateway.engine.walk import EdgeKey
from gateway.errors import EndpointTimeout, ModelError, TooLarge
from gateway.llm import ask_all, model_for, parse_object
from gateway.models import Answer, AnswerInput, CommunitiesInput, Finding
from gateway.profiles.base import STRUCTURAL_OBJECT, STRUCTURAL_SUBJECT
from gateway.settings import clamp
from gateway.tools.community import Partition, central, partition

MAX_BATCHES = 8
BATCH_BYTES = 12 * 1024
MAX_MEMBERS, COMMUNITY_MEMBERS, MEMBER_FACTS = 2048, 256, 64
MAX_FINDINGS = 10
SEARCHED = 100
"""Entities the question's words may name (full-text search hits, best first)."""

MAP_SYSTEM = ("You read numbered facts from a knowledge graph and report what in them bears on a question. "
              "Use only the facts given. Reply with one JSON object and nothing else.")
MAP_PROMPT = """Question: {question}

Facts:
{facts}

Reply {{"findings": [{{"text": "...", "cites": [i, ...], "score": 0-100}}]}}: at most {most} findings, each a \
statement the facts support, citing the numbers of the facts it rests on, scored by how much it helps answer the \
question. No findings if no fact bears on the question."""
REDUCE_SYSTEM = ("You answer a question from numbered findings drawn from a knowledge graph. Use only the findings. "
                 "Reply with one JSON object and nothing else.")
REDUCE_PROMPT = """Question: {question}

Findings:
{findings}

Reply {{"answer": "...", "cites": [k, ...]}}: the answer from the findings alone, citing the numbers of those it \
rests on; an empty answer if they do not answer the question."""


@dataclass
class Fact:
    label: int
    line: str
    statement: str
    community: int


@dataclass
class Batch:
    facts: list[Fact] = field(default_factory=list)
    size: int = 0


def answer(ctx: GraphContext, query: AnswerInput) -> Answer:
    warnings: list[str] = []
    most = clamp(query.max_batches, MAX_BATCHES, 1, MAX_BATCHES, field="max_batches", warnings=warnings)
    model = model_for(ctx.settings)  # no model: say how to configure one before reading anything
    try:
        found = partition(ctx, CommunitiesInput(truth_status=query.truth_status, as_of=query.as_of,
                                                valid_at=query.valid_at), warnings)
    except TooLarge:
        raise TooLarge(f"answer partitions the whole graph, and more than {ctx.settings.communities_max_edges} "
                       "statements pass the filters; narrow truth_status, as_of or valid_at "
                       "(or raise Settings.communities_max_edges)", field="truth_status") from None
    parts = found.levels[0] if found.levels else []
    named = _named(ctx, query.question, found.order)
    ordered = sorted(range(len(parts)), key=lambda c: (min((named.get(m, SEARCHED) for m in parts[c]), default=SEARCHED),
                                                       -len(parts[c]), c))
    batches, read, clipped = _batches(ctx, found, [(c, parts[c]) for c in ordered], named, most)
    _check_time()
    replies = ask_all(model, [(MAP_SYSTEM, MAP_PROMPT.format(
        question=query.question, facts="\n".join(f.line for f in batch.facts), most=MAX_FINDINGS)) for batch in batches])
    model_calls = len(replies)
    findings: list[tuple[int, str, list[Fact]]] = []  # (score, text, facts cited)
    for batch, said in zip(batches, replies, strict=True):
        findings.extend(_findings(parse_object(said), {f.label: f for f in batch.facts}))
    common = dict(communities_read=read, communities_skipped=len(parts) - read,
                  clipped=clipped, facts=sum(len(b.facts) for b in batches), warnings=warnings)
    if not findings:
        return Answer(answer="", status="ungrounded", model_calls=model_calls, **common)  # type: ignore[arg-type]
    findings.sort(key=lambda item: -item[0])  # best first; batch order among equals
    _check_time()
    (text_reply,) = ask_all(model, [(REDUCE_SYSTEM, REDUCE_PROMPT.format(
        question=query.question, findings="\n".join(f"({k}) {text}" for k, (_, text, _) in enumerate(findings, 1))))])
    reply = parse_object(text_reply)
    model_calls += 1
    text = reply.get("answer")
    if not isinstance(text, str):
        raise ModelError("the language model's answer has no text (\"answer\" must be a string)")
    cites = sorted({k for k in _numbers(reply.get("cites")) if 1 <= k <= len(findings)})
    if not text.strip():
        return Answer(answer="", status="ungrounded", model_calls=model_calls, **common)  # type: ignore[arg-type]
    if not cites:
        raise ModelError("the language model answered without citing any finding; an uncited answer is refused")
    cited = [
        Finding(number=k, text=findings[k - 1][1], score=findings[k - 1][0],
                statements=sorted({f.statement for f in findings[k - 1][2]}),
                communities=sorted({f.community for f in findings[k - 1][2]}))
        for k in cites
    ]
    return Answer(answer=text.strip(), status="answered", cites=cites, findings=cited, model_calls=model_calls,
                  **common)  # type: ignore[arg-type]


def _named(ctx: GraphContext, question: str, order: list[str]) -> dict[int, int]:
    """Node number -> rank of the entities a full-text search for the question finds."""
    to_id = ctx.ids.to_id
    number = {to_id(iri): i for i, iri in enumerate(order)}
    hits = search_index(ctx).search(question, None, SEARCHED, to_id)
    ranks: dict[int, int] = {}
    for rank, hit in enumerate(hits):
        if hit.id in number:
            ranks.setdefault(number[hit.id], rank)
    return ranks


def _batches(
    ctx: GraphContext, found: Partition, communities: list[tuple[int, list[int]]], named: dict[int, int], most: int,
) -> tuple[list[Batch], int, bool]:
    """The facts of the communities in order, cut into batches; (batches, communities read, clipped)."""
    chosen, clipped = _statements(found, communities, named)
    batches, read, cut = _cut(ctx, chosen, most)
    return batches, read, clipped or cut


def _statements(
    found: Partition, communities: list[tuple[int, list[int]]], named: dict[int, int],
) -> tuple[list[tuple[int, EdgeKey]], bool]:
    """(community, statement) in reading order: per community its members the question names,
    then the most central, each with its statements; and whether a bound left some out."""
    touching = _touching(found)
    chosen: list[tuple[int, EdgeKey]] = []
    seen: set[EdgeKey] = set()
    clipped = False
    members_read = 0
    for number, members in communities:
        first = sorted((m for m in members if m in named), key=named.__getitem__)
        picked = (first + [m for m in central(found.graph, members) if m not in named])[:COMMUNITY_MEMBERS]
        clipped |= len(members) > len(picked)
        for member in picked:
            if members_read >= MAX_MEMBERS:
                clipped = True
                break
            members_read += 1
            statements = sorted(touching.get(member, ()), key=lambda k: (k.subject, k.predicate, k.object, k.statement or ""))
            clipped |= len(statements) > MEMBER_FACTS
            for key in statements[:MEMBER_FACTS]:
                if key not in seen:
                    seen.add(key)
                    chosen.append((number, key))
    return chosen, clipped


def _touching(found: Partition) -> dict[int, list[EdgeKey]]:
    """Node number -> the statements with it at either end (structural ones left out)."""
    index = {iri: i for i, iri in enumerate(found.order)}
    touching: dict[int, list[EdgeKey]] = defaultdict(list)
    for key in found.keys:
        if key.predicate in (STRUCTURAL_SUBJECT, STRUCTURAL_OBJECT):
            continue
        for end in {key.subject, key.object}:
            if end in index:
                touching[index[end]].append(key)
    return touching


def _cut(ctx: GraphContext, chosen: list[tuple[int, EdgeKey]], most: int) -> tuple[list[Batch], int, bool]:
    """The statements as labelled lines cut into at most `most` batches; (batches,
    communities read, whether the last batch left some out)."""
    labels = ctx.labels(sorted({part for _, k in chosen for part in (k.subject, k.predicate, k.object)}))
    to_id = ctx.ids.to_id

    def name(iri: str) -> str:
        label, ident = labels.get(iri), to_id(iri)
        return f"{label} ({ident})" if label and label != ident else ident

    batches = [Batch()]
    communities_read: set[int] = set()
    clipped = False
    for number, key in chosen:
        label = sum(len(b.facts) for b in batches) + 1
        line = f"[{label}] {name(key.subject)} {labels.get(key.predicate) or to_id(key.predicate)} {name(key.object)}"
        size = len(line.encode()) + 1
        if batches[-1].facts and batches[-1].size + size > BATCH_BYTES:
            if len(batches) == most:
                clipped = True
                break
            batches.append(Batch())
        statement = to_id(key.statement) if key.statement else f"{to_id(key.subject)} {to_id(key.predicate)} {to_id(key.object)}"
        batches[-1].facts.append(Fact(label, line, statement, number))
        batches[-1].size += size
        communities_read.add(number)
    return [b for b in batches if b.facts], len(communities_read), clipped


def _findings(reply: dict[str, object], given: dict[int, Fact]) -> list[tuple[int, str, list[Fact]]]:
    """The batch's findings with their citations checked against the labels it was given."""
    raw = reply.get("findings")
    if not isinstance(raw, list):
        raise ModelError("the language model's reply has no \"findings\" list")
    kept = []
    for item in raw[:MAX_FINDINGS]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            continue
        facts = [given[i] for i in sorted(set(_numbers(item.get("cites")))) if i in given]
        score = next(iter(_numbers([item.get("score")])), 0)
        if facts and score > 0:
            kept.append((min(score, 100), item["text"].strip(), facts))
    return kept


def _numbers(value: object) -> list[int]:
    """Integers from a model's list (numbers, or digit strings such as "3" or "[3]")."""
    if not isinstance(value, list):
        return []
    found = []
    for item in value:
        if isinstance(item, bool):
            continue
        if isinstance(item, (int, float)) and float(item).is_integer():
            found.append(int(item))
        elif isinstance(item, str) and item.strip("[]() ").isdigit():
            found.append(int(item.strip("[]() ")))
    return found


def _check_time() -> None:
    limit = deadlines.current()
    if limit is not None and limit.expired():
        raise EndpointTimeout("the call's deadline ended before the model calls did; ask for a longer deadline "
                              "or fewer max_batches", field="max_batches")

