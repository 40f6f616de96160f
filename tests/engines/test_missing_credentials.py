"""Every keyed adapter reports a missing credential the same way (issue 38, point 5): as
:class:`MissingCredentials`, naming the variable and never a value, so the run stops before its
first test with exit status 4 (session/benchmark.py: check_credentials).

Property-based over the profiles ``ttsbench init`` writes (one per adapter type that needs a
key) and over which of a profile's variables are missing or blank.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.cases.packs import shipped_packs
from pytest_ttsbench.cli.init import CONFIG_TEMPLATE, engine_secrets
from pytest_ttsbench.config import load_settings
from pytest_ttsbench.engines.base import MissingCredentials
from pytest_ttsbench.engines.registry import create_engine

CONFIG = CONFIG_TEMPLATE.format(packs=", ".join(shipped_packs()))
KEYED = {name: names for name, names in engine_secrets(CONFIG).items() if names}
VALUE = "s3cr3t-value-that-must-not-show"


@pytest.fixture(scope="module")
def profiles(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder: Path = tmp_path_factory.mktemp("project")
    (folder / "ttsbench.yaml").write_text(CONFIG, encoding="utf-8")
    return load_settings(folder).engines


def test_every_keyed_adapter_type_is_covered() -> None:
    assert len(KEYED) >= 10, KEYED


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_missing_or_blank_credential_is_named_and_no_value_is_quoted(profiles: dict, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(KEYED)))
    variables = KEYED[name]
    missing = data.draw(st.lists(st.sampled_from(variables), min_size=1, unique=True))
    blank = data.draw(st.sampled_from(["", "   ", None]))
    with pytest.MonkeyPatch.context() as env:
        for variable in variables:
            if variable not in missing:
                env.setenv(variable, VALUE)
            elif blank is None:
                env.delenv(variable, raising=False)
            else:
                env.setenv(variable, blank)
        with pytest.raises(MissingCredentials) as raised:
            create_engine(profiles[name])
    message = str(raised.value)
    assert any(variable in message for variable in missing), message
    assert VALUE not in message
