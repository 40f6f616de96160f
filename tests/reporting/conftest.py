"""Fixtures shared by the browser tests of the HTML report and the dashboard."""

from __future__ import annotations

import pytest
from cdp_browser import Browser, find_chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    executable = find_chromium()
    if executable is None:
        pytest.skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
    folder = tmp_path_factory.mktemp("chromium")
    chrome = Browser(executable, folder / "profile", folder / "chromium.log")
    yield chrome
    chrome.close()
