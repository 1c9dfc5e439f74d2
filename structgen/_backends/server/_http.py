"""What the HTTP backends share: pooled httpx clients, retries, server-sent events, errors,
and the seam's methods (:class:`HttpBackend`), so that a backend writes only its exchange.

One :class:`HttpSession` per backend holds one pooled ``httpx.Client`` for the blocking calls
and one ``httpx.AsyncClient`` for the asyncio ones (per event loop: an AsyncClient's
connections belong to the loop that opened them). Failures become :class:`BackendError`\\ s
carrying the request's URL and HTTP status — a grammar the server refuses a
:class:`GrammarError` chained to one — and the API key, sent only in the ``Authorization``
header, is blanked out of any text a server echoes back.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, Union
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..._errors import BackendError, GrammarError
from ..._resume import Done, adrive, drive
from .._answer_check import grammar_mismatch
from .._seam import Completion, CompletionRequest, Event

T = TypeVar("T")
R = TypeVar("R")
Timeout = Union[float, httpx.Timeout]
"""Seconds for a whole request (connecting at most 10 s), or an ``httpx.Timeout``."""
DEFAULT_TIMEOUT = 600.0
CONNECT_TIMEOUT = 10.0  # a server that accepts no connection in 10 s is not coming
# Idle pooled connections are dropped before servers drop them (llama-server's HTTP library
# and uvicorn, under vLLM and SGLang, close them after 5 s), so few requests meet a closed one.
_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=2.0)
DEFAULT_RETRIES = 2
_BACKOFF_SECONDS = 0.25
_ROOT_RULE = re.compile(r"^\s*root\s*::=", re.MULTILINE)
_DONE = "[DONE]"  # the data of the event that ends an OpenAI-style stream


class HttpSession:
    """POSTs JSON to one server: whole replies (:meth:`post`) or event streams (:meth:`events`).
    Each is a request flow (a generator of I/O steps, written once), run blocking by
    :meth:`run` or under asyncio by :meth:`arun`.

    A request that was not run — no connection (refused, or not accepted in time), a pooled
    connection the server closed without answering, or HTTP 503 (the model still loading, no
    healthy instance behind a balancer) — is sent again, up to ``retries`` times, after 0.25 s,
    0.5 s, 1 s, ...; any other failure is raised at once.
    """

    def __init__(
        self,
        base_url: str,
        *,
        server: str,
        api_key: str | None,
        timeout: Timeout,
        retries: int,
        transport: httpx.BaseTransport | None,
        async_transport: httpx.AsyncBaseTransport | None,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http:// or https:// URL")
        if not isinstance(retries, int) or retries < 0:
            raise ValueError("retries must be an int >= 0")
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise ValueError("api_key must be a non-empty str or None")
        self.base_url = base_url.rstrip("/")
        self.shown_url = _without_credentials(self.base_url)
        self.server = server
        self.retries = retries
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else _timeout(timeout)
        self._api_key = api_key
        self._transport = transport
        self._async_transport = async_transport
        self._client: httpx.Client | None = None
        self._async: tuple[asyncio.AbstractEventLoop, httpx.AsyncClient] | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        key = ", api_key=***" if self._api_key else ""
        return f"{self.shown_url!r}{key}"

    # -- clients ------------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def client(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    base_url=self.base_url, headers=self._headers(), timeout=self.timeout,
                    limits=_LIMITS, transport=self._transport,
                )
            return self._client

    def async_client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._async is None or self._async[0] is not loop:
                # A client of an earlier (finished) loop cannot be closed from this one.
                self._async = (loop, httpx.AsyncClient(
                    base_url=self.base_url, headers=self._headers(), timeout=self.timeout,
                    limits=_LIMITS, transport=self._async_transport,
                ))
            return self._async[1]

    def close(self) -> None:
        """Close the pooled connections (an async client's on its own loop, if that still runs)."""
        with self._lock:
            client, self._client = self._client, None
            pending, self._async = self._async, None
        if client is not None:
            client.close()
        if pending is not None:
            loop, async_client = pending
            if loop.is_closed():
                return
            if loop.is_running():  # from its own thread or another: closed when the loop gets to it
                asyncio.run_coroutine_threadsafe(async_client.aclose(), loop)
            else:
                loop.run_until_complete(async_client.aclose())

    async def aclose(self) -> None:
        with self._lock:
            client, self._client = self._client, None
            pending, self._async = self._async, None
        if client is not None:
            client.close()
        if pending is not None and pending[0] is asyncio.get_running_loop():
            await pending[1].aclose()

    # -- one request flow, two drivers ----------------------------------------------------------

    def run(self, flow: Flow[T, R]) -> Generator[T, None, R]:
        """Yields the items of ``flow``, doing its I/O steps with blocking calls; returns its
        result. A consumer that stops early closes every response at once."""
        io = _BlockingIo(self.client())
        try:
            return (yield from drive(flow, _Io, io.answer, catch=httpx.HTTPError))
        finally:
            io.close()
            flow.close()

    async def arun(self, flow: Flow[T, R]) -> AsyncGenerator[T, None]:
        """:meth:`run` under asyncio (the flow's result is not needed there: a backend's flow
        yields everything it has, its completion included)."""
        io = _AsyncIo(self.async_client())
        try:
            async for item in adrive(flow, _Io, io.answer, catch=httpx.HTTPError):
                if not isinstance(item, Done):
                    yield item
        finally:
            await io.aclose()
            flow.close()

    def post(self, path: str, body: dict[str, Any]) -> Flow[Any, dict[str, Any]]:
        """POST ``body``; the reply's JSON object."""
        response = yield from self._attempts(path, body)
        try:
            content = yield _Read(response)
        except httpx.HTTPError as error:
            raise self.failure(path, error) from error
        return self._json(path, content)

    def events(
        self, path: str, body: dict[str, Any], read: Callable[[dict[str, Any]], Iterable[T]]
    ) -> Flow[T, None]:
        """POST ``body``; the JSON payloads of the server-sent-event stream that answers, up to
        its ``[DONE]`` or its end, each handed to ``read``, whose items are yielded."""
        response = yield from self._attempts(path, body)
        reader = _EventReader(self, path)
        try:
            while (line := (yield _Line(response))) is not None:
                for event in reader.feed(line):
                    yield from read(event)
                if reader.done:
                    break
        except httpx.HTTPError as error:
            raise self.failure(path, error) from error
        yield _Close(response)
        if not reader.done:
            for event in reader.feed(""):  # the stream's end ends its last event
                yield from read(event)

    # -- the retry policy ---------------------------------------------------------------------

    def _attempts(self, path: str, body: dict[str, Any]) -> Flow[Any, httpx.Response]:
        """One POST and its retries (see the class doc); returns the response to read."""
        for attempt in itertools.count():
            retry = attempt < self.retries
            try:
                response: httpx.Response = yield _Send(path, body)
            except httpx.HTTPError as error:
                if not (retry and _never_arrived(error)):
                    raise self.failure(path, error) from error
            else:
                if response.status_code == 503 and retry:
                    yield _Close(response)
                elif response.is_error:
                    try:
                        content = yield _Read(response)  # for the server's own message
                    except httpx.HTTPError:
                        content = b""  # the status says enough
                    raise self.status_error(path, response.status_code, content)
                else:
                    return response
            yield _Wait(_BACKOFF_SECONDS * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- errors -------------------------------------------------------------------------------

    def url(self, path: str) -> str:
        return self.shown_url + path

    def redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def failure(self, path: str, error: httpx.HTTPError) -> BackendError:
        """A request that got no (complete) answer."""
        url, reason = self.url(path), self.redact(str(error) or type(error).__name__)
        if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
            tries = f" ({self.retries + 1} tries)" if self.retries else ""
            message = f"cannot reach {self.server} at {url}{tries}: {reason}"
        elif isinstance(error, httpx.TimeoutException):
            message = f"{self.server} at {url} did not answer in time ({type(error).__name__}: {reason})"
        elif isinstance(error, (httpx.RemoteProtocolError, httpx.ReadError)):
            message = f"{self.server} at {url} broke off its answer (did it stop?): {reason}"
        else:
            message = f"the request to {self.server} at {url} failed: {reason}"
        return BackendError(message, url=url)

    def status_error(self, path: str, status: int, content: bytes) -> Exception:
        """An HTTP error status, with the server's own message."""
        return self.server_error(path, _message_of(content), status=status)

    def server_error(self, path: str, message: str, *, status: int | None) -> Exception:
        url, message = self.url(path), self.redact(message)
        shown = f"HTTP {status}" if status is not None else "an error event"
        if re.search(r"grammar|ebnf", message, re.IGNORECASE):
            text = f"{self.server} at {url} rejected the grammar ({shown}): {message}"
            error = GrammarError(text)
            error.__cause__ = BackendError(text, url=url, status=status)
            return error
        return BackendError(f"{self.server} at {url} answered {shown}: {message}", url=url, status=status)

    def broken(self, path: str, what: str) -> BackendError:
        return BackendError(f"{self.server} at {self.url(path)} {what}", url=self.url(path), status=200)

    def _json(self, path: str, content: bytes) -> dict[str, Any]:
        try:
            result = json.loads(content)
        except ValueError:
            raise self.broken(path, f"sent a reply that is not JSON: {self.redact(_excerpt(content))}") from None
        if not isinstance(result, dict):
            raise self.broken(path, "sent a reply that is not a JSON object")
        return result

    def _event(self, path: str, payload: str) -> dict[str, Any]:
        try:
            event = json.loads(payload)
        except ValueError:
            raise self.broken(path, f"sent a malformed event: {self.redact(payload[:200])!r}") from None
        if not isinstance(event, dict):
            raise self.broken(path, f"sent an event that is not a JSON object: {self.redact(payload[:200])!r}")
        if "error" in event:
            detail = event["error"]
            code = detail.get("code") if isinstance(detail, dict) else None
            raise self.server_error(path, _detail_message(detail), status=code if isinstance(code, int) else None)
        return event

    # -- the answer ---------------------------------------------------------------------------

    def check_answer(self, path: str, request: CompletionRequest, completion: Completion) -> None:
        """A server that ignored the grammar (a field this engine does not read) is an error,
        not a surprise later."""
        mismatch = grammar_mismatch(request, completion)
        if mismatch is not None:
            raise self.broken(
                path, f"answered {mismatch}; does this engine read the grammar from the field it was sent in?"
            )


class HttpBackend(ABC):
    """The seam's methods of a backend on an HTTP server: its :class:`HttpSession` (pooled
    clients, transports, timeouts, retries, errors), closed by :meth:`close` or :meth:`aclose`,
    and a completion run blocking (:meth:`complete`) or under asyncio (:meth:`acomplete`) from
    the one request flow the backend writes (:meth:`_flow`: the endpoint, the body, how the
    answer reads). A backend opens its session in ``__init__``.
    """

    _http: HttpSession
    base_url: str

    def close(self) -> None:
        """Close the pooled connections; a later call opens new ones."""
        self._http.close()

    async def aclose(self) -> None:
        await self._http.aclose()

    def complete(self, request: CompletionRequest) -> Iterator[Event]:
        return self._http.run(self._flow(request))

    def acomplete(self, request: CompletionRequest) -> AsyncIterator[Event]:
        return self._http.arun(self._flow(request))

    @abstractmethod
    def _flow(self, request: CompletionRequest) -> Flow[Event, None]:
        """The exchange for one completion, for either driver: its events, the
        :class:`Completion` last."""


# The I/O steps of a flow: send a request (answered with the streaming response); wait before
# the next attempt; the next line of a response (None at its end); read a whole body; close.
class _Io:
    pass


@dataclass(frozen=True)
class _Send(_Io):
    path: str
    body: dict[str, Any]


@dataclass(frozen=True)
class _Wait(_Io):
    seconds: float


@dataclass(frozen=True)
class _Line(_Io):
    response: httpx.Response


@dataclass(frozen=True)
class _Read(_Io):
    response: httpx.Response


@dataclass(frozen=True)
class _Close(_Io):
    response: httpx.Response


class _BlockingIo:
    """How :meth:`HttpSession.run` does each I/O step (and the responses it opened)."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.responses: list[httpx.Response] = []
        self.lines: dict[int, Iterator[str]] = {}

    def answer(self, step: _Io) -> Any:
        if isinstance(step, _Send):
            response = self.client.send(self.client.build_request("POST", step.path, json=step.body), stream=True)
            self.responses.append(response)
            return response
        if isinstance(step, _Wait):
            time.sleep(step.seconds)
        elif isinstance(step, _Line):
            if id(step.response) not in self.lines:
                self.lines[id(step.response)] = step.response.iter_lines()
            return next(self.lines[id(step.response)], None)
        elif isinstance(step, (_Read, _Close)):
            try:
                return step.response.read() if isinstance(step, _Read) else None
            finally:
                step.response.close()
        return None

    def close(self) -> None:
        for response in self.responses:
            response.close()


class _AsyncIo:
    """How :meth:`HttpSession.arun` does each I/O step on the event loop."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.responses: list[httpx.Response] = []
        self.lines: dict[int, AsyncIterator[str]] = {}

    async def answer(self, step: _Io) -> Any:
        if isinstance(step, _Send):
            response = await self.client.send(self.client.build_request("POST", step.path, json=step.body), stream=True)
            self.responses.append(response)
            return response
        if isinstance(step, _Wait):
            await asyncio.sleep(step.seconds)
        elif isinstance(step, _Line):
            if id(step.response) not in self.lines:
                self.lines[id(step.response)] = aiter(step.response.aiter_lines())
            return await anext(self.lines[id(step.response)], None)
        elif isinstance(step, (_Read, _Close)):
            try:
                return await step.response.aread() if isinstance(step, _Read) else None
            finally:
                await step.response.aclose()
        return None

    async def aclose(self) -> None:
        for response in self.responses:
            await response.aclose()


#: A request flow: yields items ``T`` and I/O steps (answered by :meth:`HttpSession.run` or
#: :meth:`HttpSession.arun`), returns ``R``.
Flow = Generator[Union[T, _Io], Any, R]


class _EventReader:
    """The JSON events of one server-sent-event stream, fed one line at a time; ``done`` once
    its ``[DONE]`` came."""

    def __init__(self, session: HttpSession, path: str) -> None:
        self._session = session
        self._path = path
        self._parser = _SseParser()
        self.done = False

    def feed(self, line: str) -> Iterator[dict[str, Any]]:
        payload = self._parser.feed(line)
        if payload == _DONE:
            self.done = True
        elif payload is not None and not self.done:
            yield self._session._event(self._path, payload)


class _SseParser:
    """The data of server-sent events, fed one line at a time (comments and other fields are
    skipped; the lines of a multi-line data field are joined with newlines)."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> str | None:
        """The event's data when ``line`` (blank) ends an event that had some."""
        if not line:
            return self.end()
        if line.startswith("data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(" ") else value)
        return None

    def end(self) -> str | None:
        if not self._data:
            return None
        data, self._data = "\n".join(self._data), []
        return data


def rooted(gbnf: str, root: str, server: str) -> str:
    """Servers start every grammar at rule ``root``: alias another start rule to it."""
    if root == "root":
        return gbnf
    if _ROOT_RULE.search(gbnf):
        raise BackendError(
            f"{server} starts every grammar at rule 'root', and this grammar defines a 'root' "
            f"besides its start rule {root!r}"
        )
    return f"root ::= {root}\n{gbnf}"


def _timeout(seconds: float) -> httpx.Timeout:
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds <= 0:
        raise ValueError("timeout must be a number of seconds > 0 (or an httpx.Timeout)")
    return httpx.Timeout(float(seconds), connect=min(CONNECT_TIMEOUT, float(seconds)))


def _never_arrived(error: httpx.HTTPError) -> bool:
    """The request was not run, so sending it again cannot run it twice: no connection, or a
    kept-alive connection the server had closed just before (no answer at all came on it)."""
    return isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError))


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _message_of(content: bytes) -> str:
    """The server's own words from an error reply: OpenAI's ``{"error": {"message"}}``,
    vLLM's and SGLang's ``{"message"}``, FastAPI's ``{"detail"}``, or the text itself."""
    try:
        body = json.loads(content)
    except ValueError:
        return _excerpt(content) or "(no message)"
    if isinstance(body, dict):
        for key in ("error", "message", "detail"):
            if key in body:
                return _detail_message(body[key])
    return _excerpt(content)


def _detail_message(detail: Any) -> str:
    if isinstance(detail, dict) and "message" in detail:
        return str(detail["message"])
    if isinstance(detail, str):
        return detail
    return json.dumps(detail)[:500]


def _excerpt(content: bytes) -> str:
    return content[:500].decode("utf-8", "replace").strip()
