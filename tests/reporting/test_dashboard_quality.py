"""Quality trends on the dashboard: a chart per measure with a line per engine, and the figures behind it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from result_rows import make_result

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.results import write_results

NIGHTS = {  # folder (sorted against time on purpose) → night, per engine the clips' dnsmos_ovrl figures
    "zz-first": (1, {"alpha": [3.0, 3.2], "beta": [2.4, 2.6]}),
    "aa-second": (2, {"alpha": [3.4, 3.6], "beta": [2.0, 2.2]}),
}


def test_quality_over_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    for folder, (night, engines) in NIGHTS.items():
        rows = [
            make_result(
                engine=engine,
                id=f"s/item-{i}",
                started_at=f"2026-11-2{night}T02:00:00+00:00",
                quality={"dnsmos_ovrl": value, "peak_dbfs": -3.0 * night},
            )
            for engine, values in engines.items()
            for i, value in enumerate(values)
        ]
        write_results(runs / folder / "results.jsonl", rows)
    site = tmp_path / "site"
    assert main(["dashboard", str(runs), "-o", str(site)]) == 0
    capsys.readouterr()
    page = (site / "index.html").read_text(encoding="utf-8")
    section = page[page.index("<h2>Quality over time</h2>") :]
    assert section.index("<h3>dnsmos_ovrl</h3>") < section.index("<h3>peak_dbfs</h3>")
    ovrl = section[section.index("<h3>dnsmos_ovrl</h3>") : section.index("<h3>peak_dbfs</h3>")]
    # runs in date order, one row per engine with each night's mean
    assert re.findall(r"<th>(.*?)</th>", ovrl) == ["engine", "zz-first", "aa-second"]
    rows = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", ovrl)][1:]
    assert rows == [["alpha", "3.10", "3.50"], ["beta", "2.50", "2.10"]]
    chart = site / re.search(r'src="(charts/quality-dnsmos_ovrl\.svg)"', ovrl).group(1)
    svg = chart.read_text(encoding="utf-8")
    assert "alpha" in svg and "beta" in svg and "zz-first" in svg
    assert len(re.findall(r'id="line2d_', svg)) >= 2  # one line per engine (plus grid lines)
