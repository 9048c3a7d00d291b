"""The benchmark graphs: generated once, cached as N-Triples, loaded into memory.

A graph is a `support.synth.power_law_ntriples` stream (Zipf-distributed endpoints).
Generation writes ``bench/.cache/<name>-<size>-s<seed>.nt``; node degrees, read back
from that file with one regular expression and counted with numpy, are cached beside
it as ``.walk-degrees.npy``. Seeds are chosen from those degrees per degree class.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from support.synth import BFS, ENTITY, PREDICATE, STATEMENT, power_law_ntriples

CACHE = Path(__file__).parent / ".cache"

_E = re.escape(f"<{ENTITY}").encode()
_P = re.escape(f"<{PREDICATE}").encode()
_TRIPLE = _E + rb"(\d+)> " + _P + rb"(\d+)> " + _E + rb"(\d+)>"
# A plain graph: every line is one edge (duplicate lines collapse in the store).
_PLAIN_EDGE = re.compile(rb"^" + _TRIPLE + rb" \.$", re.MULTILINE)
# A reified graph: every statement, asserted or not, has exactly one rdf:reifies line,
# and its status in a bfs:truthStatus line.
_S = re.escape(f"<{STATEMENT}").encode()
_REIFIED_EDGE = re.compile(_S + rb"(\d+)> <[^>]+> <<\( " + _TRIPLE + rb" \)>>")
_ASSERTED_TRUE = re.compile(_S + rb"(\d+)> " + re.escape(f"<{BFS}truthStatus> <{BFS}asserted_true>").encode())

SEED_CLASSES = ("low", "median", "hub")
HUB_FRACTION = 0.001
"""Hubs are the nodes ranked just inside the top 0.1% by degree."""


@dataclass(frozen=True)
class GraphSpec:
    name: str
    reified: bool
    n_triples: int
    seed: int = 7

    @property
    def path(self) -> Path:
        return CACHE / f"{self.name}-{self.n_triples}-s{self.seed}.nt"


@dataclass
class Graph:
    spec: GraphSpec
    store: ox.Store
    degrees: np.ndarray
    """Statements touching each entity, indexed by the entity's number."""
    generate_s: float
    load_s: float

    @property
    def entities(self) -> int:
        return int(np.count_nonzero(self.degrees))


def ntriples(spec: GraphSpec) -> tuple[Path, float]:
    """The cached N-Triples file, generated first if missing; and the seconds generation took."""
    if spec.path.is_file():
        return spec.path, 0.0
    CACHE.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    partial = spec.path.with_suffix(".partial")
    with open(partial, "w", encoding="utf-8") as handle:
        handle.writelines(power_law_ntriples(spec.n_triples, seed=spec.seed, reified=spec.reified))
    partial.rename(spec.path)
    return spec.path, time.perf_counter() - started


def edges(spec: GraphSpec) -> np.ndarray:
    """The (subject, predicate, object) numbers a default walk may cross: one row per
    distinct triple of a plain graph, per `asserted_true` statement of a reified one. Cached beside the N-Triples as ``.walk-edges.npy``."""
    cached = spec.path.with_suffix(".walk-edges.npy")
    if cached.is_file() and cached.stat().st_mtime >= spec.path.stat().st_mtime:
        return np.load(cached)
    text = spec.path.read_bytes()
    if spec.reified:
        statements = np.array(_REIFIED_EDGE.findall(text), dtype=np.int64).reshape(-1, 4)
        crossed = np.array(_ASSERTED_TRUE.findall(text), dtype=np.int64)
        rows = statements[np.isin(statements[:, 0], crossed), 1:]
    else:
        rows = np.unique(np.array(_PLAIN_EDGE.findall(text), dtype=np.int64).reshape(-1, 3), axis=0)
    np.save(cached, rows)
    return rows


def degrees(spec: GraphSpec) -> np.ndarray:
    """Statements per entity that a default walk crosses, both directions (see `edges`)."""
    cached = spec.path.with_suffix(".walk-degrees.npy")
    if cached.is_file() and cached.stat().st_mtime >= spec.path.stat().st_mtime:
        return np.load(cached)
    rows = edges(spec)
    subjects, objects = rows[:, 0], rows[:, 2]
    counts = np.bincount(np.concatenate([subjects, objects[objects != subjects]]))  # a loop counts once
    np.save(cached, counts)
    return counts


def load(spec: GraphSpec) -> Graph:
    path, generate_s = ntriples(spec)
    started = time.perf_counter()
    store = ox.Store()
    store.bulk_load(path=path, format=ox.RdfFormat.N_TRIPLES)
    load_s = time.perf_counter() - started
    return Graph(spec, store, degrees(spec), generate_s, load_s)


def pick_seeds(degree: np.ndarray, per_class: int, rng_seed: int = 0) -> dict[str, list[int]]:
    """Entity numbers per class: low (the minimum degree), median (the median degree),
    hub (the `per_class` lowest-ranked nodes of the top 0.1% by degree)."""
    present = np.flatnonzero(degree)
    values = degree[present]
    rng = np.random.default_rng(rng_seed)

    def some(candidates: np.ndarray) -> list[int]:
        chosen = rng.choice(candidates, size=min(per_class, len(candidates)), replace=False)
        return sorted(int(c) for c in chosen)

    ranked = present[np.argsort(-values, kind="stable")]
    top = max(per_class, round(len(ranked) * HUB_FRACTION))
    return {
        "low": some(present[values == values.min()]),
        "median": some(present[values == int(np.median(values))]),
        "hub": sorted(int(c) for c in ranked[top - per_class : top]),
    }
