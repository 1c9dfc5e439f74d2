"""A small MCP server for the tests, made with the official SDK (``mcp.server.mcpserver``).

    python tests/support/mcp_server.py              # over stdio
    python tests/support/mcp_server.py --http PORT  # over streamable HTTP, at http://127.0.0.1:PORT/mcp

Its tools: ``lookup_order`` works; ``track_parcel`` fails the way a server author reports a
failure (``ToolError``: an ``isError`` result with its message); ``divide`` fails by a plain
exception (the SDK withholds its text); ``shelf_labels`` answers two text blocks; ``wait`` takes its time; ``crash``
ends the process in the middle of its call. With ``STRUCTGEN_MCP_DIE_ON_CALL=1`` in its
environment, any call ends the process (a server that dies mid-run, whatever the model calls).
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server: MCPServer = MCPServer("structgen-tests", log_level="WARNING")

ORDER_RESULT = "Order {order_id}: a desk lamp, shipped from Lisbon, arriving Friday."
TRACKING_ERROR = "tracking service busy, try again later"


def _maybe_die() -> None:
    if os.environ.get("STRUCTGEN_MCP_DIE_ON_CALL") == "1":
        os._exit(3)


@server.tool()
def lookup_order(order_id: str) -> str:
    """Look up an order by its order id, such as A-7731."""
    _maybe_die()
    return ORDER_RESULT.format(order_id=order_id)


@server.tool()
def track_parcel(tracking_number: str) -> str:
    """Track a parcel by its tracking number."""
    _maybe_die()
    raise ToolError(TRACKING_ERROR)


@server.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    _maybe_die()
    return a / b


@server.tool()
def shelf_labels(aisle: int) -> list[str]:
    """The labels of the shelves in an aisle."""
    _maybe_die()
    return [f"aisle {aisle}, shelf 1", f"aisle {aisle}, shelf 2"]


@server.tool()
async def wait(seconds: float) -> str:
    """Wait a number of seconds."""
    await anyio.sleep(seconds)
    return "waited"


@server.tool()
def crash() -> str:
    """End the server's process (for tests of a server that dies mid-call)."""
    os._exit(3)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(argv[1]))
    else:
        server.run()


if __name__ == "__main__":
    main(sys.argv[1:])
