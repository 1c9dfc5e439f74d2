"""Tools for function calling: made from typed functions, Pydantic models or tool dicts.

Public names (exported by ``structgen``): :class:`Tool`, :func:`tool`, :class:`ToolCall`,
:class:`ToolTurn`, :class:`ToolRun`, :class:`ArgumentsDelta`.
"""

from __future__ import annotations

from ._calls import ArgumentsDelta, ToolCall, ToolRun, ToolTurn
from ._tool import Tool, ToolSource, as_tool, as_tools, tool

__all__ = ["ArgumentsDelta", "Tool", "ToolCall", "ToolRun", "ToolSource", "ToolTurn", "as_tool", "as_tools", "tool"]
