"""The tool policy a suite runs structgen with, named the way a user names it.

A run picks one of structgen's named policies and, optionally, sets some of its rules by
keyword, each rule a field of ``structgen.Policy``::

    python -m bench.suites.bfcl --policy tool-trained --rule offered_call=new-word --rule channel=off

and records both in its runner label: ``structgen:tool-trained+offered_call=new-word+channel=off``.
Suites that compare several runners in one run (``tool_decision``, ``bfcl_multi_turn``) take
that same form in ``--runners``. structgen is then called with ``policy=`` alone: the name
itself when no rule is set (what a user writes), else the named policy's ``Policy`` with the
rules replaced (``dataclasses.replace``).

The fields and the values each takes are read from ``structgen.Policy``'s annotations (public);
the named policies' own rules are not public (:func:`named_rules`: bench/README.md,
"Internals the bench measures").
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import structgen

#: structgen's named policies: what ``call_tools(policy=NAME)`` takes ("auto" picks one of the
#: others by the model's chat template: ``LLM.tool_policy``).
NAMES = ("auto", "model", "tool-trained", "small-model")


@lru_cache(maxsize=None)
def rule_values() -> dict[str, tuple[str, ...]]:
    """Each rule of ``structgen.Policy`` (its fields, in order) and the values it takes (each
    field's ``Literal``)."""
    hints = typing.get_type_hints(structgen.Policy)
    return {f.name: typing.get_args(hints[f.name]) for f in dataclasses.fields(structgen.Policy)}


def named_rules(name: str) -> structgen.Policy:
    """The rules of the named policy ``name`` (not "auto": resolve it first, :attr:`LLM.tool_policy`)."""
    return structgen.policy(name)  # type: ignore[arg-type]


def parse_rule(text: str) -> tuple[str, str]:
    """``FIELD=VALUE`` as (field, value); ValueError naming the valid fields, or the field's
    valid values, when it is not one."""
    field, equals, value = text.partition("=")
    values = rule_values()
    if not equals or not field or not value:
        raise ValueError(f"a rule is FIELD=VALUE, not {text!r}; the fields: {', '.join(values)}")
    if field not in values:
        raise ValueError(f"unknown rule {field!r}; the rules of structgen.Policy: {', '.join(values)}")
    if value not in values[field]:
        raise ValueError(f"{field} takes {', '.join(values[field])}; not {value!r}")
    return field, value


@dataclass(frozen=True)
class NamedPolicy:
    """A named policy with some of its rules set by keyword (none: the policy as structgen
    names it)."""

    name: str = "auto"
    rules: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.name not in NAMES:
            raise ValueError(f"unknown policy {self.name!r}; structgen's named policies: {', '.join(NAMES)}")
        fields = [field for field, _ in self.rules]
        for field, value in self.rules:
            parse_rule(f"{field}={value}")
        twice = sorted({f for f in fields if fields.count(f) > 1})
        if twice:
            raise ValueError(f"a rule set twice: {', '.join(twice)}")

    @classmethod
    def parse(cls, label: str) -> NamedPolicy:
        """``NAME[+FIELD=VALUE...]``, as :attr:`label` writes it."""
        name, *rules = label.split("+")
        return cls(name, tuple(parse_rule(rule) for rule in rules))

    @classmethod
    def of(cls, name: str, **rules: str) -> NamedPolicy:
        """``NamedPolicy.of("small-model", decision="words")``."""
        return cls(name, tuple(rules.items()))

    @property
    def label(self) -> str:
        """``NAME[+FIELD=VALUE...]``: the policy a run's results record."""
        return "+".join([self.name, *(f"{field}={value}" for field, value in self.rules)])

    def policy(self, llm: Any = None) -> str | structgen.Policy:
        """What ``call_tools``/``run_tools`` get as ``policy=``: the name where no rule is set;
        else the named policy's rules with these replaced. "auto" with rules resolves to the
        named policy it means for ``llm``'s model (``LLM.tool_policy``), so ``llm`` is needed
        then."""
        if not self.rules:
            return self.name
        name = self.name
        if name == "auto":
            if llm is None:
                raise ValueError("policy 'auto' with rules needs the model: pass the LLM")
            name = llm.tool_policy
        rules: dict[str, Any] = dict(self.rules)  # each value checked against its field's values
        return dataclasses.replace(named_rules(name), **rules)


def _rule(text: str) -> tuple[str, str]:
    try:
        return parse_rule(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser: argparse.ArgumentParser, what: str = "structgen's tool policy") -> None:
    """``--policy NAME`` and repeatable ``--rule FIELD=VALUE``; read back by :func:`from_arguments`."""
    parser.add_argument("--policy", choices=NAMES, default="auto",
                        help=f"{what}: one of structgen's named policies (default: auto, picked by the model)")
    parser.add_argument("--rule", type=_rule, action="append", default=[], metavar="FIELD=VALUE",
                        help="set one rule of the policy by keyword, a field of structgen.Policy (repeatable): "
                             + "; ".join(f"{f}: {'|'.join(v)}" for f, v in rule_values().items()))


def from_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> NamedPolicy:
    """The policy ``--policy`` and ``--rule`` named (a parser error when a rule is set twice)."""
    try:
        return NamedPolicy(args.policy, tuple(args.rule))
    except ValueError as error:
        parser.error(str(error))


def parse_runner(runner: str, engines: Iterable[str], peers: Iterable[str] = ()) -> tuple[str, NamedPolicy | None]:
    """A runner of a suite, ``ENGINE[:NAME[+FIELD=VALUE...]]`` for one of structgen's ``engines``
    or the name of one of its ``peers``, as (engine, policy); the policy is None where none is
    written. ValueError: an unknown runner, policy or rule, or a peer given a policy."""
    engine, colon, label = runner.partition(":")
    engines, peers = tuple(engines), tuple(peers)
    if engine in peers:
        if colon:
            raise ValueError(f"{engine!r} takes no policy: {runner!r}")
        return engine, None
    if engine not in engines:
        raise ValueError(f"unknown runner {engine!r}: one of {', '.join((*engines, *peers))}; a structgen one "
                         "may name its policy, ENGINE:NAME[+FIELD=VALUE...]")
    return engine, NamedPolicy.parse(label) if colon else None
