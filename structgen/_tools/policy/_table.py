"""The rules table, which is the dispatch: one row per rule of a :class:`~structgen.Policy`,
naming for each of the rule's values the hook it runs in each phase of a turn. A phase runs the
hooks of every row that acts in it, in the table's order, each given what the one before
returned (``_phases`` has the signatures; docs/policy.md says what each rule does).

A rule switched off (:func:`switched_off`) runs a hook that passes its value on unchanged, so
that a rule's effect is what the table alone adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from ..._generate._steps import Steps
from ._arguments import (
    any_value, auto_arguments, copied_arguments, free_arguments, free_then_copied_arguments, named_values,
)
from ._gate import (
    action_decision, close_tools, decides_again, every_channel, fitting_tools, meaning_decision, model_decision,
    models_judged_step, models_own_step, no_channel, undecided_channel, words_decision,
)
from ._grounding import (
    any_first_call, judged_as_planned, new_word, new_word_or_tool, no_known_repeat, said_first_call, same_tool,
)
from ._phases import (
    CallShape, Candidate, DecideHook, GrammarHook, Hook, KeepHook, Listing, Phase, Plan, PromptHook, Reply, ReplyHook,
    TurnContext, settled,
)

if TYPE_CHECKING:
    from ._policies import Policy

# -- the small hooks: prompt, grammar and reply rules that need no module of their own ----------


def offered_tools_listed(turn: TurnContext, listing: Listing) -> Listing:
    """``listed_tools="offered"``: a call step lists the tools it may call."""
    return listing


def every_tool_listed(turn: TurnContext, listing: Listing) -> Listing:
    """``listed_tools="all"``: a call step lists every tool of the turn (the grammar still calls
    only the offered ones), so that steps with the same tools share one prompt prefix."""
    return replace(listing, call=tuple(turn.tools))


def every_tool_once_called(turn: TurnContext, listing: Listing) -> Listing:
    """``listed_tools="offered-until-calls"``: the offered tools until the conversation holds a
    call, every tool after that (an agent's steps share one prefix, the listing included)."""
    return every_tool_listed(turn, listing) if turn.holds_calls else listing


def tools_in_reply(turn: TurnContext, listing: Listing) -> Listing:
    """``reply_tools="all"``: a reply in words is shown every tool of the turn."""
    return replace(listing, reply=tuple(turn.tools))


def no_tools_in_reply(turn: TurnContext, listing: Listing) -> Listing:
    """``reply_tools="none"``: none until the conversation holds a call (a template may need the
    tools to render one), so that the model answers as without tools."""
    return listing


def whole_alternatives(turn: TurnContext, shape: CallShape) -> CallShape:
    """``alternatives="whole"``: every spelling scored by its whole likelihood (a small model
    picks by the first token, which goes wrong when names differ late)."""
    return replace(shape, whole_alternatives=True)


def token_alternatives(turn: TurnContext, shape: CallShape) -> CallShape:
    """``alternatives="tokens"``: the model's own tokens under the grammar."""
    return shape


def offered_second_call(turn: TurnContext, shape: CallShape) -> CallShape:
    """``second_call="offered"``: a judged step under ``tool_choice="auto"`` writes a second
    call, kept only as ``offered_call`` says (small models, and tool-trained ones writing
    freely, stop after one call where two were asked for)."""
    plan = turn.plan
    if not plan.judged or turn.tool_choice != "auto" or (plan.lazy and turn.max_calls < 2):
        return shape
    return replace(shape, min_calls=2)


def no_second_call(turn: TurnContext, shape: CallShape) -> CallShape:
    """``second_call="off"``: the model writes as many calls as it chooses."""
    return shape


def reply_as_text(turn: TurnContext, reply: Reply) -> Reply:
    """``call_in_reply="text"``: a reply the decision chose is the reply's text as written."""
    return reply


def call_in_reply_kept(turn: TurnContext, reply: Reply) -> Reply:
    """``call_in_reply="kept"``: a call the model wrote in its reply anyway is the turn's call,
    where it validates (the model overrules the decision)."""
    return replace(reply, kept=reply.written) if turn.tool_choice == "auto" else reply


def call_in_reply_kept_after_calls(turn: TurnContext, reply: Reply) -> Reply:
    """``call_in_reply="kept-after-calls"``: as ``"kept"`` once the conversation holds a call or
    a tool's result (an agent at work: the gate weighs the request, not what the results call
    for next), ``"text"`` before (a request that needs no tool keeps its answer)."""
    return call_in_reply_kept(turn, reply) if turn.holds_calls else reply


# -- the table -----------------------------------------------------------------------------------

#: For one value of a rule, its hook in each phase it acts in.
Hooks = Mapping[Phase, Hook]


def _in(phase: Phase, values: Mapping[str, Hook]) -> dict[str, Hooks]:
    """A rule acting in one phase: each value's hook there."""
    return {value: {phase: hook} for value, hook in values.items()}


#: Every rule, in the order its phase runs it: rule -> value -> phase -> hook.
RULES: dict[str, dict[str, Hooks]] = {
    "later_steps": {
        "gate": {"decide": decides_again, "keep": judged_as_planned},
        "model": {"decide": models_own_step, "keep": no_known_repeat},
        "model-judged": {"decide": models_judged_step, "keep": judged_as_planned},
    },
    "decision": _in("decide", {
        "action": action_decision, "meaning": meaning_decision, "words": words_decision, "model": model_decision}),
    "channel": _in("decide", {"every": every_channel, "undecided": undecided_channel, "off": no_channel}),
    "offered_tools": _in("decide", {"close": close_tools, "fitting": fitting_tools}),
    "listed_tools": _in("prompt", {
        "offered": offered_tools_listed, "all": every_tool_listed, "offered-until-calls": every_tool_once_called}),
    "reply_tools": _in("prompt", {"all": tools_in_reply, "none": no_tools_in_reply}),
    "listed_values": _in("grammar", {"named": named_values, "any": any_value}),
    "arguments": _in("grammar", {
        "auto": auto_arguments, "free": free_arguments, "copied": copied_arguments,
        "free_then_copied": free_then_copied_arguments}),
    "alternatives": _in("grammar", {"whole": whole_alternatives, "tokens": token_alternatives}),
    "second_call": _in("grammar", {"offered": offered_second_call, "off": no_second_call}),
    "grounding": _in("keep", {"said": said_first_call, "off": any_first_call}),
    "offered_call": _in("keep", {"same-tool": same_tool, "new-word": new_word, "new-word-or-tool": new_word_or_tool}),
    "call_in_reply": _in("reply", {
        "text": reply_as_text, "kept": call_in_reply_kept, "kept-after-calls": call_in_reply_kept_after_calls}),
}


def _passes_plan(turn: TurnContext, plan: Plan) -> Steps[None, Plan]:
    return settled(plan)


def _keeps_all(turn: TurnContext, candidate: Candidate) -> bool:
    return True


#: Each phase's hook that changes nothing: what a rule switched off runs.
PASS: dict[Phase, Hook] = {
    "decide": _passes_plan,
    "prompt": lambda turn, listing: listing,
    "grammar": lambda turn, shape: shape,
    "keep": _keeps_all,
    "reply": lambda turn, reply: reply,
}


def switched_off(rule: str) -> dict[str, Hooks]:
    """``rule``'s row with every hook replaced by its phase's :data:`PASS` (for measuring what
    the rule does: ``monkeypatch.setitem(RULES, rule, switched_off(rule))``)."""
    return {value: {phase: PASS[phase] for phase in hooks} for value, hooks in RULES[rule].items()}


def hooks(phase: Phase, policy: Policy) -> list[Hook]:
    """The hooks ``policy`` runs in ``phase``, in the table's order."""
    found = (RULES[rule][getattr(policy, rule)] for rule in RULES)
    return [by_phase[phase] for by_phase in found if phase in by_phase]


# -- the phases ----------------------------------------------------------------------------------


def decide(turn: TurnContext, policy: Policy) -> Steps[None, Plan]:
    """The plan the decide phase settles from ``turn.plan`` (the tools the caller allows); with
    ``tool_choice="required"`` and one tool there is nothing to decide."""
    plan = turn.plan
    if turn.required and len(plan.tools) < 2:
        return replace(plan, said_values="none")
    for hook in cast("list[DecideHook]", hooks("decide", policy)):
        plan = yield from hook(turn, plan)
        if plan.settled:
            break
    return plan


def listing(turn: TurnContext, policy: Policy) -> Listing:
    """Which tools the call step's and the reply's prompts list (where the template renders
    tools): the plan's tools and, once the conversation holds calls, every tool, as the prompt
    rules change them."""
    listed = Listing(tuple(turn.plan.tools), tuple(turn.tools) if turn.holds_calls else ())
    for hook in cast("list[PromptHook]", hooks("prompt", policy)):
        listed = hook(turn, listed)
    return listed


def shape(turn: TurnContext, policy: Policy) -> CallShape:
    """The call grammar's tries and call count for the plan's tools."""
    shaped = CallShape((tuple(turn.plan.tools),))
    for hook in cast("list[GrammarHook]", hooks("grammar", policy)):
        shaped = hook(turn, shaped)
    return shaped


def keeps(turn: TurnContext, policy: Policy, candidate: Candidate) -> bool:
    """Whether every keep rule keeps ``candidate``."""
    return all(hook(turn, candidate) for hook in cast("list[KeepHook]", hooks("keep", policy)))


def reply(turn: TurnContext, policy: Policy, written: Reply) -> Reply:
    """A reply in words as the reply rules leave it (the calls kept from it, if any)."""
    for hook in cast("list[ReplyHook]", hooks("reply", policy)):
        written = hook(turn, written)
    return written


__all__ = ["PASS", "RULES", "Hooks", "decide", "hooks", "keeps", "listing", "reply", "shape", "switched_off"]
