from __future__ import annotations

import pytest

from lumente_cli.concepts.library import load_library
from lumente_cli.concepts.schema import Concept


@pytest.fixture(scope="session")
def jwt() -> Concept:
    return load_library().concepts["jwt"].concept
