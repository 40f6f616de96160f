"""The fuzz harness over the run's boundaries (issue 36): real runs, generated inputs, invariants.

Each test draws what crosses one boundary and runs the plugin for real in a process of its own:

- what an engine sends: a ``python`` engine returning generated WAV headers and samples, PCM at any
  rate, values of the wrong type, exceptions carrying hostile text (tests/fakes/hostile_engine.py);
- what a provider answers: status codes, headers and bodies from an OpenAI-style server on 127.0.0.1;
- what the disk refuses: the results or cache folder full after a generated number of bytes;
- signals: SIGTERM or SIGINT at a generated moment of a run;
- artifacts edited by hand: a run folder's files mutated, then read by ``ttsbench`` subcommands.

After each run, :func:`boundary_invariants.assert_run_invariants`: no traceback; every selected
target has a row or the run is marked incomplete; every JSON output parses strictly; exit 0 only
when every target was measured and the gate passed; no control character or line-initial ``::``
from outside data on the terminal; no secret anywhere. ASR is an echo route (a fixed transcript),
so no model is loaded per example.

CI draws a handful of examples per boundary (a few minutes on two cores);
``pytest tests/boundaries --hypothesis-profile=fuzz`` searches far longer.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import processes
import pytest
from boundary_invariants import assert_run_invariants, assert_terminal_clean, json_lines, strict_json
from disk_faults import FULL_DISK_CONFTEST
from hostile_engine import planned_wav
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from plugin_projects import NUMERALS, PASSING_TRANSCRIPTS, write_project  # noqa: F401
from tts_providers import FakeOpenAI, Fault

from pytest_ttsbench.cli import main

FAKES = Path(__file__).resolve().parents[1] / "fakes"
ECHO = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('It opened in 2026.')"]}
ITEMS = ("a", "b", "c")
SELECTED = {f"f/{item}" for item in ITEMS}
CASES = "suite: f\nlanguage: en\nscorer: numbers\nitems:\n" + "".join(
    f'  - {{id: {item}, category: c, text: "It opened in 2026.", expect: {{values: ["2026"]}}}}\n' for item in ITEMS
)
KEY_ENV = "TTSBENCH_FUZZ_KEY"
KEY = "sk-fuzz-5e4d3c2b1a-never-shown"


def examples(ci: int) -> int:
    """``ci`` examples, or the fuzz profile's many when it is loaded (--hypothesis-profile=fuzz)."""
    many = settings.get_profile("fuzz").max_examples
    return many if settings.default.max_examples >= many else ci


def boundary_settings(ci: int) -> settings:
    return settings(
        max_examples=examples(ci),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


@contextmanager
def project(config: dict, conftest: str = "") -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ttsbench-fuzz-") as folder:
        root = Path(folder)
        (root / "cases").mkdir()
        (root / "cases" / "f.yaml").write_text(CASES, encoding="utf-8")
        (root / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
        (root / "conftest.py").write_text(conftest, encoding="utf-8")
        yield root


def run(root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 240) -> tuple[int, str]:
    done = processes.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=root,
        timeout=timeout,
        env={**os.environ, "PYTEST_ADDOPTS": "", **(env or {})},
        expect=None,
    )
    return done.returncode, done.stdout + done.stderr


def measured(root: Path) -> set[str]:
    results = root / "out" / "r.jsonl"
    return {strict_json(line)["id"] for line in json_lines(results)}


HOSTILE_TEXT = st.sampled_from(
    [
        "quota exceeded\x1b[2J\x1b]0;PWNED\x07\n::error file=app.py,line=1::INJECTED\r\n::add-mask::R3MASK",
        "::stop-commands::x\n##[error]old style",
        "\u202eevil\u2066 \x85\x9b31m",
        f"token {KEY} leaked",
    ]
) | st.text(max_size=30)
RATES = st.sampled_from([-16_000, 0, 1, 3_999, 16_000, 384_001, 10**12]) | st.integers(-(2**40), 2**40)
ENGINE_REPLIES = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.just("wav"),
            "format": st.sampled_from([1, 3, 0, 6, 0xFFFE]),
            "channels": st.integers(0, 12),
            "rate": st.sampled_from([0, 8_000, 16_000, 48_000, 2**32 - 1]),
            "bits": st.sampled_from([0, 8, 16, 24, 32, 64]),
            "fill": st.sampled_from(["tone", "nan", "inf", "zeros"]),
            "seconds": st.sampled_from([0.0, 0.05, 1.0]),
        }
    ),
    st.fixed_dictionaries({"kind": st.just("pcm"), "rate": RATES}),
    st.fixed_dictionaries({"kind": st.just("samples"), "rate": RATES | st.none() | st.text(max_size=3)}),
    st.fixed_dictionaries(
        {"kind": st.just("value"), "value": st.none() | st.integers() | st.text(max_size=5) | st.just({"audio": 3})}
    ),
    st.fixed_dictionaries({"kind": st.just("raise"), "message": HOSTILE_TEXT}),
)


@boundary_settings(ci=4)
@given(st.lists(ENGINE_REPLIES, min_size=3, max_size=3))
def test_whatever_an_engine_returns_the_run_keeps_its_invariants(replies: list[dict]) -> None:
    # the model's token is named by an option ending in _env: the engine scrubs it from every message
    engine = {
        "type": "python",
        "factory": "hostile_engine:load",
        "options": {"plan": "plan.json", "token_env": KEY_ENV},
    }
    with project({"asr": {"routes": [ECHO]}, "engines": {"hostile": engine}}) as root:
        (root / "hostile_engine.py").write_text((FAKES / "hostile_engine.py").read_text(encoding="utf-8"), "utf-8")
        plan = {f"f/{item}": reply for item, reply in zip(ITEMS, replies, strict=True)}
        (root / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
        rc, output = run(
            root, "--tts-engine=hostile", "--tts-results=out/r.jsonl", "--tts-cache=off", env={KEY_ENV: KEY}
        )
        assert_run_invariants(rc, output, root / "out", SELECTED, [KEY])
        assert measured(root) == SELECTED, output[-3000:]  # a bad reply is its item's row, never a lost one


@pytest.fixture(scope="module")
def provider() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI(key=KEY).start()
    yield fake
    fake.stop()


def _wav_body(draw: st.DrawFn) -> bytes:
    return planned_wav(
        {
            "format": draw(st.sampled_from([1, 3])),
            "channels": draw(st.sampled_from([1, 2, 0, 9])),
            "rate": draw(st.sampled_from([16_000, 24_000, 0, 1])),
            "bits": draw(st.sampled_from([16, 32, 0])),
            "fill": draw(st.sampled_from(["tone", "nan", "zeros"])),
            "seconds": 1.0,
        }
    )


@st.composite
def replies(draw: st.DrawFn) -> Fault:
    status = draw(st.sampled_from([200, 200, 201, 204, 400, 401, 403, 404, 413, 422, 500, 503]))
    kind = draw(st.sampled_from(["wav", "json", "bytes", "empty"]))
    if kind == "wav":
        body = _wav_body(draw)
    elif kind == "json":
        message = draw(HOSTILE_TEXT)
        body = json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()
    elif kind == "bytes":
        body = draw(st.binary(max_size=300))
    else:
        body = b""
    content_type = draw(st.sampled_from(["audio/wav", "audio/mpeg", "application/json", "text/html", "x/\u00e9"]))
    return Fault("raw", status=status, body=body, headers={"Content-Type": content_type.encode().decode("latin-1")})


@boundary_settings(ci=4)
@given(st.lists(replies(), min_size=4, max_size=4))
def test_whatever_a_provider_answers_the_run_keeps_its_invariants(provider: FakeOpenAI, answers: list[Fault]) -> None:
    engine = {
        "type": "openai",
        "base_url": f"{provider.url}/v1",
        "model": "tts-1",
        "voice": "alloy",
        "api_key_env": KEY_ENV,
        "response_format": "wav",
        "max_retries": 0,
    }
    with provider._lock:
        provider.faults.clear()
    provider.enqueue(*answers)
    with project({"asr": {"routes": [ECHO]}, "engines": {"vendor": engine}}) as root:
        rc, output = run(
            root, "--tts-engine=vendor", "--tts-results=out/r.jsonl", "--tts-cache=off", env={KEY_ENV: KEY}
        )
        assert_run_invariants(rc, output, root / "out", SELECTED, [KEY])
        assert measured(root) == SELECTED, output[-3000:]


REPLAY_CONFIG = {"engines": {"replay": {"type": "transcripts", "path": "replay.jsonl"}}}


def _with_replay(root: Path) -> None:
    rows = [{"id": key, "text": "It opened in 2026."} for key in sorted(SELECTED)]
    (root / "replay.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


@boundary_settings(ci=3)
@given(st.sampled_from(["out", "cache"]), st.sampled_from([0, 300, 1_500, 2_500, 4_000, 8_000, 10**7]))
def test_whatever_the_disk_refuses_the_run_keeps_its_invariants(folder: str, budget: int) -> None:
    with project(REPLAY_CONFIG, FULL_DISK_CONFTEST) as root:
        _with_replay(root)
        env = {"TTSBENCH_TEST_FULL_DIR": str(root / folder), "TTSBENCH_TEST_FULL_AFTER": str(budget)}
        rc, output = run(root, "--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-cache-dir=cache", env=env)
        assert_run_invariants(rc, output, root / "out", SELECTED)
        told = [line for line in output.splitlines() if line.startswith("ttsbench: internal error:")]
        assert len(told) == (1 if rc == 3 else 0), output[-3000:]
        if folder == "cache":  # the cache is an optimisation: refusing it changes nothing but the summary
            assert rc == 0, output[-3000:]


SLOW_REPLAY = """\
import time

def pytest_runtest_teardown(item):
    time.sleep(0.2)  # a run long enough to be caught midway
"""


@boundary_settings(ci=3)
@given(st.sampled_from([signal.SIGTERM, signal.SIGINT]), st.floats(0.0, 0.8))
def test_a_signal_at_any_moment_leaves_a_run_that_keeps_its_invariants(signum: int, delay: float) -> None:
    with project(REPLAY_CONFIG, SLOW_REPLAY) as root:
        _with_replay(root)
        started = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--tts-engine=replay",
                "--tts-results=out/r.jsonl",
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTEST_ADDOPTS": ""},
        )
        deadline = time.monotonic() + 120
        while not (root / "out" / "r.run.json").exists() and started.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the run has started: from here the plugin answers a signal
        time.sleep(delay)
        if started.poll() is None:
            started.send_signal(signum)
        output, _ = started.communicate(timeout=120)
        assert_run_invariants(started.returncode, output, root / "out", SELECTED)


LATE_SIGNAL = """\
import os
import signal

import pytest


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    os.kill(os.getpid(), signal.{name})  # the run's files are written: the summary is being printed
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_after_the_gate_leaves_the_finished_run_and_no_traceback(name: str) -> None:
    # The window the property above hits only by chance: a signal while the summary prints, after the
    # gate file is written. The run is complete; the signal changes nothing, and breaks nothing.
    with project(REPLAY_CONFIG, LATE_SIGNAL.format(name=name)) as root:
        _with_replay(root)
        rc, output = run(root, "--tts-engine=replay", "--tts-results=out/r.jsonl")
        assert_run_invariants(rc, output, root / "out", SELECTED)
        assert measured(root) == SELECTED and (root / "out" / "r.gate.json").is_file()
        assert "KeyboardInterrupt" not in output and rc in (0, 1), output[-3000:]


# --- artifacts edited by hand -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stored")
    cases = folder / "numerals.yaml"
    cases.write_text(NUMERALS, encoding="utf-8")
    transcripts = folder / "heard.jsonl"
    rows = [{"id": key, "text": text} for key, text in PASSING_TRANSCRIPTS.items() if key.startswith("demo-numerals")]
    transcripts.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert (
        main(["rescore", str(cases), "--transcripts", str(transcripts), "--out", str(folder / "run" / "results.jsonl")])
        == 0
    )
    return folder / "run"


EDITS = st.sampled_from(
    [
        ("replace", '"correct"', '"perfect"'),
        ("replace", '"wrong"', "NaN"),
        ("replace", "0.", "Infinity"),
        ("replace", '"engine": "transcripts"', '"engine": "=HYPERLINK(\\"http://x\\")\\u001b]0;T\\u0007\\n::error::x"'),
        ("replace", '"id": "', '"id": "\\u202e::warning::'),
        ("replace", "{", '{"engine": "again", '),
        ("truncate", "", ""),
        ("drop_line", "", ""),
        ("garbage", "", ""),
    ]
)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["results.jsonl", "results.run.json", "manifest.sha256.json"]),
    EDITS,
    st.randoms(use_true_random=False),
)
@example(name="manifest.sha256.json", edit=("replace", "{", '{"engine": "again", '), rnd=random.Random(0))  # found so
def test_a_hand_edited_run_is_read_with_clear_messages_only(
    stored_run: Path, capsys: pytest.CaptureFixture[str], name: str, edit: tuple[str, str, str], rnd: random.Random
) -> None:
    with tempfile.TemporaryDirectory(prefix="ttsbench-edited-") as folder:
        run_dir = Path(folder) / "run"
        run_dir.mkdir()
        for path in stored_run.iterdir():
            (run_dir / path.name).write_bytes(path.read_bytes())
        target = run_dir / name
        if target.exists():
            text = target.read_text(encoding="utf-8")
            how, old, new = edit
            if how == "replace":
                text = text.replace(old, new, 1 + rnd.randrange(3))
            elif how == "truncate":
                text = text[: rnd.randrange(len(text) + 1)]
            elif how == "drop_line":
                lines = text.splitlines(keepends=True)
                lines.pop(rnd.randrange(len(lines)))
                text = "".join(lines)
            else:
                at = rnd.randrange(len(text) + 1)
                text = text[:at] + "\x00\x1b[2J\ufeff}{" + text[at:]
            target.write_text(text, encoding="utf-8")
        capsys.readouterr()
        for argv in (
            ["gate", str(run_dir)],
            ["leaderboard", str(run_dir), "--format", "json"],
            ["leaderboard", str(run_dir), "--format", "csv"],
            ["verify", str(run_dir)],
        ):
            code = main(argv)
            captured = capsys.readouterr()
            assert code in (0, 1, 2, 4), (argv, code)
            assert_terminal_clean(captured.out + captured.err)
            if argv[-1] == "json" and code == 0:
                strict_json(captured.out)
