"""tabulate's top 10 by a count of links, against the same question asked in SPARQL.

    PYTHONPATH=. python -m bench.table_top [--triples 1000000 3000000 10000000] [--before DIR] [--reps 7] [--no-write]

bench/floors.py's typed plain graph at each size (bench/census.py's files), loaded once with
`bfsql load` and kept in bench/.cache. The question: the 10 entities of class c/0 with the
most r/0 links (`group_by` the ID, a count, descending), whose counts below the top tie by
the thousand. No order index answers a grouped table: the store counts the whole type.

Per size, in a fresh child process for each copy of the package (this one, and `--before
DIR`'s: `git archive COMMIT | tar -x -C DIR`): the gateway opened on the store and asked
until it answers once (the graph's first reads: statistics, the predicate's degree), then
`reps` rounds of the call beside two hand queries on the same store through pyoxigraph: the
counts in the store's own order of ties (`ORDER BY DESC(?n)`), and with the ties in ID
order as tabulate puts them (`ORDER BY DESC(?n) ?id`: the rows tabulate must equal).
Medians; a call the gateway refuses is shown with its error.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench import report
from bench.floors import CLASS, REL, generate

HERE = Path(__file__).resolve().parent
SECTION = "## tabulate top 10 by a count"
TABLE = {"type": f"{CLASS}0", "columns": {"linked": f"<{REL}0>"}, "group_by": ["id"],
         "aggregate": {"links": {"fn": "count", "of": "linked"}},
         "order_by": [{"column": "links", "descending": True}], "limit": 10}
STORES_TIES = "store's ties"


def hand(ties: str) -> str:
    """The question in SPARQL, `ties` after the count in its order."""
    return (f"SELECT ?id (COUNT(?l) AS ?n) WHERE {{ ?id a <{CLASS}0> . OPTIONAL {{ ?id <{REL}0> ?l }} }} "
            f"GROUP BY ?id ORDER BY DESC(?n){ties} LIMIT 10")


_CALLS = """
import json, statistics, sys, time
sys.path.insert(0, {root!r})
import pyoxigraph as ox
from gateway import Gateway
from gateway.errors import GatewayError, Unavailable
table, reps = {table!r}, {reps!r}
gateway = Gateway.open({store!r})
store = gateway.backend.capabilities.local_store.store
started = time.perf_counter()
while True:
    try:
        gateway.call("tabulate", table)
        break
    except Unavailable:
        time.sleep(1)
    except GatewayError:
        break
first = time.perf_counter() - started

def timed(run):
    started = time.perf_counter()
    try:
        run()
        return time.perf_counter() - started, None
    except GatewayError as error:
        return time.perf_counter() - started, type(error).__name__ + ": " + error.message[:120]

def rows(query):
    return [(s["id"].value, int(s["n"].value)) for s in store.query(query)]

found = {{"tabulate": [], "store's ties": [], "ties by ID": []}}
errors, answers = set(), []
for _ in range(reps):
    seconds, error = timed(lambda: answers.append(gateway.call("tabulate", table)))
    found["tabulate"].append(seconds)
    if error:
        errors.add(error)
    found["store's ties"].append(timed(lambda: rows({plain!r}))[0])
    found["ties by ID"].append(timed(lambda: rows({ordered!r}))[0])
same = bool(answers) and [tuple(r) for r in answers[-1].rows] == rows({ordered!r})
print(json.dumps(dict(first=first, same=same, errors=sorted(errors),
                      **{{k: statistics.median(v) for k, v in found.items()}})))
"""


def store_for(triples: int) -> Path:
    """The `bfsql load` store of the size's graph, loaded once."""
    relationships = int(triples / (1 + 1.1 / 3))  # bench/census.py's sizes
    store = HERE / ".cache" / f"table-top-{relationships}"
    if not (store / "meta.json").is_file():
        path = generate(relationships, reified=False, typed=True)
        subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from gateway.loading import load_store; "
                        f"load_store([Path({str(path)!r})], Path({str(store)!r}))"], check=True, cwd=HERE.parent)
    return store


def measure(store: Path, root: Path, reps: int) -> dict[str, Any]:
    code = _CALLS.format(root=str(root), table=TABLE, reps=reps, store=str(store),
                         plain=hand(""), ordered=hand(" ?id"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _cell(found: dict[str, Any]) -> str:
    said = f"{1000 * found['tabulate']:,.0f}"
    refused = sorted({error.split(":")[0] for error in found["errors"]})
    return said + (f" (refused: {', '.join(refused)})" if refused else "")


def run(sizes: list[int], before: Path | None, reps: int) -> str:
    rows = []
    for triples in sizes:
        store = store_for(triples)
        now = measure(store, HERE.parent, reps)
        then = measure(store, before, reps) if before is not None else None
        print(f"  {triples:,}: {now}" + (f"; before: {then}" if then else ""), flush=True)
        earlier = f"{_cell(then)} | " if then is not None else ""
        plain, by_id = 1000 * now[STORES_TIES], 1000 * now["ties by ID"]
        rows.append(f"| {triples:,} | {now['first']:.1f} | {earlier}{_cell(now)} | {plain:,.0f} | {by_id:,.0f} | "
                    f"{1000 * now['tabulate'] / plain:.2f} | {1000 * now['tabulate'] / by_id:.2f} | "
                    f"{'yes' if now['same'] else 'no'} |")
    then_head = "before ms | " if before is not None else ""
    return "\n".join([
        SECTION, "",
        ("`python -m bench.table_top` (bench/table_top.py): the 10 entities of one class (1 in 12 of them) with the "
         "most links of one predicate, on bench/floors.py's typed plain graph loaded with `bfsql load`; tabulate "
         f"(`group_by` id, a count, descending) in process, medians of {reps} calls after the first answer, beside "
         "the hand query on the same store through pyoxigraph: ties in the store's own order, and ties by ID as "
         "tabulate orders them; *refused*: a call the gateway refused, its time to the refusal. *first s*: until the first answer (the graph's first reads)."
         + (" *before*: the package at the commit before (`--before`), in a process of its own." if before else "")), "",
        f"| triples | first s | {then_head}tabulate ms | hand, store's ties ms | hand, ties by ID ms | tabulate / hand, "
        "store's ties | tabulate / hand, ties by ID | same rows |",
        "|---|---|" + ("---|" if before is not None else "") + "---|---|---|---|---|---|",
        *rows, "",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table_top", description=__doc__.split("\n")[0])
    parser.add_argument("--triples", type=int, nargs="+", default=[1_000_000, 3_000_000, 10_000_000])
    parser.add_argument("--before", type=Path, help="another copy of the package, measured the same way")
    parser.add_argument("--reps", type=int, default=7)
    report.output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    return report.publish(args, SECTION, run(args.triples, args.before, args.reps))


if __name__ == "__main__":
    raise SystemExit(main())
