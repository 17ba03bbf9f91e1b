"""Choosing the provider for a session: Claude when configured, else offline.

The anthropic SDK is slow to import (docs/benchmarks.md), so it is imported here,
inside the Claude branch, and nowhere a command that stays offline can reach.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lumente_cli.agents.contracts import (
    AskInput,
    CoachInput,
    EvaluateInput,
    Evaluation,
    HintInput,
    JudgeInput,
    Question,
    QuestionJudgement,
    Remark,
)
from lumente_cli.agents.offline import OfflineAgents
from lumente_cli.agents.protocol import Agents, Usage
from lumente_cli.concepts.explanations import Explanation
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import UsageError
from lumente_cli.settings import Settings

if TYPE_CHECKING:
    import anthropic


def chosen_provider(settings: Settings, override: str | None) -> str:
    """'claude' or 'offline'. `auto` means Claude exactly when an API key is set."""
    choice = override or settings["provider"]
    if choice == "auto":
        return "claude" if settings["anthropic_api_key"] else "offline"
    return choice


def claude_available(settings: Settings, override: str | None) -> bool:
    return chosen_provider(settings, override) == "claude" and bool(settings["anthropic_api_key"])


def claude_chosen(settings: Settings, override: str | None) -> bool:
    """Whether Claude is to be called; choosing it without an API key is a UsageError."""
    if chosen_provider(settings, override) == "offline":
        return False
    _require_key(settings)
    return True


def _require_key(settings: Settings) -> None:
    if not settings["anthropic_api_key"]:
        raise UsageError(
            "the Claude provider needs an API key.",
            hint="Set ANTHROPIC_API_KEY, or run `lumente config set anthropic_api_key`.",
        )


def _client(settings: Settings) -> anthropic.Anthropic:
    from lumente_cli.agents.claude import make_anthropic_client

    return make_anthropic_client(api_key=settings["anthropic_api_key"])


def model_of(settings: Settings) -> str:
    from lumente_cli.agents.claude import DEFAULT_MODEL

    return settings["model"] or DEFAULT_MODEL


def make_agents(
    concept: Concept, settings: Settings, override: str | None, *, notify: Callable[[str], None]
) -> tuple[Agents, Usage]:
    usage = Usage()
    offline = OfflineAgents(concept)
    if chosen_provider(settings, override) == "offline":
        return offline, usage
    _require_key(settings)

    def build() -> tuple[Agents, str | None]:
        from lumente_cli.agents.claude import ClaudeAgents

        model = model_of(settings)
        agents = ClaudeAgents(concept, _client(settings), model=model, fallback=offline, notify=notify, usage=usage)
        return agents, deprecation_warning(model)

    return ClaudeLoading(build, offline, notify), usage


class ClaudeLoading:
    """The Claude agents, built in the background: importing the SDK takes about a
    second, which the student spends reading the header and typing a prediction.
    The first agent call waits for the rest of it, if any is left."""

    name = "claude"

    def __init__(self, build: Callable[[], tuple[Agents, str | None]], offline: Agents,
                 notify: Callable[[str], None]) -> None:
        import threading

        self._offline = offline
        self._notify = notify
        self._result: tuple[Agents, str | None] | None = None
        self._error: BaseException | None = None
        self._ready: Agents | None = None

        def work() -> None:
            try:
                self._result = build()
            except BaseException as exc:  # noqa: BLE001 - reported on the caller's thread at first use
                self._error = exc

        self._thread = threading.Thread(target=work, name="claude-loading", daemon=True)
        self._thread.start()

    def agents(self) -> Agents:
        if self._ready is not None:
            return self._ready
        self._thread.join()
        if self._error is not None:
            self._notify(f"Claude could not be started ({type(self._error).__name__}); "
                         "the offline agents answer for this session.")
            self._ready = self._offline
        else:
            assert self._result is not None
            self._ready, warning = self._result
            if warning:
                self._notify(warning)
        return self._ready

    def ask(self, inp: AskInput) -> Question:
        return self.agents().ask(inp)

    def hint(self, inp: HintInput) -> Remark:
        return self.agents().hint(inp)

    def evaluate(self, inp: EvaluateInput) -> Evaluation:
        return self.agents().evaluate(inp)

    def judge(self, inp: JudgeInput) -> QuestionJudgement:
        return self.agents().judge(inp)

    def coach(self, inp: CoachInput) -> Remark:
        return self.agents().coach(inp)


def deprecation_warning(model: str) -> str | None:
    """One line when the SDK lists the model as deprecated, with its end-of-life date."""
    from anthropic.resources.messages import DEPRECATED_MODELS

    end = DEPRECATED_MODELS.get(model)
    if end is None:
        return None
    return (f"The model {model} is deprecated and reaches end of life on {end}; "
            "set LUMENTE_MODEL (or `lumente config set model`) to a current one, e.g. claude-sonnet-5-5.")


def map_new_concept(settings: Settings, name: str, concept_id: str, directory: Path) -> tuple[Concept, Path]:
    """Build and validate a concept with Claude for a name not in the library, and save
    its file in `directory`, where the library finds it next time."""
    from lumente_cli.agents.claude import map_concept, save_mapped_concept
    from lumente_cli.agents.contracts import MapInput

    concept = map_concept(
        _client(settings), model=model_of(settings),  # map_concept sets its own longer timeout
        inp=MapInput(name=name, concept_id=concept_id), usage=Usage(),
    )
    return concept, save_mapped_concept(concept, directory)


def generate_explanation(concept: Concept, settings: Settings, difficulty: int) -> Explanation:
    """A fresh explanation of `concept` with planted flaws, written by Claude, not yet
    checked (ExplainerFailed when there is none)."""
    from lumente_cli.agents.claude.explainer import explain_concept

    return explain_concept(_client(settings), model=model_of(settings), concept=concept, difficulty=difficulty,
                           usage=Usage())
