"""One results file with repeats, fed to every consumer of results: they all report the same figures.

The file holds item ``a`` generated three times (all correct), item ``b`` once (written twice:
a re-run appended its row, the last one counts) and item ``c`` three times (correct, wrong,
correct). Each item counts once, under the run's repeat policy: the policy its gate sidecar
recorded, else ``all``. So the run is 1 correct of 3 items under ``all`` and 2 of 3 under
``majority``; counting rows instead would give 5 of 8.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from result_rows import make_result

from pytest_ttsbench.cli import main
from pytest_ttsbench.gating.gate import Collected, GateConfig, evaluate_gate
from pytest_ttsbench.gating.thresholds import config_floors
from pytest_ttsbench.reporting.dashboard import build_dashboard
from pytest_ttsbench.reporting.terminal import summary_lines
from pytest_ttsbench.run_model.reader import gate_path, load_runs
from pytest_ttsbench.run_model.results import ItemResult

ROUTE = "whisper"
GENERATIONS = [("a", 0, "correct"), ("a", 1, "correct"), ("a", 2, "correct")]
GENERATIONS += [("b", 0, "unknown"), ("b", 0, "wrong")]  # a re-run appended b's row: the last one counts
GENERATIONS += [("c", 0, "correct"), ("c", 1, "wrong"), ("c", 2, "correct")]
EXPECTED = {"all": 1, "majority": 2}  # correct items of 3, per policy


def _row(item: str, repeat: int, verdict: str) -> ItemResult:
    return make_result(
        engine="voice",
        id=f"s/{item}",
        category="years",
        verdict=verdict,
        repeat=repeat,
        route_verdicts={ROUTE: verdict},
        transcripts={ROUTE: f"heard {item}"},
        started_at="2026-06-01T02:00:00+00:00",
    )


@pytest.fixture(params=[None, "majority"], ids=["no-sidecar", "gated-majority"])
def run_folder(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    folder = tmp_path / "runs" / "night-1"
    folder.mkdir(parents=True)
    results = folder / "results.jsonl"
    results.write_text("".join(_row(*g).to_json() + "\n" for g in GENERATIONS), encoding="utf-8")
    policy = request.param or "all"
    if request.param:
        sidecar = {"passed": True, "reasons": [], "repeats": {"n": 3, "policy": request.param}}
        gate_path(results).write_text(json.dumps(sidecar), encoding="utf-8")
    return folder, policy


def _json_out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_every_consumer_counts_each_item_once(
    run_folder: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, policy = run_folder
    correct, n = EXPECTED[policy], 3
    figures: dict[str, tuple[int, int]] = {}

    board = _json_out(["leaderboard", str(folder), "--format", "json"], capsys)["entries"][0]
    figures["leaderboard"] = (board["correct"], board["correct"] + board["wrong"] + board["unknown"])
    assert board["strict_accuracy"] == pytest.approx(correct / n)

    diagnostics = _json_out(["diagnostics", str(folder), "--json"], capsys)["systems"][0]
    (single_route,) = diagnostics["ablation"]
    figures["diagnostics"] = (single_route["correct"], single_route["n"])
    assert diagnostics["route_accuracy"][ROUTE] == pytest.approx(correct / n)

    comparison = _json_out(["compare", str(folder), str(folder), "--json"], capsys)
    assert comparison["regressions"] == comparison["fixes"] == []
    figures["compare"] = (correct, comparison["unchanged"])

    index, _ = build_dashboard(folder.parent, tmp_path / "site")
    html = index.read_text(encoding="utf-8")
    table = html[html.index("Leaderboard") : html.index("</table>", html.index("Leaderboard"))]
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", table, re.S)]
    # rank, engine, strict accuracy, CI, correct, wrong, unknown, n, date, routes
    figures["dashboard"] = (int(cells[4]), int(cells[7]))

    (run,) = load_runs([folder])
    assert run.repeat_policy == policy
    floors, _ = config_floors({"years": 0.5})
    gate = GateConfig(engines=("voice",), repeats=3, repeat_policy=run.repeat_policy, floors=tuple(floors))
    outcome = evaluate_gate(list(run.rows), gate, Collected())
    (check,) = outcome.checks
    figures["gate"] = (check["correct"], check["n"])

    total = next(line for line in summary_lines(outcome.items) if "(all)" in line).split()
    figures["terminal summary"] = (int(total[4]), int(total[3]))  # engine suite (all) n correct ...

    assert figures == dict.fromkeys(figures, (correct, n))
