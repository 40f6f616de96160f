"""`ttsbench listening report`: figures checked against hand-computed ones, warnings and errors."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from pytest_ttsbench.cli import main

LISTENERS = [f"L{n:02d}" for n in range(1, 6)]
SYSTEMS = ("sys-a", "sys-b")
PROMPTS = {"ar-prompts/gulf": ("gulf", None), "ar-prompts/msa": ("msa", "checked by A. Haddad, 2026-11-02")}

# sys-a × ar-prompts/gulf × pronunciation, generations 1..3 per listener: per-listener means 4, 4, 3, 5, 2.
HAND = {"L01": (5, 4, 3), "L02": (4, 4, 4), "L03": (2, 3, 4), "L04": (5, 5, 5), "L05": (1, 2, 3)}
# sys-a × ar-prompts/gulf consistency per listener.
CONSISTENCY = {"L01": 5, "L02": 4, "L03": 4, "L04": 2, "L05": 5}
OTHER = 3  # every other rating


def _clip_id(system: str, prompt: str, generation: int) -> str:
    return f"{system[-1]}{prompt[-4:]}{generation}".replace("/", "x")


def _group_id(system: str, prompt: str) -> str:
    return f"g{system[-1]}{prompt[-4:]}".replace("/", "x")


@pytest.fixture
def kit(tmp_path: Path) -> Path:
    """A kit folder holding only its key, as `listening export` writes it."""
    clips = {
        _clip_id(s, p, g): {"system": s, "prompt": p, "generation": g}
        for s in SYSTEMS
        for p in PROMPTS
        for g in (1, 2, 3)
    }
    groups = {_group_id(s, p): {"system": s, "prompt": p, "clips": [_clip_id(s, p, g) for g in (1, 2, 3)]}
              for s in SYSTEMS for p in PROMPTS}  # fmt: skip
    prompts = {
        p: {"text": "…", "variety": v, "review": "native-speaker" if v != "msa" else None, "reviewed": r}
        for p, (v, r) in PROMPTS.items()
    }
    key = {
        "clips": clips,
        "groups": groups,
        "prompts": prompts,
        "listeners": {n: {"clips": sorted(clips), "groups": sorted(groups)} for n in LISTENERS},
        "missing": [],
    }
    (tmp_path / "kit" / "private").mkdir(parents=True)
    (tmp_path / "kit" / "private" / "key.json").write_text(json.dumps(key), encoding="utf-8")
    return tmp_path / "kit"


def _rating(listener: str, system: str, prompt: str, generation: int, dimension: str) -> int:
    if (system, prompt, dimension) == ("sys-a", "ar-prompts/gulf", "pronunciation"):
        return HAND[listener][generation - 1]
    return OTHER


def write_sheets(folder: Path, listeners: list[str] = LISTENERS) -> list[Path]:
    """Per listener a clip sheet and a consistency sheet, as the listening pages download them."""
    folder.mkdir(exist_ok=True)
    paths = []
    for listener in listeners:
        path = folder / f"{listener}-ratings.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["listener", "clip", "pronunciation", "dialect_fit", "naturalness", "notes"])
            for s in SYSTEMS:
                for p in PROMPTS:
                    for g in (1, 2, 3):
                        dims = [_rating(listener, s, p, g, d) for d in ("pronunciation", "dialect_fit", "naturalness")]
                        writer.writerow([listener, _clip_id(s, p, g), *dims, 'said "shukran", fine'])
        paths.append(path)
        path = folder / f"{listener}-consistency.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["listener", "group", "consistency", "notes"])
            for s in SYSTEMS:
                for p in PROMPTS:
                    value = CONSISTENCY[listener] if (s, p) == ("sys-a", "ar-prompts/gulf") else OTHER
                    writer.writerow([listener, _group_id(s, p), value, ""])
        paths.append(path)
    return paths


def _report(kit: Path, sheets: list[Path], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["listening", "report", str(kit), *map(str, sheets), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _find(rows: list[dict], **match: object) -> dict:
    found = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (match, rows)
    return found[0]


def test_figures_match_hand_computed_ones(kit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(kit, write_sheets(tmp_path / "sheets"), capsys)
    assert set(report) == {"dimensions", "consistency", "warnings"}
    row = _find(report["dimensions"], system="sys-a", prompt="ar-prompts/gulf", dimension="pronunciation")
    # per-listener means 4, 4, 3, 5, 2: mean 3.6, sd sqrt(5.2 / 4), median 4
    assert row == {
        "system": "sys-a",
        "prompt": "ar-prompts/gulf",
        "dimension": "pronunciation",
        "mean": 3.6,
        "sd": round(math.sqrt(1.3), 4),
        "median": 4,
        "n_listeners": 5,
    }
    # sys-a over both prompts: per-listener means of six clips 21/6, 21/6, 18/6, 24/6, 15/6
    overall = _find(report["dimensions"], system="sys-a", prompt=None, dimension="pronunciation")
    assert (overall["mean"], overall["median"], overall["n_listeners"]) == (3.3, 3.5, 5)
    assert overall["sd"] == round(math.sqrt(1.3 / 4), 4)
    flat = _find(report["dimensions"], system="sys-b", prompt="ar-prompts/msa", dimension="naturalness")
    assert (flat["mean"], flat["sd"], flat["median"]) == (3, 0, 3)
    consistency = _find(report["consistency"], system="sys-a", prompt="ar-prompts/gulf")
    # 5, 4, 4, 2, 5: mean 4, sd sqrt(6 / 4), median 4
    assert (consistency["mean"], consistency["sd"], consistency["median"]) == (4, round(math.sqrt(1.5), 4), 4)
    assert "dimension" not in consistency
    # 2 systems × 2 prompts × 3 dimensions, plus 2 systems × 3 dimensions; nothing combined
    assert len(report["dimensions"]) == 12 + 6
    assert {r["dimension"] for r in report["dimensions"]} == {"pronunciation", "dialect_fit", "naturalness"}
    for row in report["dimensions"] + report["consistency"]:
        assert not {"rank", "score", "overall"} & set(row)


def test_raw_sheets_are_copied_beside_the_summary(
    kit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = write_sheets(tmp_path / "sheets")
    _report(kit, sheets, capsys)
    for sheet in sheets:
        assert (kit / "report" / "raw" / sheet.name).read_bytes() == sheet.read_bytes()
    assert json.loads((kit / "report" / "summary.json").read_text())["dimensions"]
    unblinded = list(csv.DictReader((kit / "report" / "ratings-unblinded.csv").open(encoding="utf-8")))
    assert len(unblinded) == 5 * (12 * 3 + 4)
    assert {r["system"] for r in unblinded} == set(SYSTEMS)


def test_warnings(kit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheets = write_sheets(tmp_path / "sheets", LISTENERS[:4])
    first = sheets[0]
    lines = first.read_text(encoding="utf-8").splitlines()
    first.write_text("\n".join([lines[0], lines[1].replace(",3,", ",,", 1), *lines[3:]]) + "\n", encoding="utf-8")
    report = _report(kit, sheets, capsys)
    text = "\n".join(report["warnings"])
    assert "only 4 listener(s) rated clips; the protocol asks for at least 5" in text
    assert "prompt ar-prompts/gulf (gulf) needs native-speaker review" in text
    assert "ar-prompts/msa" not in text  # reviewed
    assert f"{first}: incomplete sheet: 1 rating(s) left blank" in text
    assert f"{first}: incomplete sheet: listener L01 has no row for 1 of 12 clips" in text
    assert "listener L05: no listening sheet given" in text
    full = _report(kit, write_sheets(tmp_path / "full"), capsys)
    assert not any("listener" in w for w in full["warnings"])
    assert [w for w in full["warnings"] if "review" in w] == [w for w in report["warnings"] if "review" in w]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("6", "row 3 (listener 'L01', clip {clip}): field 'dialect_fit': 6 is outside the scale 1–5"),
        ("0", "row 3 (listener 'L01', clip {clip}): field 'dialect_fit': 0 is outside the scale 1–5"),
        ("good", "row 3 (listener 'L01', clip {clip}): field 'dialect_fit': 'good' is not a whole number"),
    ],
)
def test_out_of_range_values_are_errors_naming_file_and_row(
    kit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str, message: str
) -> None:
    sheets = write_sheets(tmp_path / "sheets")
    rows = list(csv.reader(sheets[0].open(encoding="utf-8")))
    rows[2][3] = bad
    with sheets[0].open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    assert main(["listening", "report", str(kit), *map(str, sheets)]) == 2
    err = capsys.readouterr().err
    assert f"{sheets[0]}: " + message.format(clip=rows[2][1]) in err
    assert not (kit / "report").exists()


def test_unknown_ids_and_double_ratings_are_errors(
    kit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = write_sheets(tmp_path / "sheets")
    text = sheets[0].read_text(encoding="utf-8")
    sheets[0].write_text(text + "L01,zzzz9999,3,3,3,\n", encoding="utf-8")
    assert main(["listening", "report", str(kit), *map(str, sheets)]) == 2
    assert "field 'clip': 'zzzz9999' is not a clip of this kit" in capsys.readouterr().err
    sheets[0].write_text(text, encoding="utf-8")
    assert main(["listening", "report", str(kit), *map(str, sheets), str(sheets[0])]) == 2
    assert "rated" in capsys.readouterr().err
    assert main(["listening", "report", str(tmp_path / "sheets"), str(sheets[0])]) == 2
    assert "not a listening kit" in capsys.readouterr().err
