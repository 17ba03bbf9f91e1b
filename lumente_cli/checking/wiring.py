"""Wiring a check round from the workspace: the concept and its shipped
explanations, the learner's check level, the explanation for it, and memory.
`lumente check` parses its options, calls `check` with its terminal's input and
views, and renders the events."""

from __future__ import annotations

from dataclasses import dataclass

from lumente_cli.agents.factory import claude_chosen, generate_explanation
from lumente_cli.checking import rules
from lumente_cli.checking.runner import CheckRun
from lumente_cli.checking.soundness import explanation_problems
from lumente_cli.concepts.explanations import EXPLANATIONS_DIR, Explanation, load_explanations
from lumente_cli.concepts.library import Library
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import ConceptError, UsageError
from lumente_cli.exitcodes import ExitCode
from lumente_cli.memory.background import deliver_later
from lumente_cli.memory.service import LearnerMemory
from lumente_cli.practice.events import Emitter
from lumente_cli.practice.runner import Spinner, no_spinner
from lumente_cli.practice.student_io import StudentIO
from lumente_cli.practice.wiring import stop_signals_pause
from lumente_cli.workspace import Workspace


@dataclass(frozen=True)
class CheckOptions:
    predict: int | None = None
    no_memory: bool = False
    provider: str | None = None  # "offline" or "claude"; None lets the settings choose


def concepts_with_explanations() -> list[str]:
    return sorted(p.stem for p in EXPLANATIONS_DIR.glob("*.toml"))


@dataclass(frozen=True)
class CheckedConcept:
    concept: Concept
    explanations: list[Explanation]


def find_concept(lib: Library, name: str) -> CheckedConcept:
    """The library concept called `name` (id, name or alias), with its explanations (it must have some)."""
    concept = lib.resolve(name)
    explanations = load_explanations(concept.id)
    if not explanations:
        have = concepts_with_explanations()
        raise ConceptError(f"no AI explanations to check on {concept.name} yet.",
                           hint=f"Concepts you can check: {', '.join(have)}." if have else None)
    return CheckedConcept(concept, explanations)


def check(ws: Workspace, chosen: CheckedConcept, options: CheckOptions, *, io: StudentIO, emitter: Emitter,
          spinner: Spinner = no_spinner) -> ExitCode:
    """Play one round on the chosen concept to its end and say how it ended."""
    concept, explanations = chosen.concept, chosen.explanations
    store = ws.store
    learner_id = store.learner_id(ws.pseudonym)
    level = store.check_level(learner_id, concept.id) or rules.START_LEVEL
    use_claude = claude_chosen(ws.settings, options.provider)
    explanation = rules.pick(explanations, level, store.explanations_used(learner_id, concept.id))
    generated, notice = generated_explanation(ws, concept, level, spinner) if use_claude else (None, None)
    explanation = generated or explanation
    if options.predict is not None and options.predict > len(explanation.claims):
        raise UsageError(f"--predict {options.predict}: this explanation has {len(explanation.claims)} claims.",
                         hint=f"Predict how many of them you will judge right, 0 to {len(explanation.claims)}.")
    backend = ws.memory_backend(disabled=options.no_memory)
    try:
        with stop_signals_pause() as stops:
            run = CheckRun(
                concept=concept, explanation=explanation, level=level, store=store, learner_id=learner_id, io=io,
                emitter=emitter,
                memory=LearnerMemory(backend, store, ws.pseudonym, concept.id) if backend.enabled else None,
                predict=options.predict, provider="claude" if generated else "offline",
                notices=(notice,) if notice else (), spinner=spinner, deliver_later=deliver_later,
            )
            return run.run(arm=stops.arm)
    finally:
        backend.close()


def generated_explanation(ws: Workspace, concept: Concept, level: int,
                          spinner: Spinner) -> tuple[Explanation | None, str | None]:
    """Claude's explanation for this level if it passes the rules the shipped ones pass
    (`soundness`), else None and the one line that says why a shipped one is shown."""
    from lumente_cli.agents.claude.explainer import ExplainerFailed

    instead = "a shipped explanation is shown instead."
    try:
        with spinner("Claude is writing an explanation…"):
            explanation = generate_explanation(concept, ws.settings, difficulty=level)
    except ExplainerFailed as exc:
        return None, f"{exc.reason}; {instead}"
    problems = explanation_problems(concept, explanation)
    if problems:
        first = problems[0].removeprefix(f"{explanation.id} ")
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        return None, f"Claude's explanation failed Lumente's check of its flaws ({first}{more}); {instead}"
    return explanation, None
