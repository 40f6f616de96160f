"""API keys for the cloud adapters: read from the environment, and kept out of every message.

A profile never holds a key; it names the environment variable that does (``api_key_env``).
Every message an adapter raises goes through a :class:`~pytest_ttsbench.support.redaction.Redactor`
that knows the values read here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pytest_ttsbench.engines.base import MissingCredentials
from pytest_ttsbench.support.redaction import KNOWN_SECRETS

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile


def read_env_secret(variable: str, profile_name: str, what: str = "API key") -> str:
    """The value of ``variable``; a missing or empty one raises :class:`MissingCredentials`, naming the variable."""
    value = os.environ.get(variable, "").strip()
    if not value:
        raise MissingCredentials(
            f"engine profile {profile_name!r}: environment variable {variable} is not set (it should hold the {what})"
        )
    KNOWN_SECRETS.add(value)
    return value


def read_api_key(profile: EngineProfile, *, required: bool = True) -> str | None:
    """The key from the variable named by ``profile.api_key_env``.

    Without ``api_key_env`` a required key is missing (:class:`MissingCredentials`; the message says to
    set it); an optional one (a local OpenAI-compatible server) is None.
    """
    if not profile.api_key_env:
        if required:
            raise MissingCredentials(
                f"engine profile {profile.name!r} ({profile.type}) needs an API key: set api_key_env "
                "to the name of the environment variable that holds it"
            )
        return None
    return read_env_secret(profile.api_key_env, profile.name)
