"""`ttsbench packs`, `ttsbench texts` and `ttsbench init`: what ships, the texts a renderer needs, a start."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from processes import run
from shipped_packs import pack_file

from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.cases.packs import shipped_packs
from pytest_ttsbench.cli import main
from pytest_ttsbench.config import load_settings
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.registry import shipped_engine_types
from pytest_ttsbench.engines.replay import AudioDirEngine


def _counts(name: str) -> tuple[int, int]:
    items = [item for path in shipped_packs()[name].files for item in load_case_file(path).items]
    return len(items), sum(len(item.targets) for item in items)


def test_packs_list_json_counts_what_each_pack_holds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["packs", "list", "--json"]) == 0
    listed = {entry["name"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert (
        set(listed)
        == set(shipped_packs())
        == {
            "ar-numerals",
            "ar-prompts",
            "en-numerals",
            "th-keywords",
            "zh-news",
            "zh-numerals",
        }
    )
    for name, entry in listed.items():
        assert (entry["items"], entry["targets"]) == _counts(name)
        assert entry["version"] == shipped_packs()[name].version
        assert entry["licence"] and entry["source"]
    assert listed["en-numerals"]["items"] == 51


def test_packs_show_names_licence_source_and_categories(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["packs", "show", "zh-news"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("zh-news 1.0.0: ")
    assert "licence:   Apache-2.0" in out and "CN-NewsTTS" in out
    assert "36 (39 targets)" in out and "military_model" in out


def test_an_unknown_pack_is_refused_naming_the_shipped_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["packs", "show", "no-such"]) == 2
    err = capsys.readouterr().err
    assert "unknown pack(s) no-such" in err and "en-numerals" in err


def test_an_exported_pack_loads_as_a_projects_own_case_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["packs", "export", "th-keywords", str(tmp_path / "mine")]) == 0
    copy = tmp_path / "mine" / "th-keywords.yaml"
    assert load_case_file(copy).items == tuple(
        type(item)(**{**item.__dict__, "source": copy}) for item in load_case_file(pack_file("th-keywords")).items
    )
    assert copy.read_text(encoding="utf-8").startswith("# Exported from the pytest-ttsbench pack th-keywords 1.0.0")
    before = copy.read_bytes()
    assert main(["packs", "export", "th-keywords", str(tmp_path / "mine")]) == 2  # an edited copy is never lost
    assert "--force" in capsys.readouterr().err and copy.read_bytes() == before


def test_texts_prints_each_item_id_and_the_text_sent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["texts", "en-numerals"]) == 0
    lines = capsys.readouterr().out.splitlines()
    items = load_case_file(pack_file("en-numerals")).items
    assert lines == [f"{item.full_id}\t{item.text}" for item in items] and len(lines) == 51
    # a case file by path, another contract, JSON lines
    assert main(["texts", str(pack_file("th-keywords")), "--contract", "mono", "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    thai = load_case_file(pack_file("th-keywords")).items
    assert [(r["id"], r["text"]) for r in records] == [(i.full_id, i.text_for("mono")) for i in thai]
    assert any(r["text"] != i.text for r, i in zip(records, thai, strict=True))


def test_texts_refuses_a_text_a_tsv_line_cannot_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "tab.yaml"
    case.write_text(
        'suite: tabs\nlanguage: en\nscorer: numbers\nitems:\n  - {id: t-1, category: c, text: "a\\tb 5", '
        'expect: {values: ["5"]}}\n',
        encoding="utf-8",
    )
    assert main(["texts", str(case)]) == 2
    err = capsys.readouterr().err
    assert str(case) in err and "t-1" in err and "field text" in err and "--format jsonl" in err
    assert main(["texts", str(case), "--format", "jsonl"]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == "a\tb 5"


def test_texts_ids_name_the_clips_an_audio_dir_profile_finds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The split flow: render each listed text to DIR/{id}.wav; the audio-dir engine serves each item its clip."""
    assert main(["texts", "zh-news"]) == 0
    renders = tmp_path / "renders"
    clips = {}
    for number, line in enumerate(capsys.readouterr().out.splitlines()):
        item_id, _text = line.split("\t", 1)
        clips[item_id] = pcm16_wav(number.to_bytes(2, "little") * 160, 16_000)
        (renders / item_id).parent.mkdir(parents=True, exist_ok=True)
        (renders / f"{item_id}.wav").write_bytes(clips[item_id])
    from pytest_ttsbench.config import EngineProfile

    engine = AudioDirEngine(EngineProfile(name="rendered", type="audio-dir", options={"path": str(renders)}))
    for item in load_case_file(pack_file("zh-news")).items:
        assert (
            engine.synthesize(SynthesisRequest(text=item.text, language="zh", item_id=item.full_id)).audio
            == (clips[item.full_id])
        )


def test_init_writes_a_configuration_workflow_and_gitignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".gitignore").write_text("dist/", encoding="utf-8")  # no final newline: kept as it is
    assert main(["init", "--dir", str(tmp_path)]) == 0
    settings = load_settings(tmp_path)
    # each type the package ships (another test in this process may have registered one of its own)
    assert set(shipped_engine_types()) <= {profile.type for profile in settings.engines.values()}
    assert settings.packs == tuple(shipped_packs())
    raw = yaml.safe_load((tmp_path / "ttsbench.yaml").read_text(encoding="utf-8"))
    for name, spec in raw["engines"].items():  # keys only by the name of their variable
        assert not [k for k in spec if "key" in k.lower() and k != "api_key_env" and not k.endswith("_env")], name
    assert "# " in (tmp_path / "ttsbench.yaml").read_text(encoding="utf-8")
    workflow = tmp_path / ".github" / "workflows" / "ttsbench.yml"
    run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", workflow], timeout=120
    )
    document = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    assert "secrets." not in workflow.read_text(encoding="utf-8"), "espeak, the default engine, needs no secret"
    assert set(document["jobs"]) == {"gate-espeak", "nightly"}
    steps = json.dumps(document["jobs"])
    assert "--tts-engine=espeak" in steps and "ttsbench dashboard history/runs" in steps
    assert "schedule" in workflow.read_text(encoding="utf-8")
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8").startswith("dist/\n")
    ignored = (tmp_path / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ".ttsbench/" in ignored and "ttsbench-dashboard/" in ignored  # runs, and the dashboard's default folder


@pytest.mark.parametrize("engines", [["openai", "polly"], ["doubao"], ["espeak", "azure", "gemini"]])
def test_each_job_and_step_gets_only_its_own_engines_secrets(tmp_path: Path, engines: list[str]) -> None:
    assert main(["init", "--dir", str(tmp_path), *(f"--engine={e}" for e in engines)]) == 0
    raw = yaml.safe_load((tmp_path / "ttsbench.yaml").read_text(encoding="utf-8"))["engines"]
    document = yaml.safe_load((tmp_path / ".github" / "workflows" / "ttsbench.yml").read_text(encoding="utf-8"))
    assert "secrets" not in json.dumps(document.get("env", {})), "no secret for the whole workflow"

    def own(engine: str) -> dict[str, str]:
        names = [v for k, v in raw[engine].items() if k == "api_key_env" or k.endswith("_env")]
        return {name: f"${{{{ secrets.{name} }}}}" for name in names}

    for engine in engines:
        job = document["jobs"][f"gate-{engine}"]
        assert "env" not in job
        handed = [step.get("env", {}) for step in job["steps"]]
        assert [env for env in handed if env] == ([own(engine)] if own(engine) else [])
    nightly = {step.get("name"): step.get("env", {}) for step in document["jobs"]["nightly"]["steps"]}
    assert {name: env for name, env in nightly.items() if env} == {
        f"nightly run ({engine})": own(engine) for engine in engines if own(engine)
    }
    assert own("polly") == {
        "AWS_ACCESS_KEY_ID": "${{ secrets.AWS_ACCESS_KEY_ID }}",
        "AWS_SECRET_ACCESS_KEY": "${{ secrets.AWS_SECRET_ACCESS_KEY }}",
    }


def test_init_names_the_closest_profile_for_a_mistyped_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--dir", str(tmp_path), "--engine", "opneai"]) == 2
    assert "did you mean 'openai'?" in capsys.readouterr().err
    assert not (tmp_path / "ttsbench.yaml").exists()


def test_init_refuses_to_overwrite_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ttsbench.yaml").write_text("engines: {}\n", encoding="utf-8")  # the team's own
    assert main(["init", "--dir", str(tmp_path)]) == 1
    assert "--force" in capsys.readouterr().err
    assert (tmp_path / "ttsbench.yaml").read_text(encoding="utf-8") == "engines: {}\n"
    assert not (tmp_path / ".github").exists() and not (tmp_path / ".gitignore").exists()  # nothing written
    assert main(["init", "--dir", str(tmp_path), "--force"]) == 0
    assert load_settings(tmp_path).packs == tuple(shipped_packs())
    ignore = (tmp_path / ".gitignore").read_text(encoding="utf-8")
    assert main(["init", "--dir", str(tmp_path), "--force"]) == 0
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == ignore  # entries added once
