"""Policies on the command line (bench/policies.py): a named policy with rules set by keyword,
its label, what call_tools gets, and the errors a wrong name or value gives (no model)."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

import structgen
from bench import policies
from bench.policies import NamedPolicy, parse_rule, parse_runner, rule_values
from structgen.testing import ScriptedBackend


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="suite")
    policies.add_arguments(made)
    return made


def chosen(*argv: str) -> NamedPolicy:
    made = parser()
    return policies.from_arguments(made, made.parse_args(list(argv)))


def test_the_rules_are_the_fields_of_policy_with_their_values() -> None:
    values = rule_values()
    assert list(values) == [f.name for f in dataclasses.fields(structgen.Policy)]
    assert values["offered_call"] == ("same-tool", "new-word", "new-word-or-tool")
    assert all(values.values())


def test_a_named_policy_without_rules_is_passed_by_name() -> None:
    policy = chosen("--policy", "tool-trained")
    assert policy == NamedPolicy("tool-trained") and policy.label == "tool-trained"
    assert policy.policy() == "tool-trained"
    assert chosen() == NamedPolicy("auto") and chosen().policy() == "auto"


def test_rules_replace_the_named_policys_own_by_keyword() -> None:
    policy = chosen("--policy", "tool-trained", "--rule", "offered_call=new-word", "--rule", "channel=off")
    assert policy.label == "tool-trained+offered_call=new-word+channel=off"
    built = policy.policy()
    assert isinstance(built, structgen.Policy)
    named = policies.named_rules("tool-trained")
    assert built == dataclasses.replace(named, offered_call="new-word", channel="off")
    assert built.offered_tools == named.offered_tools != "close"  # the other rules stay the named policy's


def test_a_label_reads_back_as_the_same_policy() -> None:
    policy = NamedPolicy.of("small-model", decision="meaning", arguments="copied")
    assert policy.label == "small-model+decision=meaning+arguments=copied"
    assert NamedPolicy.parse(policy.label) == policy


def test_auto_with_rules_resolves_by_the_model() -> None:
    llm = structgen.LLM(backend=ScriptedBackend())
    policy = NamedPolicy.of("auto", arguments="copied")
    assert policy.policy(llm) == dataclasses.replace(policies.named_rules(llm.tool_policy), arguments="copied")
    with pytest.raises(ValueError, match="needs the model"):
        policy.policy()


@pytest.mark.parametrize(("argv", "message"), [
    (["--policy", "tool_trained"], "invalid choice: 'tool_trained'"),
    (["--rule", "channel"], "a rule is FIELD=VALUE"),
    (["--rule", "chanel=off"], "unknown rule 'chanel'; the rules of structgen.Policy: decision, arguments,"),
    (["--rule", "channel=of"], "channel takes every, undecided, off; not 'of'"),
    (["--rule", "channel=off", "--rule", "channel=every"], "a rule set twice: channel"),
])
def test_a_wrong_name_or_value_is_a_parser_error_listing_the_valid_ones(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        chosen(*argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_runner_specs() -> None:
    assert parse_runner("peer", ("structgen",), ("peer",)) == ("peer", None)
    assert parse_runner("structgen", ("structgen",)) == ("structgen", None)
    assert parse_runner("structgen:model+grounding=off", ("structgen",)) == (
        "structgen", NamedPolicy.of("model", grounding="off"))
    with pytest.raises(ValueError, match="takes no policy"):
        parse_runner("server:auto", ("structgen",), ("server",))
    with pytest.raises(ValueError, match="unknown runner 'pear': one of structgen, server"):
        parse_runner("pear", ("structgen",), ("server",))
    with pytest.raises(ValueError, match="unknown policy 'fast'; structgen's named policies: auto, model"):
        parse_runner("structgen:fast", ("structgen",))
    with pytest.raises(ValueError, match="decision takes"):
        parse_rule("decision=maybe")


def test_the_suites_label_their_structgen_runners_by_policy() -> None:
    from bench.suites import bfcl, bfcl_multi_turn, tool_decision

    calling = bfcl.Calling(NamedPolicy.of("tool-trained", offered_call="new-word"))
    assert calling.label() == "structgen:tool-trained+offered_call=new-word"
    assert calling.label("structgen-server") == "structgen-server:tool-trained+offered_call=new-word"
    assert bfcl.Calling(reasoning=128).options(None) == {"policy": "auto", "reasoning": 128}
    assert tool_decision.runner_label("structgen") == ("structgen", NamedPolicy(), "structgen:auto")
    assert tool_decision.runner_label("peer") == ("peer", None, "peer")
    assert all(tool_decision.runner_label(r) for r in tool_decision.RUNNERS)
    with pytest.raises(ValueError, match="unknown runner 'structgen-remote'"):
        tool_decision.runner_label("structgen-remote:auto")
    assert bfcl_multi_turn.runner_label("structgen:tool-trained+grounding=off") == "structgen:tool-trained+grounding=off"
    assert bfcl_multi_turn.runner_label("structgen") == "structgen:auto"
