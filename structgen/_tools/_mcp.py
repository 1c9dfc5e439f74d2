"""Tools from MCP servers, through the official ``mcp`` SDK (the ``structgen[mcp]`` extra).

An :class:`MCPServer` (:class:`MCPServerStdio`, :class:`MCPServerHTTP`) is a connection to one
server. Connected (``with server:`` or ``async with server:``), it lists the server's tools
once, and each becomes a :class:`~structgen.Tool` made from the tool's input schema like a
tool dict (:meth:`Tool.from_schema <structgen.Tool.from_schema>`), whose async function calls
the server's ``tools/call``: the result's text goes back to the model; a result marked
``isError``, or a protocol error for the call, raises :class:`~structgen.MCPToolError`, fed
back like any tool's error; a connection that ended raises :class:`~structgen.MCPServerError`,
which ends a run.

The SDK is async (anyio), and structgen's tool methods come in both kinds. So a connection
lives on an event loop of its own, in a thread of its own, for as long as the server is
entered: the sync ``with`` and a blocking ``run_tools`` wait on it, the async ``async with``
and ``arun_tools`` await it without blocking their loop, and the same connection serves both
(a sync ``run_tools`` inside ``async with`` does not deadlock). Nothing here imports ``mcp``
until a server connects, so ``import structgen`` works without the extra.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import threading
from abc import abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from typing_extensions import Self

from .._errors import MCPServerError, MCPToolError, StructgenError
from ._tool import Tool, ToolSet

if TYPE_CHECKING:
    from mcp import Client
    from mcp_types import CallToolResult
    from mcp_types import Tool as ServerTool

T = TypeVar("T")

#: Pages of ``tools/list`` read at most (a server whose cursor never ends cannot hang a connection).
_MAX_PAGES = 100


class MCPServer(ToolSet):
    """A connection to one MCP server, whose tools are structgen tools while it is connected.

    Enter it (``with server:``, or ``async with server:``) around the runs that use it: it
    connects, lists the server's tools once, and closes the connection (and, over stdio, ends
    the process) when the outermost ``with`` ends; entering again while connected only counts.
    In the ``tools`` list of ``run_tools``, ``arun_tools``, ``call_tools`` and their twins, the
    server stands for all its tools; :meth:`tools` gives them as a list, to choose from.

    ``tool_prefix`` names the tools ``f"{tool_prefix}_{name}"`` (two servers may have tools of
    one name; the server is still called with its own). ``include`` keeps only the tools of
    those names (the server's; a small model reads every tool it is offered). ``timeout`` bounds
    connecting and listing, in seconds; ``read_timeout`` each call (None: no limit), a call that
    runs out being a tool error.
    """

    def __init__(
        self, *, tool_prefix: str | None = None, include: Iterable[str] | None = None,
        timeout: float = 30.0, read_timeout: float | None = None,
    ) -> None:
        if timeout <= 0 or (read_timeout is not None and read_timeout <= 0):
            raise ValueError("timeout and read_timeout must be positive")
        self.tool_prefix = tool_prefix
        self.include = None if include is None else frozenset([include] if isinstance(include, str) else include)
        self.timeout = timeout
        self.read_timeout = read_timeout
        self._lock = threading.Lock()
        self._entries = 0
        self._connection: _Connection | None = None

    @abstractmethod
    def _transport(self) -> Any:
        """What ``mcp.Client`` connects to (called on the connection's event loop)."""

    @abstractmethod
    def __repr__(self) -> str: ...

    # -- connecting ---------------------------------------------------------------------------

    def __enter__(self) -> Self:
        connection = self._acquire()
        try:
            self._listed(connection, connection.ready.result(self.timeout))
        except BaseException as error:
            closing = self._release()  # and waited for: a server given up on is ended, not left
            if closing is not None and isinstance(error, Exception):
                closing.result()
            raise self._failure(error)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        closing = self._release()
        if closing is not None:
            closing.result()

    async def __aenter__(self) -> Self:
        connection = self._acquire()
        try:
            ready = asyncio.shield(asyncio.wrap_future(connection.ready))
            self._listed(connection, await asyncio.wait_for(ready, self.timeout))
        except BaseException as error:
            closing = self._release()
            if closing is not None and isinstance(error, Exception):
                await asyncio.wrap_future(closing)
            raise self._failure(error)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        closing = self._release()
        if closing is not None:
            await asyncio.wrap_future(closing)

    @property
    def connected(self) -> bool:
        """Whether it is entered and its connection has not ended."""
        connection = self._connection
        return connection is not None and connection.tools is not None and not connection.ended

    def _acquire(self) -> _Connection:
        with self._lock:
            if self._connection is None:
                self._connection = _Connection(self)
                self._connection.start()
            self._entries += 1
            return self._connection

    def _release(self) -> concurrent.futures.Future[None] | None:
        """One ``with`` less: the closing of the connection when it was the last one."""
        with self._lock:
            self._entries -= 1
            if self._entries > 0 or self._connection is None:
                return None
            connection, self._connection = self._connection, None
        return connection.close()

    def _failure(self, error: BaseException) -> BaseException:
        """What a connection that failed raises: structgen's errors (a tool that cannot be one)
        and interruptions as they are; the rest as an MCPServerError."""
        if isinstance(error, StructgenError) or not isinstance(error, Exception):
            return error
        if isinstance(error, (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)):
            failure = MCPServerError(
                f"the MCP server {self!r} did not connect and list its tools within {self.timeout} s",
                server=repr(self),
            )
            failure.__suppress_context__ = True
            return failure
        failure = self._gone(error, "could not connect to")
        failure.__cause__ = error
        return failure

    def _listed(self, connection: _Connection, listing: Sequence[ServerTool]) -> None:
        """The server's tools as structgen tools, kept on the connection."""
        if connection.tools is None:
            connection.tools = [self._tool(t) for t in listing if self.include is None or t.name in self.include]

    def _gone(self, error: BaseException, what: str = "lost the connection to") -> MCPServerError:
        leaf = _leaf(error)
        detail = f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__
        return MCPServerError(f"structgen {what} the MCP server {self!r}: {detail}", server=repr(self))

    # -- tools --------------------------------------------------------------------------------

    def tools(self) -> list[Tool]:
        """The server's tools (those ``include`` keeps) as listed when it connected; each runs
        on the server. Raises :class:`~structgen.MCPServerError` when it is not connected."""
        connection = self._live()
        assert connection.tools is not None
        return list(connection.tools)

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> str:
        """Call the server's tool ``name`` (its own name, without ``tool_prefix``) and wait:
        the text of its result. Raises :class:`~structgen.MCPToolError` for an error result,
        :class:`~structgen.MCPServerError` when the server is not connected or gone."""
        connection = self._live()
        return self._text(name, connection.submit(lambda: connection.call(name, arguments)).result())

    async def acall_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> str:
        """:meth:`call_tool`, awaited (the connection's own loop does the I/O)."""
        connection = self._live()
        future = connection.submit(lambda: connection.call(name, arguments))
        return self._text(name, await asyncio.wrap_future(future))

    def _live(self) -> _Connection:
        connection = self._connection
        if connection is None or connection.tools is None:
            raise MCPServerError(
                f"the MCP server {self!r} is not connected: enter it (`with server:` or "
                "`async with server:`) around the runs that use it", server=repr(self),
            )
        if connection.ended:
            raise connection.gone()
        return connection

    def _tool(self, listed: ServerTool) -> Tool:
        name = listed.name if self.tool_prefix is None else f"{self.tool_prefix}_{listed.name}"
        server_name = listed.name

        async def call(**arguments: Any) -> str:
            return await self.acall_tool(server_name, arguments)

        call.__name__ = call.__qualname__ = name
        description = listed.description or listed.title or ""
        return Tool.from_schema(name, listed.input_schema, description=description, function=call)

    def _text(self, name: str, result: CallToolResult) -> str:
        text = _result_text(result)
        if result.is_error:
            raise MCPToolError(text or f"the tool {name} failed", tool=name)
        return text


class MCPServerStdio(MCPServer):
    """An MCP server run as a subprocess, spoken to over its stdin and stdout.

    ``command`` and ``args`` start it (``MCPServerStdio("python", ["server.py"])``,
    ``MCPServerStdio("npx", ["-y", "@modelcontextprotocol/server-everything"])``); ``env``
    holds variables given to it besides the few the SDK passes on (``PATH``, ``HOME``, ...:
    the rest of this process's environment is not); ``cwd`` is its working directory. Its
    stderr is this process's. The keywords after them are :class:`MCPServer`'s.
    """

    def __init__(
        self, command: str, args: Sequence[str] = (), *, env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None, tool_prefix: str | None = None,
        include: Iterable[str] | None = None, timeout: float = 30.0, read_timeout: float | None = None,
    ) -> None:
        if isinstance(args, str):
            raise TypeError("args is a list of arguments, not one string")
        super().__init__(tool_prefix=tool_prefix, include=include, timeout=timeout, read_timeout=read_timeout)
        self.command = command
        self.args = list(args)
        self.env = None if env is None else dict(env)
        self.cwd = None if cwd is None else os.fspath(cwd)

    def _transport(self) -> Any:
        from mcp import StdioServerParameters

        return StdioServerParameters(command=self.command, args=self.args, env=self.env, cwd=self.cwd)

    def __repr__(self) -> str:
        args = "" if not self.args else f", {self.args!r}"
        return f"MCPServerStdio({self.command!r}{args})"


class MCPServerHTTP(MCPServer):
    """An MCP server over streamable HTTP, at ``url`` (such as ``"http://127.0.0.1:8000/mcp"``).

    ``headers`` go with every request (``{"Authorization": "Bearer ..."}``); they and the URL's
    credentials and query never appear in an error's message. The keywords after them are
    :class:`MCPServer`'s.
    """

    def __init__(
        self, url: str, *, headers: Mapping[str, str] | None = None, tool_prefix: str | None = None,
        include: Iterable[str] | None = None, timeout: float = 30.0, read_timeout: float | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"an MCP server's URL is http:// or https://, not {_shown_url(url)!r}")
        super().__init__(tool_prefix=tool_prefix, include=include, timeout=timeout, read_timeout=read_timeout)
        self.url = url
        self.headers = dict(headers or {})

    def _transport(self) -> Any:
        return _http_transport(self.url, self.headers)

    def __repr__(self) -> str:
        return f"MCPServerHTTP({_shown_url(self.url)!r})"


@asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    """The SDK's streamable HTTP transport, on an HTTP client of its own with ``headers``
    (the SDK's default timeouts: 30 s to connect, 300 s to read a stream)."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


def _shown_url(url: str) -> str:
    """``url`` without its credentials, query and fragment (what an error may show)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


# -- the connection ---------------------------------------------------------------------------


class _Connection:
    """One live connection: an event loop in a thread of its own, where one task holds the
    SDK's client open from connecting to closing, and each call runs as a task of its own.

    Whatever ends that task (``close``, or the transport failing: an HTTP server that went
    away), every call still waiting fails with MCPServerError, and later ones at once."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self.ready: concurrent.futures.Future[list[ServerTool]] = concurrent.futures.Future()
        self.closed: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.tools: list[Tool] | None = None
        self.ended = False
        self.error: BaseException | None = None
        self.client: Client | None = None
        self._lock = threading.Lock()
        self._pending: set[concurrent.futures.Future[Any]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = asyncio.Event()  # bound to the connection's loop when first awaited
        self._serving: asyncio.Task[None] | None = None

    def start(self) -> None:
        threading.Thread(target=self._run, name=f"structgen-mcp {self.server!r}", daemon=True).start()

    def close(self) -> concurrent.futures.Future[None]:
        """Asks the connection to close; the future is done once it has (the process ended)."""
        self._on_loop(self._stop)
        return self.closed

    def submit(self, make: Callable[[], Awaitable[T]]) -> concurrent.futures.Future[T]:
        """``make()`` awaited on the connection's loop; cancelling the future cancels it."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self.ended:
                future.set_exception(self.gone())
                return future
            self._pending.add(future)
        self._on_loop(self._begin, make, future)
        return future

    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> CallToolResult:
        """``tools/call`` on the SDK's client; its errors as structgen's."""
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        assert self.client is not None
        try:
            return await self.client.call_tool(
                name, dict(arguments or {}), read_timeout_seconds=self.server.read_timeout
            )
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                raise self._lost(error) from error
            raise MCPToolError(error.message or f"the tool {name} failed", tool=name, code=error.code) from error
        except Exception as error:
            if _is_transport_error(error):
                raise self._lost(error) from error
            raise MCPToolError(f"{type(error).__name__}: {error}", tool=name) from error

    def _lost(self, error: BaseException) -> MCPServerError:
        """The connection is gone (a call found it closed): later calls fail at once."""
        with self._lock:
            self.ended = True
            self.error = self.error or error
        return self.gone(error)

    def gone(self, error: BaseException | None = None) -> MCPServerError:
        cause = error or self.error
        if cause is None:
            return MCPServerError(f"the connection to the MCP server {self.server!r} was closed",
                                  server=repr(self.server))
        return self.server._gone(cause)

    # on the connection's thread

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._serve())
        finally:
            try:
                tasks = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
                for task in tasks:
                    task.cancel()
                self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            finally:
                self.loop.close()
                if not self.closed.done():
                    self.closed.set_result(None)

    async def _serve(self) -> None:
        from mcp import Client
        from mcp_types import Implementation

        self._serving = asyncio.current_task()
        info = Implementation(name="structgen", version=_version())
        try:
            if self._closing.is_set():  # closed before it began
                raise asyncio.CancelledError
            async with Client(self.server._transport(), client_info=info) as client:
                listing = await _list_tools(client)
                self.client = client
                if not self.ready.done():  # not given up on
                    self.ready.set_result(listing)
                await self._closing.wait()
        except BaseException as error:  # the transport failed, or the connection was cancelled
            self.error = error
            if not self.ready.done():
                self.ready.set_exception(error if isinstance(error, Exception) else self.gone(error))
            if not isinstance(error, (Exception, asyncio.CancelledError)):
                raise
        finally:
            self._end()

    def _end(self) -> None:
        """No call waits past the end of the connection."""
        with self._lock:
            self.ended = True
            pending, self._pending = self._pending, set()
        for future in pending:
            if not future.done():
                future.set_exception(self.gone())
        for task in self._tasks:
            task.cancel()

    def _stop(self) -> None:
        self._closing.set()
        if self.client is None and self._serving is not None:
            self._serving.cancel()  # still connecting: given up

    def _begin(self, make: Callable[[], Awaitable[Any]], future: concurrent.futures.Future[Any]) -> None:
        if future.done():  # ended or cancelled before it began
            return

        async def settle() -> None:
            try:
                result = await make()
            except BaseException as error:
                if not future.done():
                    future.set_exception(error if isinstance(error, Exception) else self.gone(error))
                if not isinstance(error, (Exception, asyncio.CancelledError)):
                    raise
            else:
                if not future.done():
                    future.set_result(result)
            finally:
                with self._lock:
                    self._pending.discard(future)

        task = self.loop.create_task(settle())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        future.add_done_callback(lambda f: self._on_loop(task.cancel) if f.cancelled() else None)

    def _on_loop(self, function: Callable[..., Any], *args: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(function, *args)
        except RuntimeError:  # the loop is closed: the connection has ended already
            pass


async def _list_tools(client: Client) -> list[ServerTool]:
    tools: list[ServerTool] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _result_text(result: CallToolResult) -> str:
    """What the model reads of a ``tools/call`` result: its text blocks, joined by newlines;
    an embedded text resource as its text; anything else named in brackets; the structured
    result as JSON when there is no content."""
    parts: list[str] = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource {getattr(resource, 'uri', '')}]")
        elif kind == "resource_link":
            parts.append(f"[resource {getattr(block, 'uri', '')}]")
        else:
            parts.append(f"[{kind} {getattr(block, 'mime_type', '') or ''}]".replace(" ]", "]"))
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(parts)


def _leaf(error: BaseException) -> BaseException:
    """The first error an exception group holds (the transport's task groups wrap them)."""
    while isinstance(getattr(error, "exceptions", None), tuple) and getattr(error, "exceptions"):
        error = getattr(error, "exceptions")[0]
    return error


def _is_transport_error(error: BaseException) -> bool:
    """Whether ``error`` says the connection itself failed (closed streams, a pipe, the HTTP
    client's transport errors), not the call."""
    import anyio
    import httpx2

    leaf = _leaf(error)
    return isinstance(leaf, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream,
                             OSError, EOFError, httpx2.TransportError))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("structgen")
    except PackageNotFoundError:  # run from a source tree
        return "0"


__all__ = ["MCPServer", "MCPServerHTTP", "MCPServerStdio"]
