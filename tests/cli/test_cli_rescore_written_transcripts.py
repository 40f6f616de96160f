"""The written transcripts that prove each language's scorer, replayed through `ttsbench rescore`.

Each fixture holds several rows per item (a correct reading, near misses, garbled ones), and the
scorer unit tests list the verdict each row must get. Here every row goes through the command a
user runs — a transcripts file per round of rows — and must get exactly the verdict the scorer
gives it directly, so the CLI path cannot drift from the proven one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shipped_packs import pack_file

from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.cli import main
from pytest_ttsbench.scorers import ScoreContext, get_scorer

ROOT = Path(__file__).resolve().parents[2]


def _rounds(rows: list[dict]) -> list[list[dict]]:
    """Split rows so that each round holds at most one row per id, in file order."""
    rounds: list[list[dict]] = []
    for row in rows:
        for round_rows in rounds:
            if all(r["id"] != row["id"] for r in round_rows):
                round_rows.append(row)
                break
        else:
            rounds.append([row])
    return rounds


@pytest.mark.parametrize(
    ("fixture", "cases"),
    [
        ("ar-transcripts.jsonl", ["ar-numerals.yaml"]),
        ("zh-transcripts.jsonl", ["zh-numerals.yaml", "zh-news.yaml"]),
        ("th-transcripts.jsonl", ["th-keywords.yaml"]),
    ],
)
def test_rescore_gives_the_proven_verdicts(
    fixture: str, cases: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [json.loads(line) for line in (ROOT / "tests" / "data" / fixture).read_text(encoding="utf-8").splitlines()]
    case_paths = [pack_file(name.removesuffix(".yaml")) for name in cases]
    items = {item.full_id: item for path in case_paths for item in load_case_file(path).items}
    seen_outcomes: set[str] = set()
    for number, round_rows in enumerate(_rounds(rows)):
        transcripts = tmp_path / f"round-{number}.jsonl"
        transcripts.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in round_rows), encoding="utf-8")
        assert main(["rescore", *map(str, case_paths), "--transcripts", str(transcripts), "--json"]) == 0
        payload = json.loads(capsys.readouterr().out)
        by_key = {(i["id"], i["target"]): i for i in payload["items"]}
        for row in round_rows:
            item = items[row["id"]]
            scorer = get_scorer(item.scorer)
            for target in item.targets:
                direct = scorer.score(row["text"], target.expect, ScoreContext(item.language, item.text, target.span))
                replayed = by_key[(row["id"], target.span)]
                assert replayed["verdict"] == direct.outcome, (row, replayed)
                assert replayed["transcripts"] == {"transcript": row["text"]}
                seen_outcomes.add(direct.outcome)
    assert {"correct", "wrong"} <= seen_outcomes  # the fixtures prove both ways
