"""Repeated tool calls over `oxigraph serve`, with the endpoint's result cache on and off.

    PYTHONPATH=. python -m bench.result_cache [--delays 0,25] [--reps 5] [--no-write]

medlit (the bundle, imported to TriG as bench/latency.py does) in `oxigraph serve`, behind
bench/latency.py's proxy holding every request 0 or 25 ms. An agent's calls about medlit's
three seeds (RxNorm:3251, DBPedia:Cushing's_disease, MeSH:D003480), `bfs_query` at 2 hops
and `describe_entity`, asked again as an agent asks again within a conversation
(`search_entities` is left out: it reads the gateway's own index, not the endpoint). Two
gateways, one with the cache (the default: 300 s, 64 MiB) and one with `cache_ttl=0`, each
warmed by one round (the profile's own reads, and the cache's first answers), then timed
side by side, interleaved. The answers must be the same; the
requests a call sends are counted (`result_cache.counting`, the query log). It asserts
nothing.
"""

# The report writes ratios with the multiplication sign, as the other stages' reports do.
# ruff: noqa: RUF001
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import report
from bench.latency import MEDLIT_SEEDS, DelayProxy, medlit_graph
from bench.remote import Server
from gateway import Gateway
from gateway.backends.result_cache import counting

HEADING = "## Result cache: repeated tool calls, cache on and off"


@dataclass
class Row:
    tool: str
    delay_ms: int
    on: list[float] = field(default_factory=list)
    off: list[float] = field(default_factory=list)
    sent_on: set[int] = field(default_factory=set)
    sent_off: set[int] = field(default_factory=set)
    same: bool = True

    def ratio(self) -> float:
        return statistics.median(off / on for on, off in zip(self.on, self.off, strict=True))


def calls() -> list[tuple[str, dict[str, Any]]]:
    return [call for seed in MEDLIT_SEEDS
            for call in (("bfs_query", {"seeds": [seed], "max_hops": 2}), ("describe_entity", {"id": seed}))]


def measure(delays: Sequence[int], reps: int, progress: Callable[[str], None] = print) -> list[Row]:
    trig, prefixes = medlit_graph()
    server = Server(trig)
    rows: list[Row] = []
    try:
        for delay in delays:
            proxy = DelayProxy(server.url, delay / 1000)
            try:
                gateways = {"on": Gateway.connect(proxy.url, profile="reification", prefixes=prefixes, timeout=300),
                            "off": Gateway.connect(proxy.url, profile="reification", prefixes=prefixes, timeout=300,
                                                   cache_ttl=0)}
                sent: list[str] = []
                gateways["off"].backend.query_log = lambda text, count, sent=sent: sent.append(text)  # type: ignore[attr-defined]
                asked = calls()
                expected: dict[tuple[str, str], dict[str, Any]] = {}
                for name in ("off", "on"):  # the answers without the cache are the ones to get
                    for tool, arguments in asked:
                        answer = gateways[name].call(tool, arguments).model_dump(mode="json")
                        expected.setdefault((tool, repr(arguments)), answer)
                by_tool: dict[str, Row] = {}
                for rep in range(reps):
                    for tool, arguments in asked:
                        row = by_tool.setdefault(tool, Row(tool, delay))
                        for name in ("on", "off")[rep % 2:] + ("on", "off")[: rep % 2]:
                            sent.clear()
                            with counting() as count:
                                started = time.perf_counter()
                                answer = gateways[name].call(tool, arguments).model_dump(mode="json")
                                (row.on if name == "on" else row.off).append(time.perf_counter() - started)
                            row.same &= answer == expected[(tool, repr(arguments))]
                            if name == "on":
                                row.sent_on.add(count.misses)
                            else:
                                row.sent_off.add(len(sent))
                for row in by_tool.values():
                    rows.append(row)
                    progress(f"  {row.tool}, {delay} ms: on {statistics.median(row.on) * 1e3:.1f} ms, off "
                             f"{statistics.median(row.off) * 1e3:.1f} ms, {row.ratio():.1f}x, requests "
                             f"{sorted(row.sent_on)} / {sorted(row.sent_off)}, same {row.same}")
            finally:
                proxy.close()
    finally:
        server.stop()
    return rows


def _spread(values: set[int]) -> str:
    return f"{min(values)}" if len(values) == 1 else f"{min(values)}-{max(values)}"


def render(rows: Sequence[Row], reps: int) -> str:
    lines = [
        HEADING, "",
        f"`python -m bench.result_cache --reps {reps}` (bench/result_cache.py): medlit in `oxigraph serve` behind a "
        "proxy holding each request the given time; an agent's calls about its three seeds (`bfs_query` at 2 hops, "
        "`describe_entity`) asked again, through a gateway with the result cache "
        "(the default: 300 s, 64 MiB) and one with `cache_ttl=0`, both warmed by one round, interleaved. Times are "
        "medians per call in ms; the ratio is the median of off / on per repetition.", "",
        "| tool | delay | requests a call: on / off | cache on ms | cache off ms | ratio | same answers |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        report.record("result cache", f"{row.tool} asked again, {row.delay_ms} ms a request: cache on vs off",
                      f"{row.ratio():.1f}x", None)
        lines.append(f"| {row.tool} | {row.delay_ms} ms | {_spread(row.sent_on)} / {_spread(row.sent_off)} | "
                     f"{statistics.median(row.on) * 1e3:.2f} | {statistics.median(row.off) * 1e3:.2f} | "
                     f"{row.ratio():.1f}× | {row.same} |")
    lines += ["", "A hit sends nothing; what is left of the call is the gateway's own work in Python: the kept "
              "answers read into rows again (every caller gets rows of its own) and the walk or the description "
              "made of them. The cache's first answer to each query costs what the call without it costs."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.result_cache", description=__doc__.split("\n")[0])
    parser.add_argument("--delays", default="0,25", help="milliseconds the proxy holds each request")
    parser.add_argument("--reps", type=int, default=5)
    report.output_arguments(parser, Path(__file__).parent / "RESULTS.md")
    args = parser.parse_args(argv)
    rows = measure([int(d) for d in args.delays.split(",")], args.reps)
    return report.publish(args, HEADING, render(rows, args.reps))


if __name__ == "__main__":
    raise SystemExit(main())
