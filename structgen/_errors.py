"""The one exception hierarchy of structgen.

Every error structgen raises on purpose derives from :class:`StructgenError`::

    StructgenError
    ├── GrammarError              GBNF text that does not parse or is unsafe (line, column)
    ├── SchemaError               an invalid JSON Schema: meta-schema, bad $ref, cycle, conflict, bad regex
    │   └── UnsupportedSchemaError  a valid keyword that changes validity but cannot be enforced
    ├── ModelNotFoundError        a model file that is missing or unreadable
    ├── ToolDefinitionError       a function, model or dict that cannot become a tool (tool, parameter)
    ├── ModelRetry                raised by a tool to ask the model for a corrected call (its message goes back)
    ├── BackendError              the backend failed (foreign errors wrapped; ``.url``, ``.status``), a prompt too long, a closed model
    ├── MCPServerError            an MCP server not connected, unreachable, or gone mid-run (``.server``, ``.messages``)
    ├── MCPToolError              an MCP server's tool answered an error (``.tool``, ``.code``); fed back in a run
    ├── JobError                  a bulk extraction that cannot run: its input, output or prompt (``.option``, ``.path``, ``.line``)
    └── GenerationError           generation ended without a valid instance
        ├── IncompleteOutputError   max_tokens (or the context window) ran out before the grammar completed
        ├── RefusalError            the model took the refusal branch (``.reason``)
        ├── OutputValidationError   every attempt failed validation (``.attempts``)
        ├── ValidatorError          a user's validator crashed (not retried; ``__cause__``)
        ├── ToolExecutionError      a tool raised while running a call (``.call``, ``__cause__``)
        └── MaxRoundsError          ``run_tools`` reached ``max_rounds`` (``.messages``)

Input of the wrong Python type still raises :class:`TypeError`, as Python code expects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "BackendError",
    "GenerationError",
    "GrammarError",
    "IncompleteOutputError",
    "JobError",
    "MCPServerError",
    "MCPToolError",
    "MaxRoundsError",
    "ModelNotFoundError",
    "ModelRetry",
    "OutputValidationError",
    "RefusalError",
    "SchemaError",
    "SlowGrammarError",
    "StructgenError",
    "ToolDefinitionError",
    "ToolExecutionError",
    "UnsupportedSchemaError",
    "ValidatorError",
]


class StructgenError(Exception):
    """Base class of every error structgen raises on purpose."""


class GrammarError(StructgenError, ValueError):
    """GBNF text that cannot be used: a syntax error, or a grammar llama.cpp cannot run safely.

    ``line`` and ``column`` are 1-based; ``excerpt`` shows the offending line with a caret.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        excerpt: str = "",
        source: str | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.excerpt = excerpt
        self.source = source
        where = f"{source or '<grammar>'}:{line}:{column}: " if line is not None else ""
        text = f"{where}{message}"
        if excerpt:
            text += "\n" + excerpt
        super().__init__(text)


class SchemaError(StructgenError, ValueError):
    """An invalid JSON Schema. ``pointer`` is the JSON pointer of the offending subschema."""

    def __init__(self, message: str, *, pointer: str = "", keyword: str | None = None) -> None:
        self.message = message
        self.pointer = pointer
        self.keyword = keyword
        where = pointer or "#"
        if keyword is not None:
            where = f"{where.rstrip('/')}/{keyword}" if where != "#" else f"#/{keyword}"
        super().__init__(f"{where}: {message}")


class UnsupportedSchemaError(SchemaError):
    """A keyword that changes which instances are valid, but that no grammar here can enforce."""


class ModelNotFoundError(StructgenError, FileNotFoundError):
    """The model file is missing or cannot be read. ``path`` names it."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class BackendError(StructgenError, RuntimeError):
    """The inference backend failed; the original exception is chained as ``__cause__``.

    Over HTTP, ``url`` is the URL of the failed request and ``status`` its HTTP status (None
    when no answer came: connection refused, a timeout, a stream cut off). Neither they nor the
    message ever hold an API key.
    """

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None) -> None:
        self.url = url
        self.status = status
        super().__init__(message)


class MCPServerError(StructgenError, RuntimeError):
    """An MCP server (:class:`~structgen.MCPServer`) that cannot serve: not connected (``with
    server:`` or ``async with server:`` first), not reachable or not answering within its
    ``timeout``, or its connection ended (the process died, the HTTP server went away).

    ``server`` describes it (its command, or its URL without credentials or query). Raised from
    ``run_tools``/``arun_tools`` when a call finds the server gone, it ends the run (a tool
    that fails is fed back instead; a server that is gone would fail every call): ``messages``
    is then the conversation up to and including that step (the assistant's calls and every
    call's result, this one's as its error), so that nothing is lost and, once the server is
    back, the run continues from them; ``usage`` is the run's so far. The SDK's own error is
    chained as ``__cause__``.
    """

    def __init__(
        self, message: str, *, server: str = "", messages: Sequence[Any] = (), usage: Any = None
    ) -> None:
        self.server = server
        self.messages = list(messages)
        self.usage = usage
        super().__init__(message)


class MCPToolError(StructgenError):
    """A tool of an MCP server answered an error: a result marked ``isError`` (its text is the
    message) or a protocol error for the call (``code``, the JSON-RPC error code; None for an
    ``isError`` result). In ``run_tools`` it is fed back to the model like any tool's error
    (``Error: MCPToolError: ...``), or ends the run as :class:`ToolExecutionError` with
    ``tool_errors="raise"``; :meth:`MCPServer.call_tool <structgen.MCPServer.call_tool>`
    raises it as it is. ``tool`` is the server's name of the tool."""

    def __init__(self, message: str, *, tool: str = "", code: int | None = None) -> None:
        self.tool = tool
        self.code = code
        super().__init__(message)


class JobError(StructgenError, ValueError):
    """A bulk extraction (:func:`structgen.extract`, ``structgen extract``) that cannot run as
    given: its documents, its output file or its prompt template is unusable. Raised before
    any document goes to a model, except for a repeated id in documents that are read only
    once (an iterator), which is found when it comes.

    ``option`` is the parameter at fault (``"prompt"``, ``"text_field"``, ``"output"``,
    ``"documents"``, ...; None when the whole input is), ``path`` the file and ``line`` its
    1-based line, where the fault is in a file; the message says the same in the caller's
    terms (a command line's flags for ``structgen extract``).
    """

    def __init__(
        self, message: str, *, option: str | None = None, path: str | None = None, line: int | None = None
    ) -> None:
        self.option = option
        self.path = path
        self.line = line
        super().__init__(message)


class GenerationError(StructgenError):
    """Generation ended without a valid instance. ``text`` is what the model produced."""

    def __init__(self, message: str, *, text: str = "", usage: Any = None) -> None:
        self.text = text
        self.usage = usage
        super().__init__(message)


class IncompleteOutputError(GenerationError):
    """``max_tokens`` (or, before it, the context window) ran out before the grammar completed;
    ``text`` holds the output so far and the message says which."""


class SlowGrammarError(GenerationError):
    """One step of llama.cpp's grammar sampler (masking the vocabulary, or checking or accepting
    a token) took more CPU time than the backend's ``grammar_step_seconds``. Grammars whose
    alternatives begin alike and nest (``anyOf`` branches of one type, recursive through a
    ``$ref``) keep one parser stack per way of reading the text, and those multiply with every
    level; the generation stops instead of hanging. ``text`` is the output so far, ``seconds``
    the step's CPU time and ``limit`` the budget it exceeded."""

    def __init__(self, message: str, *, text: str = "", usage: Any = None, seconds: float = 0.0,
                 limit: float = 0.0) -> None:
        self.seconds = seconds
        self.limit = limit
        super().__init__(message, text=text, usage=usage)


class RefusalError(GenerationError):
    """The model declined through the refusal branch; ``reason`` is its stated reason."""

    def __init__(self, reason: str, *, text: str = "", usage: Any = None) -> None:
        self.reason = reason
        super().__init__(f"the model refused: {reason}", text=text, usage=usage)


class OutputValidationError(GenerationError):
    """Every attempt produced text that failed validation.

    ``attempts`` holds one ``(text, errors)`` pair per attempt, in order.
    """

    def __init__(
        self,
        message: str,
        *,
        attempts: Sequence[tuple[str, Any]] = (),
        usage: Any = None,
    ) -> None:
        self.attempts = list(attempts)
        last = self.attempts[-1][0] if self.attempts else ""
        super().__init__(message, text=last, usage=usage)


class ValidatorError(GenerationError):
    """A validator of the output type (or of a tool's arguments) raised something other than
    the ``ValueError`` or ``AssertionError`` that Pydantic reports as a validation error.

    That is a bug in the validator, not a wrong answer, so it is not retried. ``text`` is the
    text the validator was given (a tool call's arguments, for a tool), ``usage`` what the call
    cost, and the validator's own exception is chained as ``__cause__``.
    """


class ToolDefinitionError(StructgenError, TypeError):
    """A function, model or tool dict that cannot become a tool.

    ``tool`` names the tool, ``parameter`` the offending parameter (None when the tool as a
    whole is at fault) and ``pointer`` the JSON pointer in its arguments schema, if any.
    """

    def __init__(
        self, message: str, *, tool: str | None = None, parameter: str | None = None,
        pointer: str = "",
    ) -> None:
        self.tool = tool
        self.parameter = parameter
        self.pointer = pointer
        super().__init__(message)


class ModelRetry(StructgenError):
    """Raised by a tool to ask the model for a corrected call: ``run_tools`` sends the message
    back as the call's result ("No flight AF-1234 on that day; the flight numbers are ...")
    and the model writes its next step, whatever ``tool_errors`` says. Outside a run it
    propagates from :meth:`ToolCall.invoke <structgen.ToolCall.invoke>` as it is."""


class ToolExecutionError(GenerationError):
    """A tool raised while running a call. ``call`` is the :class:`~structgen.ToolCall`; the
    tool's own exception is chained as ``__cause__``; ``messages`` is the conversation so far.
    ``run_tools`` raises it only with ``tool_errors="raise"``; by default the error goes back
    to the model as the call's result."""

    def __init__(
        self, message: str, *, call: Any, messages: Sequence[Any] = (), usage: Any = None
    ) -> None:
        self.call = call
        self.messages = list(messages)
        super().__init__(message, usage=usage)


class MaxRoundsError(GenerationError):
    """``run_tools`` made ``max_rounds`` rounds of calls without a final answer.

    ``messages`` is the whole conversation so far (calls and results included), so the run can
    be inspected or continued; ``calls`` every call made with its result and ``turns`` every
    step's ``ToolTurn`` (its calls and usage), as ``ToolRun`` holds them."""

    def __init__(
        self, message: str, *, messages: Sequence[Any] = (), usage: Any = None, calls: Sequence[Any] = (),
        turns: Sequence[Any] = (),
    ) -> None:
        self.messages = list(messages)
        self.calls = list(calls)
        self.turns = tuple(turns)
        super().__init__(message, usage=usage)
