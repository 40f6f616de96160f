"""Chinese ``numbers`` against NVIDIA NeMo's written ↔ spoken test pairs (``nemo_corpus``, ``nemo_arzh``).

Each value-bearing pair's spoken side must be ``correct`` for its written side, and each
value-changing perturbation of it must not be; the pairs in ``tests/data/nemo-exclusions/zh.tsv``
are one grammar's choice (or one corpus's error) rather than a reading, and are printed after the run.
"""

from __future__ import annotations

import pytest
from nemo_arzh import corpus_tests
from nemo_corpus import ABSENT, available

pytestmark = pytest.mark.skipif(not available(), reason=ABSENT)

globals().update(corpus_tests("zh", at_least=550))
