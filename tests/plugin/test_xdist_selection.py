"""Under pytest-xdist the controller counts what was selected from the node ids a worker collected
(``pytest_xdist_node_collection_finished``), as the items themselves are counted without xdist: the
counts must agree for any suite, item ids, engines and repeats (session/selection.selected_by_engine
reads back the names session/collect.case_test_name writes)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_ttsbench.cases.model import CaseItem, Suite, Target
from pytest_ttsbench.session.collect import case_test_name
from pytest_ttsbench.session.selection import selected_by_engine

NAMES = st.from_regex(r"[a-z0-9][a-z0-9-]{0,8}[a-z0-9]", fullmatch=True)
#: engine names, some of the shapes that read like a repeat's suffix or like another engine's tail
ENGINES = st.one_of(NAMES, st.sampled_from(["r0", "r1", "a", "b-a", "a-r1", "x-r0"]))
ITEM_IDS = st.one_of(
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,10}", fullmatch=True), st.sampled_from(["x-r0", "y-a", "z-b-a"])
)


@given(
    suite_name=NAMES,
    item_ids=st.lists(ITEM_IDS, min_size=1, max_size=6, unique=True),
    engines=st.lists(ENGINES, min_size=1, max_size=3, unique=True),
    repeats=st.integers(1, 3),
    spans=st.lists(st.sampled_from([None, "歼-20", "a-r1"]), min_size=1, max_size=2),
    kept=st.data(),
)
def test_counts_from_node_ids_match_the_items(
    suite_name: str,
    item_ids: list[str],
    engines: list[str],
    repeats: int,
    spans: list[str | None],
    kept: st.DataObject,
) -> None:
    # Names a node id cannot tell apart (item "y-a" of engine "r0" and item "y" of engine "a", repeat 0,
    # are both "y-a-r0") are left out: an engine's name that ends another's, or an item id's tail.
    tails = [f"-{engine}" for engine in engines]
    assume(not any(name.endswith(tail) for name in [*item_ids, *engines] for tail in tails if name != tail[1:]))
    assume(not any(f"{tail}-r" in f"-{name}" for name in [*item_ids, *engines] for tail in tails))
    suite = Suite(name=suite_name, language="en", scorer="numbers", items=(), path=Path("cases/s.yaml"))
    tests: list[tuple[str, str]] = []  # (node id, engine)
    for item_id in item_ids:
        item = CaseItem(suite_name, item_id, "en", "numbers", "years", "t", {}, ())
        for span in spans:
            target = Target(span, "years", {})
            for engine in engines:
                for repeat in range(repeats):
                    name = case_test_name(suite, item, target, engine, len(engines) > 1, repeat, repeats)
                    tests.append((f"cases/s.yaml::{name}", engine))
    selected = kept.draw(st.lists(st.sampled_from(tests), unique=True))  # what -k left
    ids = [node_id for node_id, _ in selected] + ["tests/test_other.py::test_x[a-b]"]  # not a benchmark item
    expected = Counter(engine for _, engine in selected)
    assert selected_by_engine(ids, engines) == {engine: expected.get(engine, 0) for engine in engines}
