"""Every credential an adapter sends is scrubbed, and a URL never carries one.

A server on 127.0.0.1 answers every request with an error that quotes the request's headers
back (and decodes Basic credentials, as some gateways do). Whatever header the credential went
in, under whatever name, none of it may appear in the error, the results, the gate file, the
HTML report, the terminal or the logs. Credentials in a ``base_url`` are refused when the
configuration is read, with a message that does not repeat them.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The HTML report draws its charts with matplotlib, first imported inside a pytester run and
# dropped when it ends; a second in-process run with --html could not import it again (see
# tests/conftest.py). Imported here, it stays loaded.
import matplotlib.figure  # noqa: F401
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plugin_projects import read_jsonl
from tts_providers import FakeOpenAI, Recorded, Reply

from pytest_ttsbench.config import ConfigError, load_settings
from pytest_ttsbench.engines.base import EngineError
from pytest_ttsbench.support.httpclient import ClientOptions, HttpClient, ProviderPolicy
from pytest_ttsbench.support.redaction import Redactor, redact_known

# The header names providers take credentials in (and some they might).
CREDENTIAL_HEADERS = (
    "Authorization",
    "X-Api-Key",
    "api-key",
    "x-goog-api-key",
    "Ocp-Apim-Subscription-Key",
    "xi-api-key",
    "X-Api-Access-Key",
    "X-Auth-Token",
)
PASSWORD = "hunter2-Pq8vZ-w4Lk9s"


def fragments(secret: str, width: int = 8) -> list[str]:
    return [secret[i : i + width] for i in range(len(secret) - width + 1)]


def leaked(text: str, *secrets: str) -> list[str]:
    """Every 8-character piece of any of ``secrets`` found in ``text``: a cut credential leaks too."""
    return [piece for secret in secrets for piece in fragments(secret) if piece in text]


class EchoingServer(FakeOpenAI):
    """Refuses every request with a 401 that quotes all its headers, Basic credentials decoded."""

    def handle(self, req: Recorded) -> Reply:
        quoted = dict(req.headers)
        scheme, _, value = req.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "basic":
            quoted["decoded"] = base64.b64decode(value).decode("utf-8", errors="replace")
        return self.error(401, f"credentials not accepted; you sent {json.dumps(quoted)}", "invalid_api_key")


@pytest.fixture(scope="module")
def echoing() -> Iterator[EchoingServer]:
    server = EchoingServer(key=None).start()
    yield server
    server.stop()


def _client(url: str, headers: dict[str, str]) -> HttpClient:
    options = ClientOptions(base_url=url, timeout_s=5, max_retries=0)
    return HttpClient(
        options, ProviderPolicy("test"), Redactor(), label="test", error_type=EngineError, headers=headers
    )


def _error_of(client: HttpClient, **request: Any) -> str:
    with pytest.raises(EngineError) as info:
        client.request("POST", "/v1/audio/speech", content=b"{}", **request)
    client.close()
    return str(info.value)


@pytest.mark.parametrize("header", CREDENTIAL_HEADERS)
@pytest.mark.parametrize("scheme", ["", "Bearer ", "Basic "])
def test_a_credential_header_echoed_by_the_server_is_scrubbed(echoing: EchoingServer, header: str, scheme: str) -> None:
    """The key here comes from no environment variable: the client learns it from what it sends."""
    # Unique per case: the redactor is process-wide, so one case must not ride on another's key.
    secret = f"Zt9kQ2mW7xVb{CREDENTIAL_HEADERS.index(header)}{scheme.strip() or 'raw'}"
    value = base64.b64encode(f"apikey:{secret}".encode()).decode() if scheme == "Basic " else secret
    message = _error_of(_client(echoing.url, {header: scheme + value}))
    assert "credentials not accepted" in message  # the server's message is still there
    assert not leaked(message, secret, value)
    assert not leaked(redact_known(f"a row quoting {scheme}{value}"), secret, value)  # results, reports, logs


def test_a_credential_sent_with_one_request_is_scrubbed(echoing: EchoingServer) -> None:
    secret = "per-request-Hk3pX9sLq2"
    message = _error_of(_client(echoing.url, {}), headers={"X-Api-Key": secret})
    assert "credentials not accepted" in message and not leaked(message, secret)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    header=st.sampled_from(CREDENTIAL_HEADERS) | st.from_regex(r"\AX-[A-Z][a-z]{1,8}-(Key|Token|Secret)\Z"),
    scheme=st.sampled_from(["", "Bearer ", "Token ", "Basic "]),
    secret=st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~", min_size=12, max_size=48
    ),
    user=st.sampled_from(["apikey", "u", "service-account"]),
)
def test_no_credential_header_leaks_into_the_error(
    echoing: EchoingServer, header: str, scheme: str, secret: str, user: str
) -> None:
    value = base64.b64encode(f"{user}:{secret}".encode()).decode() if scheme == "Basic " else secret
    message = _error_of(_client(echoing.url, {header: scheme + value}))
    assert secret not in message and value not in message


# --- base_url userinfo ------------------------------------------------------------------------


def _userinfo_url(url: str) -> str:
    return url.replace("http://", f"http://apiuser:{PASSWORD}@", 1)


@pytest.mark.parametrize(
    "config",
    [
        {"engines": {"cloud": {"type": "openai", "base_url": "https://apiuser:{pw}@tts.example/v1"}}},
        {"asr": {"routes": [{"type": "openai", "base_url": "https://apiuser:{pw}@asr.example/v1"}]}},
        {"engines": {"cloud": {"type": "azure", "base_url": "http://:{pw}@127.0.0.1:9/"}}},
    ],
    ids=["engine", "asr-route", "password-only"],
)
def test_userinfo_anywhere_in_the_configuration_is_refused(tmp_path: Path, config: dict[str, Any]) -> None:
    text = json.dumps(config).replace("{pw}", PASSWORD)
    (tmp_path / "ttsbench.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"base_url: .*carries credentials.*api_key_env") as info:
        load_settings(tmp_path)
    basic = base64.b64encode(f"apiuser:{PASSWORD}".encode()).decode()
    assert not leaked(str(info.value), PASSWORD, basic)
    assert "ttsbench.yaml" in str(info.value)


@pytest.mark.parametrize(
    "config",
    [
        {"engines": {"cloud": {"type": "gemini", "base_url": "https://g.example/v1beta?key={pw}"}}},
        {"asr": {"routes": [{"type": "openai", "base_url": "https://asr.example/v1?api-version=2&access_token={pw}"}]}},
        {"engines": {"cloud": {"type": "openai", "base_url": "https://t.example/v1?X-Api-Key={pw}#top"}}},
    ],
    ids=["key", "token-after-another", "header-like-name"],
)
def test_a_credential_in_a_url_query_anywhere_in_the_configuration_is_refused(
    tmp_path: Path, config: dict[str, Any]
) -> None:
    text = json.dumps(config).replace("{pw}", PASSWORD)
    (tmp_path / "ttsbench.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"base_url: .*carries a credential in its query.*api_key_env") as info:
        load_settings(tmp_path)
    assert not leaked(str(info.value), PASSWORD)
    assert "=***" in str(info.value) and "ttsbench.yaml" in str(info.value)


def test_a_query_without_credentials_is_kept(tmp_path: Path) -> None:
    config = {"engines": {"cloud": {"type": "openai", "base_url": "https://t.example/v1?api-version=2025-03-01"}}}
    (tmp_path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
    assert load_settings(tmp_path).engines["cloud"].option("base_url") == "https://t.example/v1?api-version=2025-03-01"


def test_a_client_refuses_a_base_url_with_userinfo() -> None:
    """The seam holds on its own too, for adapters that build their options in code."""
    with pytest.raises(ValueError, match="api_key_env") as info:
        ClientOptions(base_url=f"https://apiuser:{PASSWORD}@tts.example/v1")
    assert PASSWORD not in str(info.value)


CASE = """\
suite: cred
language: en
scorer: numbers
items:
  - {id: year-2026, category: years, text: "The plant opened in 2026.", expect: {values: ["2026"]}}
"""
KEY_ENV = "TTSBENCH_CREDENTIAL_TEST_KEY"
KEY = "sk-cred-Wq4nT8zR1yLp6"


def _project(pytester: pytest.Pytester, base_url: str, **engine: Any) -> Path:
    (pytester.path / "cases").mkdir(exist_ok=True)
    (pytester.path / "cases" / "cred.yaml").write_text(CASE, encoding="utf-8")
    route = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('beep')"]}
    cloud = {"type": "openai", "base_url": f"{base_url}/v1", "voice": "alloy", "max_retries": 0, **engine}
    config = {"asr": {"routes": [route]}, "engines": {"cloud": cloud}}
    (pytester.path / "ttsbench.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return pytester.path


def _everything_written(project: Path, result: pytest.RunResult) -> str:
    """The terminal, and every file the run left: results, gate file, report, logs."""
    written = [result.stdout.str(), result.stderr.str()]
    for path in sorted(project.rglob("*")):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".html", ".log", ".txt", ".xml"):
            written.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(written)


RUN_ARGS = (
    "-p",
    "no:xdist",
    "--tts-engine=cloud",
    "--tts-results=out/results.jsonl",
    "--log-level=DEBUG",
    "--log-file=debug.log",
    "--log-file-level=DEBUG",
    "--html=report.html",
    "--self-contained-html",
)


def test_credentials_in_a_base_url_never_reach_the_server_or_any_output(
    pytester: pytest.Pytester, echoing: EchoingServer
) -> None:
    """Issue 22, failure 14: userinfo went out as Basic auth and came back into results and report."""
    before = len(echoing.requests)
    project = _project(pytester, _userinfo_url(echoing.url))
    result = pytester.runpytest(*RUN_ARGS)
    assert result.ret != pytest.ExitCode.OK
    assert "api_key_env" in result.stdout.str() + result.stderr.str()
    assert len(echoing.requests) == before  # refused before anything was sent
    basic = base64.b64encode(f"apiuser:{PASSWORD}".encode()).decode()
    assert not leaked(_everything_written(project, result), PASSWORD, basic)


def test_a_key_the_server_echoes_back_reaches_no_output(
    pytester: pytest.Pytester, echoing: EchoingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    project = _project(pytester, echoing.url, api_key_env=KEY_ENV)
    result = pytester.runpytest(*RUN_ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (row,) = read_jsonl(project / "out" / "results.jsonl")
    assert row["verdict"] == "error" and "credentials not accepted" in row["error"]
    assert (project / "out" / "results.gate.json").is_file() and (project / "report.html").is_file()
    assert not leaked(_everything_written(project, result), KEY)
