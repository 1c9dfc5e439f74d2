"""The policies: :class:`Policy`, one value per rule of the rules table (``_table.RULES``, which
runs them), and the named policies (:data:`POLICY_RULES`). docs/policy.md describes every rule
and value, and which named policy uses which; docs/benchmarks.md has the numbers behind them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from typing import Literal, get_args, get_type_hints

DecisionName = Literal["action", "meaning", "words", "model"]
ArgumentsName = Literal["auto", "free", "copied", "free_then_copied"]
OfferedCall = Literal["same-tool", "new-word", "new-word-or-tool"]
OfferedTools = Literal["close", "fitting"]
SecondCall = Literal["offered", "off"]
CallInReply = Literal["text", "kept", "kept-after-calls"]
ChannelScoring = Literal["every", "undecided", "off"]
ListedTools = Literal["offered", "all", "offered-until-calls"]
GroundingName = Literal["said", "off"]
ListedValues = Literal["named", "any"]
Alternatives = Literal["whole", "tokens"]
ReplyTools = Literal["all", "none"]
LaterSteps = Literal["gate", "model", "model-judged"]


@dataclass(frozen=True, kw_only=True)
class Policy:
    """The rules of a tool turn under ``tool_choice="auto"``, one value per rule; each rule is a
    row of the rules table and can be switched alone (``dataclasses.replace(policy, rule=value)``).
    What each rule and value does: docs/policy.md."""

    decision: DecisionName = "action"
    arguments: ArgumentsName = "auto"
    offered_call: OfferedCall = "same-tool"
    offered_tools: OfferedTools = "close"
    second_call: SecondCall = "offered"
    call_in_reply: CallInReply = "text"
    channel: ChannelScoring = "every"
    listed_tools: ListedTools = "offered"
    grounding: GroundingName = "said"
    listed_values: ListedValues = "named"
    alternatives: Alternatives = "whole"
    reply_tools: ReplyTools = "all"
    later_steps: LaterSteps = "gate"

    def __post_init__(self) -> None:
        for rule, values in rule_values().items():
            if getattr(self, rule) not in values:
                raise ValueError(f"{rule} must be one of {', '.join(map(repr, values))}, not {getattr(self, rule)!r}")


@cache
def rule_values() -> dict[str, tuple[str, ...]]:
    """Each rule's values, as its ``Literal`` names them (the rules table has a hook for each)."""
    hints = get_type_hints(Policy)
    return {rule.name: get_args(hints[rule.name]) for rule in fields(Policy)}


PolicyName = Literal["auto", "model", "tool-trained", "small-model"]
"""How a turn under ``tool_choice="auto"`` is decided: ``"model"`` (the model's own choice,
read in the forms it writes), ``"tool-trained"`` (the scored gate, with the rules measured to
help models trained to call tools), ``"small-model"`` (the scored gate, grounding and copied
arguments fitted on models too small to judge), or ``"auto"``, by what the model is."""
ResolvedPolicy = Literal["model", "tool-trained", "small-model"]
POLICIES: tuple[PolicyName, ...] = ("auto", "model", "tool-trained", "small-model")
#: Each named policy's rules (docs/policy.md, "Named policies", says why each differs from the
#: defaults, which are "small-model"'s).
POLICY_RULES: dict[ResolvedPolicy, Policy] = {
    "model": Policy(decision="model", arguments="free", offered_call="new-word", listed_values="any"),
    "tool-trained": Policy(
        arguments="free", offered_call="new-word-or-tool", offered_tools="fitting", channel="undecided",
        listed_values="any", alternatives="tokens", reply_tools="none", listed_tools="offered-until-calls"),
    "small-model": Policy(),
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


def policy_rules(policy: PolicyName | Policy, native: bool) -> Policy:
    """The rules a turn follows: ``policy`` itself, or those of the policy it names."""
    return policy if isinstance(policy, Policy) else POLICY_RULES[resolve_policy(policy, native)]


__all__ = [
    "AUTO_POLICY", "Alternatives", "ArgumentsName", "CallInReply", "ChannelScoring", "DecisionName", "GroundingName",
    "LaterSteps", "ListedTools", "ListedValues", "OfferedCall", "OfferedTools", "POLICIES", "POLICY_RULES", "Policy",
    "PolicyName", "ReplyTools", "ResolvedPolicy", "SecondCall", "policy_rules", "resolve_policy", "rule_values",
]
