"""Tools: a name, a description and a typed arguments schema, made from what users already have.

:func:`as_tool` accepts

- a plain typed Python function, sync or async: its signature gives the parameters, their
  annotations and defaults; its docstring (Google, NumPy or reST) the description and each
  parameter's description;
- a Pydantic model class: the model is the arguments, the name comes from its
  ``model_config["title"]`` or the class name, the description from its docstring;
- an OpenAI-style tool dict ``{"type": "function", "function": {"name", "description",
  "parameters"}}`` (or the inner ``{"name", ...}`` alone) with any JSON Schema we convert, and
  optionally ``"examples"``, a list of requests that should call it (never sent to a server);
  :meth:`Tool.from_dict` and :meth:`Tool.from_schema` make such a tool with a function to run;
- an :class:`~structgen.MCPServer`, connected: its tools, each run by the server (``_mcp``).

Every tool is checked when it is made: a parameter whose type has no JSON Schema, or a schema
the converter cannot enforce, raises :class:`~structgen.ToolDefinitionError` naming the tool
and the parameter, instead of failing later inside a call.
"""

from __future__ import annotations

import inspect
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar, Union, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from .._errors import SchemaError, ToolDefinitionError, ValidatorError
from .._grammar import Grammar, SchemaConverter
from .._schema.options import PRESETS
from ._docstrings import parse_docstring

F = TypeVar("F", bound=Callable[..., Any])
ToolSource = Union["Tool", Callable[..., Any], type[BaseModel], Mapping[str, Any], "ToolSet"]
"""What becomes a tool: a :class:`Tool`, a typed function, a Pydantic model or an OpenAI tool
dict; or a connected :class:`~structgen.MCPServer`, which stands for its tools."""

#: Tool names as chat APIs accept them (dots allowed: BFCL names tools like ``math.factorial``).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,127}")
_TOOL_ATTRIBUTE = "__structgen_tool__"
#: The name of the tool that carries ``run_tools``' typed final answer: its arguments are the
#: answer, not values the user gives.
FINAL_TOOL = "final_result"


@dataclass(frozen=True, eq=False)
class Tool:
    """One tool the model may call.

    ``parameters`` is the JSON Schema of the arguments object. ``arguments_type`` is the
    Pydantic model that validates them (None for tools made from a dict: their arguments come
    back as a plain dict, already matched against ``parameters`` by the grammar).
    ``function`` is what :meth:`ToolCall.invoke <structgen.ToolCall.invoke>` and ``run_tools``
    run (None for model tools, and for dict tools unless given: :meth:`from_dict`,
    :meth:`from_schema`). ``examples`` are requests that should call this tool,
    in users' words, written by the tool's author: the decisions that weigh meaning compare a
    request with them instead of with the tool's own text (docs/tools.md, "Example requests").
    """

    name: str
    description: str
    parameters: dict[str, Any]
    arguments_type: type[BaseModel] | None = None
    function: Callable[..., Any] | None = None
    examples: tuple[str, ...] = ()

    @classmethod
    def from_schema(
        cls, name: str, parameters: Mapping[str, Any], *, description: str = "",
        function: Callable[..., Any] | None = None, examples: Iterable[str] = (),
    ) -> Tool:
        """A tool from the JSON Schema of its arguments (an object schema, converted and
        checked like a tool dict's ``parameters``), run by ``function`` if given: ``run_tools``
        and :meth:`ToolCall.invoke <structgen.ToolCall.invoke>` call it with the arguments as
        keywords (a plain dict's items, as the grammar made them), awaited if it is async.
        Raises :class:`~structgen.ToolDefinitionError` for a name, schema or examples that
        cannot be a tool's."""
        spec = {"name": name, "description": description, "parameters": parameters}
        return replace(from_dict(spec, function=function), examples=_checked_examples(examples, name))

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], *, function: Callable[..., Any] | None = None) -> Tool:
        """A tool from an OpenAI-style tool dict (``{"type": "function", "function": {...}}``
        or the inner function dict), run by ``function`` if given, as in :meth:`from_schema`."""
        return from_dict(spec, function=function)

    def with_examples(self, examples: Iterable[str]) -> Tool:
        """This tool with ``examples`` as its example requests."""
        return replace(self, examples=_checked_examples(examples, self.name))

    @property
    def is_async(self) -> bool:
        return self.function is not None and inspect.iscoroutinefunction(self.function)

    def to_openai(self) -> dict[str, Any]:
        """The tool as OpenAI's chat API (and chat templates) spell it."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters,
        }}

    def validate(self, arguments: str) -> Any:
        """The arguments of a call from their JSON text: a model instance, or a dict.

        Raises pydantic's ValidationError for a model tool whose validators reject them, and
        :class:`~structgen.ValidatorError` when a validator crashes (raises anything else)."""
        if self.arguments_type is None:
            value = json.loads(arguments)
            if not isinstance(value, dict):
                raise ValueError("tool arguments must be a JSON object")
            return value
        try:
            return self.arguments_type.model_validate_json(arguments)
        except ValidationError:
            raise
        except Exception as error:
            raise ValidatorError(
                f"a validator of tool {self.name!r} raised {type(error).__name__}: {error}",
                text=arguments,
            ) from error

    def keywords(self, arguments: Any) -> dict[str, Any]:
        """The keyword arguments that ``function`` is called with for validated ``arguments``."""
        if isinstance(arguments, BaseModel):
            return {name: getattr(arguments, name) for name in type(arguments).model_fields}
        return dict(arguments)


@overload
def tool(function: F, /) -> F: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, examples: Iterable[str] = ()
) -> Callable[[F], F]: ...
def tool(
    function: Callable[..., Any] | None = None, /, *, name: str | None = None,
    description: str | None = None, examples: Iterable[str] = (),
) -> Any:
    """Mark a function (or a Pydantic model class) as a tool, optionally overriding its name and
    description, and giving requests that should call it (``examples``: see :class:`Tool`).

    The tool is built (and checked) now; the function itself is returned unchanged, so it can
    still be called directly and passed in ``tools=[...]``."""

    def decorate(target: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(target, type) and issubclass(target, BaseModel):
            made = from_model(target)
            made = replace(made, name=_checked_name(name or made.name), description=description or made.description,
                           examples=_checked_examples(examples, made.name))
        else:
            made = from_function(target, name=name, description=description, examples=examples)
        setattr(target, _TOOL_ATTRIBUTE, made)
        return target

    return decorate(function) if function is not None else decorate


def as_tool(source: ToolSource) -> Tool:
    """A :class:`Tool` from a function, a Pydantic model class, an OpenAI-style dict or a Tool."""
    if isinstance(source, Tool):
        return source
    if isinstance(source, Mapping):
        return from_dict(source)
    if isinstance(source, type) and issubclass(source, BaseModel):
        made = vars(source).get(_TOOL_ATTRIBUTE)  # not a decorated parent's
        return made if isinstance(made, Tool) else from_model(source)
    if callable(source):
        made = getattr(source, _TOOL_ATTRIBUTE, None)
        return made if isinstance(made, Tool) else from_function(source)
    raise TypeError(
        f"a tool is a function, a Pydantic model class or a tool dict, not {type(source).__name__}"
    )


def as_tools(sources: Any) -> list[Tool]:
    """Tools from a list of sources; names must be unique."""
    if isinstance(sources, (str, bytes, Mapping)) or not hasattr(sources, "__iter__"):
        raise TypeError("tools must be a list of functions, models or tool dicts")
    tools = [made for source in sources for made in _tools_of(source)]
    if not tools:
        raise ValueError("give at least one tool")
    seen: set[str] = set()
    for t in tools:
        if t.name in seen:
            raise ToolDefinitionError(f"two tools are named {t.name!r}", tool=t.name)
        seen.add(t.name)
    return tools


class ToolSet(ABC):
    """A source that stands for several tools in a ``tools`` list: a connected
    :class:`~structgen.MCPServer` (``_mcp``), whose :meth:`tools` are listed then."""

    @abstractmethod
    def tools(self) -> list[Tool]: ...


def _tools_of(source: ToolSource) -> list[Tool]:
    """The tools a source stands for: one, or a tool set's."""
    return source.tools() if isinstance(source, ToolSet) else [as_tool(source)]


# -- sources --------------------------------------------------------------------------------


def from_function(
    function: Callable[..., Any], *, name: str | None = None, description: str | None = None,
    examples: Iterable[str] = (),
) -> Tool:
    """A tool from a typed function: one argument field per parameter."""
    tool_name = _checked_name(name or getattr(function, "__name__", ""))
    doc = parse_docstring(inspect.getdoc(function))
    try:
        signature = inspect.signature(function)
        hints = get_type_hints(function, include_extras=True)
    except (TypeError, ValueError, NameError) as e:
        raise ToolDefinitionError(f"cannot read the signature of {tool_name}: {e}", tool=tool_name) from None
    fields: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"parameter {parameter.name!r} of {tool_name}: *args and **kwargs cannot be "
                "tool arguments (a model must know every argument's name)",
                tool=tool_name, parameter=parameter.name,
            )
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"parameter {parameter.name!r} of {tool_name} is positional-only; tool "
                "arguments are passed by name", tool=tool_name, parameter=parameter.name,
            )
        if parameter.name not in hints:
            raise ToolDefinitionError(
                f"parameter {parameter.name!r} of {tool_name} has no type annotation",
                tool=tool_name, parameter=parameter.name,
            )
        default = ... if parameter.default is parameter.empty else parameter.default
        info = Field(default, description=doc.params.get(parameter.name))
        fields[parameter.name] = (hints[parameter.name], info)
    model = _arguments_model(tool_name, fields)
    text = description if description is not None else doc.summary
    shown = _checked_examples(examples, tool_name)
    return _checked(Tool(tool_name, text, _parameters(model, tool_name), model, function, shown))


def from_model(model: type[BaseModel]) -> Tool:
    """A tool whose arguments are ``model``; ``function`` is None (calls are returned, not run)."""
    title = model.model_config.get("title")
    tool_name = _checked_name(title if isinstance(title, str) else model.__name__)
    doc = parse_docstring(inspect.getdoc(model) if model.__doc__ else None)
    return _checked(Tool(tool_name, doc.summary, _parameters(model, tool_name), model, None))


def from_dict(spec: Mapping[str, Any], *, function: Callable[..., Any] | None = None) -> Tool:
    """A tool from ``{"type": "function", "function": {...}}`` or the inner function dict, run
    by ``function`` (called with the arguments as keywords) if given."""
    inner = spec.get("function") if spec.get("type") == "function" else spec
    if not isinstance(inner, Mapping):
        raise ToolDefinitionError("a tool dict needs a 'function' object with a 'name'")
    tool_name = _checked_name(inner.get("name"))
    if function is not None and not callable(function):
        raise ToolDefinitionError(f"the function of {tool_name} must be callable", tool=tool_name)
    description = inner.get("description") or ""
    parameters = inner.get("parameters", {"type": "object", "properties": {}})
    if not isinstance(description, str):
        raise ToolDefinitionError(f"the description of {tool_name} must be a string", tool=tool_name)
    if not isinstance(parameters, Mapping) or parameters.get("type", "object") != "object":
        raise ToolDefinitionError(
            f"the parameters of {tool_name} must be a JSON Schema of type object", tool=tool_name
        )
    examples = _checked_examples(inner.get("examples") or (), tool_name)
    return _checked(Tool(tool_name, description, json.loads(json.dumps(parameters)), None, function, examples))


# -- helpers --------------------------------------------------------------------------------


def _checked_name(name: Any) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ToolDefinitionError(
            f"tool name {name!r} must start with a letter or _ and hold only letters, digits, "
            "_ . - (at most 128 characters)", tool=name if isinstance(name, str) else None,
        )
    return name


def _checked_examples(examples: Iterable[str], tool_name: str) -> tuple[str, ...]:
    given = () if isinstance(examples, (str, bytes)) else tuple(examples)
    if isinstance(examples, (str, bytes)) or not all(isinstance(e, str) and e.strip() for e in given):
        raise ToolDefinitionError(
            f"the examples of {tool_name} must be a list of non-empty request strings", tool=tool_name
        )
    return tuple(e.strip() for e in given)


def _arguments_model(tool_name: str, fields: dict[str, Any]) -> type[BaseModel]:
    model_name = "".join(part[:1].upper() + part[1:] for part in re.split(r"[._\-]", tool_name)) or "Tool"
    try:
        return create_model(
            f"{model_name}Arguments", __config__=ConfigDict(extra="forbid"), **fields
        )
    except Exception as e:  # pydantic's errors for an unusable annotation
        raise ToolDefinitionError(f"the arguments of {tool_name} cannot be a model: {e}", tool=tool_name) from None


def _parameters(model: type[BaseModel], tool_name: str) -> dict[str, Any]:
    from .._types import json_schema_of

    try:
        return json_schema_of(model)
    except Exception as e:  # PydanticSchemaGenerationError, PydanticInvalidForJsonSchema
        parameter = _failing_field(model)
        where = f"parameter {parameter!r} of {tool_name}" if parameter else tool_name
        raise ToolDefinitionError(f"{where} has no JSON Schema: {e}", tool=tool_name, parameter=parameter) from None


def _failing_field(model: type[BaseModel]) -> str | None:
    from pydantic import TypeAdapter

    for name, info in model.model_fields.items():
        try:
            TypeAdapter(Any if info.annotation is None else info.annotation).json_schema()
        except Exception:
            return name
    return None


#: Tool arguments convert as generated types do (closed objects, plain integers), with their
#: own cap on free-text strings: the ``tool-arguments`` preset.
TOOL_GRAMMAR_OPTIONS = PRESETS["tool-arguments"]


def arguments_grammar(tool: Tool) -> Grammar:
    """The grammar of ``tool``'s arguments object alone (raises SchemaError if it cannot be)."""
    return SchemaConverter.shared().convert(tool.parameters, options=TOOL_GRAMMAR_OPTIONS)


def _checked(made: Tool) -> Tool:
    """The tool, once its arguments schema is known to convert to a grammar."""
    try:
        arguments_grammar(made)
    except SchemaError as e:
        parameter = _parameter_at(e.pointer)
        where = f"parameter {parameter!r} of {made.name}" if parameter else made.name
        raise ToolDefinitionError(
            f"{where}: {e}", tool=made.name, parameter=parameter, pointer=e.pointer
        ) from None
    return made


def _parameter_at(pointer: str) -> str | None:
    match = re.match(r"#/properties/([^/]+)", pointer or "")
    return match.group(1).replace("~1", "/").replace("~0", "~") if match else None


__all__ = ["TOOL_GRAMMAR_OPTIONS", "Tool", "ToolSource", "as_tool", "as_tools", "from_dict", "from_function", "from_model", "tool"]
