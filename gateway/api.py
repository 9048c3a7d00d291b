"""The Python API: `Gateway.open(...)`, one method per tool."""

from __future__ import annotations

import threading
import traceback
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import pyoxigraph as ox
from pydantic import BaseModel

from gateway import deadline as deadlines
from gateway import memory, models, pictures
from gateway.arguments import validate
from gateway.auth import Reader
from gateway.backends.base import Backend
from gateway.backends.embedded import EmbeddedBackend, is_store_directory
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.endpoint_file import read_endpoints, select_endpoint
from gateway.backends.rdf_files import rdf_sources
from gateway.backends.rdflib_source import from_rdflib, is_rdflib_graph
from gateway.backends.remote import RemoteBackend
from gateway.backends.scoped import ScopedBackend
from gateway.backends.store_directory import load_commands, read_meta, store_profile
from gateway.engine.context import GraphContext
from gateway.engine.statistics import count_namespaces, statistics
from gateway.errors import InvalidInput
from gateway.ids import IdMapper
from gateway.profiles import detect_profile, profile_class
from gateway.profiles.base import Profile
from gateway.profiles.graph import MemoKey
from gateway.profiles.native import NativeProfile
from gateway.profiles.wikibase_share import mostly_other
from gateway.settings import Settings
from gateway.sparql import template
from gateway.terms import DEFAULT_GRAPH
from gateway.tools import TOOLS

if TYPE_CHECKING:
    import rdflib

Answer = TypeVar("Answer", bound=BaseModel)
"""A tool's answer model."""
_DEFAULT_GRAPH_HELD: MemoKey[bool] = MemoKey("default_graph")


def profile_named(name: str, backend: Backend) -> type[Profile]:
    """The statement model `name` names ("auto": the one `backend`'s data is in; not
    Wikidata's on local data mostly of other RDF, `gateway.profiles.wikibase_share`)."""
    if name == "auto":
        name = detect_profile(backend)
        if name == "wikidata" and _mostly_other_rdf(backend):
            name = "native"
    return profile_class(name)


def _mostly_other_rdf(backend: Backend) -> bool:
    """Whether Wikidata statements are a small part of a local graph, by its namespace counts:
    those a `bfsql load` store's statistics keep, else counted alone (one read of the quads)."""
    if backend.capabilities.round_trips:  # an endpoint's whole graph is not read to decide
        return False
    made_with = store_profile(backend.capabilities.directory)
    if made_with is not None:
        return mostly_other(statistics(GraphContext(backend, profile_class(made_with)(backend))).namespaces)
    return mostly_other(count_namespaces(GraphContext(backend, NativeProfile(backend))))


REBUILT_QUADS = 200_000
"""Up to this size a store whose name index another profile made has its names read again
for the profile it is served with (~10 s, once per process: census and name index take
~55 s a million quads, docs/scaling.md); a larger one is refused instead."""


def _check_store_profile(backend: Backend, profile: type[Profile]) -> None:
    """A store's name index says what each entity is as the profile it was loaded with
    (wd:Q5 or wikibase:Item): a larger store served with another profile is refused rather
    than searched through the wrong index or indexed again on every start."""
    directory = backend.capabilities.directory
    made_with = store_profile(directory)
    if directory is None or made_with is None or made_with == profile.name:
        return
    quads = int(((read_meta(directory) or {}).get("report") or {}).get("quads") or 0)
    if quads > REBUILT_QUADS:
        raise InvalidInput(
            f"{directory} was loaded with profile {made_with}, not {profile.name}: its name index and statistics "
            f"are {made_with}'s; open it with --profile {made_with}, or load it again with "
            f"{load_commands(directory, ['--profile', profile.name])}", field="profile")


def _paths(sources: Sequence[object]) -> list[Path]:
    """The files and folders of `Gateway.open`'s list, or `InvalidInput` naming `source`: a
    store directory is opened alone (its quads are not copied beside others)."""
    if not sources:
        raise InvalidInput("source: an empty list names no data", field="source")
    paths = []
    for item in sources:
        if not isinstance(item, (str, Path)):
            raise InvalidInput(f"source: expected file or folder paths, got {type(item).__name__}", field="source")
        paths.append(Path(item))
    stores = [p for p in paths if p.is_dir() and is_store_directory(p)] if len(paths) > 1 else []
    if stores:
        raise InvalidInput(f"source: {stores[0]} is a store directory, opened alone, not with other data",
                           field="source")
    return paths


class Gateway:
    """BFS-QL tools over one graph.

    >>> from gateway.resources import demo_path
    >>> gw = Gateway.open(demo_path())
    >>> gw.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=1, topology_only=True).node_count
    14
    """

    def __init__(
        self, backend: Backend, *, settings: Settings | None = None, profile: type[Profile] = NativeProfile
    ) -> None:
        self.backend = backend
        self.settings = settings or Settings()
        self.profile = profile
        self.context = GraphContext(backend, profile(backend), self.settings)
        self._scoped: OrderedDict[tuple[str, ...], GraphContext] = OrderedDict()
        """Readers' scopes, as the readers file names them, the least recently used dropped past `READER_SCOPES_KEPT`."""
        self._narrowed: OrderedDict[tuple[str, ...], GraphContext] = OrderedDict()
        self._lock = threading.Lock()

    READER_SCOPES_KEPT = 32
    """Readers' scopes whose contexts (statistics, search index, prefixes) are kept."""
    SCOPES_KEPT = 8
    """Scopes chosen by calls' `graphs` whose contexts are kept, the least recently used
    dropped first: a caller's choices must neither be kept forever nor push a reader's own
    scope out."""

    def context_for(self, reader: Reader | None, graphs: Sequence[str] | None = None) -> GraphContext:
        """The graph as `reader` may see it, narrowed to `graphs` if named: every query
        restricted to those named graphs. A graph the reader may not read is refused as one
        that does not exist."""
        readable = reader.graphs if reader is not None else None
        scope = self._named_graphs(graphs, readable=readable) if graphs is not None else readable
        if scope is None:
            return self.context
        kept, bound = (self._scoped, self.READER_SCOPES_KEPT) if scope == readable else (self._narrowed, self.SCOPES_KEPT)
        with self._lock:
            context = kept.get(scope)
        if context is None:  # made outside the lock: a first scope may read which graphs use which namespaces
            scoped = ScopedBackend(self.backend, scope)
            context = GraphContext(scoped, self.profile(scoped), self.settings, scope=scope, whole=self.context)
        with self._lock:
            context = kept.setdefault(scope, context)
            kept.move_to_end(scope)
            while len(kept) > bound:
                kept.popitem(last=False)
            return context

    def _named_graphs(self, graphs: Sequence[str], *, readable: tuple[str, ...] | None) -> tuple[str, ...]:
        """The IRIs of a call's `graphs`, each one the store holds and the reader may read
        ("default": the default graph, which every store has)."""
        there = readable if readable is not None else (*self._default_graph(), *self.context.named_graphs())
        found: list[str] = []
        for i, name in enumerate(graphs):
            iri = DEFAULT_GRAPH if name.strip() == DEFAULT_GRAPH else self.context.ids.resolve(name, f"graphs[{i}]").iri
            held = next((form for form in ([iri, *self.context.ids.spellings(iri)] if iri else []) if form in there), None)
            if held is None:
                raise self._not_a_graph(f"graphs[{i}]", name, there)
            found.append(held)
        return tuple(sorted(set(found)))

    def _not_a_graph(self, field: str, name: str, there: tuple[str, ...]) -> InvalidInput:
        shown = ", ".join(self.context.ids.to_id(g) for g in there[:5]) + (" ..." if len(there) > 5 else "")
        return InvalidInput(f"{field}: {name[:80]!r} is not a named graph here; the graphs: "
                            f"{shown or 'none'} (describe_schema lists them)", field=field)

    def _default_graph(self) -> tuple[str, ...]:
        """("default",) where the store's default graph holds a triple, else ()."""
        held = self.context.memo(_DEFAULT_GRAPH_HELD, lambda: bool(
            self.backend.select(template("native/any_triple"), graphs=(DEFAULT_GRAPH,))[1]))
        return (DEFAULT_GRAPH,) if held else ()

    @classmethod
    def open(
        cls,
        source: str | Path | Sequence[str | Path] | ox.Store | rdflib.Graph,
        *,
        lenient: bool = False,
        prefixes: dict[str, str] | None = None,
        settings: Settings | None = None,
        profile: str | None = None,
        in_memory: bool = False,
    ) -> Gateway:
        """Open an RDF file (into memory), an on-disk store directory, a pyoxigraph Store, or
        an rdflib Graph, Dataset or ConjunctiveGraph (copied into memory, named graphs kept);
        a list of files and folders is read into one store in memory, as `bfsql query A B` reads them.

        `prefixes` add to those the data declares; `lenient` accepts what strict parsers
        refuse (such as an over-long language tag) and reports it in `load_report`.
        `profile` is the statement model ("native", "reification", "plain", "wikidata"), or
        "auto" to detect it from the data; unset, "native", except for an rdflib graph:
        "auto" (rdflib holds no RDF 1.2 reifiers, so its statements are in another shape),
        and a `bfsql load` store: the profile it was loaded with (another one reads its names
        again, and is refused past `REBUILT_QUADS`).
        `in_memory` copies a store directory into memory first (~6 s per million quads):
        walks are 2.3-2.6x faster after.
        """
        if is_rdflib_graph(source):
            backend = from_rdflib(source, lenient=lenient)
            profile = profile or "auto"
        elif isinstance(source, ox.Store):
            backend = EmbeddedBackend.from_store(source)
        elif not isinstance(source, (str, Path)) and len(source) != 1:
            backend = EmbeddedBackend.open_files(rdf_sources(_paths(source)), lenient=lenient)
        else:
            path = source if isinstance(source, (str, Path)) else _paths(source)[0]
            backend = EmbeddedBackend.open(path, lenient=lenient, in_memory=in_memory)
            profile = profile or store_profile(backend.capabilities.directory)  # a store: the one it was loaded with
        backend.prefixes.update(prefixes or {})
        backend.configured_prefixes.update(prefixes or {})
        chosen = profile_named(profile or "native", backend)
        _check_store_profile(backend, chosen)
        return cls(backend, settings=settings, profile=chosen)

    @classmethod
    def connect(
        cls,
        url_or_config: str | EndpointConfig,
        *,
        profile: str = "native",
        prefixes: dict[str, str] | None = None,
        settings: Settings | None = None,
        graphs: Sequence[str] | None = None,
        timeout: float | None = None,
        user_agent: str | None = None,
        **options: Any,
    ) -> Gateway:
        """Open a remote SPARQL 1.1 endpoint (see `gateway.backends.remote.RemoteBackend`):
        its URL, with any `EndpointConfig` field as a keyword, or a whole `EndpointConfig`
        (then with no such keyword: the config holds them all).

        `profile` is the store's statement model: "native" (RDF 1.2 reifiers), "reification"
        (`rdf:Statement` nodes, e.g. Virtuoso 7), "plain" (plain triples), "wikidata", or
        "auto" to detect it. `graphs` is the dataset a query reads when no reader narrows it
        (None: the endpoint's default). `user_agent` (or `contact=`) should name you on a
        public endpoint; `options` are the config's other fields (connect_timeout,
        max_concurrency, retry, breaker, ...).
        """
        given = {"prefixes": prefixes, "graphs": graphs, "timeout": timeout, "user_agent": user_agent}
        fields = {name: value for name, value in given.items() if value is not None} | options
        if isinstance(url_or_config, EndpointConfig):
            if fields:
                raise InvalidInput(f"an EndpointConfig holds every setting: give {', '.join(fields)} in it "
                                   "(dataclasses.replace), not beside it", field="options")
            config = url_or_config
        else:
            config = EndpointConfig(url_or_config, **fields)
        backend = RemoteBackend(config)
        return cls(backend, settings=settings, profile=profile_named(profile, backend))

    @classmethod
    def connect_named(
        cls, name: str | None, endpoints_file: str | Path, *, profile: str | None = None,
        settings: Settings | None = None,
    ) -> Gateway:
        """Open the endpoint called `name` in an endpoints file (None: its only one), with the
        profile the file gives it unless `profile` says otherwise (the format:
        `gateway.backends.endpoint_file`)."""
        entry = select_endpoint(read_endpoints(endpoints_file), name, str(endpoints_file))
        return cls.connect(entry.config, profile=profile or entry.profile, settings=settings)

    def call(
        self, name: str, arguments: object = None, *, reader: Reader | None = None, deadline: float | None = None,
        abandoned: threading.Event | None = None,
    ) -> BaseModel:
        """Run a tool by name with JSON-like arguments, as `reader` (the surfaces' entry point).

        The call has `deadline` seconds (`Settings.deadline` when None). Any caller may ask
        for less; a trusted one (no reader, or a reader marked trusted) for up to
        `Settings.max_deadline`. Once `abandoned` is set (the caller went away) the call
        stops as at its deadline.
        """
        tool = TOOLS.get(name)
        if tool is None:
            raise InvalidInput(f"unknown tool {name!r}; tools: {', '.join(TOOLS)}", field="tool")
        before = memory.resident()
        try:
            with deadlines.within(self.deadline_for(reader, deadline), abandoned):
                query = validate(tool.input, arguments)
                return tool.run(self.context_for(reader, getattr(query, "graphs", None)), query)
        except BaseException as error:
            # What the stopped call held (a partition's graph) goes with its frames, not with the error.
            traceback.clear_frames(error.__traceback__)
            raise
        finally:
            memory.give_back(before)

    def picture(
        self, name: str, arguments: object = None, fmt: str = "svg", *, reader: Reader | None = None,
        deadline: float | None = None, abandoned: threading.Event | None = None,
    ) -> str:
        """A walking tool's answer drawn as `fmt` (dot, graphml, mermaid, svg; see
        `gateway.pictures`), every node labelled where the graph has a label."""
        if fmt not in pictures.FORMATS:
            raise InvalidInput(f"format must be one of {', '.join(pictures.FORMATS)}, not {fmt[:40]!r}", field="format")
        if name not in pictures.PICTURED:
            raise InvalidInput(f"{name} answers are not drawn; {', '.join(pictures.PICTURED)} are", field="format")
        answer = self.call(name, arguments, reader=reader, deadline=deadline, abandoned=abandoned)
        picture = pictures.picture_of(name, answer.model_dump(mode="json", exclude_none=True))
        context = self.context_for(reader)
        unlabelled = {node: context.ids.resolve(node, "nodes").iri for node, (label, _, _) in picture.nodes.items()
                      if label is None}
        labels = context.labels(sorted({iri for iri in unlabelled.values() if iri}))
        for node, iri in unlabelled.items():
            _, kind, group = picture.nodes[node]
            picture.nodes[node] = (labels.get(iri or ""), kind, group)
        return pictures.render(picture, fmt)

    def deadline_for(self, reader: Reader | None, asked: float | None) -> float:
        """The seconds a call gets: the default, what the caller asked if less, or more when trusted."""
        default = self.settings.deadline
        if asked is None or asked != asked or asked <= 0:  # None, NaN or nothing: the default
            return default
        ceiling = self.settings.max_deadline if reader is None or reader.trusted else default
        return min(asked, ceiling)

    def _answer(self, output: type[Answer], name: str, arguments: object = None) -> Answer:
        """`call`, typed as the tool's answer (the registry's output model, checked)."""
        answer = self.call(name, arguments)
        if not isinstance(answer, output):
            raise TypeError(f"{name} answered a {type(answer).__name__}, not a {output.__name__}")
        return answer

    def describe_schema(self) -> models.Schema:
        return self._answer(models.Schema, "describe_schema")

    def search_entities(self, query: str | models.SearchEntitiesInput, **fields: Any) -> models.SearchResult:
        arguments = query if isinstance(query, models.SearchEntitiesInput) else {"query": query, **fields}
        return self._answer(models.SearchResult, "search_entities", arguments)

    @overload
    def bfs_query(self, query: None = None, *, layout: Literal["compact"], **fields: Any) -> models.CompactSubgraph: ...
    @overload
    def bfs_query(self, query: None = None, *, layout: Literal["default"] = ..., **fields: Any) -> models.Subgraph: ...
    @overload
    def bfs_query(self, query: models.BfsQueryInput) -> models.Subgraph | models.CompactSubgraph: ...

    def bfs_query(
        self, query: models.BfsQueryInput | None = None, **fields: Any
    ) -> models.Subgraph | models.CompactSubgraph:
        """A walk; its answer is a `Subgraph`, or a `CompactSubgraph` with `layout="compact"`."""
        answer = self.call("bfs_query", query if query is not None else fields)
        if not isinstance(answer, models.Subgraph | models.CompactSubgraph):
            raise TypeError(f"bfs_query answered a {type(answer).__name__}")
        return answer

    def expand_neighbors(self, entity_ids: list[str], **fields: Any) -> models.Neighbors:
        return self._answer(models.Neighbors, "expand_neighbors", {"entity_ids": entity_ids, **fields})

    def describe_entity(self, id: str, **fields: Any) -> models.EntityDetail:
        return self._answer(models.EntityDetail, "describe_entity", {"id": id, **fields})

    def describe_entities(self, ids: list[str], **fields: Any) -> models.EntitiesDetail:
        return self._answer(models.EntitiesDetail, "describe_entities", {"ids": ids, **fields})

    def answer(self, question: str, **fields: Any) -> models.Answer:
        return self._answer(models.Answer, "answer", {"question": question, **fields})

    def fetch_slice(self, entity_id: str, **fields: Any) -> models.Slice:
        return self._answer(models.Slice, "fetch_slice", {"entity_id": entity_id, **fields})

    def intersect_subgraphs(self, query: models.IntersectSubgraphsInput | None = None, **fields: Any) -> models.Intersection:
        return self._answer(models.Intersection, "intersect_subgraphs", query if query is not None else fields)

    def transitive_closure_query(self, query: models.TransitiveClosureInput | None = None, **fields: Any) -> models.Closure:
        return self._answer(models.Closure, "transitive_closure_query", query if query is not None else fields)

    def scan_query(self, query: models.ScanQueryInput | None = None, **fields: Any) -> models.ScanPage:
        return self._answer(models.ScanPage, "scan_query", query if query is not None else fields)

    def shortest_path(self, query: models.ShortestPathInput | None = None, **fields: Any) -> models.ShortestPath:
        return self._answer(models.ShortestPath, "shortest_path", query if query is not None else fields)

    def tabulate(self, query: models.TabulateInput | None = None, **fields: Any) -> models.Table:
        return self._answer(models.Table, "tabulate", query if query is not None else fields)

    def communities(self, query: models.CommunitiesInput | None = None, **fields: Any) -> models.Communities:
        return self._answer(models.Communities, "communities", query if query is not None else fields)

    @property
    def ids(self) -> IdMapper:
        """This graph's IDs, both ways: what `to_rdflib(gw)` and `to_oxigraph(gw)` expand an
        answer's IDs with (`gw.ids.resolve("wiki:Irene_Adler", "id").iri`)."""
        return self.context.ids

    def load_warnings(self) -> list[str]:
        """What a lenient load let through (empty for a strict load)."""
        return self.backend.load_warnings()

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> Gateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

