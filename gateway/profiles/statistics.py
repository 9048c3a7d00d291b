"""What describe_schema and name resolution know of a graph's contents as a whole.

The engine counts them (`gateway.engine.statistics`: every statement read once); a profile
whose graph is too large to read whole probes them instead, and says how its numbers are
bounded (`Estimates`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Statistics:
    predicates: dict[str, int]
    """Edge predicate IRI -> statements (asserted triples and reifier-only statements)."""
    types: dict[str, int]
    """Type IRI -> entities."""
    statuses: dict[str, int]
    """Truth status name -> statements."""
    total: int
    reified: int
    plain: int
    unasserted: int
    without_asserted_at: int
    connects: dict[str, list[tuple[str | None, str | None, int]]]
    """Edge predicate IRI -> (subject type, object type, triples), most triples first, at
    most CONNECTS_KEPT; None for an untyped end."""
    schema_predicates: dict[str, int]
    """Schema predicate IRI (`SCHEMA_PREDICATES`) -> triples between two IRIs: walked
    only when named."""
    term_types: dict[str, int]
    """Class of vocabulary terms (rdfs:Class, owl:ObjectProperty, owl:Ontology...) -> the
    terms the data defines of it, used or not."""
    unused_terms: dict[str, int]
    """The same classes -> their terms no entity has as type and no triple as predicate."""
    blank_values: dict[str, int]
    """Predicate IRI -> triples from an IRI to a blank node (shown inline, never walked)."""
    type_literals: dict[str, list[tuple[str, str | None, int]]]
    """Entity type IRI -> its literal-valued properties: (predicate, value datatype,
    values), most values first (the gateway's own `bfs:` data left out)."""
    authorities: dict[str, int] = field(default_factory=dict)
    """Registry authority prefix -> entities linking an ID of it (identity links,
    identifier literals, external-ID claims: `gateway.engine.canonical_ids`)."""
    namespaces: dict[str, int] = field(default_factory=dict)
    """Namespace, as the prefix map spells it -> the terms the data holds in it (each IRI
    by the longest namespace that begins it: `gateway.backends.namespaces.NamespaceFinder`);
    none where the graph is too large to read whole."""


@dataclass(frozen=True)
class Estimates:
    """What describe_schema says of a graph whose numbers are probed, not counted."""

    fields: dict[str, str]
    """Answer field -> what its numbers are (and what was not read)."""
    labels: dict[str, str]
    """Term IRI -> the label the profile knows it by without asking (an endpoint may hold
    no property entities to read labels from)."""
    description: str
    """The graph's description where its data gives none."""
