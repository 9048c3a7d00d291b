"""An endpoints file: every field read as EndpointConfig has it, every auth type, and each
broken or hostile file refused with a message naming the file and the key, never a secret."""

from __future__ import annotations

import base64
import secrets
from dataclasses import fields
from pathlib import Path
from typing import Any

import httpx2
import pytest

from gateway import Gateway, redaction
from gateway.backends.credentials import NO_CREDENTIALS, BasicOrDigestAuth, BearerAuth
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.endpoint_file import (
    ENDPOINTS_VARIABLE,
    NOT_IN_FILE,
    PROFILE_NAMES,
    endpoints_path,
    read_endpoints,
    resolve_endpoint,
)
from gateway.errors import InvalidInput, UpstreamError
from gateway.profiles import PROFILES
from support.servers import OxigraphServer
from tests.backends.test_remote_canary import CANARY, IRENE, basic_auth_nginx
from tests.conftest import ROOT

SECRET = "canary-" + secrets.token_hex(8)
EVERY_FIELD: dict[str, Any] = {
    "url": "https://sparql.example.org/sparql",
    "graphs": ["https://example.org/graph/a", "https://example.org/graph/b"],
    "prefixes": {"ex": "https://example.org/", "wiki": "https://example.org/wiki/"},
    "user_agent": "team-gateway/1 (mailto:ops@example.org)",
    "contact": "mailto:ops@example.org",
    "timeout": 12.5,
    "connect_timeout": 3,
    "deadline": 40,
    "max_concurrency": 2,
    "requests_per_minute": 100,
    "query_seconds_per_minute": 30.5,
    "cache_ttl": 0,
    "cache_max_bytes": 1 << 20,
    "result_format": "json",
    "max_rows": 10000,
    "proxy": "http://proxy.example.org:3128",
    "max_body": 1 << 24,
}
"""A value, not the default, for every plain field."""


def toml_value(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f'{k} = {toml_value(v)}' for k, v in value.items()) + " }"
    return str(value)


def written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "endpoints.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refused(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> str:
    """The message reading `text` is refused with; it names the file and never SECRET."""
    path = written(tmp_path, text)
    with pytest.raises(InvalidInput) as caught:
        read_endpoints(path, environ or {})
    message = caught.value.message
    assert str(path) in message and SECRET not in message, message
    return message


def test_every_plain_field_is_read_as_the_config_has_it(tmp_path: Path) -> None:
    plain = {f.name for f in fields(EndpointConfig)} - set(NOT_IN_FILE)
    assert set(EVERY_FIELD) == plain  # a new EndpointConfig field is written here, and so tested
    body = "\n".join(f"{key} = {toml_value(value)}" for key, value in EVERY_FIELD.items())
    entries = read_endpoints(written(tmp_path, f'[endpoints.team]\nprofile = "reification"\n{body}\n'), {})
    assert list(entries) == ["team"]
    entry = entries["team"]
    assert entry.name == "team" and entry.profile == "reification"
    for key, value in EVERY_FIELD.items():
        read = getattr(entry.config, key)
        assert (list(read) if key == "graphs" else read) == value, key
    assert entry.config.auth is NO_CREDENTIALS and entry.config.headers is None


def test_defaults_are_the_configs(tmp_path: Path) -> None:
    entry = read_endpoints(written(tmp_path, '[endpoints.a]\nurl = "http://127.0.0.1:7878/query"\n'), {})["a"]
    expected = EndpointConfig("http://127.0.0.1:7878/query", auth=NO_CREDENTIALS)
    assert entry.config == expected and entry.profile == "native"


def flow(auth: httpx2.Auth) -> httpx2.Request:
    """The first request `auth` sends."""
    return next(auth.sync_auth_flow(httpx2.Request("POST", "https://sparql.example.org/sparql")))


def test_basic_auth_from_the_environment(tmp_path: Path) -> None:
    path = written(tmp_path, '[endpoints.a]\nurl = "https://sparql.example.org/sparql"\n'
                             '[endpoints.a.auth]\ntype = "basic"\nuser = "alice"\npassword_env = "TEAM_PW"\n')
    auth = read_endpoints(path, {"TEAM_PW": SECRET})["a"].config.auth
    assert isinstance(auth, BasicOrDigestAuth)
    expected = "Basic " + base64.b64encode(f"alice:{SECRET}".encode()).decode()
    assert flow(auth).headers["Authorization"] == expected
    assert SECRET not in redaction.redact(f"{SECRET} {expected}")


def test_digest_auth_with_the_user_from_the_environment(tmp_path: Path) -> None:
    path = written(tmp_path, '[endpoints.a]\nurl = "https://sparql.example.org/sparql"\n'
                             f'[endpoints.a.auth]\ntype = "digest"\nuser_env = "TEAM_USER"\npassword = "{SECRET}"\n')
    auth = read_endpoints(path, {"TEAM_USER": "bob"})["a"].config.auth
    assert isinstance(auth, httpx2.DigestAuth)
    assert "Authorization" not in flow(auth).headers  # Digest answers the server's challenge only
    assert SECRET not in redaction.redact(SECRET)


@pytest.mark.parametrize("where", ["file", "environment"])
def test_bearer_auth(tmp_path: Path, where: str) -> None:
    given = f'token = "{SECRET}"' if where == "file" else 'token_env = "TEAM_TOKEN"'
    path = written(tmp_path, f'[endpoints.a]\nurl = "https://sparql.example.org/sparql"\n'
                             f'[endpoints.a.auth]\ntype = "bearer"\n{given}\n')
    auth = read_endpoints(path, {"TEAM_TOKEN": SECRET})["a"].config.auth
    assert isinstance(auth, BearerAuth) and flow(auth).headers["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in redaction.redact(SECRET)


def test_headers_literal_and_from_the_environment(tmp_path: Path) -> None:
    key = "key-" + secrets.token_hex(6)
    path = written(tmp_path, '[endpoints.a]\nurl = "https://sparql.example.org/sparql"\n'
                             f'[endpoints.a.headers]\n"X-API-Key" = {{ env = "TEAM_KEY" }}\nX-Team = "{SECRET}"\n')
    headers = read_endpoints(path, {"TEAM_KEY": key})["a"].config.headers
    assert headers == {"X-API-Key": key, "X-Team": SECRET}
    assert key not in redaction.redact(key) and SECRET not in redaction.redact(SECRET)


URL = '[endpoints.a]\nurl = "https://sparql.example.org/sparql"\n'


@pytest.mark.parametrize(("text", "place"), [
    (URL + "bogus = 1\n", "endpoints.a.bogus"),
    (URL + "auth = 1\n", "endpoints.a.auth"),
    ('unknown = 1\n' + URL, "'unknown'"),
    (URL + f'[endpoints.a.auth]\ntype = "basic"\nuser = "x"\npassword = "{SECRET}"\ntoken = "{SECRET}"\n',
     "endpoints.a.auth.token"),
    (URL + '[endpoints.a.auth]\ntype = "bearer"\nuser = "x"\n', "endpoints.a.auth.user"),
    (URL + '[endpoints.a.auth]\ntype = "ntlm"\n', "endpoints.a.auth.type"),
    (URL + f'[endpoints.a.auth]\ntype = "basic"\nuser = "x"\npassword = "{SECRET}"\npassword_env = "V"\n',
     "endpoints.a.auth.password"),
    (URL + '[endpoints.a.auth]\ntype = "bearer"\n', "endpoints.a.auth.token"),
    (URL + 'timeout = "30"\n', "endpoints.a.timeout"),
    (URL + "max_rows = true\n", "endpoints.a.max_rows"),
    (URL + "max_concurrency = 1.5\n", "endpoints.a.max_concurrency"),
    (URL + 'graphs = "https://example.org/g"\n', "endpoints.a.graphs"),
    (URL + "graphs = [1]\n", "endpoints.a.graphs.0"),
    (URL + "[endpoints.a.prefixes]\nex = 3\n", "endpoints.a.prefixes.ex"),
    (URL + f'[endpoints.a.headers]\nX-Key = {{ env = "V", value = "{SECRET}" }}\n', "endpoints.a.headers.X-Key"),
    (URL + f'[endpoints.a.headers]\n"Bad Name" = "{SECRET}"\n', "endpoints.a.headers.Bad Name"),
    (URL + f'[endpoints.a.headers]\nHost = "{SECRET}"\n', "endpoints.a.headers.Host"),
    (URL + f'[endpoints.a.headers]\nAuthorization = "{SECRET}"\n[endpoints.a.auth]\ntype = "bearer"\ntoken = "{SECRET}"\n',
     "endpoints.a.headers"),
    (URL + 'profile = "rdfstar"\n', "endpoints.a.profile"),
    (URL + 'result_format = "xml"\n', "endpoints.a"),
    (URL + "max_body = 0\n", "endpoints.a"),
    ('[endpoints.a]\ntimeout = 3\n', "endpoints.a.url"),
    ('[endpoints.a]\nurl = "ftp://example.org/sparql"\n', "endpoints.a.url"),
    ('[endpoints."a b"]\nurl = "https://example.org/sparql"\n', "'a b'"),
    ("[endpoints]\na = 1\n", "endpoints.a"),
    ("[other]\n", "'other'"),
    ("", "names no endpoint"),
])
def test_a_broken_file_names_the_place(tmp_path: Path, text: str, place: str) -> None:
    assert place in refused(tmp_path, text)


@pytest.mark.parametrize("table", [
    '[endpoints.a.auth]\ntype = "basic"\nuser = "alice"\npassword_env = "TEAM_SPARQL_PASSWORD"\n',
    '[endpoints.a.auth]\ntype = "bearer"\ntoken_env = "TEAM_SPARQL_PASSWORD"\n',
    '[endpoints.a.headers]\nX-API-Key = { env = "TEAM_SPARQL_PASSWORD" }\n',
])
def test_an_unset_variable_is_named(tmp_path: Path, table: str) -> None:
    message = refused(tmp_path, URL + table, {"OTHER": SECRET})
    assert "TEAM_SPARQL_PASSWORD is not set" in message and "endpoints.a." in message


def test_credentials_in_the_url_are_refused_and_never_shown(tmp_path: Path) -> None:
    message = refused(tmp_path, f'[endpoints.a]\nurl = "https://alice:{SECRET}@sparql.example.org/sparql"\n')
    assert "endpoints.a.url" in message and "auth table" in message
    assert SECRET not in redaction.redact(SECRET)


def test_a_toml_syntax_error_names_its_line(tmp_path: Path) -> None:
    message = refused(tmp_path, URL + f'timeout = 3\npassword "{SECRET}"\n')
    assert "line 4" in message and "not valid TOML" in message


def test_a_missing_file_and_a_directory(tmp_path: Path) -> None:
    for path in (tmp_path / "absent.toml", tmp_path):
        with pytest.raises(InvalidInput) as caught:
            read_endpoints(path, {})
        assert str(path) in caught.value.message


def test_the_profiles_a_file_names_are_the_gateways() -> None:
    assert set(PROFILE_NAMES) == {*PROFILES, "auto"}


TWO = URL + '[endpoints.b]\nurl = "http://127.0.0.1:1/query"\nprofile = "plain"\n'


def test_resolving_a_url_a_name_and_the_only_entry(tmp_path: Path) -> None:
    url = resolve_endpoint(f"https://bob:{SECRET}@example.org/sparql", written(tmp_path, "not read = ["))
    assert url.name == "https://example.org/sparql" and url.profile == "native"
    assert url.config.url == f"https://bob:{SECRET}@example.org/sparql"  # credentials_for takes them out
    path = written(tmp_path, TWO)
    entry = resolve_endpoint("b", path)
    assert entry.name == "b" and entry.profile == "plain" and entry.config.url == "http://127.0.0.1:1/query"
    with pytest.raises(InvalidInput, match="names 2 endpoints \\(a, b\\)"):
        resolve_endpoint(None, path)
    with pytest.raises(InvalidInput, match="names no endpoint 'c'; it names: a, b"):
        resolve_endpoint("c", path)
    only = written(tmp_path, URL)
    assert resolve_endpoint(None, only).name == "a"
    with pytest.raises(InvalidInput, match="--endpoints FILE or BFSQL_ENDPOINTS"):
        resolve_endpoint("a", None)
    with pytest.raises(InvalidInput, match="no endpoint"):
        resolve_endpoint(None, None)


def test_the_file_defaults_to_the_environments() -> None:
    assert endpoints_path(None, {ENDPOINTS_VARIABLE: "/etc/bfsql/endpoints.toml"}) == "/etc/bfsql/endpoints.toml"
    assert endpoints_path("mine.toml", {ENDPOINTS_VARIABLE: "/etc/x.toml"}) == "mine.toml"
    assert endpoints_path(None, {}) is None


def test_connect_named_answers_as_connect(tmp_path: Path, oxigraph_server: OxigraphServer) -> None:
    path = written(tmp_path, f'[endpoints.demo]\nurl = "{oxigraph_server.url}"\nmax_concurrency = 2\n'
                             '[endpoints.demo.prefixes]\nwiki = "https://example.org/wiki/"\n')
    expected = Gateway.connect(oxigraph_server.url, prefixes={"wiki": "https://example.org/wiki/"})
    with Gateway.connect_named("demo", path) as named, expected:
        assert named.backend.config == read_endpoints(path)["demo"].config  # type: ignore[attr-defined]
        walked = named.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1)
        assert walked == expected.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1) and walked.node_count > 1


def test_a_config_with_options_beside_it_is_refused() -> None:
    config = EndpointConfig("http://127.0.0.1:1/query")
    with pytest.raises(InvalidInput, match="timeout, max_rows"):
        Gateway.connect(config, timeout=5, max_rows=10)


@pytest.mark.parametrize("where", ["docs/http.md", "gateway/backends/endpoint_file.py"])
def test_the_documented_example_reads(tmp_path: Path, where: str) -> None:
    text = (ROOT / where).read_text(encoding="utf-8")
    if where.endswith(".md"):
        example = next(block.split("```")[0] for block in text.split("```toml\n") if "[endpoints.team]" in block)
    else:  # the docstring's indented lines
        example = "\n".join(line[4:] for line in text.split('"""')[1].splitlines() if line.startswith("    "))
    entry = read_endpoints(written(tmp_path, example), {"TEAM_SPARQL_PASSWORD": SECRET, "TEAM_API_KEY": SECRET})["team"]
    assert entry.config.url == "https://sparql.example.org/sparql" and isinstance(entry.config.auth, BasicOrDigestAuth)
    assert entry.config.headers == {"X-API-Key": SECRET} and entry.profile == "reification"


def test_the_environments_credentials_are_for_a_bare_url_only(
    tmp_path: Path, oxigraph_server: OxigraphServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's entry with no auth table sends none, though BFSQL_ENDPOINT_* would be accepted:
    they must not go to every endpoint a shared file names (a public one among them)."""
    nginx = basic_auth_nginx(oxigraph_server)
    monkeypatch.setenv("BFSQL_ENDPOINT_USER", "alice")
    monkeypatch.setenv("BFSQL_ENDPOINT_PASSWORD", CANARY)
    monkeypatch.delenv("BFSQL_ENDPOINT_TOKEN", raising=False)
    try:
        with Gateway.connect(nginx.url) as bare:
            assert bare.describe_entity(IRENE).label == "Irene Adler"
        path = written(tmp_path, f'[endpoints.a]\nurl = "{nginx.url}"\n')
        with Gateway.connect_named("a", path) as named, pytest.raises(UpstreamError, match=r"has none .*auth table"):
            named.describe_entity(IRENE)
    finally:
        nginx.stop()


def test_secrets_written_in_a_file_others_may_read_are_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    by_variable = written(tmp_path, URL + '[endpoints.a.auth]\ntype = "bearer"\ntoken_env = "TEAM_TOKEN"\n')
    by_variable.chmod(0o644)
    read_endpoints(by_variable, {"TEAM_TOKEN": SECRET})
    assert not caplog.records
    path = written(tmp_path, URL + f'[endpoints.a.auth]\ntype = "bearer"\ntoken = "{SECRET}"\n')
    path.chmod(0o600)
    read_endpoints(path, {})
    assert not caplog.records
    path.chmod(0o640)
    read_endpoints(path, {})
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: holds secrets for a and others may read it: chmod 600 it, or name each secret by its environment "
        "variable (password_env, token_env, { env = ... })"]
