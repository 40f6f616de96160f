"""The ``python`` engine: a factory called once per process (per xdist worker), its object's
audio in every form it may return, its failures as error rows with secrets redacted."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plugin_projects import read_jsonl

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError, EngineProfile
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.python_factory import PythonEngine, as_synthesis
from pytest_ttsbench.engines.registry import create_engine

FACTORY_SOURCE = Path(__file__).parents[1] / "fakes" / "espeak_factory.py"
SECRET_ENV = "TTSBENCH_TEST_LOCAL_MODEL_TOKEN"
SECRET = "hf-token-5b1e9c-never-print-me"


def profile(tmp_path: Path, factory: str = "espeak_factory:load", name: str = "local", **options) -> EngineProfile:
    engine_options = {"factory": factory, "options": {"load_dir": str(tmp_path), **options}}
    return EngineProfile(name=name, type="python", voice="en-us", options=engine_options, base_dir=tmp_path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A configuration folder holding the factory module, as a user would keep one next to ttsbench.yaml."""
    shutil.copy(FACTORY_SOURCE, tmp_path / "espeak_factory.py")
    yield tmp_path
    sys.modules.pop("espeak_factory", None)


def loads(folder: Path) -> dict[str, int]:
    """pid → how many times the factory ran in that process."""
    return {p.stem: len(p.read_text().splitlines()) for p in folder.glob("*.loads")}


def test_the_factory_runs_once_per_process_for_every_profile_and_item(project: Path) -> None:
    first = create_engine(profile(project))
    second = create_engine(profile(project, name="local-again"))  # same factory and options: same object
    assert isinstance(first, PythonEngine) and loads(project) == {}  # nothing loads before the first synthesis
    for index, engine in enumerate([first, second, first]):
        made = engine.synthesize(SynthesisRequest("The plant opened in 2026.", "en", "en-us", f"s/i{index}", seed=7))
        audio = decode_audio(made.audio)
        assert audio.seconds > 0.5 and float(np.abs(audio.samples).max()) > 0.05
        assert made.metadata["factory"] == "espeak_factory:load"
    assert list(loads(project).values()) == [1]
    items = next(project.glob("*.items")).read_text().splitlines()
    assert items == ["s/i0\t7", "s/i1\t7", "s/i2\t7"]  # the request (with its seed) reaches the object
    first.close()
    assert not list(project.glob("*.closed"))  # the other profile still uses the object
    second.close()
    second.close()  # a second close is harmless and closes nothing twice
    assert [p.read_text() for p in project.glob("*.closed")] == ["closed\n"]


def test_a_failure_is_an_engine_error_with_secrets_redacted(project: Path, monkeypatch) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    engine = create_engine(profile(project, fail_on="2019", secret_env=SECRET_ENV))
    with pytest.raises(EngineError) as caught:
        engine.synthesize(SynthesisRequest("The museum opened in 2019.", "en", item_id="s/bad"))
    message = str(caught.value)
    assert "model refused s/bad" in message and "RuntimeError" in message and "'local'" in message
    assert SECRET not in message and "[REDACTED]" in message
    assert engine.synthesize(SynthesisRequest("Next one.", "en", item_id="s/ok")).audio  # the engine goes on
    engine.close()


def test_a_factory_that_fails_fails_every_item_and_is_not_called_again(tmp_path: Path) -> None:
    (tmp_path / "broken_model.py").write_text(
        "CALLS = []\ndef load(**options):\n    CALLS.append(1)\n    raise MemoryError('CUDA out of memory')\n",
        encoding="utf-8",
    )
    engine = create_engine(profile(tmp_path, factory="broken_model:load"))
    for item in ("s/a", "s/b"):
        with pytest.raises(EngineError, match="factory broken_model:load failed: MemoryError: CUDA out of memory"):
            engine.synthesize(SynthesisRequest("Hello.", "en", item_id=item))
    assert sys.modules["broken_model"].CALLS == [1]
    assert engine.cacheable is False
    engine.close()
    sys.modules.pop("broken_model", None)


def test_never_cached_unless_the_object_declares_cache_identity(project: Path) -> None:
    plain = create_engine(profile(project))
    assert plain.cacheable is False
    declared = create_engine(profile(project, factory="espeak_factory:load_cached"))
    assert declared.cacheable is True
    identity = declared.cache_identity()
    assert identity["factory"] == "espeak_factory:load_cached" and identity["model"] == "espeak-ng"
    plain.close()
    declared.close()


def test_concurrency_is_the_profiles(project: Path) -> None:
    assert create_engine(profile(project)).concurrency == 1
    options = {"factory": "espeak_factory:load", "options": {"load_dir": str(project)}, "concurrency": 3}
    engine = create_engine(EngineProfile(name="wide", type="python", options=options, base_dir=project))
    assert engine.concurrency == 3


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({}, ConfigError, "needs factory"),
        ({"factory": "no_colon"}, ConfigError, "package.module:callable"),
        ({"factory": "no_such_module_xyz:load"}, ConfigError, "factory module 'no_such_module_xyz' not found"),
        ({"factory": "json:no_such_callable"}, ConfigError, "has no 'no_such_callable'"),
        ({"factory": "json:decoder", "options": []}, ConfigError, "options must be a mapping"),
        (
            {"factory": "json:loads", "concurrency": 0},
            ConfigError,
            "option concurrency must be a whole number of at least 1",
        ),
        ({"factory": "needs_torch:load"}, EngineUnavailable, "needs 'torch_not_installed_xyz'"),
    ],
)
def test_bad_profiles_name_the_field(tmp_path: Path, options, error, match) -> None:
    (tmp_path / "needs_torch.py").write_text("import torch_not_installed_xyz\n", encoding="utf-8")
    with pytest.raises(error, match=match):
        create_engine(EngineProfile(name="local", type="python", options=options, base_dir=tmp_path))
    sys.modules.pop("needs_torch", None)


def test_every_return_form_becomes_audio() -> None:
    rate = 16000
    tone = 0.5 * np.sin(2 * np.pi * 220 * np.arange(rate) / rate)
    wav = as_synthesis((tone.astype(np.float32), rate)).audio
    for result in (
        (tone, rate),
        ((tone * 32767).astype(np.int16), rate),
        (tone.reshape(-1, 1), rate),
        wav,
        {"audio": tone, "sample_rate": rate, "metadata": {"model": "m1"}},
        {"audio": (tone * 32767).astype("<i2").tobytes(), "sample_rate": rate},
        Synthesis(audio=wav),
    ):
        synthesis = as_synthesis(result)
        decoded = decode_audio(synthesis.audio, synthesis.pcm_sample_rate)
        assert decoded.seconds == pytest.approx(1.0, abs=0.01)
    assert as_synthesis({"audio": tone, "sample_rate": rate, "metadata": {"model": "m1"}}).metadata == {"model": "m1"}


@pytest.mark.parametrize(
    ("result", "match"),
    [
        ("a string", "returned str"),
        ((np.zeros(10), 0), "sample rate 0 Hz is outside"),
        ((np.zeros((2, 10)), 16000), "must be mono"),
        ((np.array([0.0, np.nan]), 16000), "NaN"),
        ((np.zeros(10, dtype=np.int32), 16000), "float or int16"),
        ({"sample_rate": 16000}, "no 'audio'"),
    ],
)
def test_a_bad_return_says_what_it_was(result, match) -> None:
    with pytest.raises(ValueError, match=match):
        as_synthesis(result)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=1, max_size=400), st.sampled_from([8000, 22050]))
def test_float_samples_keep_their_length_and_level(values: list[float], rate: int) -> None:
    decoded = decode_audio(as_synthesis((np.array(values), rate)).audio, target_rate=rate)
    assert len(decoded.samples) == len(values)
    assert np.allclose(decoded.samples, np.array(values), atol=2 / 32767)


CASES = """\
suite: local-numerals
language: en
scorer: numbers
items:
""" + "".join(
    f'  - {{id: y{year}, category: years, text: "It opened in {year}.", expect: {{values: ["{year}"]}}}}\n'
    for year in (2026, 2019, 2021, 2005, 1998, 2012)
)


def write_local_project(pytester: pytest.Pytester, load_dir: Path) -> None:
    shutil.copy(FACTORY_SOURCE, pytester.path / "espeak_factory.py")
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "local.yaml").write_text(CASES, encoding="utf-8")
    route = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('It opened in 2026.')"]}
    engine = {
        "type": "python",
        "factory": "espeak_factory:load",
        "options": {"load_dir": str(load_dir), "fail_on": "2019", "secret_env": SECRET_ENV},
        "seed": 11,
    }
    config = {"asr": {"routes": [route]}, "engines": {"local": engine}}
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "two-workers"])
def test_a_run_loads_the_model_once_per_worker(pytester: pytest.Pytester, monkeypatch, workers) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    load_dir = pytester.path / "loads"
    load_dir.mkdir()
    write_local_project(pytester, load_dir)
    result = pytester.runpytest_subprocess(*workers, "--tts-engine=local", "--tts-results=r.jsonl")
    rows = {row["id"]: row for row in read_jsonl(pytester.path / "r.jsonl")}
    assert len(rows) == 6
    assert rows["local-numerals/y2026"]["verdict"] == "correct"
    failed = rows["local-numerals/y2019"]
    assert failed["verdict"] == "error" and "model refused local-numerals/y2019" in failed["error"]
    assert SECRET not in (pytester.path / "r.jsonl").read_text() and SECRET not in result.stdout.str()
    assert {r["verdict"] for i, r in rows.items() if not i.endswith(("y2026", "y2019"))} == {"wrong"}
    items = {p.stem: p.read_text().splitlines() for p in load_dir.glob("*.items")}
    # Every item reached the object (the determinism probe asks each process's first item twice).
    assert {line.split("\t")[0] for lines in items.values() for line in lines} == set(rows)
    assert all(line.endswith("\t11") for lines in items.values() for line in lines)  # the profile's seed
    # One load in each process that synthesized, and the object closed at its session's end.
    assert loads(load_dir) == dict.fromkeys(items, 1)
    assert sorted(p.stem for p in load_dir.glob("*.closed")) == sorted(items)
    if workers:
        assert len(items) == 2  # xdist shares six items out to both workers


RECIPES = Path(__file__).parents[2] / "docs" / "recipes" / "local_models.py"

# The recipes' classes with eSpeak NG in place of the model: only load_model and generate change.
RECIPE_STAND_INS = """
import io, wave
import numpy as np
from local_models import ArtstSpeech, CloneSpeech
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.espeak import EspeakEngine

class EspeakInsteadOfModel:
    def load_model(self):
        self.model = EspeakEngine(EngineProfile(name="inner", type="espeak"))
        self.sample_rate = 22050

    def generate(self, text, language, voice):
        wav = self.model.synthesize(SynthesisRequest(text, language, voice)).audio
        with wave.open(io.BytesIO(wav)) as clip:
            self.sample_rate = clip.getframerate()
            return np.frombuffer(clip.readframes(clip.getnframes()), dtype="<i2") / 32768.0

class Artst(EspeakInsteadOfModel, ArtstSpeech):
    pass

class Clone(EspeakInsteadOfModel, CloneSpeech):
    pass
"""


@pytest.mark.parametrize(
    ("factory", "options"),
    [
        ("recipe_espeak:Artst", {"checkpoint": "MBZUAI/speecht5_tts_clartts_ar", "revision": "abc123"}),
        ("recipe_espeak:Clone", {"reference_audio": "ref.wav", "reference_text": "Hello there.", "model_dir": "m/v3"}),
    ],
)
def test_the_recipes_factories_run_in_the_engine(tmp_path: Path, monkeypatch, factory, options) -> None:
    shutil.copy(RECIPES, tmp_path / "local_models.py")
    (tmp_path / "recipe_espeak.py").write_text(RECIPE_STAND_INS, encoding="utf-8")
    (tmp_path / "ref.wav").write_bytes(as_synthesis((np.zeros(1600), 16000)).audio)
    monkeypatch.chdir(tmp_path)  # the clone recipe reads its reference clip from where pytest runs
    profile_options = {"factory": factory, "options": options}
    engine = create_engine(
        EngineProfile(name="recipe", type="python", voice="en-us", options=profile_options, base_dir=tmp_path)
    )
    made = engine.synthesize(SynthesisRequest("The plant opened in 2026.", "en", "en-us", "s/i", seed=5))
    assert decode_audio(made.audio).seconds > 0.5
    # ArTST with a pinned revision may be cached; the clone recipe never is.
    assert engine.cacheable is ("revision" in options)
    assert made.metadata["seed"] == 5 and made.metadata["model"] in ("MBZUAI/speecht5_tts_clartts_ar", "v3")
    engine.close()
    for name in ("recipe_espeak", "local_models"):
        sys.modules.pop(name, None)


def test_the_clone_recipe_names_a_missing_reference_clip(tmp_path: Path) -> None:
    shutil.copy(RECIPES, tmp_path / "local_models.py")
    options = {
        "factory": "local_models:CloneSpeech",
        "options": {"reference_audio": "missing.wav", "reference_text": "x"},
    }
    engine = create_engine(EngineProfile(name="clone", type="python", options=options, base_dir=tmp_path))
    with pytest.raises(EngineError, match=r"FileNotFoundError: reference_audio 'missing\.wav' is not a file"):
        engine.synthesize(SynthesisRequest("Hello.", "en", item_id="s/i"))
    engine.close()
    sys.modules.pop("local_models", None)


@pytest.mark.parametrize(
    "identity",
    ["return None", "return {}", "raise RuntimeError('no revision pinned')"],
    ids=["none", "empty", "raises"],
)
def test_an_identity_that_says_nothing_or_fails_means_not_cached(tmp_path: Path, identity: str) -> None:
    (tmp_path / "vague_model.py").write_text(
        "class Model:\n"
        "    def synthesize(self, request):\n        return b'RIFF'\n"
        f"    def cache_identity(self):\n        {identity}\n"
        "def load(**options):\n    return Model()\n",
        encoding="utf-8",
    )
    engine = create_engine(profile(tmp_path, factory="vague_model:load"))
    assert engine.cacheable is False
    engine.close()
    sys.modules.pop("vague_model", None)
