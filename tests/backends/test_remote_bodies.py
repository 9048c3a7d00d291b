"""An endpoint's answer is read within `max_body` decoded bytes, memory and time bounded.

nginx serves the answers: a sparse 2 GiB file (announced, or streamed chunked through a
filter so that no length is announced), a gzip bomb, gzip and deflate answers, and an
encoding the gateway never asks for. Each large case runs in a child process, whose
peak memory is measured and whose address space is capped (3 GiB): a client that reads
everything fails there, not on the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from gateway.backends.endpoint_config import DEFAULT_MAX_BODY, EndpointConfig
from gateway.backends.remote import RemoteBackend, RetryPolicy
from gateway.terms import XSD, Literal
from support.servers import NginxServer
from tests.conftest import ROOT

GiB, MiB = 1 << 30, 1 << 20
GOOD_TSV = b'?x\t?n\n<http://example.org/a>\t1\n<http://example.org/b>\t"two"@en\n'
GOOD_ROWS = [["http://example.org/a", Literal("1", XSD + "integer")],
             ["http://example.org/b", Literal("two", "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString", "en")]]
QUERY = "SELECT ?x ?n WHERE { ?x ?p ?n }"
CHILD = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend, RetryPolicy
options = json.loads(sys.argv[2])
backend = RemoteBackend(EndpointConfig(sys.argv[1], retry=RetryPolicy(attempts=1), timeout=120, **options))
def rss():
    status = open("/proc/self/status").read()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
rss_before = rss()
started = time.monotonic()
try:
    backend.select("SELECT * WHERE { ?s ?p ?o }")
    outcome = {"error": None, "message": ""}
except BaseException as error:
    outcome = {"error": type(error).__name__, "message": str(error)}
    failed = error  # kept, as a surface keeps it to answer: its traceback holds the reader's frames
outcome["seconds"] = time.monotonic() - started
outcome["grew_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
outcome["kept_mib"] = rss() - rss_before
print(json.dumps(outcome))
"""


def _gzip(size: int, level: int = 9) -> bytes:
    """`size` zero bytes, gzipped in one member (a 512 MiB bomb is half a megabyte)."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, 31)
    block = bytes(MiB)
    return b"".join([*(compressor.compress(block) for _ in range(size // MiB)), compressor.flush()])


def _gzip_bytes(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    return compressor.compress(data) + compressor.flush()


def _served(kind: str, path: str, encoding: str | None = None, status: int = 200) -> str:
    """A location answering a POST with the file `path` (nginx serves files to GET only:
    its 405 is turned into the file)."""
    header = f"add_header Content-Encoding {encoding};" if encoding else ""
    return (f"        location = /{kind} {{ error_page 405 ={status} /{kind}-file; return 405; }}\n"
            f"        location = /{kind}-file {{ alias {{d}}/files/{path}; types {{ }} "
            f"default_type text/tab-separated-values; {header} }}\n")


@pytest.fixture(scope="module")
def nginx() -> Iterator[NginxServer]:
    deflated = zlib.compress(GOOD_TSV)
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    server = NginxServer(
        _served("big", "big.tsv") + _served("failing-big", "big.tsv", status=500)
        + _served("bomb", "bomb.gz", "gzip") + _served("gzip", "good.gz", "gzip")
        + _served("deflate", "good.zlib", "deflate") + _served("raw-deflate", "good.deflate", "deflate")
        + _served("cut-gzip", "cut.gz", "gzip") + _served("zstd", "good.zst", "zstd")
        # Through the sub filter nginx streams the file chunked, announcing no length.
        + "        location = /stream { error_page 405 =200 /stream-file; return 405; }\n"
        + "        location = /stream-file { alias {d}/files/big.tsv; types { } default_type text/tab-separated-values;"
          " sub_filter_types text/tab-separated-values; sub_filter 'never-there' 'x'; }\n",
        files={"big.tsv": 2 * GiB, "bomb.gz": _gzip(512 * MiB), "good.gz": _gzip_bytes(GOOD_TSV),
               "good.zlib": deflated, "good.deflate": raw.compress(GOOD_TSV) + raw.flush(),
               "cut.gz": _gzip_bytes(GOOD_TSV * 1000)[:-40], "good.zst": b"(zstd bytes: never decoded)"},
    )
    yield server
    server.stop()


def child(url: str, **options: Any) -> dict[str, Any]:
    """The outcome of one query from a child process: the error, seconds, its peak memory's
    growth and the memory it still holds once the error is raised (MiB)."""
    ran = subprocess.run([sys.executable, "-c", CHILD, url, json.dumps(options)], capture_output=True, text=True,
                         timeout=300, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert ran.returncode == 0, ran.stderr[-3000:]
    outcome: dict[str, Any] = json.loads(ran.stdout)
    return outcome


def test_the_default_cap_is_256_mib() -> None:
    assert DEFAULT_MAX_BODY == 256 * MiB == RemoteBackend(EndpointConfig("http://127.0.0.1:1/sparql")).config.max_body


def test_an_announced_2_gib_answer_is_refused_before_it_is_read(nginx: NginxServer) -> None:
    outcome = child(f"{nginx.base}/big")
    assert outcome["error"] == "UpstreamError", outcome
    assert "announced an answer of 2147483648 bytes" in outcome["message"] and "max_body" in outcome["message"]
    assert outcome["seconds"] < 5 and outcome["grew_mib"] < 50, outcome


def test_a_streamed_2_gib_answer_is_abandoned_at_the_cap(nginx: NginxServer) -> None:
    outcome = child(f"{nginx.base}/stream", max_body=32 * MiB)
    assert outcome["error"] == "UpstreamError" and f"over {32 * MiB} bytes (max_body)" in outcome["message"], outcome
    assert outcome["grew_mib"] < 32 + 64, outcome  # the cap, one step and the bytes in flight
    assert outcome["kept_mib"] < 16, outcome


def test_a_gzip_bomb_counts_decoded_bytes(nginx: NginxServer) -> None:
    """Half a megabyte on the wire, 512 MiB inflated: stopped at the default cap, inflated a
    step at a time (httpx inflates each chunk whole)."""
    outcome = child(f"{nginx.base}/bomb")
    assert outcome["error"] == "UpstreamError" and f"over {DEFAULT_MAX_BODY} bytes" in outcome["message"], outcome
    assert outcome["grew_mib"] < 256 + 64, outcome
    assert outcome["kept_mib"] < 32, outcome  # handed back as the error is raised, not when it is dropped


def test_a_large_error_body_is_not_read(nginx: NginxServer) -> None:
    """A 500 is told by its status and the start of its body, never read whole."""
    outcome = child(f"{nginx.base}/failing-big")
    assert outcome["error"] == "UpstreamError" and "500" in outcome["message"], outcome
    assert outcome["seconds"] < 5 and outcome["grew_mib"] < 50, outcome


@pytest.mark.parametrize("kind", ["gzip", "deflate", "raw-deflate"])
def test_compressed_answers_are_read(nginx: NginxServer, kind: str) -> None:
    assert RemoteBackend(EndpointConfig(f"{nginx.base}/{kind}")).select(QUERY)[1] == GOOD_ROWS


def test_a_cut_compressed_answer_is_an_error(nginx: NginxServer) -> None:
    from gateway import Truncated

    with pytest.raises(Truncated, match="stops mid-stream"):
        RemoteBackend(EndpointConfig(f"{nginx.base}/cut-gzip", retry=RetryPolicy(attempts=1))).select(QUERY)


def test_an_encoding_not_asked_for_is_refused(nginx: NginxServer) -> None:
    """The gateway asks for gzip or deflate; zstd would inflate a chunk to gigabytes at once."""
    from gateway import UpstreamError

    with pytest.raises(UpstreamError, match="content encoding 'zstd', which the gateway did not ask for"):
        RemoteBackend(EndpointConfig(f"{nginx.base}/zstd")).select(QUERY)
