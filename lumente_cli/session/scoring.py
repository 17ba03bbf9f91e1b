"""Points per verdict and the score's range (docs/scoring.md explains them for
students). Apart from the engine, so that a screen which only draws a score
against its maximum (`lumente progress`) does not load the engine's models."""

from __future__ import annotations

from lumente_cli.parts import PARTS

POINTS: dict[str, int] = {"solid": 2, "partial": 1, "missing": 0}
MAX_PART_POINTS = max(POINTS.values())
MAX_SCORE = MAX_PART_POINTS * len(PARTS)
