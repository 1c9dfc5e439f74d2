"""What to generate for an output type: its grammar, validator, prompt hint and choice points.

An :class:`OutputSpec` is built once per (type, options) and cached — on the class itself for
``@structured`` classes, otherwise in the shared :class:`~structgen.SchemaConverter`'s cache
beside the grammar it holds, under the converter's byte budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Generic, Literal, TypeVar, overload

from pydantic import TypeAdapter, ValidationError
from typing_extensions import Unpack

from .._backends._seam import ChoiceTable, MemberRules, Message
from .._grammar import SchemaConverter
from .._schema.options import OPTION_NAMES, PRESETS, SEPARATORS, GrammarChanges, GrammarOptions
from ._choice_table import choice_table, member_rules
from ._describe import STYLES, DescribeStyle, DictionaryShape, describe_schema, example_answer
from ._messages import as_messages

T = TypeVar("T")
C = TypeVar("C")

_SPEC_ATTRIBUTE = "__structgen_output__"
HintPlacement = Literal["system", "before_prompt", "after_prompt"]
"""Where the output type's instructions go: a system message, or before or after the prompt."""
PLACEMENTS: tuple[HintPlacement, ...] = ("system", "before_prompt", "after_prompt")
#: The description style ``describe=True`` means.
DEFAULT_DESCRIBE_STYLE: DescribeStyle = "full"

@dataclass(frozen=True)
class Refusal:
    """The model declined to answer; ``reason`` is what it said. Returned with ``on_refusal="return"``."""

    reason: str


@dataclass(frozen=True)
class OutputOptions:
    """Per-type generation options (set with ``@structured``).

    - ``grammar``: options of the JSON Schema → GBNF conversion (whitespace, key order,
      strictness, ...), see :class:`~structgen.GrammarOptions`; the ``"generation"`` preset.
    - ``describe``: put a compact description of the expected fields in the prompt: a style
      (``"full"``: the JSON shape and the fields' descriptions; ``"shape"``: the shape alone;
      ``"listing"``: one line per field), True for the default style, False for none.
    - ``examples``: add one example answer made of the fields' ``Field(examples=[...])``.
    - ``instructions``: extra text for the prompt hint of this type.
    - ``hint_placement``: where the hint (instructions, description, example) goes: the
      system message, or the user's message before or after the prompt.
    - ``choose_by_likelihood``: decide Literal/Enum values and union branches by each
      alternative's full likelihood instead of token by token.
    """

    grammar: GrammarOptions = PRESETS["generation"]
    describe: bool | DescribeStyle = True
    instructions: str | None = None
    choose_by_likelihood: bool = True
    examples: bool = False
    hint_placement: HintPlacement = "system"

    def __post_init__(self) -> None:
        if not isinstance(self.describe, bool) and self.describe not in STYLES:
            raise TypeError(f"describe must be a bool or one of {', '.join(STYLES)}")
        if not isinstance(self.choose_by_likelihood, bool) or not isinstance(self.examples, bool):
            raise TypeError("choose_by_likelihood and examples must be bools")
        if self.instructions is not None and not isinstance(self.instructions, str):
            raise TypeError("instructions must be a str")
        if self.hint_placement not in PLACEMENTS:
            raise TypeError(f"hint_placement must be one of {', '.join(PLACEMENTS)}")

    @property
    def describe_style(self) -> DescribeStyle | None:
        """The description style in effect (None: no description)."""
        if self.describe is False:
            return None
        return DEFAULT_DESCRIBE_STYLE if self.describe is True else self.describe


class OutputSpec(Generic[T]):
    """A type ready for generation: grammar (GBNF + root), validator, description, choices."""

    def __init__(self, output_type: Any, options: OutputOptions) -> None:
        from .._types import json_schema_of, type_adapter

        self.output_type = output_type
        self.options = options
        self.adapter: TypeAdapter[T] = type_adapter(output_type)
        self.schema: dict[str, Any] = json_schema_of(output_type)
        self.grammar = SchemaConverter.shared().convert(self.schema, options=options.grammar)
        self.refusal = options.grammar.refusal
        self._hints: dict[tuple[DictionaryShape, bool], str | None] = {}
        # Pydantic's own schema still marks sets (``uniqueItems``), which ``self.schema`` leaves
        # to the validator: the loop can at least avoid writing an item twice.
        self.members: MemberRules = member_rules(self.adapter.json_schema(mode="validation"))
        self.choices: ChoiceTable | None = None
        if options.choose_by_likelihood and options.grammar.whitespace in SEPARATORS:
            self.choices = choice_table(
                self.schema, separators=SEPARATORS[options.grammar.whitespace], refusal=self.refusal
            ) or None

    def hint(self, dictionaries: DictionaryShape = "words", *, worked: bool = False) -> str | None:
        """The text that tells the model what to answer: instructions, the description (its
        dictionaries shown as ``dictionaries`` says; ``worked``: the answer ends a reply that
        works the request out first) and the example, built once per shape."""
        if (dictionaries, worked) not in self._hints:
            self._hints[dictionaries, worked] = self._hint(dictionaries, worked)
        return self._hints[dictionaries, worked]

    def system_hint(self, dictionaries: DictionaryShape = "words", *, worked: bool = False) -> str | None:
        """The hint when it goes into the system message (None when it goes with the prompt)."""
        return self.hint(dictionaries, worked=worked) if self.options.hint_placement == "system" else None

    def _hint(self, dictionaries: DictionaryShape, worked: bool) -> str | None:
        parts = []
        if self.options.instructions:
            parts.append(self.options.instructions)
        style = self.options.describe_style
        if style is not None:
            parts.append(describe_schema(
                self.schema, refusal=self.refusal, style=style, dictionaries=dictionaries, worked=worked))
        example = example_answer(self.schema) if self.options.examples else None
        if example is not None:
            parts.append(example)
        return "\n\n".join(parts) or None

    def conversation(
        self, prompt: str | None, *, system: str | None, messages: Any, dictionaries: DictionaryShape = "words",
        worked: bool = False,
    ) -> list[Message]:
        """The messages of a call: the caller's ``system``, ``messages`` and ``prompt`` with the
        hint placed as ``hint_placement`` says (a system hint joins the caller's system text;
        a prompt hint goes into the last user message, before or after its text); ``worked``:
        the answer ends a reply that works the request out first."""
        full_hint, hint = self.hint(dictionaries, worked=worked), self.system_hint(dictionaries, worked=worked)
        if system is not None and not isinstance(system, str):
            raise TypeError("system must be a str")
        conversation = as_messages(prompt, system=_join(system, hint), messages=messages)
        if system is None and hint is not None and conversation[0].role == "system" and messages:
            conversation = _merge_system(conversation)
        if full_hint is None or hint is not None:
            return conversation
        last = max(i for i, m in enumerate(conversation) if m.role == "user")
        text = conversation[last].content
        joined = f"{full_hint}\n\n{text}" if self.options.hint_placement == "before_prompt" else f"{text}\n\n{full_hint}"
        return [*conversation[:last], Message("user", joined), *conversation[last + 1 :]]

    def refusal_reason(self, text: str) -> str | None:
        """The reason if ``text`` is the refusal branch ``{"refusal": "..."}``, else None."""
        if not self.refusal:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        if isinstance(value, dict) and set(value) == {"refusal"} and isinstance(value["refusal"], str):
            return value["refusal"]
        return None

    def validate(self, text: str) -> T:
        """The validated value of ``text`` (raises pydantic's ValidationError)."""
        return self.adapter.validate_json(text)


def _join(system: str | None, hint: str | None) -> str | None:
    if system and hint:
        return f"{system}\n\n{hint}"
    return system or hint


def _merge_system(conversation: list[Message]) -> list[Message]:
    """Fold a caller's own system message (from ``messages``) into the generated hint."""
    hint, rest = conversation[0], conversation[1:]
    if rest and rest[0].role == "system":
        return [Message("system", f"{rest[0].content}\n\n{hint.content}"), *rest[1:]]
    return conversation


def spec_for(output_type: Any, options: OutputOptions | None = None) -> OutputSpec[Any]:
    """The cached spec of ``output_type`` (decorated classes carry their own)."""
    if options is None:
        own = output_type.__dict__.get(_SPEC_ATTRIBUTE) if isinstance(output_type, type) else None
        if own is not None:
            return own  # type: ignore[no-any-return]
        options = OutputOptions()
    try:
        # Options hold a mapping (refs), so they are keyed by their (deterministic) repr;
        # the type's repr keeps Union[A, B] and Union[B, A] (equal, but ordered) apart.
        key: Any = (output_type, repr(output_type), repr(options))
        hash(key)
    except TypeError:
        return OutputSpec(output_type, options)
    return SchemaConverter.shared().derive(
        ("output", key), lambda: OutputSpec(output_type, options), lambda spec: len(spec.grammar.gbnf)
    )


def options_from(settings: Mapping[str, Any]) -> OutputOptions:
    """The OutputOptions of ``@structured(**settings)``, for a caller that holds them in a
    mapping (bench/suites/quality.py's variants); structgen itself passes them by name."""
    prompting = {k: v for k, v in settings.items() if k in PROMPT_OPTION_NAMES}
    grammar = GrammarOptions.preset("generation").with_changes(
        **{k: v for k, v in settings.items() if k not in PROMPT_OPTION_NAMES})
    return OutputOptions(grammar, **prompting)


#: The prompting options of ``structured()`` (beside the grammar options).
PROMPT_OPTION_NAMES = frozenset(f.name for f in fields(OutputOptions)) - {"grammar"}


@overload
def structured(cls: type[C], /) -> type[C]: ...
@overload
def structured(
    cls: None = None, /, *, describe: bool | DescribeStyle = ..., instructions: str | None = ...,
    choose_by_likelihood: bool = ..., examples: bool = ..., hint_placement: HintPlacement = ...,
    **grammar: Unpack[GrammarChanges],
) -> Callable[[type[C]], type[C]]: ...
def structured(
    cls: type[C] | None = None, /, *, describe: bool | DescribeStyle = True, instructions: str | None = None,
    choose_by_likelihood: bool = True, examples: bool = False, hint_placement: HintPlacement = "system",
    **grammar: Unpack[GrammarChanges],
) -> type[C] | Callable[[type[C]], type[C]]:
    """Class decorator: per-model generation options, grammar built now and cached on the class.

    ``@structured`` alone uses the defaults: the ``"generation"`` preset of
    :class:`~structgen.GrammarOptions` and :class:`OutputOptions`' own. The keywords are the
    prompting fields of OutputOptions (``describe``: a bool or a style, ``"full"``,
    ``"shape"``, ``"listing"``; ``hint_placement``: ``"system"``, ``"before_prompt"`` or
    ``"after_prompt"``) and :class:`~structgen.GrammarChanges`, which change fields of the
    preset (``@structured(whitespace="minified", describe=False)``); what each means is in
    those classes. A wrong option or a type that cannot be converted raises at decoration time.
    """
    unknown = sorted(set(grammar) - OPTION_NAMES)
    if unknown:
        raise TypeError(f"unknown option(s) of structured(): {', '.join(unknown)}")
    options = OutputOptions(
        grammar=GrammarOptions.preset("generation", **grammar), describe=describe, instructions=instructions,
        choose_by_likelihood=choose_by_likelihood, examples=examples, hint_placement=hint_placement,
    )

    def decorate(target: type[C]) -> type[C]:
        if not isinstance(target, type):
            raise TypeError("@structured decorates classes (Pydantic models, dataclasses, TypedDicts)")
        spec: OutputSpec[C] = OutputSpec(target, options)
        try:
            setattr(target, _SPEC_ATTRIBUTE, spec)
        except TypeError:  # a built-in type such as int takes no attributes
            raise TypeError("@structured decorates classes of your own (Pydantic models, "
                            f"dataclasses, TypedDicts), not the built-in {target.__name__}") from None
        return target

    return decorate(cls) if cls is not None else decorate


def validation_errors(error: ValidationError) -> list[dict[str, Any]]:
    """Pydantic's errors in a JSON-friendly form (kept in OutputValidationError.attempts)."""
    return [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in error.errors(include_url=False)
    ]
