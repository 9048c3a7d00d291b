"""Relation-path questions ("who directed the films written by X"): one `bfs_query` with
`path` against the routes an agent had before it, in characters read per question.

`python -m bench.path_walks [--questions N] [--seed S]` prints a bench/RESULTS.md section.

Questions are generated in the shape of a multi-hop movie QA benchmark's: 2- and 3-hop
relation paths (`actor -> film -> director`, `film -> writer -> film -> genre`, ...)
from random seeds over a generated film graph (films, people, genres, years, languages,
tags, every entity labelled), and over the medlit bundle (`drug -> disease <- drug`, ...)
where it is beside the checkout. Each question's answer is its path's ends, the SPARQL
property path `seed :r1/^:r2 ?end` run by pyoxigraph over the same store. Routes, each
read as an agent reads it (`model_dump_json(exclude_none=True)`, the cheapest of the
layouts `topology_only` default and compact, per question):

- path: one `bfs_query` with `path`; right when `path_ends` is the SPARQL answer, whole.
- union: one `bfs_query` walking the union of the path's predicates for len(path) hops
  (the direction the steps share, else both): the agent then re-follows the path itself.
- per hop: one `bfs_query` per step (that step's predicates and direction, max_hops 1)
  from the nodes the step before reached.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from gateway import Gateway

NS = "http://films.example/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
LAYOUTS: tuple[dict[str, Any], ...] = ({"topology_only": True}, {"topology_only": True, "layout": "compact"})

Step = tuple[str, str]
"""(predicate ID, direction) of one step."""


@dataclass
class Question:
    name: str
    seed: str
    steps: list[Step]


@dataclass
class Outcome:
    question: Question
    right: bool
    answers: int
    path: int
    union: int
    per_hop: int
    asked_again: tuple[bool, bool] = (False, False)
    """Whether the path walk and the union walk were cut and asked again with the largest budgets."""


# -- the generated film graph --------------------------------------------------------------------
FILM_PATHS: dict[str, list[Step]] = {
    "film_to_director_to_film": [("f:directed_by", "out"), ("f:directed_by", "in")],
    "film_to_writer_to_film": [("f:written_by", "out"), ("f:written_by", "in")],
    "film_to_actor_to_film": [("f:starred_actors", "out"), ("f:starred_actors", "in")],
    "actor_to_film_to_director": [("f:starred_actors", "in"), ("f:directed_by", "out")],
    "actor_to_film_to_writer": [("f:starred_actors", "in"), ("f:written_by", "out")],
    "writer_to_film_to_director": [("f:written_by", "in"), ("f:directed_by", "out")],
    "director_to_film_to_actor": [("f:directed_by", "in"), ("f:starred_actors", "out")],
    "director_to_film_to_genre": [("f:directed_by", "in"), ("f:has_genre", "out")],
    "writer_to_film_to_year": [("f:written_by", "in"), ("f:release_year", "out")],
    "actor_to_film_to_language": [("f:starred_actors", "in"), ("f:in_language", "out")],
    "film_to_director_to_film_to_actor": [("f:directed_by", "out"), ("f:directed_by", "in"),
                                          ("f:starred_actors", "out")],
    "film_to_writer_to_film_to_genre": [("f:written_by", "out"), ("f:written_by", "in"), ("f:has_genre", "out")],
    "actor_to_film_to_director_to_film": [("f:starred_actors", "in"), ("f:directed_by", "out"),
                                          ("f:directed_by", "in")],
    "film_to_actor_to_film_to_year": [("f:starred_actors", "out"), ("f:starred_actors", "in"),
                                      ("f:release_year", "out")],
    "director_to_film_to_writer_to_film": [("f:directed_by", "in"), ("f:written_by", "out"),
                                           ("f:written_by", "in")],
}

SYLLABLES = ("ka", "lo", "mi", "ren", "sa", "tor", "vel", "an", "dri", "es", "mon", "qua", "ber", "ly", "zen")


def _name(rng: random.Random, words: int) -> str:
    return " ".join("".join(rng.choices(SYLLABLES, k=rng.randint(2, 3))).capitalize() for _ in range(words))


class Zipf:
    """Members of a pool, the first ones more often (weight 1/sqrt(rank)): a few prolific
    people, a hundred films or so for the busiest, as in the movie KB such benchmarks use."""

    def __init__(self, pool: Sequence[str]) -> None:
        self.pool = list(pool)
        self.cumulative = list(itertools.accumulate(1 / math.sqrt(rank) for rank in range(1, len(pool) + 1)))

    def __call__(self, rng: random.Random) -> str:
        return rng.choices(self.pool, cum_weights=self.cumulative)[0]


def film_graph(rng: random.Random, films: int = 4000) -> ox.Store:
    """Films with directors, writers, actors, a year, a language, genres and tags, each
    entity typed and labelled: the shape of the movie KB such benchmarks are built on."""
    quads: list[ox.Quad] = []

    def add(s: str, p: str, o: str | ox.Literal) -> None:
        quads.append(ox.Quad(ox.NamedNode(NS + s), ox.NamedNode(p if "://" in p else NS + p),
                             o if isinstance(o, ox.Literal) else ox.NamedNode(NS + o)))

    pools: dict[str, list[str]] = {}
    for kind, count, words in (("person", films * 2, 2), ("genre", 20, 1), ("language", 25, 1), ("tag", 600, 1)):
        pools[kind] = [f"{kind[0]}{i}" for i in range(count)]
        for entity in pools[kind]:
            add(entity, RDF_TYPE, kind.capitalize())
            add(entity, LABEL, ox.Literal(_name(rng, words)))
    years = [f"y{y}" for y in range(1950, 2021)]
    for year in years:
        add(year, RDF_TYPE, "Year")
        add(year, LABEL, ox.Literal(year[1:]))
    people, languages = Zipf(pools["person"]), Zipf(pools["language"])
    for i in range(films):
        film = f"m{i}"
        add(film, RDF_TYPE, "Film")
        add(film, LABEL, ox.Literal(_name(rng, rng.randint(1, 4))))
        for predicate, count in (("directed_by", rng.choice([1, 1, 1, 2])), ("written_by", rng.randint(1, 2)),
                                 ("starred_actors", rng.randint(2, 4))):
            for _ in range(count):
                add(film, predicate, people(rng))
        add(film, "release_year", rng.choice(years))
        add(film, "in_language", languages(rng))
        for genre in rng.sample(pools["genre"], k=rng.randint(1, 2)):
            add(film, "has_genre", genre)
        for tag in rng.sample(pools["tag"], k=rng.randint(0, 3)):
            add(film, "has_tags", tag)
    store = ox.Store()
    store.extend(quads)
    return store


# -- questions and their answers -----------------------------------------------------------------
def starts(store: ox.Store, predicate: str, direction: str) -> list[str]:
    """The nodes a first step along `predicate` can leave, sorted."""
    end = "?s" if direction == "out" else "?o"
    rows = store.query(f"SELECT DISTINCT {end} WHERE {{ ?s <{predicate}> ?o }}", use_default_graph_as_union=True)
    assert isinstance(rows, ox.QuerySolutions)
    return sorted(row[0].value for row in rows)


def property_path(store: ox.Store, seed: str, steps: Sequence[tuple[str, str]]) -> set[str]:
    """`seed step1/step2/... ?end` over the store (steps as IRIs; `^` for in, both ways a `|`)."""
    parts = []
    for predicate, direction in steps:
        ways = ([f"<{predicate}>"] if direction != "in" else []) + ([f"^<{predicate}>"] if direction != "out" else [])
        parts.append("(" + "|".join(ways) + ")")
    rows = store.query(f"SELECT DISTINCT ?end WHERE {{ <{seed}> {'/'.join(parts)} ?end }}",
                       use_default_graph_as_union=True)
    assert isinstance(rows, ox.QuerySolutions)
    return {row[0].value for row in rows if isinstance(row[0], ox.NamedNode)}


def questions(store: ox.Store, paths: dict[str, list[Step]], iri: Callable[[str], str], count: int,
              rng: random.Random) -> list[Question]:
    """`count` questions, the templates taken in turn, each from a random seed its first step leaves."""
    names = sorted(paths)
    starting = {name: starts(store, iri(paths[name][0][0]), paths[name][0][1]) for name in names}
    return [Question(name, rng.choice(starting[name]), paths[name])
            for name in (names[i % len(names)] for i in range(count)) if starting[name]]


# -- the routes ----------------------------------------------------------------------------------
def read(gateway: Gateway, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """(characters an agent reads, the answer as JSON), the cheapest of the layouts; a walk
    a budget cut is asked again with the largest budgets, as an agent would, and both read."""
    texts = [gateway.call("bfs_query", {**arguments, **layout}).model_dump_json(exclude_none=True)
             for layout in LAYOUTS]
    answer = json.loads(texts[0])
    settings = gateway.context.settings
    if not answer["truncated"] or arguments.get("max_nodes") == settings.max_nodes:
        return len(min(texts, key=len)), answer
    chars, answer = read(gateway, {**arguments, "max_nodes": settings.max_nodes, "max_edges": settings.max_edges})
    answer["asked_again"] = True
    return len(min(texts, key=len)) + chars, answer


def ask(gateway: Gateway, store: ox.Store, question: Question, iri: Callable[[str], str]) -> Outcome:
    to_id = gateway.context.ids.to_id
    seed = to_id(question.seed)
    wanted = sorted(to_id(end) for end in property_path(store, question.seed,
                                                         [(iri(p), d) for p, d in question.steps]))
    path_chars, answer = read(gateway, {"seeds": [seed], "path": [{"predicates": [p], "direction": d}
                                                                    for p, d in question.steps]})
    ends = answer["path_ends"]
    right = (ends["ids"] == wanted and ends["total"] == len(wanted) and not ends.get("truncated"))
    directions = {d for _, d in question.steps}
    union_chars, union = read(gateway, {
        "seeds": [seed], "max_hops": len(question.steps), "predicates": sorted({p for p, _ in question.steps}),
        "direction": directions.pop() if len(directions) == 1 else "both"})
    per_hop, frontier = 0, [seed]
    for predicate, direction in question.steps:
        if not frontier:
            break
        chars, hop = read(gateway, {"seeds": frontier[:256], "max_hops": 1, "predicates": [predicate],
                                    "direction": direction})
        per_hop += chars
        frontier = [n["id"] for n in hop["nodes"][hop["hop_counts"][0]:]]
    return Outcome(question, right, len(wanted), path_chars, union_chars, per_hop,
                   asked_again=(answer.get("asked_again", False), union.get("asked_again", False)))


# -- the report ----------------------------------------------------------------------------------
def section(sets: list[tuple[str, list[Outcome]]], command: str) -> str:
    lines = [
        "## Relation paths: one walk along a path",
        "",
        f"`{command}` (bench/path_walks.py): generated relation-path questions, 2 and 3 hops, in the shape of "
        "a multi-hop movie QA benchmark's, over a generated film graph (every entity typed and labelled) and over "
        "the medlit bundle; the answer of each is its path's ends as the SPARQL property path over the same store "
        "finds them. Characters are what an agent reads (the answer's JSON, the cheapest of the `topology_only` "
        "layouts, per question; a walk a budget cut is asked again with the largest budgets, both read). union: "
        "one walk over the union of the path's predicates (the agent re-follows the path); per hop: one walk per "
        "step from the nodes the step before reached.",
        "",
        "| questions | hops | n | right (path_ends exact) | median answers | characters, path | union | per hop "
        "| path / union | asked again: path, union |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, outcomes in sets:
        for hops in (2, 3):
            some = [o for o in outcomes if len(o.question.steps) == hops]
            if not some:
                continue
            path, union = statistics.median(o.path for o in some), statistics.median(o.union for o in some)
            lines.append(
                f"| {name} | {hops} | {len(some)} | {sum(o.right for o in some)} "
                f"({100 * sum(o.right for o in some) / len(some):.1f}%) | {statistics.median(o.answers for o in some):g} "
                f"| {path:,.0f} | {union:,.0f} | {statistics.median(o.per_hop for o in some):,.0f} "
                f"| {path / union:.2f} | {sum(o.asked_again[0] for o in some)}, {sum(o.asked_again[1] for o in some)} |")
    wrong = [o for _, outcomes in sets for o in outcomes if not o.right]
    lines += ["", f"Wrong: {len(wrong)}" + ("" if not wrong else ": " + "; ".join(
        f"{o.question.name} from {o.question.seed}" for o in wrong[:10]))]
    return "\n".join(lines) + "\n"


def medlit_set(count: int, rng: random.Random) -> tuple[str, list[Outcome]] | None:
    medlit = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "medlit"
    if not (medlit / "entities.jsonl").exists():
        print(f"{medlit} is absent: medlit questions skipped", file=sys.stderr)
        return None
    from gateway.importers.bundle import open_bundle

    gateway = open_bundle(medlit)
    store = gateway.context.profile.backend.store  # type: ignore[attr-defined]
    paths: dict[str, list[Step]] = {
        "drug_to_disease_to_drug": [("TREATS", "out"), ("TREATS", "in")],
        "drug_to_disease_to_cause": [("TREATS", "out"), ("CAUSES", "in")],
        "paper_to_author_to_institution": [("AUTHORED", "in"), ("AFFILIATED_WITH", "out")],
        "paper_to_cited_to_citing": [("CITES", "out"), ("CITES", "in")],
        "drug_to_disease_to_subtype_to_drug": [("TREATS", "out"), ("SUBTYPE_OF", "in"), ("TREATS", "in")],
        "author_to_paper_to_cited_to_author": [("AUTHORED", "out"), ("CITES", "out"), ("AUTHORED", "in")],
    }

    def iri(name: str) -> str:
        found = gateway.context.ids.resolve(name, "predicate", allow_local_name=True).iri
        assert found is not None
        return found

    asked = questions(store, paths, iri, count, rng)
    return "medlit", [ask(gateway, store, q, iri) for q in asked]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=600, help="film questions (medlit: a third as many)")
    parser.add_argument("--seed", type=int, default=48)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    store = film_graph(rng)
    gateway = Gateway.open(store, prefixes={"f": NS})

    def iri(name: str) -> str:
        return NS + name.removeprefix("f:")

    sets = [("films", [ask(gateway, store, q, iri) for q in questions(store, FILM_PATHS, iri, args.questions, rng)])]
    medlit = medlit_set(args.questions // 3, rng)
    if medlit is not None:
        sets.append(medlit)
    command = "python -m bench.path_walks" + " ".join(["", *(argv if argv is not None else sys.argv[1:])]).rstrip()
    print(section(sets, command))


if __name__ == "__main__":
    main()
