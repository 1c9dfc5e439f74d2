"""How tool calls are spelled: the prompt that shows the tools, the grammar of a call turn, and
reading calls back from the text.

Two kinds of format:

- :data:`JSON_FORMAT`, the generic one, for any model: the tools are listed in a system
  message and a turn of calls is a JSON list ``[{"name": ..., "arguments": {...}}, ...]``.
  History is rendered in plain roles (calls as the assistant's JSON, results as user
  messages), so it works with chat templates that know only system/user/assistant.
- native formats, for models whose chat template renders tools itself: the tools go through
  the template and calls are written as that family writes them — Hermes/Qwen
  ``<tool_call>{...}</tool_call>``, Llama 3.x ``{"name": ..., "parameters": {...}}``,
  Mistral ``[TOOL_CALLS][{...}]``.

Either way the JSON of each call comes from the one schema of :func:`call_schema`, so a name is
always followed by that tool's own arguments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._memo import memo
from .._backends._seam import ChoiceTable
from .._backends._seam import Message
from .._errors import GrammarError
from .._gbnf import parse_gbnf
from .._gbnf._analysis import references_by_rule
from .._grammar import Grammar, SchemaConverter
from .._schema.options import FLEXIBLE_WHITESPACE_LIMIT, SEPARATORS
from ._call_schema import TOOL_GRAMMAR_OPTIONS, call_schema
from ._tool import Tool
from .._generate._choice_table import choice_table
from .._generate._describe import describe_schema

_START_RULE = "tool-turn"


@dataclass(frozen=True)
class ToolFormat:
    """One way of writing tool calls.

    - ``arguments_key``: the key of a call's arguments ("arguments"; Llama 3.x: "parameters").
    - ``opener``: the text every call turn starts with (scored against answering in words,
      and the lazy trigger where a backend cannot score).
    - ``before``/``between``/``after``: the text around the calls' JSON (a list for JSON and
      Mistral, one wrapper per call for Hermes, ``; `` between Llama calls).
    - ``native``: tools are rendered by the model's chat template.
    """

    name: str
    arguments_key: str
    before: str
    between: str
    after: str
    each_before: str = ""
    each_after: str = ""
    native: bool = False
    max_calls: int | None = None  # the most calls the family writes in one turn
    marker: str = ""  # text found only in chat templates of this family
    #: Other wrappers (before, after) the family's models write around a call: read back, and
    #: triggered on when the model decides, but never forced (the first wrapper is the format's).
    also: tuple[tuple[str, str], ...] = ()

    @property
    def opener(self) -> str:
        return self.before + self.each_before

    @property
    def wrappers(self) -> tuple[tuple[str, str], ...]:
        return ((self.each_before, self.each_after), *self.also)

    def triggers(self, tools: Sequence[Tool]) -> tuple[str, ...]:
        """The regex triggers of a turn where the model decides: the format's opener, and each
        other wrapper followed by the start of a call to one of ``tools``, spelled as the
        grammar spells it (what a trigger matched must be text the grammar accepts). Each
        pattern is one group, so llama.cpp and the in-process sampler agree that the grammar
        takes over where the match starts."""
        names = "|".join(re.escape(t.name) for t in tools)
        space = f"\\s{{0,{FLEXIBLE_WHITESPACE_LIMIT}}}"
        head = f'\\{{{space}"name"{space}:{space}"(?:{names})"'
        found = [f"({_pattern(self.opener)})" if self.opener else ""]
        found += [f"({_pattern(self.before + before)}{head})" for before, _ in self.also]
        return tuple(found)

    def opening(self, text: str, tools: Sequence[Tool]) -> int | None:
        """Where the first call of a turn where the model decides starts in ``text`` (None: the
        model answered in words)."""
        starts = [m.start() for p in self.triggers(tools) if (m := re.search(p, text))]
        return min(starts, default=None)

    # -- grammar ------------------------------------------------------------------------------

    def grammar(self, tools: Sequence[Tool], *, max_calls: int, min_calls: int = 1, lazy: bool = False
                ) -> tuple[Grammar, ChoiceTable | None]:
        """The grammar of a turn of min_calls..max_calls calls, and its whole-alternative choices
        (built once per format, tool names and schemas, and call counts). ``lazy``: the turn
        starts at one of :meth:`triggers`, so each call may be in any wrapper the family writes."""
        key = tuple((t.name, json.dumps(t.parameters)) for t in tools)  # key order is meaningful
        most = min(max_calls, self.max_calls or max_calls)
        return _turn_grammar(self, key, most, min(min_calls, most), lazy and bool(self.also))

    def _build_grammar(self, tools: Sequence[Tool], max_calls: int, min_calls: int = 1, lazy: bool = False
                       ) -> tuple[Grammar, ChoiceTable | None]:
        one = call_schema(tools, arguments_key=self.arguments_key)
        # A model that decides writes its calls as it was trained to, often spread over lines:
        # its whitespace is let through (bounded), and the name is left to the grammar alone.
        options = replace(TOOL_GRAMMAR_OPTIONS, whitespace="flexible") if lazy else TOOL_GRAMMAR_OPTIONS
        choices = None if lazy else choice_table(one, separators=SEPARATORS["compact"], refusal=False) or None
        call_rules = _renamed_root(SchemaConverter.shared().convert_schema(one, options=options).gbnf, "tool-call")
        wrapped = [f"{_literal(b)} tool-call {_literal(a)}".strip() for b, a in self.wrappers[: None if lazy else 1]]
        item = wrapped[0] if len(wrapped) == 1 else "( " + " | ".join(wrapped) + " )"
        between = _literal(self.between)
        if lazy and self.between == "\n":  # blocks of calls are often set apart by a blank line
            between = '( "\\n" | "\\n\\n" )'
        more = f"( {between} {item} ){{{min_calls - 1},{max_calls - 1}}}" if max_calls > 1 else ""
        turn = f"{_START_RULE} ::= {_literal(self.before)} {item} {more} {_literal(self.after)}"
        text = re.sub(r" +", " ", turn).rstrip() + "\n" + call_rules
        return Grammar(text, root=_START_RULE), _at_every_call(choices)

    # -- prompt ---------------------------------------------------------------------------------

    def render(
        self, messages: Sequence[Message], tools: Sequence[Tool]
    ) -> tuple[list[Message], tuple[dict[str, Any], ...]]:
        """The conversation as the model sees it, and the tools for the chat template (with no
        tools: the conversation alone, as a reply in words sees it)."""
        if self.native:
            return [self._native_message(m) for m in messages], tuple(t.to_openai() for t in tools)
        plain = self._plain(messages)
        return _merged(_with_system(plain, tools_prompt(tools, self)) if tools else plain), ()

    def _native_message(self, message: Message) -> Message:
        if not message.tool_calls:
            return message
        calls = tuple(_template_call(call) for call in message.tool_calls)
        return Message(message.role, message.content, calls, message.tool_call_id, message.name)

    def _plain(self, messages: Sequence[Message]) -> list[Message]:
        plain: list[Message] = []
        for message in messages:
            if message.role == "tool":
                label = f"Result of {message.name}" if message.name else "Tool result"
                plain.append(Message("user", f"{label}: {message.content}"))
            elif message.tool_calls:
                plain.append(Message("assistant", self.spell(message.tool_calls)))
            else:
                plain.append(message)
        return plain

    def spell(self, calls: Sequence[Any]) -> str:
        """The text of a turn that made ``calls`` (OpenAI-shaped dicts), as this format writes it."""
        parts = []
        for call in calls:
            function = call["function"]
            arguments = json.loads(function["arguments"]) if isinstance(function["arguments"], str) else function["arguments"]
            body = json.dumps({"name": function["name"], self.arguments_key: arguments}, ensure_ascii=False)
            parts.append(self.each_before + body + self.each_after)
        return self.before + self.between.join(parts) + self.after

    # -- reading ------------------------------------------------------------------------------

    def parse(self, text: str) -> list[tuple[str, str]]:
        """(name, arguments JSON) of each call in ``text``, in order."""
        return [(name, arguments) for name, arguments, _ in self.parse_spans(text)]

    def parse_spans(self, text: str) -> list[tuple[str, str, int]]:
        """(name, arguments JSON, where the call's object starts) of each call in ``text``."""
        calls = []
        for value, start in _json_objects(text):
            if isinstance(value, dict) and "name" in value and self.arguments_key in value:
                calls.append((value["name"], json.dumps(value[self.arguments_key], ensure_ascii=False), start))
        return calls

    def call_start(self, text: str, start: int) -> int:
        """Where the call whose JSON object starts at ``start`` begins, wrapper and separator
        included: cutting there and appending ``after`` leaves the turn's earlier calls."""
        head = text[:start]
        wrapper = next((b for b, _ in self.wrappers if b and head.endswith(b)), "")
        cut = start - len(wrapper)
        while self.between and text[:cut].endswith(self.between):
            cut -= len(self.between)
        return cut


@memo(64)
def _turn_grammar(
    fmt: ToolFormat, tools: tuple[tuple[str, str], ...], max_calls: int, min_calls: int, lazy: bool
) -> tuple[Grammar, ChoiceTable | None]:
    schemas = [Tool(name, "", json.loads(parameters)) for name, parameters in tools]
    return fmt._build_grammar(schemas, max_calls, min_calls, lazy)


def _at_every_call(choices: ChoiceTable | None) -> ChoiceTable | None:
    """The choices of one call, at the root of each call object (calls are top-level objects or
    items of the top-level list: the cursor sees both paths)."""
    if not choices:
        return None
    table = {
        path: tuple(replace(a, per_token=True) for a in alternatives) if path == ("name",) else alternatives
        for path, alternatives in choices.items()
    }
    table.update({(None, *path): alternatives for path, alternatives in table.items()})
    return table


def _renamed_root(gbnf: str, name: str) -> str:
    """``gbnf`` with its ``root`` rule renamed (it must not be referenced by other rules)."""
    tree = parse_gbnf(gbnf)
    if name in tree.rules or any(
        ref.name == "root" for refs in references_by_rule(tree).values() for ref in refs
    ):
        raise GrammarError(f"cannot rename the root rule of a tool grammar to {name!r}")
    return re.sub(r"^root ::=", f"{name} ::=", gbnf, count=1, flags=re.MULTILINE)


def _pattern(text: str) -> str:
    """``text`` as a regex both Python and llama.cpp (ECMAScript) read literally."""
    return re.escape(text).replace("\\\n", "\\n")


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False) if text else ""


def _json_objects(text: str) -> list[tuple[Any, int]]:
    """Every top-level JSON value in ``text`` that starts with ``{`` or ``[`` (lists flattened)
    with the offset where it starts (a list's items: where each item starts)."""
    decoder = json.JSONDecoder()
    found: list[tuple[Any, int]] = []
    at = 0
    while True:
        starts = [i for i in (text.find("{", at), text.find("[", at)) if i >= 0]
        if not starts:
            return found
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            at = start + 1
            continue
        if isinstance(value, list):
            found.extend(_items(text, start, value))
        else:
            found.append((value, start))
        at = end


def _items(text: str, start: int, items: list[Any]) -> list[tuple[Any, int]]:
    """The items of the list that starts at ``start``, with their offsets."""
    decoder = json.JSONDecoder()
    found: list[tuple[Any, int]] = []
    at = start + 1
    for _ in items:
        while text[at] in " \t\r\n,":
            at += 1
        value, end = decoder.raw_decode(text, at)
        found.append((value, at))
        at = end
    return found


def _template_call(call: Any) -> dict[str, Any]:
    """A call as chat templates read it: arguments as an object (most index into them)."""
    function = dict(call["function"])
    if isinstance(function.get("arguments"), str):
        try:
            function["arguments"] = json.loads(function["arguments"])
        except ValueError:
            pass
    return {**call, "function": function}


def _with_system(messages: list[Message], prompt: str) -> list[Message]:
    if messages and messages[0].role == "system":
        return [Message("system", f"{messages[0].content}\n\n{prompt}"), *messages[1:]]
    return [Message("system", prompt), *messages]


def _merged(messages: list[Message]) -> list[Message]:
    """Consecutive messages of one role joined (templates that insist on alternating roles)."""
    merged: list[Message] = []
    for message in messages:
        if merged and merged[-1].role == message.role and message.role != "system":
            merged[-1] = Message(message.role, f"{merged[-1].content}\n\n{message.content}")
        else:
            merged.append(message)
    return merged


def tools_prompt(tools: Sequence[Tool], format: ToolFormat) -> str:
    """The system-message text that shows the tools to the model (generic format)."""
    lines = ["You can call these functions:"]
    for tool in tools:
        description = " ".join(tool.description.split())
        shape = describe_schema(tool.parameters, refusal=False).split("\n")
        lines.append(f"- {tool.name}: {description}" if description else f"- {tool.name}")
        lines.append(f"  arguments: {shape[1]}")
        notes = shape[shape.index("Fields:") + 1 :] if "Fields:" in shape else []
        lines.extend(f"  {note}" for note in notes)
    example = format.spell([{"function": {"name": "<function name>", "arguments": {"<argument>": "<value>"}}}])
    lines += [
        "",
        f"To call functions, answer with JSON only: {example}, one object per call.",
        "Take the argument values from the user's request. If no function fits the request, "
        "answer in plain words instead.",
    ]
    return "\n".join(lines)


JSON_FORMAT = ToolFormat("json", "arguments", before="[", between=", ", after="]")
#: Hermes and Qwen 2.5+: one ``<tool_call>`` block per call.
HERMES_FORMAT = ToolFormat(
    "hermes", "arguments", before="", between="\n", after="", each_before="<tool_call>\n",
    each_after="\n</tool_call>", native=True, marker="<tool_call>",
    # Qwen2.5-Coder writes its calls as fenced JSON, or as a bare object (read, never forced).
    also=(("```json\n", "\n```"), ("```\n", "\n```"), ("", "")),
)
#: Llama 3.1-3.3 JSON tool calls: one call a turn, its arguments under "parameters".
LLAMA3_FORMAT = ToolFormat(
    "llama3", "parameters", before="", between="", after="", native=True, max_calls=1,
    marker='"parameters": dictionary of argument name',
)
#: Mistral: ``[TOOL_CALLS]`` and a JSON list of calls.
MISTRAL_FORMAT = ToolFormat(
    "mistral", "arguments", before="[TOOL_CALLS][", between=", ", after="]", native=True,
    marker="[TOOL_CALLS]",
)
FORMATS = {f.name: f for f in (JSON_FORMAT, HERMES_FORMAT, LLAMA3_FORMAT, MISTRAL_FORMAT)}


def format_for(template: str | None, name: str | None = None) -> ToolFormat:
    """The format called ``name``, or the one the chat template ``template`` speaks natively
    (the generic JSON format when it renders no tools)."""
    if name is not None:
        if name not in FORMATS:
            raise ValueError(f"tool_format must be 'auto' or one of {sorted(FORMATS)}, not {name!r}")
        return FORMATS[name]
    for candidate in FORMATS.values():
        if candidate.native and template and candidate.marker in template:
            return candidate
    return JSON_FORMAT


__all__ = ["FORMATS", "JSON_FORMAT", "ToolFormat", "format_for", "tools_prompt"]
