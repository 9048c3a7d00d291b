"""What the gateway trusts a remote endpoint with, and what it takes from one.

Real servers: Debian's nginx in front of `oxigraph serve` (Basic authentication, a bearer
token and an API key checked by nginx, redirects, errors with bodies) and a second nginx
as "another server". Only Digest authentication, which nginx does not do, is answered by
a small server here, which checks the digest as RFC 7616 computes it.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import pytest

from gateway import Gateway, InvalidInput, RateLimited, UpstreamError
from gateway.backends.credentials import BearerAuth
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend, RetryPolicy
from gateway.backends.resilience import EndpointShare, origin
from gateway.surfaces.problems import to_problem
from support.servers import NginxServer, OxigraphServer

PASSWORD = "pw-" + secrets.token_hex(8)
TOKEN = "tok-" + secrets.token_hex(8)
KEY = "key-" + secrets.token_hex(8)
BODY_SECRET = "BODY-" + secrets.token_hex(8)
QUERY = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 3"
FAST = RetryPolicy(attempts=1)


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[NginxServer]:
    """Another server (another port: another origin) that would answer anything with a row."""
    server = NginxServer('        location / { default_type text/tab-separated-values; '
                         'return 200 "?s\\n<http://elsewhere.example/x>\\n"; }\n')
    yield server
    server.stop()


@pytest.fixture(scope="module")
def nginx(oxigraph_server: OxigraphServer, elsewhere: NginxServer) -> Iterator[NginxServer]:
    """nginx in front of oxigraph: `/sparql` for alice only, and the other ways in and out."""
    upstream = oxigraph_server.url
    server = NginxServer(f"""
        location = /sparql {{ auth_basic "bfsql"; auth_basic_user_file {{d}}/htpasswd; proxy_pass {upstream}; }}
        location = /open {{ proxy_pass {upstream}; }}
        location = /token {{ if ($http_authorization != "Bearer {TOKEN}") {{ return 401; }} proxy_pass {upstream}; }}
        location = /keyed {{ if ($http_x_api_key != "{KEY}") {{ return 403; }} proxy_pass {upstream}; }}
        location = /home {{ return 307 /sparql; }}
        location = /away {{ return 307 {elsewhere.base}/sparql; }}
        location = /away-302 {{ return 302 {elsewhere.base}/sparql; }}
        location = /https {{ return 308 https://127.0.0.1:{{port}}/sparql; }}
        location = /loop {{ return 307 /loop; }}
        location = /fail {{ return 500 "java.lang.NullPointerException: {BODY_SECRET}"; }}
        location = /says-error {{ return 200 "Virtuoso 42000 Error {BODY_SECRET}"; }}
""", users={"alice": PASSWORD})
    yield server
    server.stop()


def at(nginx: NginxServer, path: str, userinfo: str = "") -> str:
    return f"http://{userinfo}127.0.0.1:{nginx.port}{path}"


def failure(backend: RemoteBackend, kind: type[Exception] = UpstreamError) -> str:
    with pytest.raises(kind) as caught:
        backend.select(QUERY)
    if kind is UpstreamError:
        assert to_problem(caught.value).status == 502  # over HTTP a 502, never a 500
    return str(caught.value)


@pytest.fixture(autouse=True)
def no_environment_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BFSQL_ENDPOINT_USER", "BFSQL_ENDPOINT_PASSWORD", "BFSQL_ENDPOINT_TOKEN"):
        monkeypatch.delenv(name, raising=False)


# -- credentials --------------------------------------------------------------------------
def test_url_userinfo_is_used_as_credentials_and_never_shown(nginx: NginxServer) -> None:
    backend = RemoteBackend(EndpointConfig(at(nginx, "/sparql", f"alice:{PASSWORD}@"), retry=FAST))
    assert len(backend.select(QUERY)[1]) == 3
    assert backend.endpoint == nginx.url and PASSWORD not in backend.host
    failing = RemoteBackend(EndpointConfig(at(nginx, "/fail", f"alice:{PASSWORD}@"), retry=FAST))
    assert PASSWORD not in failure(failing) and PASSWORD not in failing.endpoint


def test_percent_encoded_userinfo_is_decoded_and_kept_out_of_messages() -> None:
    """A password with reserved characters stands percent-encoded in the URL."""
    odd = "p@ss:w/rd"
    server = NginxServer("        location = /sparql { auth_basic 'x'; auth_basic_user_file {d}/htpasswd; "
                         "return 200 '?s\\n<http://a.example/ok>\\n'; default_type text/tab-separated-values; }\n",
                         users={"bob": odd})
    try:
        backend = RemoteBackend(EndpointConfig(f"http://bob:p%40ss%3Aw%2Frd@127.0.0.1:{server.port}/sparql", retry=FAST))
        assert backend.select(QUERY)[1] == [["http://a.example/ok"]]
        assert "%40" not in backend.endpoint and "bob" not in backend.endpoint
    finally:
        server.stop()


def test_credentials_from_the_environment(nginx: NginxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every surface reaches `Gateway.connect`, which reads them: `bfsql serve --endpoint` too."""
    monkeypatch.setenv("BFSQL_ENDPOINT_USER", "alice")
    monkeypatch.setenv("BFSQL_ENDPOINT_PASSWORD", PASSWORD)
    gateway = Gateway.connect(nginx.url)
    assert gateway.describe_entity("https://example.org/wiki/Irene_Adler").label == "Irene Adler"


def test_a_bearer_token_from_the_environment_or_as_auth(nginx: NginxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "401" in failure(RemoteBackend(EndpointConfig(at(nginx, "/token"), retry=FAST)))  # the control: nginx checks it
    assert len(RemoteBackend(EndpointConfig(at(nginx, "/token"), auth=BearerAuth(TOKEN))).select(QUERY)[1]) == 3
    monkeypatch.setenv("BFSQL_ENDPOINT_TOKEN", TOKEN)
    assert len(RemoteBackend(EndpointConfig(at(nginx, "/token"))).select(QUERY)[1]) == 3


def test_an_api_key_header(nginx: NginxServer) -> None:
    assert "403" in failure(RemoteBackend(EndpointConfig(at(nginx, "/keyed"), retry=FAST)))
    backend = RemoteBackend(EndpointConfig(at(nginx, "/keyed"), headers={"X-API-Key": KEY}))
    assert len(backend.select(QUERY)[1]) == 3


def test_basic_auth_given_as_an_httpx_auth(nginx: NginxServer) -> None:
    assert len(RemoteBackend(EndpointConfig(nginx.url, auth=httpx2.BasicAuth("alice", PASSWORD))).select(QUERY)[1]) == 3


def test_missing_credentials_are_named_as_missing(nginx: NginxServer) -> None:
    message = failure(RemoteBackend(EndpointConfig(nginx.url, retry=FAST)))
    assert message.startswith(f"127.0.0.1:{nginx.port} answered 401 Unauthorized")
    assert "has none" in message and "BFSQL_ENDPOINT_USER" in message and "<html>" not in message


def test_refused_credentials_are_named_as_refused_without_the_secret(nginx: NginxServer) -> None:
    wrong = "wrong-" + secrets.token_hex(4)
    message = failure(RemoteBackend(EndpointConfig(at(nginx, "/sparql", f"alice:{wrong}@"), retry=FAST)))
    assert "401" in message and "refused the gateway's credentials (from the endpoint URL)" in message
    assert wrong not in message


def test_the_environment_must_name_one_kind_of_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BFSQL_ENDPOINT_TOKEN", TOKEN)
    monkeypatch.setenv("BFSQL_ENDPOINT_USER", "alice")
    with pytest.raises(InvalidInput, match="not both"):
        RemoteBackend(EndpointConfig("http://127.0.0.1:1/sparql"))
    monkeypatch.delenv("BFSQL_ENDPOINT_TOKEN")
    with pytest.raises(InvalidInput, match="go together"):
        RemoteBackend(EndpointConfig("http://127.0.0.1:1/sparql"))


class DigestEndpoint(ThreadingHTTPServer):
    """Asks for Digest (RFC 7616, MD5, qop=auth) and answers one row to a request whose
    digest checks out; records each request's Authorization header."""

    realm, nonce = "bfsql", secrets.token_hex(8)

    def __init__(self, user: str, password: str) -> None:
        super().__init__(("127.0.0.1", 0), self._handler())
        self.daemon_threads = True
        self.user, self.password = user, password
        self.seen: list[str] = []
        self.url = f"http://127.0.0.1:{self.server_address[1]}/sparql"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def valid(self, header: str, method: str) -> bool:
        if not header.startswith("Digest "):
            return False
        fields = dict(part.strip().split("=", 1) for part in header[7:].split(","))
        fields = {k: v.strip('"') for k, v in fields.items()}
        md5 = lambda text: hashlib.md5(text.encode()).hexdigest()  # noqa: E731
        ha1 = md5(f"{self.user}:{self.realm}:{self.password}")
        ha2 = md5(f"{method}:{fields['uri']}")
        expected = md5(f"{ha1}:{fields['nonce']}:{fields['nc']}:{fields['cnonce']}:{fields['qop']}:{ha2}")
        return fields["username"] == self.user and fields["nonce"] == self.nonce and fields["response"] == expected

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                header = self.headers.get("Authorization", "")
                endpoint.seen.append(header)
                if endpoint.valid(header, "POST"):
                    body, status = b"?s\n<http://a.example/digested>\n", 200
                else:
                    body, status = b"no", 401
                self.send_response(status)
                if status == 401:
                    self.send_header("WWW-Authenticate", f'Digest realm="{endpoint.realm}", nonce="{endpoint.nonce}", '
                                                         'qop="auth", algorithm=MD5')
                self.send_header("Content-Type", "text/tab-separated-values")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def test_digest_when_the_endpoint_asks_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint = DigestEndpoint("carol", PASSWORD)
    try:
        monkeypatch.setenv("BFSQL_ENDPOINT_USER", "carol")
        monkeypatch.setenv("BFSQL_ENDPOINT_PASSWORD", PASSWORD)
        # No result cache: the second select must make the second request this checks.
        backend = RemoteBackend(EndpointConfig(endpoint.url, cache_ttl=0))
        for _ in range(2):
            assert backend.select(QUERY)[1] == [["http://a.example/digested"]]
        # Basic first; Digest once asked for; and Digest only from then on.
        assert [h.split()[0] for h in endpoint.seen] == ["Basic", "Digest", "Digest"]
        wrong = RemoteBackend(EndpointConfig(endpoint.url.replace("http://", f"http://carol:{PASSWORD}x@"), retry=FAST))
        assert "refused the gateway's credentials" in failure(wrong)
    finally:
        endpoint.shutdown()
        endpoint.server_close()


# -- redirects ----------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/away", "/away-302", "/https"])
def test_a_redirect_to_another_origin_is_refused(nginx: NginxServer, elsewhere: NginxServer, path: str) -> None:
    """A 307 would send the query (and a 302 at least the request) to another server, whose
    answer would be read as the store's: refused, naming the endpoint, never the secret."""
    before = (elsewhere.directory / "access.log").read_text()
    backend = RemoteBackend(EndpointConfig(at(nginx, path, f"alice:{PASSWORD}@"), retry=FAST))
    message = failure(backend)
    assert "another server" in message and f"127.0.0.1:{nginx.port}" in message and PASSWORD not in message
    assert (elsewhere.directory / "access.log").read_text() == before  # nothing reached it


def test_a_redirect_loop_is_an_upstream_error(nginx: NginxServer) -> None:
    message = failure(RemoteBackend(EndpointConfig(at(nginx, "/loop"), retry=FAST)))
    assert f"more than {RemoteBackend.MAX_REDIRECTS} times" in message
    log = (nginx.directory / "access.log").read_text()
    assert log.count("POST /loop") == RemoteBackend.MAX_REDIRECTS + 1  # bounded


def test_a_redirect_within_the_origin_is_followed_with_the_credentials(nginx: NginxServer) -> None:
    backend = RemoteBackend(EndpointConfig(at(nginx, "/home", f"alice:{PASSWORD}@"), retry=FAST))
    assert len(backend.select(QUERY)[1]) == 3  # /home -> /sparql, which wants alice


# -- an endpoint's bodies are not passed on ---------------------------------------------------
def test_an_error_body_is_not_echoed_but_logged_at_debug(nginx: NginxServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="gateway.remote")
    message = failure(RemoteBackend(EndpointConfig(at(nginx, "/fail"), retry=FAST)))
    assert message == (f"127.0.0.1:{nginx.port} answered 500 Internal Server Error: the endpoint failed running the "
                       "query (its own text is in the gateway's log at debug level)")
    assert BODY_SECRET in caplog.text


def test_an_error_text_in_a_200_is_not_echoed(nginx: NginxServer) -> None:
    message = failure(RemoteBackend(EndpointConfig(at(nginx, "/says-error"), retry=FAST)))
    assert "error text instead of results" in message and BODY_SECRET not in message and "Virtuoso" not in message


# -- the 429 pause is the origin's ----------------------------------------------------------
def test_a_429_pauses_every_backend_of_the_origin(tmp_path: Path) -> None:
    """Two backends of one server, with other paths and other limits: a 429 to one holds
    the other too (a server of its own, so the pause delays no other test)."""
    server = NginxServer("        location = /busy { add_header Retry-After 7 always; return 429; }\n"
                         "        location = /sparql { default_type text/tab-separated-values; "
                         "return 200 '?s\\n<http://a.example/ok>\\n'; }\n")
    try:
        first_sleeps: list[float] = []
        second_sleeps: list[float] = []
        first = RemoteBackend(EndpointConfig(f"{server.base}/busy", max_concurrency=2, retry=RetryPolicy(attempts=2),
                              sleep=first_sleeps.append))
        second = RemoteBackend(EndpointConfig(f"http://127.0.0.1:{server.port}/sparql", max_concurrency=3,
                               sleep=second_sleeps.append))
        with pytest.raises(RateLimited):
            first.select(QUERY)
        assert first_sleeps == [pytest.approx(7, abs=1)]
        assert second.select(QUERY)[1] == [["http://a.example/ok"]]
        assert second_sleeps == [pytest.approx(7, abs=1)]
    finally:
        server.stop()


def test_origins() -> None:
    assert origin("http://A.example/x") == origin("http://a.example:80/y?z") == ("http", "a.example", 80)
    assert origin("https://a.example/") == ("https", "a.example", 443) != origin("http://a.example:443/")
    one = EndpointShare.get("http://share.example/a", 2)
    assert EndpointShare.get("http://share.example:80/b", 2).slots is one.slots
    one.pause(30)
    assert EndpointShare.get("http://share.example/c", 5).wait_needed() > 29
    assert EndpointShare.get("https://share.example/c", 5).wait_needed() == 0


# -- the last line: redaction ---------------------------------------------------------------
def test_the_log_filter_masks_secrets_in_messages_arguments_and_tracebacks() -> None:
    import io

    from gateway import redaction

    secret = "sek-" + secrets.token_hex(6)
    redaction.register_url(f"http://dora:{secret}@example.org/sparql?api_key={secret}x&lang=en")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(redaction.RedactingFilter())
    log = logging.getLogger("tests.redaction")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("asked http://dora:%s@example.org", secret)
        log.warning("key %s", f"{secret}x")
        log.warning("malformed %s %s", secret)  # one argument short: still masked
        try:
            raise RuntimeError(f"failed with {secret}")
        except RuntimeError:
            log.exception("oops")
    finally:
        log.removeHandler(handler)
    written = stream.getvalue()
    lines = written.splitlines()
    assert secret not in written
    for start in ("asked http://***@", "key ***", "malformed %s %s ('***',)", "RuntimeError: failed with ***"):
        assert any(line.startswith(start) for line in lines), (start, written)
    assert redaction.public_url(f"http://dora:{secret}@example.org:81/q?x=1") == "http://example.org:81/q?x=1"
