"""Quality cells in the HTML report: pytest-html sorts cells as strings, so the hidden key must sort as numbers."""

from __future__ import annotations

import re

from result_rows import make_result

from pytest_ttsbench.reporting.quality_html import header_cells, row_cells, sort_key, summary_rows


def test_sort_keys_order_like_the_numbers() -> None:
    values = [-23.5, -3.0, -20.0, 0.0, 0.5, 2.0, 10.0, 125.25]
    assert sorted(values, key=sort_key) == sorted(values)
    assert sort_key(None) < sort_key(-999.0)


def test_one_sortable_column_per_measure() -> None:
    names = ["dnsmos_ovrl", "loudness_lufs"]
    headers = header_cells(names)
    assert [re.search(r'data-column-type="(\w+)"', h).group(1) for h in headers] == ["q_dnsmos_ovrl", "q_loudness_lufs"]
    row = make_result(quality={"dnsmos_ovrl": 3.125, "loudness_lufs": None})
    cells = row_cells(row, names)
    assert re.fullmatch(r'<td class="col-q_dnsmos_ovrl"><span hidden>\d{7}\.\d{6}</span>3\.12</td>', cells[0])
    assert cells[1] == '<td class="col-q_loudness_lufs"><span hidden></span></td>'
    assert row_cells(None, names)[0] == '<td class="col-q_dnsmos_ovrl"><span hidden></span></td>'


def test_summary_rows_per_category_facet_and_total() -> None:
    rows = [
        make_result(id=f"s/{i}", category=cat, facets={"form": form}, quality={"peak_dbfs": peak})
        for i, (cat, form, peak) in enumerate([("a", "x", -3.0), ("a", "y", -5.0), ("b", "x", -9.0)])
    ]
    table = summary_rows(rows, ["form"])
    slices = [(r[2], r[3], r[5]) for r in table]
    assert ("a", "peak_dbfs", "-4.00") in slices and ("b", "peak_dbfs", "-9.00") in slices
    assert ("form=x", "peak_dbfs", "-6.00") in slices and ("(all)", "peak_dbfs", "-5.67") in slices
