"""docs/endpoints.md's recipes: each parses as what it says it is, the local-file one is run
as written, and the Virtuoso one's URLs answer on a real Virtuoso."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import httpx2
import pytest

from gateway import Gateway
from gateway.backends.credentials import PASSWORD, TOKEN, USER
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from support.servers import VirtuosoServer, free_port, require_binary
from tests.conftest import DEMO, ROOT

DOC = (ROOT / "docs" / "endpoints.md").read_text(encoding="utf-8")
RECIPES: dict[str, tuple[str, str]] = {
    name: (language, text)
    for name, language, text in re.findall(r"<!-- recipe: ([\w-]+) -->\n```(\w+)\n(.*?)```", DOC, re.S)
}
BFSQL = Path(sys.executable).with_name("bfsql")
PROFILES = {"native", "reification", "plain", "wikidata", "auto"}
SPECIAL = {"url", "profile", "auth", "headers"}
PLAIN_FIELDS = {"graphs", "prefixes", "user_agent", "contact", "timeout", "connect_timeout", "deadline",
                "max_concurrency", "requests_per_minute", "query_seconds_per_minute", "cache_ttl", "cache_max_bytes",
                "result_format", "max_rows", "proxy", "max_body"}
"""The fields the endpoints file takes by name (the shared spec); each is `EndpointConfig`'s."""
AUTH_KEYS = {"type", "user", "user_env", "password", "password_env", "token", "token_env"}


def recipes(language: str) -> dict[str, str]:
    return {name: text for name, (lang, text) in RECIPES.items() if lang == language}


def test_every_kind_of_endpoint_has_its_recipe() -> None:
    assert set(RECIPES) == {"oxigraph-local", "virtuoso", "graphdb", "stardog", "wikidata", "qlever-wikidata",
                            "endpoints-file", "claude-desktop", "cursor", "vscode"}
    assert {field.name for field in dataclasses.fields(EndpointConfig)} >= PLAIN_FIELDS


# -- TOML ----------------------------------------------------------------------------------------
def _check_endpoint(name: str, entry: dict[str, Any]) -> set[str]:
    """The environment variables `entry` names, once every key of it is one the spec allows."""
    assert set(entry) <= SPECIAL | PLAIN_FIELDS, (name, set(entry) - SPECIAL - PLAIN_FIELDS)
    assert str(entry["url"]).startswith(("http://", "https://")) and entry.get("profile", "native") in PROFILES
    EndpointConfig(**{k: v for k, v in entry.items() if k in PLAIN_FIELDS}, url=entry["url"])  # values it takes
    variables: set[str] = set()
    auth = entry.get("auth", {})
    assert set(auth) <= AUTH_KEYS and auth.get("type", "basic") in {"basic", "digest", "bearer"}, (name, auth)
    variables.update(value for key, value in auth.items() if key.endswith("_env"))
    for header, value in entry.get("headers", {}).items():
        assert isinstance(value, str) or set(value) == {"env"}, (name, header)
        if not isinstance(value, str):
            variables.add(value["env"])
    return variables


@pytest.mark.parametrize("name", sorted(recipes("toml")))
def test_a_toml_recipe_is_an_endpoints_file_the_spec_allows(name: str, tmp_path: Path) -> None:
    text = recipes("toml")[name]
    parsed = tomllib.loads(text)
    assert set(parsed) == {"endpoints"} and parsed["endpoints"]
    variables: set[str] = set()
    for endpoint, entry in parsed["endpoints"].items():
        variables |= _check_endpoint(endpoint, entry)
    if importlib.util.find_spec("gateway.backends.endpoint_file") is None:
        pytest.skip("gateway.backends.endpoint_file (the endpoints file's reader) is not in this tree yet")
    from gateway.backends.endpoint_file import read_endpoints

    path = tmp_path / "endpoints.toml"
    path.write_text(text, encoding="utf-8")
    read = read_endpoints(path, environ={variable: f"value-of-{variable}" for variable in variables})
    assert set(read) == set(parsed["endpoints"])
    for endpoint, entry in parsed["endpoints"].items():
        assert read[endpoint].config.url == entry["url"]
        assert read[endpoint].profile == entry.get("profile", "native")


# -- MCP client configurations ----------------------------------------------------------------------
def _mcp_parser() -> argparse.ArgumentParser:
    from gateway.surfaces.cli import _parser

    return _parser()


@pytest.mark.parametrize("name", sorted(recipes("json")))
def test_a_client_configuration_runs_bfsql_mcp_with_valid_arguments(name: str) -> None:
    config = json.loads(recipes("json")[name])
    servers = config["servers"] if name == "vscode" else config["mcpServers"]
    assert servers
    for entry in servers.values():
        assert entry["command"].endswith("/bfsql") and entry.get("type", "stdio") == "stdio"
        args = entry["args"]
        assert args[0] == "mcp" and "--endpoint" in args
        assert all(isinstance(value, str) for value in entry.get("env", {}).values())
        if "--endpoints" in args and "--endpoints" not in subprocess.run(
                [str(BFSQL), "mcp", "--help"], capture_output=True, text=True, check=True).stdout:
            pytest.skip("bfsql mcp takes no --endpoints in this tree yet")
        parsed = _mcp_parser().parse_args(args)  # an unknown option or a missing value exits
        assert parsed.endpoint == args[args.index("--endpoint") + 1]


# -- the local file, run as written -------------------------------------------------------------------
def test_the_oxigraph_recipe_runs_as_written(tmp_path: Path) -> None:
    oxigraph = require_binary("oxigraph", package="the PyPI package oxigraph")
    port = free_port()
    lines = [line.strip() for line in recipes("sh")["oxigraph-local"].strip().splitlines()]
    commands = [shlex.split(line.rstrip("&").replace("graph.trig", str(DEMO)).replace("7878", str(port)))
                for line in lines]
    assert [c[:2] for c in commands] == [["oxigraph", "load"], ["oxigraph", "serve"], ["bfsql", "query"]]
    subprocess.run([oxigraph, *commands[0][1:]], cwd=tmp_path, check=True, capture_output=True, timeout=300)
    server = subprocess.Popen([oxigraph, *commands[1][1:]], cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        url = commands[2][commands[2].index("--endpoint") + 1]
        _wait_for(url, server)
        done = subprocess.run([str(BFSQL), *commands[2][1:]], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, env={**os.environ, "BFSQL_CONTACT": ""})
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    # The oracle: the same file in an embedded store. Prefixes are the file's own there and
    # none are configured for the endpoint, so classes are compared by their full IRIs.
    expected = Gateway.open(DEMO).call("describe_schema", {}).model_dump(mode="json")
    assert _class_counts(answer, Gateway.open(DEMO)) == _class_counts(expected, Gateway.open(DEMO))


def _class_counts(schema: dict[str, Any], gateway: Gateway) -> dict[str, int]:
    prefixes = gateway.context.backend.prefixes
    def full(term: str) -> str:
        prefix, _, local = term.partition(":")
        return prefixes[prefix] + local if prefix in prefixes and not term.startswith("http") else term
    return {full(kind["id"]): kind["count"] for kind in schema["entity_types"]}


def _wait_for(url: str, server: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        assert server.poll() is None, "oxigraph serve exited"
        with contextlib.suppress(httpx2.TransportError):
            if httpx2.get(f"{url}?query=ASK%7B%7D", timeout=2).status_code == 200:
                return
        subprocess.run(["sleep", "0.2"], check=True)  # the server's own start, not a wall-clock assertion
    raise AssertionError(f"{url} never answered")


# -- Virtuoso's URL shapes, on a real Virtuoso --------------------------------------------------------
def test_the_virtuoso_recipe_s_urls_answer_on_a_real_virtuoso(
    virtuoso_server: VirtuosoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = re.findall(r"--endpoint (\S+)", recipes("sh")["virtuoso"])
    assert [u.rsplit("/", 1)[1] for u in urls] == ["sparql", "sparql-auth"]
    here = virtuoso_server.url.rsplit("/", 1)[0]
    for name in (USER, PASSWORD, TOKEN):
        monkeypatch.delenv(name, raising=False)
    for url in urls:
        real = url.replace("http://127.0.0.1:8890", here)
        if url.endswith("-auth"):
            monkeypatch.setenv(USER, "dba")
            monkeypatch.setenv(PASSWORD, "dba")
        assert len(RemoteBackend(EndpointConfig(real)).select("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")[1]) == 1
