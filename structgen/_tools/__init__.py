"""Tool calling, in one package above ``structgen._generate`` (whose steps, sampling and output
it uses; nothing there imports it) and below :class:`~structgen.LLM`:

- definitions: tools made from typed functions, Pydantic models or tool dicts (``_tool``,
  ``_docstrings``), what a turn returns (``_calls``), the grammar of a call (``_grammar``);
- ``_formats``: how each model family writes calls; ``_turn``: one tool turn;
- ``policy``: how a turn decides between calling and answering (and the sentence encoder it
  uses); ``_api``: the tool methods' operations, the agent loop and :class:`~structgen.ToolOptions`.
- ``_mcp``: the tools of MCP servers (:class:`~structgen.MCPServer`), through the ``mcp`` SDK,
  imported only when a server connects.

Public names (exported by ``structgen``): :class:`Tool`, :func:`tool`, :class:`ToolCall`,
:class:`ToolTurn`, :class:`ToolRun`, :class:`ArgumentsDelta`, :class:`MCPServer`,
:class:`MCPServerStdio`, :class:`MCPServerHTTP`.
"""

from __future__ import annotations

from ._calls import ArgumentsDelta, ToolCall, ToolRun, ToolTurn
from ._tool import Tool, ToolSource, as_tool, as_tools, tool

__all__ = ["ArgumentsDelta", "Tool", "ToolCall", "ToolRun", "ToolSource", "ToolTurn", "as_tool", "as_tools", "tool"]
