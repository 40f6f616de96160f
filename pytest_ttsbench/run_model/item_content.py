"""What a row measured, by content: the text sent and what its audio was expected to keep.

A baseline pairs a target of two runs by its id. An id says which item it is, not what the item
asked: a case file edited between the runs (``…2026.`` became ``…1999.``, an expected value, the
scorer, the text contract, the language) keeps the id and asks something else. Pairing such a
target with its old verdict would blame the voice for the edit, so a pair is only compared when
its content is the same on both sides (:func:`content_changes`); otherwise it is *changed since
the baseline, not compared*, and counts neither as a regression nor as a fix.

Every row records ``content_sha256``, the SHA-256 of its content fields (:data:`CONTENT_FIELDS`)
as canonical JSON, computed from the row as written (after redaction: a secret is never hashed
into a file). Rows written before that field existed are compared on the content fields they
carry; ``text`` and ``scorer`` were once optional and are compared only where both rows have them.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.support.json_documents import dump_json

if TYPE_CHECKING:
    from pytest_ttsbench.run_model.results import ItemResult

#: The fields of a row that say what was measured: what was sent (the text of the contract in
#: use, its language) and how the audio was judged (scorer, readings target, expected value).
CONTENT_FIELDS: tuple[str, ...] = ("text", "language", "contract", "scorer", "target", "expected")
#: Fields that rows of older versions may lack (written as ""): compared only where both have them.
_SOMETIMES_ABSENT = frozenset({"text", "scorer"})


def canonical(value: Any) -> str:
    """One spelling of a JSON value: sorted keys, tuples as lists, no spaces."""
    return dump_json(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def content_sha256(row: ItemResult) -> str:
    """The SHA-256 of the row's content fields, as recorded in ``content_sha256``."""
    document = {name: getattr(row, name) for name in CONTENT_FIELDS}
    return hashlib.sha256(canonical(document).encode("utf-8")).hexdigest()


def content_changes(before: ItemResult, after: ItemResult) -> list[str]:
    """The content fields in which two measurements of one target differ; empty when they measured alike.

    Fields are compared where both rows carry them; when the fields agree but both rows recorded
    different hashes (a row edited by hand, say), ``content_sha256`` itself is named.
    """
    changed = [
        name
        for name in CONTENT_FIELDS
        if not (name in _SOMETIMES_ABSENT and not (getattr(before, name) and getattr(after, name)))
        and canonical(getattr(before, name)) != canonical(getattr(after, name))
    ]
    if not changed and before.content_sha256 and after.content_sha256 and before.content_sha256 != after.content_sha256:
        changed = ["content_sha256"]
    return changed
