"""A URL's query reaches the server as given, ``params`` after it, and its credentials never reach a message.

httpx.URL(address, params=None) drops the query ``address`` has, and params={…} replaces it;
a signed download URL (DashScope's, any provider's pre-signed object URL) went out unsigned or,
through the adapter's parse-and-rebuild, with a repeated key lost. The server here is a real one
on 127.0.0.1 that records the request target byte for byte.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar
from urllib.parse import parse_qsl, quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ttsbench.engines.base import EngineError
from pytest_ttsbench.engines.http import HttpOptions
from pytest_ttsbench.support.httpclient import HttpClient, ProviderPolicy, join_url
from pytest_ttsbench.support.redaction import Redactor


class _Recorder(BaseHTTPRequestHandler):
    targets: ClassVar[list[str]] = []
    status = 200

    def do_GET(self) -> None:
        type(self).targets.append(self.path)
        body = b"RIFF" if self.status == 200 else b"denied"
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, type[_Recorder]]]:
    handler = type("Recorder", (_Recorder,), {"targets": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()
    httpd.server_close()


def _client(base_url: str = "") -> HttpClient:
    options = HttpOptions(base_url=base_url, max_retries=0)
    return HttpClient(options, ProviderPolicy("t"), Redactor(), label="t profile 'x'", error_type=EngineError)


# Query parts as a signer writes them: percent-encoded bytes, '+', '=' inside values, empty values,
# repeated keys.
_piece = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8).map(
    lambda t: quote(t, safe="+=")
)
_pairs = st.lists(st.tuples(_piece.filter(bool), _piece), max_size=5)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pairs=_pairs,
    repeat_first=st.booleans(),
    params=st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.text(max_size=6), max_size=3),
)
def test_a_query_is_sent_as_given_and_params_follow_it(
    server: tuple[str, type[_Recorder]], pairs: list[tuple[str, str]], repeat_first: bool, params: dict[str, str]
) -> None:
    base, handler = server
    if repeat_first and pairs:
        pairs = [*pairs, pairs[0]]
    query = "&".join(f"{k}={v}" for k, v in pairs)
    address = f"{base}/signed/object.wav" + (f"?{query}" if query else "")
    handler.targets.clear()
    _client().request("GET", address, params=params or None)
    (target,) = handler.targets
    sent_query = target.partition("?")[2]
    assert sent_query.startswith(query)  # byte for byte, repeated keys and all
    rest = sent_query.removeprefix(query).removeprefix("&" if query and params else "")
    assert parse_qsl(rest, keep_blank_values=True) == list(params.items())


def test_a_path_and_base_url_keep_their_query_beside_params(server: tuple[str, type[_Recorder]]) -> None:
    base, handler = server
    handler.targets.clear()
    # lower-case escapes, a repeated key and a param of a name the query has: nothing re-encoded or replaced
    _client(base).request("GET", "/v1/speech?x=%7e&format=wav&format=pcm", params={"format": "mp3", "v": "a b"})
    assert handler.targets == ["/v1/speech?x=%7e&format=wav&format=pcm&format=mp3&v=a+b"]


def test_a_signature_in_the_query_never_reaches_the_error(server: tuple[str, type[_Recorder]]) -> None:
    base, handler = server
    handler.status = 403
    signature = "Zm9vYmFy%2BbG9uZ3NpZ25hdHVyZQ%3D%3D"
    try:
        with pytest.raises(EngineError) as failed:
            _client().request("GET", f"{base}/signed/object.wav?Expires=1&Signature={signature}&sig_token=abcdef123456")
    finally:
        handler.status = 200
    message = str(failed.value)
    assert "403" in message
    for secret in (signature, "Zm9vYmFy+bG9uZ3NpZ25hdHVyZQ==", "abcdef123456"):
        assert secret not in message


def test_a_base_url_with_a_query_gets_the_path_before_it(server: tuple[str, type[_Recorder]]) -> None:
    base, handler = server
    handler.targets.clear()
    client = _client(f"{base}/openai/deployments/tts?api-version=2025-03-01")
    client.request("GET", "/audio/speech?format=wav", params={"voice": "alloy"})
    assert handler.targets == ["/openai/deployments/tts/audio/speech?api-version=2025-03-01&format=wav&voice=alloy"]


_segment = st.from_regex(r"/[a-z0-9._-]{1,8}", fullmatch=True)
_query = st.lists(st.from_regex(r"[a-z-]{1,6}=[A-Za-z0-9%.~-]{0,6}", fullmatch=True), max_size=3).map("&".join)


@given(
    base=st.lists(_segment, max_size=3).map("".join),
    slash=st.booleans(),
    base_query=_query,
    path=st.lists(_segment, min_size=1, max_size=3).map("".join),
    path_query=_query,
)
def test_join_url_puts_the_path_after_the_base_path_and_keeps_both_queries(
    base: str, slash: bool, base_query: str, path: str, path_query: str
) -> None:
    base_url = "http://h:8" + base + ("/" if slash else "") + (f"?{base_query}" if base_query else "")
    joined = join_url(base_url, path + (f"?{path_query}" if path_query else ""))
    query = "&".join(q for q in (base_query, path_query) if q)
    assert joined == "http://h:8" + base + path + (f"?{query}" if query else "")
    if not base_query and not slash:
        assert joined == base_url + path + (f"?{path_query}" if path_query else "")  # as before, where no query was
