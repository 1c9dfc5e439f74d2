"""The gate: the decide phase's rules, which settle before anything is written whether a step
calls and which tools it may call (``_phases.DecideHook``; docs/policy.md says what each value
does).

- ``later_steps``: whether a step after tool results decides again or is the model's own.
- ``decision``: the scored decisions (``"meaning"``, ``"action"``) weigh every tool's evidence
  against the latest request — similarity of meanings, shared words, the action-or-answer signal
  — into a fitted score (``_fitted``) and keep the tools that fit; ``"words"`` keeps the tools
  that share a content word with the request; ``"model"`` offers every tool lazily.
- ``channel``: for which tools a scored decision weighs the channel score (how much the tool's
  description raises the model's likelihood of the request), which needs scoring passes.
- ``offered_tools``: which of the fitting tools the step is offered.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..._backends._seam import Backend, ScoreRequest
from ..._generate._steps import Steps, can_score, finish, run_blocking, score
from ..._generate._warnings import outside_structgen
from .._tool import Tool
from ._fitted import (
    CHANNEL_RANGE, CHANNEL_USUAL, CHAT_CONTEXT, EXAMPLES_FITTED, EXAMPLES_WITH_ACTION, FITTED, MARGIN, MAX_OFFERED,
    SHARED_WORDS_CAP, TOOL_CONTEXT, WITH_ACTION,
)
from ._phases import Evidence, Plan, TurnContext, settled
from ._words import relevant_tools, said, shared_words


def tool_context(tool: Tool) -> str:
    """The text after which the channel score reads the request as meant for ``tool``."""
    return TOOL_CONTEXT.format(name=tool.name.replace("_", " "), description=tool.description.strip())


def channel_scores(backend: Backend, request: str, tools: Sequence[Tool]) -> list[float] | None:
    """:func:`channel_steps` answered by ``backend`` (blocking)."""
    return finish(run_blocking(channel_steps(request, tools), backend))


def channel_steps(request: str, tools: Sequence[Tool]) -> Steps[None, list[float] | None]:
    """For each tool, how much its description raises the model's likelihood of the request:
    the mean log-likelihood per token of the request after :func:`tool_context`, less the same
    after :data:`CHAT_CONTEXT`. None when the backend cannot score text."""
    if not request.strip():
        return None
    asked = (" " + request.strip(),)
    base = yield from score(ScoreRequest(CHAT_CONTEXT, asked))
    if base is None:
        return None
    scores = []
    for tool in tools:
        scored = yield from score(ScoreRequest(tool_context(tool), asked))
        assert scored is not None  # a backend scores all requests or none
        scores.append(scored[0].per_token - base[0].per_token)
    return scores


def probability(score: float) -> float:
    """The fitted score as a probability that the tool fits."""
    return 1.0 / (1.0 + math.exp(-score))


# -- later_steps ---------------------------------------------------------------------------------


def decides_again(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """``"gate"``: a step after tool results decides as the request's first step did."""
    return settled(plan)


def models_own_step(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """``"model"``: a step after tool results of the same request is the model's own choice, the
    call grammar lazy and every call standing (``_grounding.no_known_repeat`` aside): it reads
    the results and calls again or answers."""
    if turn.tool_choice != "auto" or not turn.follows_results:
        return settled(plan)
    return settled(Plan(list(plan.tools), said_values="none", lazy=True, checked=False, settled=True))


def models_judged_step(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """``"model-judged"``: a step after tool results of the same request is the model's own
    choice among every tool, the call grammar lazy (it may answer), and its calls judged as a
    first step's are: the first kept where a value it chose was said and it repeats no call
    made since the request, later ones as ``offered_call`` says."""
    if turn.tool_choice != "auto" or not turn.follows_results:
        return settled(plan)
    return settled(Plan(list(plan.tools), said_values="some", lazy=True, settled=True))


# -- decision ------------------------------------------------------------------------------------


def model_decision(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """The model's own choice: every tool, the call grammar lazy on the format's openers."""
    return settled(replace(plan, said_values="none", lazy=not turn.required))


def words_decision(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """The tools that share a content word with the request, their calls grounded; none sharing
    one, every tool, each call fully grounded."""
    if turn.required:
        return settled(replace(plan, said_values="none"))
    relevant = relevant_tools(plan.tools, turn.conversation)
    return settled(replace(plan, tools=relevant, said_values="some") if relevant else replace(plan, said_values="every"))


def meaning_decision(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """The fitted score of each tool's evidence: similarity, shared words (and the channel score,
    as the ``channel`` rule weighs it)."""
    return _scored(turn, plan, action=False)


def action_decision(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """:func:`meaning_decision` with the action-or-answer signal weighed too."""
    return _scored(turn, plan, action=True)


def _scored(turn: TurnContext, plan: Plan, *, action: bool) -> Steps[None, Plan]:
    tools = plan.tools
    if not tools:
        return Plan([])
    meanings = turn.meanings
    if meanings is None and any(t.examples for t in tools):
        warnings.warn(
            "tool examples are compared with requests by the sentence-embedding model, which is not "
            "installed: they are not used (docs/tools.md, \"Example requests\")",
            UserWarning, stacklevel=outside_structgen(),
        )
    request = said(turn.conversation, tool_results=False)
    similarity = meanings.similarities(request, tools) if meanings is not None else None
    scoring = bool(request.strip()) and (yield from can_score())
    weights, shown, asks = FITTED[(similarity is not None, scoring)], EXAMPLES_FITTED[scoring], None
    if action and meanings is not None and scoring:
        weights, shown, asks = WITH_ACTION, EXAMPLES_WITH_ACTION, meanings.action_score(request)
    evidence = []
    for i, tool in enumerate(tools):
        w = shown if tool.examples and similarity is not None else weights
        words = min(shared_words(request, tool), SHARED_WORDS_CAP)
        known = w.bias + w.words * words + w.action * (asks or 0.0)
        if similarity is not None:
            known += w.similarity * similarity[i]
        # Until the channel rule weighs it, a tool ranks by the channel's usual value.
        score = known + w.channel * (CHANNEL_USUAL if scoring else 0.0)
        evidence.append(Evidence(tool, similarity[i] if similarity is not None else None, None, words, score,
                                 asks, known, w.channel))
    return _ranked(turn, replace(plan, said_values="none" if turn.required else "some",
                                 asks_action=asks is not None and asks > 0, scoring=scoring), evidence)


def _ranked(turn: TurnContext, plan: Plan, evidence: Sequence[Evidence]) -> Plan:
    """The plan with ``evidence`` best first, and every tool that fits (all of them, with
    ``tool_choice="required"``) as its tools."""
    ranking = tuple(sorted(evidence, key=lambda e: -e.score))
    return replace(plan, ranking=ranking, tools=[e.tool for e in ranking if e.score > 0 or turn.required])


# -- channel -------------------------------------------------------------------------------------


def _weigh_channel(turn: TurnContext, plan: Plan, weighed: Callable[[Evidence], bool]) -> Steps[None, Plan]:
    """The plan with the channel score weighed for the tools ``weighed`` picks (one scoring pass
    over the request after each, and one after no tool)."""
    if plan.ranking is None or not plan.scoring:
        return plan
    chosen = [e for e in plan.ranking if weighed(e)]
    if not chosen:
        return plan
    request = said(turn.conversation, tool_results=False)
    values = (yield from channel_steps(request, [e.tool for e in chosen])) or []
    found = {id(e): c for e, c in zip(chosen, values)}
    evidence = [
        replace(e, channel=found[id(e)], score=e.known + e.channel_weight * found[id(e)]) if id(e) in found else e
        for e in plan.ranking
    ]
    return _ranked(turn, plan, evidence)


def every_channel(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """Weighed for every tool."""
    return (yield from _weigh_channel(turn, plan, lambda e: True))


def undecided_channel(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """Weighed only for a tool whose fit a channel value in :data:`CHANNEL_RANGE` could change;
    the others rank by :data:`CHANNEL_USUAL` (no pass at all where every fit is clear)."""
    low, high = CHANNEL_RANGE
    return (yield from _weigh_channel(
        turn, plan, lambda e: e.known + e.channel_weight * low <= 0 < e.known + e.channel_weight * high))


def no_channel(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """Weighed for no tool: every one ranks by :data:`CHANNEL_USUAL` (no scoring pass)."""
    return settled(plan)


# -- offered_tools -------------------------------------------------------------------------------


def close_tools(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """The fitting tools that score within :data:`MARGIN` of the best, at most :data:`MAX_OFFERED`."""
    if plan.ranking is None or not plan.tools:
        return settled(plan)
    best = plan.ranking[0].score
    close = {id(e.tool) for e in plan.ranking if e.score >= best - MARGIN}
    return settled(replace(plan, tools=[t for t in plan.tools if id(t) in close][:MAX_OFFERED]))


def fitting_tools(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    """Every fitting tool, at most :data:`MAX_OFFERED` ("a musical ticket and a train ticket":
    two tools, neither close)."""
    if plan.ranking is None:
        return settled(plan)
    return settled(replace(plan, tools=plan.tools[:MAX_OFFERED]))


__all__ = [
    "action_decision", "channel_scores", "channel_steps", "close_tools", "decides_again", "every_channel",
    "fitting_tools", "meaning_decision", "model_decision", "models_judged_step", "models_own_step", "no_channel",
    "probability", "tool_context", "undecided_channel", "words_decision",
]
