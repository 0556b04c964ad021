"""What some tests need from outside Python: Redis and Chromium (`bash scripts/services.sh start` provides both).

When one is absent its tests skip, and the run ends with one line per reason (`tests/conftest.py`).
Where they must be present (CI, which sets CI=true, or HINDSIGHT_TEST_SERVICES=required) they fail instead, so a
missing service can never pass unnoticed there.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

REQUIRED = (os.environ.get("HINDSIGHT_TEST_SERVICES") == "required"
            or os.environ.get("CI", "").lower() == "true")
#: what every such skip says, so the summary (`tests/conftest.py`) finds them
HINT = "run `bash scripts/services.sh start` (`make test` does)"


def missing(what: str) -> NoReturn:
    """Skip the test (or fail it, where services are required) because `what` is absent."""
    message = f"{what}: {HINT}"
    if REQUIRED:
        pytest.fail(message + "; HINDSIGHT_TEST_SERVICES=required", pytrace=False)
    pytest.skip(message)
