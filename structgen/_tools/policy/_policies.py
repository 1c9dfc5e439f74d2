"""The tool policies: one value per rule (:class:`Policy`), every rule's values in one table
(:data:`RULES`: each value the small function, or the setting, that applies it), and the named
policies (:data:`POLICY_RULES`): ``"tool-trained"`` for models whose chat template renders tools
(trained to call them), ``"small-model"`` (``"action"`` with ``arguments="auto"``) for the
others, ``"model"`` for the model's own choice; ``policy="auto"`` picks by the template.
docs/tools.md says when to pick which; docs/benchmarks.md has the numbers behind each. The
decisions themselves are in ``_gate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from ._copied import ARGUMENT_TRIES, DEFAULT_ARGUMENTS, LISTED_VALUES, ArgumentsName, ListedValues
from ._decision import GROUNDINGS, GroundingName
from ._gate import (
    CHANNEL_WEIGHED, DECISION_PLANS, DECISIONS, DEFAULT_DECISION, OFFERED, ChannelScoring, DecisionName, OfferedTools,
)

LaterSteps = Literal["gate", "model"]
"""How a step that follows tool results of the same request decides (see :class:`Policy`)."""
#: ``later_steps``: whether such a step is the model's own choice rather than the decision's again.
LATER_STEPS_OWN: dict[LaterSteps, bool] = {"gate": False, "model": True}
from ._later_calls import LATER_CALLS, OfferedCall

CallInReply = Literal["text", "kept"]
"""What becomes of a call the model writes in a reply the decision chose (see :class:`Policy`)."""
#: ``call_in_reply``: whether a call the model wrote in a reply in words is kept as the turn's call.
KEEPS_CALL_IN_REPLY: dict[CallInReply, bool] = {"text": False, "kept": True}
ListedTools = Literal["offered", "all", "offered-until-calls"]
"""Which tools a call turn's prompt lists, where the chat template renders tools (see :class:`Policy`)."""
#: ``listed_tools``: whether a call turn's prompt lists every tool of the turn, not only those
#: offered, by whether the conversation already holds a call or a tool result.
LISTS_EVERY_TOOL: dict[ListedTools, Callable[[bool], bool]] = {
    "offered": lambda holds_calls: False,
    "all": lambda holds_calls: True,
    "offered-until-calls": lambda holds_calls: holds_calls,
}

ReplyTools = Literal["all", "none"]
"""Which tools a reply in words is shown, where the chat template renders tools (see :class:`Policy`)."""
#: ``reply_tools``: whether a reply in words lists the turn's tools before the conversation holds a call.
SHOWS_TOOLS_IN_REPLY: dict[ReplyTools, bool] = {"all": True, "none": False}

Alternatives = Literal["whole", "tokens"]
"""How a call's tool name, and a value among a few listed ones, is chosen (see :class:`Policy`)."""
#: ``alternatives``: whether a call turn scores each whole spelling where the schema leaves a few.
SCORES_WHOLE_ALTERNATIVES: dict[Alternatives, bool] = {"whole": True, "tokens": False}

#: Every rule of a :class:`Policy`, with the values it takes: each value's function (or setting)
#: is what a turn applies, so a rule reads, switches and is measured alone.
RULES: dict[str, Mapping[Any, object]] = {
    "decision": DECISION_PLANS,  # _gate: whether to call, and which tools may be called
    "arguments": ARGUMENT_TRIES,  # _copied: how a call's free strings are written
    "offered_call": LATER_CALLS,  # _later_calls: which call after the first is kept
    "offered_tools": OFFERED,  # _gate: which fitting tools a scored decision offers
    "call_in_reply": KEEPS_CALL_IN_REPLY,  # what a call written in a reply in words becomes
    "channel": CHANNEL_WEIGHED,  # _gate: which tools the channel score is weighed for
    "listed_tools": LISTS_EVERY_TOOL,  # which tools a call turn's prompt lists
    "grounding": GROUNDINGS,  # _decision: whether a turn's first call must have chosen a said value
    "listed_values": LISTED_VALUES,  # _copied: whether a listed value the request names is the only one
    "alternatives": SCORES_WHOLE_ALTERNATIVES,  # how a tool's name and a listed value are chosen
    "reply_tools": SHOWS_TOOLS_IN_REPLY,  # which tools a reply in words is shown
    "later_steps": LATER_STEPS_OWN,  # how a step after tool results of the same request decides
}


@dataclass(frozen=True)
class Policy:
    """The rules of a tool turn under ``tool_choice="auto"``, each one a setting that can be
    switched alone (``bench/suites/bfcl.py --decision`` measures them one at a time).

    - ``decision``: whether and which tools to call: ``"action"``, ``"meaning"``, ``"words"``
      (a scored gate) or ``"model"`` (the model's own choice); see :meth:`LLM.call_tools`.
    - ``arguments``: how arguments are written: ``"auto"``, ``"free"``, ``"copied"`` (free
      strings copied from the request) or ``"free_then_copied"``; see :meth:`LLM.call_tools`.
    - ``offered_call``: which second call, offered after the model's first, is kept:
      ``"same-tool"``, one calling a tool the turn already called that adds a said word no
      earlier call of that tool chose; ``"new-word"``, one calling any tool that adds a said
      word no earlier call chose; ``"new-word-or-tool"``, that or a grounded call of a tool the
      request names by a word no earlier call's tool has ("the median and the variance of 3,
      4, 5": the same values).
    - ``offered_tools``: which tools a scored decision lets the turn call: ``"close"``, those
      that fit and score within ``MARGIN`` of the best; ``"fitting"``, every one that fits (at
      most ``MAX_OFFERED`` either way).
    - ``call_in_reply``: what becomes of a call the model writes in its reply after a scored
      decision chose a reply in words (a model whose template shows it the tools may call
      anyway): ``"text"``, the reply's text as written; ``"kept"``, the turn's call, where it
      validates (the model overrules the decision; it sees the tools only where
      ``reply_tools`` shows them).
    - ``channel``: which tools a scored decision weighs the channel score for (a scoring pass
      over the request after each, and one after no tool): ``"every"``; or ``"undecided"``,
      only those the other signals leave within the channel's usual band of fitting
      (:data:`CHANNEL_RANGE`), so that a clear request costs no scoring pass at all; or
      ``"off"``, none (no scoring pass ever: faster, and fewer irrelevant requests told apart).
    - ``listed_tools``: which tools a call turn's prompt lists where the chat template renders
      tools: ``"offered"``, those the decision lets the turn call; ``"all"``, every tool of the
      turn, as a reply in words shown them lists them (the grammar still calls only the offered
      ones), so that turns with the same tools share one prompt prefix, evaluated once;
      ``"offered-until-calls"``, the offered ones until the conversation holds a call or a tool
      result, every tool after that (an agent's steps then share one prompt prefix, the
      listing included, and each evaluates only what was added since the step before).
    - ``grounding``: whether a turn whose decision checks its calls keeps its first call only
      where a value it chose was said (``"said"``: every value, where the decision asks that) or
      as written (``"off"``); later calls are judged by ``offered_call`` either way. A decision
      that checks nothing (a call required, the model's own) is not changed by it.
    - ``listed_values``: where the request names exactly one of a parameter's listed values,
      whether that value is the only one the call's grammar allows (``"named"``) or the model
      picks among them all (``"any"``: the ``"model"`` and ``"tool-trained"`` policies').
    - ``alternatives``: how a call's tool name, and a value where the schema leaves a few
      spellings, is chosen: ``"whole"``, every spelling scored by its whole likelihood (a small
      model picks by the first token, which goes wrong when names differ late), or
      ``"tokens"``, the model's own tokens under the grammar (no scoring batch per spelling).
    - ``reply_tools``: which tools a reply in words is shown where the chat template renders
      tools: ``"all"``, every tool of the turn; ``"none"``, none until the conversation holds a
      call or a tool result (a template may need the tools to render those), so that the model
      answers as without tools instead of writing a call as text, from a shorter prompt.
    - ``later_steps``: how a step decides that follows tool results of the same request (an
      agent's second step, and on): ``"gate"``, as the request's first step did (the decision
      again, its calls judged); ``"model"``, the model's own choice (it reads the results and
      calls again or answers; the call grammar lazy on its openers, every call it writes
      standing)."""

    decision: DecisionName
    arguments: ArgumentsName
    offered_call: OfferedCall
    offered_tools: OfferedTools = "close"
    call_in_reply: CallInReply = "text"
    channel: ChannelScoring = "every"
    listed_tools: ListedTools = "offered"
    grounding: GroundingName = "said"
    listed_values: ListedValues = "named"
    alternatives: Alternatives = "whole"
    reply_tools: ReplyTools = "all"
    later_steps: LaterSteps = "gate"

    def __post_init__(self) -> None:
        for name, values in RULES.items():
            value = getattr(self, name)
            if value not in values:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, values))}, not {value!r}")


PolicyName = Literal["auto", "model", "tool-trained", "small-model"]
"""How a turn under ``tool_choice="auto"`` is decided: ``"model"`` (the model's own choice,
read in the forms it writes), ``"tool-trained"`` (the scored gate, with the rules measured to
help models trained to call tools), ``"small-model"`` (the scored gate, grounding and copied
arguments fitted on models too small to judge), or ``"auto"``, by what the model is."""
ResolvedPolicy = Literal["model", "tool-trained", "small-model"]
POLICIES: tuple[PolicyName, ...] = ("auto", "model", "tool-trained", "small-model")
#: Each named policy's rules. "tool-trained" differs from "small-model" in the three rules that,
#: together, helped both Qwen2.5-Coder models on BFCL's held-out half (docs/benchmarks.md,
#: "Function calling"): free arguments, every fitting tool callable (requests for two tools: "a
#: musical ticket and a train ticket"), and an offered call of any tool, kept where it adds a said
#: word or calls a tool the request names (the same data twice: "the median and the variance";
#: one more case on each model's tuning half than "new-word", none lost); and in a fourth that
#: costs them no decision and most scoring passes: the channel score weighed only for tools whose
#: fit it could change. Two small-model rules are dropped for them, neither helping either model on
#: the tuning half: listed values the request names (the model's own pick is as right) and tool
#: names scored whole (the same cases right, without a scoring batch per name). Grounding stays:
#: without it each model lost three irrelevant requests. A reply in words is shown no tools, as
#: the generic format's: shown them, both models wrote a call as the reply to most requests the
#: gate answers in words. Once the conversation holds a call, every step lists every tool, so that
#: an agent's steps share one prompt prefix (a request's first step is as before).
POLICY_RULES: dict[ResolvedPolicy, Policy] = {
    "model": Policy(decision="model", arguments="free", offered_call="new-word", listed_values="any"),
    "tool-trained": Policy(
        decision=DEFAULT_DECISION, arguments="free", offered_call="new-word-or-tool", offered_tools="fitting",
        channel="undecided", listed_values="any", alternatives="tokens", reply_tools="none",
        listed_tools="offered-until-calls"),
    "small-model": Policy(decision=DEFAULT_DECISION, arguments=DEFAULT_ARGUMENTS, offered_call="same-tool"),
}
#: What ``policy="auto"`` means for a model whose chat template renders tools (True: trained to
#: call them) and for one whose template knows none.
AUTO_POLICY: dict[bool, ResolvedPolicy] = {True: "tool-trained", False: "small-model"}


def resolve_policy(policy: PolicyName, native: bool) -> ResolvedPolicy:
    """The policy ``policy`` names for a model whose chat template renders tools (``native``)
    or not (:data:`AUTO_POLICY`)."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(map(repr, POLICIES))}, not {policy!r}")
    if policy == "auto":
        return AUTO_POLICY[native]
    return policy


def policy_rules(
    policy: PolicyName | Policy, native: bool, *, decision: DecisionName | None = None,
    arguments: ArgumentsName | None = None,
) -> Policy:
    """The rules a turn follows: ``policy`` itself, or those of the policy it names; where
    given, ``decision`` (with the rules of the named policy that decides so: "model" or the
    scored gate) and then ``arguments`` replace its own."""
    if isinstance(policy, Policy):
        rules = policy
    else:
        rules = POLICY_RULES[resolve_policy(policy, native)]
    if decision is not None:
        rules = replace(POLICY_RULES["model" if decision == "model" else "small-model"], decision=decision)
    if arguments is not None:
        rules = replace(rules, arguments=arguments)
    return rules


__all__ = [
    "AUTO_POLICY", "Alternatives", "CallInReply", "ChannelScoring", "DECISIONS", "DEFAULT_DECISION", "DecisionName",
    "GroundingName", "KEEPS_CALL_IN_REPLY", "LATER_STEPS_OWN", "LISTS_EVERY_TOOL", "LaterSteps", "ListedTools",
    "ListedValues", "OfferedCall", "OfferedTools", "POLICIES", "POLICY_RULES", "Policy", "PolicyName", "RULES",
    "ReplyTools", "ResolvedPolicy", "SCORES_WHOLE_ALTERNATIVES", "SHOWS_TOOLS_IN_REPLY", "policy_rules",
    "resolve_policy",
]
