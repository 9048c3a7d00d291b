"""Where one machine ends: typed graphs of growing size in on-disk stores, served by `bfsql serve DIR`.

    PYTHONPATH=. python -m bench.scale [--triples 1M,3M,10M,50M] [--seconds 10] [--no-write]
    PYTHONPATH=. python -m bench.scale --render   # the sections again from the saved measurements
    PYTHONPATH=. python -m bench.scale --triples 25M --add   # one more size beside the saved ones

Not part of `python -m bench`: at 50M triples `bfsql load` takes tens of minutes on a
2-core machine (docs/scaling.md, "Scale run"), and the files take ~10 GB of disk. Each
size is a fresh graph, store and server, deleted before the next. The graph is
bench/floors.py's typed plain graph (Pareto-weighted endpoints over 20 predicates,
`rdf:type` on every entity) with an `rdfs:label` on every entity (two made-up words,
written here: floors' graph has none), drawn so that the whole holds the size asked.
Measured per size:

- writing the N-Triples files: seconds;
- `bfsql load --store DIR FILES`: seconds, the stages it prints, its peak resident set
  (the kernel's high-water mark of the process, `wait4`, and of its process tree polled
  from /proc), the store's bytes on disk;
- `bfsql serve DIR --on-disk`: memory (PSS of its processes) after start and after the calls;
- calls: CLIENTS clients at once, each its own HTTP connection, each tool in turn for
  `--seconds`: bfs_query at 1 and 2 hops, expand_neighbors, describe_entity,
  search_entities (a label drawn from the graph), describe_schema, and tabulate's top 10
  of a class by outgoing links; latency p50 / p99, calls a second, errors by code.

Then the load time, the loader's peak memory and the store's bytes are fitted against the
triples (least squares of log y on log x: y = a x^b), extrapolated to 1B triples, and the
size where each crosses this machine (24 GiB of memory, the free disk, a day of loading)
is stated. Each size's measurements are kept in bench/.cache/scale.json, so `--render`
writes the sections again, and a run stopped early still reports the sizes it finished.
The sections are written into docs/scaling.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx2
import numpy as np

from bench import report
from bench.floors import CLASS, NODE, REL, generate
from bench.http_load import Server
from support.processes import descendants, tree_pss

HEADING = "## Scale run: one machine"
CURVE_HEADING = "## Scale run: the curve to 1B triples"
CLIENTS = 4
HERE = Path(__file__).resolve().parent
SAVED = HERE / ".cache" / "scale.json"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
MACHINE_MEMORY = 24 * 2**30
DAY = 86_400.0
BILLION = 1_000_000_000
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]

Measurement = dict[str, Any]


# -- the graph ------------------------------------------------------------------------
def _word(numbers: np.ndarray) -> list[str]:
    """A made-up word of three syllables for each number (70^3 = 343,000 words)."""
    n = len(_SYLLABLES)
    return [_SYLLABLES[a] + _SYLLABLES[b] + _SYLLABLES[c] for a, b, c in
            zip((numbers // n // n) % n, (numbers // n) % n, numbers % n, strict=True)]


def label_of(entities: np.ndarray) -> list[str]:
    """Entity n's label: two words picked by multiplicative hashes of n, so names repeat
    as real names do (~10^11 pairs, a few collisions at 10^7 entities)."""
    first = _word((entities * 2_654_435_761) % 343_000)
    second = _word((entities * 40_503 + 7) % 343_000)
    return [f"{a.capitalize()} {b.capitalize()}" for a, b in zip(first, second, strict=True)]


def write_labels(entities: int) -> Path:
    path = HERE / ".cache" / f"scale-labels-{entities}.nt"
    with path.open("w", encoding="utf-8") as out:
        for start in range(0, entities, 100_000):
            numbers = np.arange(start, min(start + 100_000, entities), dtype=np.int64)
            out.writelines(f'<{NODE}{n}> <{LABEL}> "{name}" .\n'
                           for n, name in zip(numbers.tolist(), label_of(numbers), strict=True))
    return path


def relationships_for(triples: int) -> int:
    """floors' typed graph holds r relationships, r/3 entities typed (1.1 types each) and
    here labelled: r (1 + 2.1/3) triples."""
    return int(triples / (1 + 2.1 / 3))


# -- the loader -----------------------------------------------------------------------
def _tree_rss(pid: int) -> int:
    """Bytes resident in `pid` and its descendants (VmRSS; shared pages counted in each)."""
    total = 0
    for member in [pid, *descendants(pid)]:
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def load(store: Path, files: Sequence[Path]) -> Measurement:
    """Run `bfsql load`, watching its memory: seconds, stages, peak bytes resident."""
    bfsql = str(Path(sys.executable).with_name("bfsql"))
    log = store.parent / "load.log"
    started = time.perf_counter()
    with log.open("wb") as sink:
        process = subprocess.Popen([bfsql, "load", "--store", str(store), *map(str, files)],
                                   stdout=subprocess.DEVNULL, stderr=sink)
    polled = 0
    done = threading.Event()

    def poll() -> None:
        nonlocal polled
        while not done.wait(0.5):
            polled = max(polled, _tree_rss(process.pid))

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    # wait4 rather than Popen.wait: the kernel's own high-water mark of the process comes with it.
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    done.set()
    watcher.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(errors="replace")
    if process.returncode:
        raise SystemExit(f"bfsql load exited {process.returncode}:\n{text[-3000:]}")
    stages = [line.strip() for line in text.splitlines() if re.search(r" in \d+ s$", line)]
    return {"load_s": seconds, "stages": stages,
            "load_peak": max(usage.ru_maxrss * 1024, polled)}


# -- the calls ------------------------------------------------------------------------
def tool_calls(entities: int) -> dict[str, Callable[[np.random.Generator], tuple[str, dict[str, Any]]]]:
    """Per row, a function drawing one call (tool, arguments) at random."""
    def seed(rng: np.random.Generator) -> str:
        return f"{NODE}{int(rng.integers(entities))}"

    top10 = {"type": f"{CLASS}0", "columns": {"linked": f"<{REL}0>"}, "group_by": ["id"],
             "aggregate": {"links": {"fn": "count", "of": "linked"}},
             "order_by": [{"column": "links", "descending": True}], "limit": 10}
    return {
        "bfs_query, 1 hop": lambda rng: ("bfs_query", {"seeds": [seed(rng)], "max_hops": 1}),
        "bfs_query, 2 hops": lambda rng: ("bfs_query", {"seeds": [seed(rng)], "max_hops": 2}),
        "expand_neighbors": lambda rng: ("expand_neighbors", {"entity_ids": [seed(rng)]}),
        "describe_entity": lambda rng: ("describe_entity", {"id": seed(rng)}),
        "search_entities": lambda rng: ("search_entities", {
            "query": label_of(np.array([rng.integers(entities)], dtype=np.int64))[0]}),
        "describe_schema": lambda rng: ("describe_schema", {}),
        "tabulate top 10": lambda rng: ("tabulate", top10),
    }


def _error(answer: httpx2.Response) -> str:
    try:
        body = answer.json()
    except ValueError:
        return str(answer.status_code)
    code = body.get("error", {}).get("code") if isinstance(body.get("error"), dict) else body.get("code")
    return f"{answer.status_code} {code or ''}".strip()


def run_tool(url: str, draw: Callable[[np.random.Generator], tuple[str, dict[str, Any]]],
             seconds: float) -> Measurement:
    """CLIENTS clients calling one row's tool back to back for `seconds` (each at least once)."""
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    cuts: Counter[str] = Counter()
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def client(number: int) -> None:
        rng = np.random.default_rng(number)
        with httpx2.Client(timeout=600) as http:
            while True:
                tool, arguments = draw(rng)
                started = time.perf_counter()
                answer = http.post(f"{url}/v1/tools/{tool}", json=arguments)
                took = time.perf_counter() - started
                with lock:
                    latencies.append(took)
                    if answer.status_code != 200:
                        errors[_error(answer)] += 1
                    elif isinstance(cut := answer.json().get("truncation"), dict):
                        cuts[str(cut.get("reason"))] += 1
                if time.perf_counter() >= stop:
                    return

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    window = time.perf_counter() - started
    quantiles = statistics.quantiles(latencies, n=100, method="inclusive") if len(latencies) > 1 else latencies * 99
    return {"calls": len(latencies), "window_s": window, "p50_ms": quantiles[49] * 1e3,
            "p99_ms": quantiles[98] * 1e3, "errors": dict(errors), "cuts": dict(cuts)}


def serve(store: Path, entities: int, seconds: float, progress: Callable[[str], None]) -> Measurement:
    server = Server(store, 1, "--on-disk")
    try:
        server.wait_ready()
        found: Measurement = {"ready_s": server.ready_s, "serve_start": tree_pss(server.process.pid), "tools": {}}
        for row, draw in tool_calls(entities).items():
            run_tool(server.url, draw, min(2.0, seconds))  # warm-up: the first call opens what the tool reads
            found["tools"][row] = result = run_tool(server.url, draw, seconds)
            progress(f"  {row}: {result['calls']} calls, p50 {result['p50_ms']:.0f} ms, "
                     f"p99 {result['p99_ms']:.0f} ms, errors {result['errors'] or 'none'}")
        found["serve_end"] = tree_pss(server.process.pid)
        return found
    finally:
        server.stop()


def measure(triples: int, seconds: float, progress: Callable[[str], None] = print) -> Measurement:
    """One size: a fresh graph, store and server, all deleted afterwards."""
    relationships = relationships_for(triples)
    entities = max(relationships // 3, 10)
    started = time.perf_counter()
    files = [generate(relationships, reified=False, typed=True), write_labels(entities)]
    generate_s = time.perf_counter() - started
    lines = sum(1 for path in files for _ in path.open("rb"))
    file_bytes = sum(path.stat().st_size for path in files)
    progress(f"{triples:,}: {lines:,} triples written in {generate_s:.0f} s")
    scratch = Path(tempfile.mkdtemp(prefix="bfsql-scale-", dir=HERE / ".cache"))
    try:
        store = scratch / "store"
        found = {"triples": lines, "relationships": relationships, "entities": entities,
                 "generate_s": generate_s, "file_bytes": file_bytes, **load(store, files)}
        found["store_bytes"] = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
        progress(f"  load {found['load_s']:.0f} s, peak {found['load_peak'] / 2**30:.2f} GiB, "
                 f"store {found['store_bytes'] / 2**30:.2f} GiB; " + "; ".join(found["stages"]))
        for path in files:  # the disk the store needs next, not the text's
            path.unlink()
        found.update(serve(store, entities, seconds, progress))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        for path in files:
            path.unlink(missing_ok=True)
    found["seconds"] = seconds
    return found


# -- the curve ------------------------------------------------------------------------
def fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(a, b) of y = a x^b, least squares of log y on log x."""
    b, log_a = np.polyfit(np.log(xs), np.log(ys), 1)
    return float(math.exp(log_a)), float(b)


def crossing(a: float, b: float, limit: float) -> float:
    """The x where a x^b reaches limit."""
    return float((limit / a) ** (1 / b))


def _size(n: float) -> str:
    """1M for a graph of 999,999 triples asked as 1M."""
    return f"{n / 1e9:.1f}B" if n >= 0.999e9 else f"{n / 1e6:.0f}M" if n >= 0.999e6 else f"{n / 1e3:.0f}k"


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def _duration(s: float) -> str:
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.0f} min" if s >= 120 else f"{s:.0f} s"


def _command(runs: Sequence[Measurement]) -> str:
    sizes = ",".join(_size(r["triples"]) for r in runs)
    return f"python -m bench.scale --triples {sizes} --seconds {runs[0]['seconds']:g}"


def render_sizes(runs: Sequence[Measurement], commit: str) -> str:
    rows = [f"| {r['triples']:,} | {r['entities']:,} | {_duration(r['generate_s'])} | {_duration(r['load_s'])} | "
            f"{r['triples'] / r['load_s']:,.0f} | {_gib(r['load_peak'])} | {_gib(r['store_bytes'])} "
            f"({r['store_bytes'] / r['triples']:.0f}) | {r['ready_s']:.1f} s | {_gib(r['serve_start'])} / "
            f"{_gib(r['serve_end'])} |" for r in runs]
    stages = [f"- {r['triples']:,}: " + "; ".join(r["stages"]) for r in runs]
    tools = list(runs[0]["tools"])
    # Runs saved before the cuts were counted leave the column out.
    counted = any("cuts" in t for r in runs for t in r["tools"].values())
    calls = []
    for r in runs:
        for row in tools:
            t = r["tools"][row]
            errors = ", ".join(f"{n} of {code}" for code, n in sorted(t["errors"].items())) or "none"
            cut = ", ".join(f"{n} by {why}" for why, n in sorted(t.get("cuts", {}).items())) or "none"
            calls.append(f"| {_size(r['triples'])} | {row} | {t['calls']:,} | {t['calls'] / t['window_s']:.1f} | "
                         f"{t['p50_ms']:,.0f} | {t['p99_ms']:,.0f} | {errors} |"
                         + (f" {cut if 'cuts' in t else 'not counted'} |" if counted else ""))
    return "\n".join([
        HEADING, "",
        f"`{_command(runs)}` (bench/scale.py), the gateway at commit {commit}, on the 2-core, 24 GiB machine the "
        "benchmarks run on. Each size: bench/floors.py's typed plain graph with an "
        "`rdfs:label` on every entity, a fresh `bfsql load` into an on-disk store, and `bfsql serve DIR "
        f"--on-disk` (1 worker) answering {CLIENTS} clients at once, each its own HTTP connection.", "",
        "| triples | entities | writing | `bfsql load` | triples a second | loader's peak resident | store on disk "
        "(bytes a triple) | serve ready | serve memory, start / after the calls |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows, "",
        "The loader's peak is the kernel's high-water mark of its resident set; the server's memory is the PSS "
        "of its processes (the store's pages are the OS's cache, not counted). The stages `bfsql load` "
        "printed:", "",
        *stages, "",
        f"Per tool, {CLIENTS} clients calling it back to back for {runs[0]['seconds']:g} s (each at least once; a "
        "short unrecorded warm-up first), seeds drawn uniformly from the entities (most of low degree, a few "
        "hubs), search_entities asking a label drawn the same way, tabulate asking the 10 entities of one "
        "class (1/12 of the entities) with the most links of one predicate:", "",
        "| triples | call | calls | calls a second | p50 ms | p99 ms | errors |" + (" walks cut (why) |" if counted else ""),
        "|---|---|---|---|---|---|---|" + ("---|" if counted else ""),
        *calls, "",
    ])


def render_curve(runs: Sequence[Measurement]) -> str:
    # Below 1M triples asked (a graph holds a few less) the fixed costs (the interpreter,
    # opening the store) hide the growth.
    fitted = [r for r in runs if r["triples"] >= 990_000] or list(runs)
    xs = [float(r["triples"]) for r in fitted]
    free_disk = shutil.disk_usage(HERE).free + 0.0
    series: dict[str, tuple[Callable[[Measurement], float], Callable[[float], str], float, str]] = {
        "`bfsql load` time": (lambda r: r["load_s"], _duration, DAY, "a day"),
        "loader's peak memory": (lambda r: r["load_peak"], _gib, MACHINE_MEMORY, "24 GiB, the machine's"),
        "disk while loading (file + store)": (lambda r: r["file_bytes"] + r["store_bytes"], _gib, free_disk,
                                              f"{_gib(free_disk)}, the disk free now")}
    rows, limits = [], {}
    for name, (value, unit, limit, limit_text) in series.items():
        ys = [float(value(r)) for r in fitted]
        a, b = fit(xs, ys)
        last = math.log(ys[-1] / ys[-2]) / math.log(xs[-1] / xs[-2]) if len(xs) > 1 else b
        limits[name] = at = crossing(a, b, limit)
        rows.append(f"| {name} | {a:.3g} * n^{b:.2f} | {last:.2f} | {unit(a * 1e8 ** b)} | "
                    f"{unit(a * BILLION ** b)} | {limit_text} at {_size(at)} |")
    first = min(limits, key=lambda k: limits[k])
    return "\n".join([
        CURVE_HEADING, "",
        f"Fitted to the sizes above from 1M on ({', '.join(_size(x) for x in xs)}): y = a * n^b for n "
        "triples, least squares of log y on log n (bench/scale.py `fit`), then extrapolated; the last "
        "segment's exponent (between the two largest sizes) shows whether the growth is steepening:", "",
        "| measure | fit | last segment's exponent | at 100M | at 1B | reaches |",
        "|---|---|---|---|---|---|",
        *rows, "",
        f"By the fit, the first limit this machine meets is the {first}, at about {_size(limits[first])} triples.",
        "",
    ])


def commit_of(root: Path) -> str:
    """The last commit that changed what is measured (this branch may hold benchmark commits past it)."""
    done = subprocess.run(["git", "log", "-1", "--format=%h", "--", "gateway", "queries"], cwd=root,
                          capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def parse_sizes(text: str) -> list[int]:
    scale = {"k": 1_000, "m": 1_000_000, "b": 1_000_000_000}
    return [int(float(part[:-1]) * scale[part[-1].lower()]) if part[-1].lower() in scale else int(part)
            for part in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--triples", type=parse_sizes, default=parse_sizes("1M,3M,10M,50M"),
                        help="sizes, comma-separated (k, M, B suffixes)")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--render", action="store_true", help="write the sections from the saved measurements")
    parser.add_argument("--add", action="store_true", help="keep the saved measurements of other sizes")
    report.output_arguments(parser, HERE.parent / "docs" / "scaling.md")
    args = parser.parse_args(argv)
    if args.render:
        saved = json.loads(SAVED.read_text())
        runs, commit = saved["runs"], saved["commit"]
    else:
        commit = commit_of(HERE.parent)
        runs = [r for r in json.loads(SAVED.read_text())["runs"]
                if r["relationships"] not in map(relationships_for, args.triples)] if args.add else []
        for triples in args.triples:
            runs = sorted([*runs, measure(triples, args.seconds)], key=lambda r: int(r["triples"]))
            SAVED.write_text(json.dumps({"commit": commit, "runs": runs}, indent=1))
    report.publish(args, HEADING, render_sizes(runs, commit))
    return report.publish(args, CURVE_HEADING, render_curve(runs)) if len(runs) > 1 else 0


if __name__ == "__main__":
    raise SystemExit(main())
