"""Tools from MCP servers: a real server made with the official SDK (tests/support/mcp_server.py),
over stdio and over streamable HTTP on a free localhost port, its tools listed, converted and
called through the SDK's session; ``run_tools`` on a scripted model (the loop's paths on
demand), then on Qwen2.5-Coder-0.5B-Instruct (``model``): a call and its result, a failing
tool's error fed back, a server that dies mid-run. Also the dict and schema tools that carry a
function of their own.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import structgen as sg
from structgen.testing import ScriptedBackend
from tests.server_support import tool_model_path
from tests.support.mcp_server import ORDER_RESULT, TRACKING_ERROR

SERVER = str(Path(__file__).resolve().parent / "support" / "mcp_server.py")
LAMP = ORDER_RESULT.format(order_id="A-7731")
TRACKING = f"Error executing tool track_parcel: {TRACKING_ERROR}"
NAMES = ["lookup_order", "track_parcel", "divide", "shelf_labels", "wait", "crash"]


def stdio(**options: Any) -> sg.MCPServerStdio:
    env = {"STRUCTGEN_MCP_DIE_ON_CALL": "1"} if options.pop("dies", False) else None
    return sg.MCPServerStdio(sys.executable, [SERVER], env=env, **options)


@pytest.fixture(scope="module")
def server() -> Iterator[sg.MCPServerStdio]:
    with stdio() as connected:
        yield connected


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def http_url() -> Iterator[str]:
    """The test server over streamable HTTP, started for one test (the test may end it)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, SERVER, "--http", str(port)])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the MCP test server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def calls(name: str, **arguments: Any) -> str:
    """What a scripted model writes for one call under the word rules: the call, then the
    same call offered again (a repeat: the turn ends before it)."""
    one = json.dumps([{"name": name, "arguments": arguments}])
    return f"{one[:-1]}, {one[1:]}"


WORDS: dict[str, Any] = {"policy": sg.Policy(decision="words", arguments="free")}
ASK = "Look up the order A-7731 and track the parcel ZX-1."
#: The model's steps for ASK: the order, the parcel, then a call of nothing said (not kept:
#: the model is asked for its reply instead), then the reply.
SCRIPT = (calls("lookup_order", order_id="A-7731"), calls("track_parcel", tracking_number="ZX-1"),
          calls("lookup_order", order_id="Atlantis"), "Your desk lamp arrives Friday.")


# -- the server's tools -------------------------------------------------------------------------


def test_the_servers_tools_are_structgen_tools_with_their_input_schemas(server: sg.MCPServerStdio) -> None:
    tools = server.tools()
    assert [t.name for t in tools] == NAMES
    lookup = tools[0]
    assert lookup.description == "Look up an order by its order id, such as A-7731."
    assert lookup.parameters["properties"]["order_id"]["type"] == "string"
    assert lookup.parameters["required"] == ["order_id"]
    assert lookup.arguments_type is None and lookup.is_async  # a dict tool, run on the server
    assert server.connected and server.tools() == tools  # listed once, when it connected


def test_calls_go_through_the_session_and_their_text_comes_back(server: sg.MCPServerStdio) -> None:
    assert server.call_tool("lookup_order", {"order_id": "A-7731"}) == LAMP
    assert server.call_tool("shelf_labels", {"aisle": 3}) == "aisle 3, shelf 1\naisle 3, shelf 2"  # blocks joined
    assert asyncio.run(server.acall_tool("lookup_order", {"order_id": "B-1"})) == ORDER_RESULT.format(order_id="B-1")


def test_an_error_result_is_an_mcp_tool_error(server: sg.MCPServerStdio) -> None:
    with pytest.raises(sg.MCPToolError, match=TRACKING) as caught:
        server.call_tool("track_parcel", {"tracking_number": "ZX-1"})
    assert caught.value.tool == "track_parcel" and caught.value.code is None
    with pytest.raises(sg.MCPToolError, match="Error executing tool divide"):  # the SDK withholds its text
        server.call_tool("divide", {"a": 1, "b": 0})
    with pytest.raises(sg.MCPToolError, match="Unknown tool: nowhere"):
        server.call_tool("nowhere")
    assert server.connected


def test_prefix_include_and_read_timeout_and_entering_again_only_counts() -> None:
    shop = stdio(tool_prefix="shop", include=["lookup_order", "wait"], read_timeout=0.5)
    with pytest.raises(sg.MCPServerError, match="is not connected: enter it"):
        shop.tools()
    with shop:
        assert [t.name for t in shop.tools()] == ["shop_lookup_order", "shop_wait"]
        with shop:
            pass
        assert shop.connected
        assert asyncio.run(shop.tools()[0].function(order_id="A-7731")) == LAMP  # type: ignore[misc]
        with pytest.raises(sg.MCPToolError, match="timed out") as caught:  # a tool error: the server stays
            shop.call_tool("wait", {"seconds": 30})  # by the server's own name
        assert caught.value.code == -32001 and shop.call_tool("wait", {"seconds": 0}) == "waited"
    assert not shop.connected
    with pytest.raises(sg.MCPServerError, match="is not connected"):
        shop.call_tool("lookup_order", {"order_id": "A-7731"})
    with pytest.raises(sg.MCPServerError, match="not connected"):
        sg.LLM.from_backend(ScriptedBackend()).run_tools("Look up A-7731.", [shop])


def test_a_server_that_cannot_start_or_answer_is_an_mcp_server_error() -> None:
    with pytest.raises(sg.MCPServerError, match="could not connect to .*FileNotFoundError") as caught:
        with sg.MCPServerStdio("/nonexistent/mcp-server"):
            pass
    assert caught.value.server == "MCPServerStdio('/nonexistent/mcp-server')"
    with pytest.raises(sg.MCPServerError, match="could not connect to .*ConnectError"):
        with sg.MCPServerHTTP(f"http://127.0.0.1:{free_port()}/mcp"):
            pass
    silent = sg.MCPServerStdio(sys.executable, ["-c", "import sys; sys.stdin.read()"], timeout=0.5)
    with pytest.raises(sg.MCPServerError, match=r"did not connect and list its tools within 0.5 s"):
        with silent:
            pass


def test_an_http_servers_url_shows_no_credentials_and_must_be_http() -> None:
    server = sg.MCPServerHTTP("https://me:secret@example.com/mcp?token=abc", headers={"Authorization": "Bearer x"})
    assert repr(server) == "MCPServerHTTP('https://example.com/mcp')"
    with pytest.raises(ValueError, match="http:// or https://"):
        sg.MCPServerHTTP("ftp://example.com/mcp")
    with pytest.raises(TypeError, match="list of arguments"):
        sg.MCPServerStdio("python", "server.py")


# -- in run_tools, on a scripted model ----------------------------------------------------------


@pytest.mark.parametrize("driver", ["blocking", "asyncio"])
def test_run_tools_runs_mcp_calls_and_feeds_back_results_and_errors(
    server: sg.MCPServerStdio, driver: str
) -> None:
    llm = sg.LLM.from_backend(ScriptedBackend(*SCRIPT))
    if driver == "blocking":
        run = llm.run_tools(ASK, [server], **WORDS)
    else:
        run = asyncio.run(llm.arun_tools(ASK, [server], **WORDS))
    assert run.output == "Your desk lamp arrives Friday." and run.ended == "answer"
    assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert run.messages[2].content == LAMP
    assert run.messages[4].content == f"Error: MCPToolError: {TRACKING}"  # as a raising tool's
    (_, found), (_, failed) = run.calls
    assert found == LAMP and isinstance(failed, sg.ToolExecutionError)
    assert isinstance(failed.__cause__, sg.MCPToolError)
    with pytest.raises(sg.ToolExecutionError, match="tracking service busy"):  # tool_errors="raise" as for any tool
        sg.LLM.from_backend(ScriptedBackend(*SCRIPT[1:2])).run_tools(
            "Track the parcel ZX-1.", [server], tool_errors="raise", **WORDS)


def test_mcp_tools_mix_with_functions_and_call_tools_offers_them(server: sg.MCPServerStdio) -> None:
    def weigh_parcel(tracking_number: str) -> str:
        """Weigh a parcel."""
        return "2 kg"

    tools: list[sg.ToolSource] = [weigh_parcel, *server.tools()[:2]]
    turn = sg.LLM.from_backend(ScriptedBackend(SCRIPT[0])).call_tools(ASK, tools, **WORDS)
    assert [c.name for c in turn.calls] == ["lookup_order"] and turn.calls[0].arguments == {"order_id": "A-7731"}
    assert turn.calls[0].invoke() == LAMP
    with pytest.raises(sg.ToolDefinitionError, match="two tools are named 'lookup_order'"):
        sg.LLM.from_backend(ScriptedBackend()).call_tools(ASK, [server, server.tools()[0]])


def test_sync_run_tools_inside_async_with_does_not_deadlock(server: sg.MCPServerStdio) -> None:
    script = (SCRIPT[0], calls("lookup_order", order_id="Mu"), "Friday.")

    async def main() -> sg.ToolRun[str]:
        async with server:  # entered again, here; then a blocking run, called from a coroutine
            return sg.LLM.from_backend(ScriptedBackend(*script)).run_tools("Look up the order A-7731.", [server], **WORDS)

    run = asyncio.run(main())
    assert [r for _, r in run.calls] == [LAMP] and run.output == "Friday." and server.connected


@pytest.mark.parametrize("driver", ["blocking", "asyncio"])
def test_a_server_that_dies_mid_run_ends_it_with_the_conversation_kept(driver: str) -> None:
    llm = sg.LLM.from_backend(ScriptedBackend(SCRIPT[0]))
    with stdio(dies=True) as shop:  # its first call ends its process
        with pytest.raises(sg.MCPServerError, match="lost the connection to the MCP server") as caught:
            if driver == "blocking":
                llm.run_tools(ASK, [shop], **WORDS)
            else:
                asyncio.run(llm.arun_tools(ASK, [shop], **WORDS))
        error = caught.value
        assert not shop.connected
    assert [m.role for m in error.messages] == ["user", "assistant", "tool"]
    assert error.messages[1].tool_calls[0]["function"]["name"] == "lookup_order"
    assert error.messages[2].content.startswith("Error: MCPServerError: structgen lost the connection")
    assert error.usage.sampled_tokens > 0 and isinstance(error.__cause__, Exception)
    assert error.server.startswith("MCPServerStdio(")


def test_a_server_over_streamable_http(http_url: str) -> None:
    with sg.MCPServerHTTP(http_url, headers={"X-Structgen-Test": "1"}) as shop:
        assert [t.name for t in shop.tools()] == NAMES
        run = sg.LLM.from_backend(ScriptedBackend(*SCRIPT)).run_tools(ASK, [shop], **WORDS)
        assert [r if isinstance(r, str) else type(r.__cause__).__name__ for _, r in run.calls] == [LAMP, "MCPToolError"]
        llm = sg.LLM.from_backend(ScriptedBackend(calls("crash")))
        with pytest.raises(sg.MCPServerError, match="lost the connection") as caught:
            asyncio.run(llm.arun_tools("Crash the server.", [shop], **WORDS))
        assert caught.value.messages[1].tool_calls[0]["function"]["name"] == "crash"
        with pytest.raises(sg.MCPServerError):
            shop.tools()


# -- dict and schema tools with a function ------------------------------------------------------

PARCEL_SCHEMA = {"type": "object", "properties": {"tracking_number": {"type": "string"}}, "required": ["tracking_number"]}


def test_schema_and_dict_tools_carry_a_function_run_tools_runs() -> None:
    seen: list[dict[str, Any]] = []

    def track(**arguments: Any) -> str:
        seen.append(arguments)
        return "In Lisbon."

    async def atrack(tracking_number: str) -> str:
        return f"{tracking_number} is in Lisbon."

    by_schema = sg.Tool.from_schema("track_parcel", PARCEL_SCHEMA, description="Track a parcel.", function=track,
                                    examples=["Where is my parcel?"])
    assert (by_schema.description, by_schema.examples, by_schema.arguments_type) == (
        "Track a parcel.", ("Where is my parcel?",), None)
    spec = {"type": "function", "function": {"name": "track_parcel", "description": "Track a parcel.",
                                             "parameters": PARCEL_SCHEMA}}
    by_dict = sg.Tool.from_dict(spec, function=atrack)
    assert by_dict.is_async and by_dict.parameters == PARCEL_SCHEMA
    for made, answer in ((by_schema, "In Lisbon."), (by_dict, "ZX-1 is in Lisbon.")):
        script = (calls("track_parcel", tracking_number="ZX-1"), calls("track_parcel", tracking_number="Mu"), "Lisbon.")
        run = sg.LLM.from_backend(ScriptedBackend(*script)).run_tools("Track the parcel ZX-1.", [made], **WORDS)
        assert [r for _, r in run.calls] == [answer] and run.messages[2].content == answer
    assert seen == [{"tracking_number": "ZX-1"}]
    # without a function a dict tool still cannot run: its error goes back
    run = sg.LLM.from_backend(ScriptedBackend(*script)).run_tools("Track the parcel ZX-1.", [spec], **WORDS)
    assert "has no function to run" in run.messages[2].content


def test_a_schema_tool_is_checked_when_it_is_made() -> None:
    with pytest.raises(sg.ToolDefinitionError, match="must be callable"):
        sg.Tool.from_schema("track", PARCEL_SCHEMA, function="track")  # type: ignore[arg-type]
    with pytest.raises(sg.ToolDefinitionError, match="tool name"):
        sg.Tool.from_schema("9 lives", PARCEL_SCHEMA)
    with pytest.raises(sg.ToolDefinitionError, match="type object"):
        sg.Tool.from_schema("track", {"type": "string"})
    with pytest.raises(sg.ToolDefinitionError, match="examples"):
        sg.Tool.from_schema("track", PARCEL_SCHEMA, examples="Where is it?")


# -- on the real model --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def qwen() -> Iterator[sg.LLM]:
    llm = sg.LLM(tool_model_path(), n_threads=1, max_tokens=40)
    yield llm
    llm.close()


@pytest.mark.model
def test_the_model_calls_an_mcp_tool_and_answers_from_its_result(qwen: sg.LLM) -> None:
    with stdio(include=["lookup_order"]) as shop:
        run = qwen.run_tools("Look up my order A-7731.", [shop], max_rounds=3)
    made = [(call.name, call.arguments, result) for call, result in run.calls]
    assert made[0] == ("lookup_order", {"order_id": "A-7731"}, LAMP)
    assert run.messages[2].role == "tool" and run.messages[2].content == LAMP
    assert run.ended in ("answer", "repeated") and run.messages[-1].role == "assistant"
    assert isinstance(run.output, str) and run.output


@pytest.mark.model
def test_the_model_reads_a_failing_mcp_tools_error_on_the_event_loop(qwen: sg.LLM) -> None:
    async def main() -> sg.ToolRun[str]:
        async with stdio(include=["track_parcel"]) as shop:
            return await qwen.arun_tools("Track my parcel ZX-1001.", [shop], max_rounds=3)

    run = asyncio.run(main())
    assert run.calls and all(call.name == "track_parcel" for call, _ in run.calls)
    assert isinstance(run.calls[0][1], sg.ToolExecutionError)
    assert run.messages[2].content == f"Error: MCPToolError: {TRACKING}"
    assert run.ended in ("answer", "repeated") and run.messages[-1].role == "assistant"


@pytest.mark.model
def test_a_server_dying_under_the_model_ends_the_run_with_its_messages(qwen: sg.LLM) -> None:
    with stdio(dies=True, include=["lookup_order"]) as shop, pytest.raises(sg.MCPServerError, match="lost the connection") as caught:
        qwen.run_tools("Look up my order A-7731.", [shop], max_rounds=3)
    messages = caught.value.messages
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert messages[0].content == "Look up my order A-7731."
    assert messages[1].tool_calls[0]["function"]["name"] == "lookup_order"
    assert caught.value.usage.prompt_tokens > 0
