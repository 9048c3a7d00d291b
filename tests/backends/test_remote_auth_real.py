"""Credentials against real servers, as people run them: Virtuoso's `/sparql-auth` (HTTP
Digest, a SQL user with the SPARQL_SELECT role) and a bearer token checked by Debian's
nginx in front of `oxigraph serve`.

Credentials come from the environment, as every surface reads them. Tool calls through a
gateway on each are checked against the same calls on an embedded store holding the same
data; every refusal is an error naming the endpoint, never the secret.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway, UpstreamError
from gateway.backends.credentials import PASSWORD, TOKEN, USER, BasicOrDigestAuth
from gateway.backends.embedded import EmbeddedBackend, scan_prefixes
from gateway.profiles.reification import ReificationProfile
from gateway.surfaces.problems import to_problem
from support.servers import NginxServer, OxigraphServer, VirtuosoServer, bearer_location
from tests.conftest import DEMO, DEMO_GRAPHS, demo_reification

READER, READER_PASSWORD = "bfsql_reader", "pw-" + secrets.token_hex(8)
GOOD_TOKEN, BAD_SECRET = "tok-" + secrets.token_hex(8), "bad-" + secrets.token_hex(8)
PREFIXES = scan_prefixes(DEMO)
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("describe_entity", {"id": "wiki:Irene_Adler"}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2}),
    ("bfs_query", {"seeds": ["obj:photograph"], "max_hops": 1, "direction": "in"}),
    ("search_entities", {"query": "the woman"}),
    ("search_entities", {"query": "photograph", "limit": 5}),
]


@pytest.fixture(autouse=True)
def credentials_from_the_environment_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (USER, PASSWORD, TOKEN):
        monkeypatch.delenv(name, raising=False)


def answers(gateway: Gateway) -> list[dict[str, Any]]:
    found = []
    for tool, arguments in CALLS:
        dump = gateway.call(tool, arguments).model_dump(mode="json")
        dump.pop("profile", None)  # describe_schema-like answers name the profile, which differs by design
        found.append(dump)
    return found


def refusal(url: str, caplog: pytest.LogCaptureFixture, *, profile: str = "native", **options: Any) -> str:
    """The error a refused tool call raises: a 502 naming the endpoint, with no secret in it
    or in the log."""
    with caplog.at_level(logging.DEBUG, logger="gateway"), pytest.raises(UpstreamError) as caught:
        Gateway.connect(url, profile=profile, prefixes=PREFIXES, **options).call("describe_entity", CALLS[0][1])
    message = str(caught.value)
    problem = to_problem(caught.value)
    assert problem.status == 502
    host = url.split("//", 1)[1].split("/", 1)[0]
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for text in (message, problem.detail, logged):
        for secret in (BAD_SECRET, READER_PASSWORD, GOOD_TOKEN):
            assert secret not in text
    assert message.startswith(host), message
    return message


# -- Virtuoso: /sparql-auth with Digest ---------------------------------------------------------
@pytest.fixture(scope="module")
def virtuoso(virtuoso_server: VirtuosoServer) -> VirtuosoServer:
    virtuoso_server.add_sparql_user(READER, READER_PASSWORD)
    return virtuoso_server


@pytest.fixture(scope="module")
def reification_oracle() -> Gateway:
    store = ox.Store()
    store.load(demo_reification().encode("utf-8"), format=ox.RdfFormat.N_QUADS)
    return Gateway(EmbeddedBackend.from_store(store, prefixes=PREFIXES), profile=ReificationProfile)


def test_virtuoso_sparql_auth_answers_with_digest(
    virtuoso: VirtuosoServer, reification_oracle: Gateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(USER, READER)
    monkeypatch.setenv(PASSWORD, READER_PASSWORD)
    gateway = Gateway.connect(virtuoso.auth_url, profile="reification", prefixes=PREFIXES, graphs=DEMO_GRAPHS)
    assert answers(gateway) == answers(reification_oracle)
    auth = gateway.backend._auth  # type: ignore[attr-defined]
    assert isinstance(auth, BasicOrDigestAuth) and auth.uses_digest  # Virtuoso asked for Digest, and got it


def test_virtuoso_refuses_a_wrong_password(
    virtuoso: VirtuosoServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(USER, READER)
    monkeypatch.setenv(PASSWORD, BAD_SECRET)
    message = refusal(virtuoso.auth_url, caplog, profile="reification", graphs=DEMO_GRAPHS)
    assert "401" in message and "refused the gateway's credentials" in message and PASSWORD in message


def test_virtuoso_sparql_auth_without_credentials_says_they_are_missing(
    virtuoso: VirtuosoServer, caplog: pytest.LogCaptureFixture
) -> None:
    message = refusal(virtuoso.auth_url, caplog, profile="reification", graphs=DEMO_GRAPHS)
    assert "401" in message and "has none" in message


# -- nginx in front of oxigraph: a bearer token ---------------------------------------------------
@pytest.fixture(scope="module")
def nginx(oxigraph_server: OxigraphServer) -> Iterator[NginxServer]:
    server = NginxServer(bearer_location("/sparql", GOOD_TOKEN, oxigraph_server.url)
                         + bearer_location("/forbidden", GOOD_TOKEN, oxigraph_server.url, refusal=403))
    yield server
    server.stop()


def test_a_bearer_token_from_the_environment(nginx: NginxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN, GOOD_TOKEN)
    gateway = Gateway.connect(nginx.url, prefixes=PREFIXES)
    assert answers(gateway) == answers(Gateway.open(DEMO, prefixes=PREFIXES))


@pytest.mark.parametrize(("path", "status"), [("/sparql", 401), ("/forbidden", 403)])
def test_a_refused_token_is_named_without_the_token(
    nginx: NginxServer, path: str, status: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(TOKEN, BAD_SECRET)
    message = refusal(f"{nginx.base}{path}", caplog)
    assert str(status) in message and "refused the gateway's credentials" in message and TOKEN in message


@pytest.mark.parametrize(("path", "status"), [("/sparql", 401), ("/forbidden", 403)])
def test_no_token_is_named_as_missing(nginx: NginxServer, path: str, status: int,
                                      caplog: pytest.LogCaptureFixture) -> None:
    message = refusal(f"{nginx.base}{path}", caplog)
    assert str(status) in message and "has none" in message
