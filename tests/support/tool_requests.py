"""Twelve ordinary typed tools and requests worded the way people talk (bench/data/tools.json,
set "twelve", and bench/data/tool_requests.json, where each set says when and why it was written).

Each request is ``(text, tool)``: the tool that should be called, or None when the request should
be answered in words; a split holds three kinds (plain, paraphrase, no_tool). ``TUNE`` is the only
split a decision policy may be fitted on. The call sets (``SEVERAL`` ...) hold ``(text, [(tool, a
value its arguments hold), ...])``. ``EXAMPLES`` are each tool's example requests.
"""

from __future__ import annotations

from typing import Literal

from bench.data import Request, Wanted, by_kind, calls, read, tools

__all__ = [
    "CALLS_HOLDOUT", "EXAMPLES", "FRESH", "FRESH_CALLS", "HOLDOUT", "HOLDOUT2", "HOLDOUT3", "HOLDOUT4", "HOLDOUT5",
    "HOLDOUT6", "HOLDOUT7", "HOLDOUT8", "LIVE", "NEIGHBOURS", "SEVERAL", "SHARED_VALUES", "TEST", "TOOLS", "TUNE",
    "TYPED_CALLS", "Kind", "Request", "Wanted",
    "book_table", "convert_currency", "create_event", "get_directions", "get_forecast", "get_news",
    "get_stock_price", "play_music", "search_recipes", "send_email", "set_reminder", "translate_text",
]

Kind = Literal["plain", "paraphrase", "no_tool"]

TOOLS = tools("twelve")
(get_forecast, send_email, convert_currency, set_reminder, get_stock_price, translate_text,
 book_table, play_music, get_directions, search_recipes, create_event, get_news) = TOOLS

_DATA = read("tool_requests")
_SPLITS = {name: by_kind(split["requests"]) for name, split in _DATA["splits"].items()}
_CALLS = {name: calls(group["calls"]) for name, group in _DATA["calls"].items()}

TEST = _SPLITS["TEST"]
TUNE = _SPLITS["TUNE"]
HOLDOUT = _SPLITS["HOLDOUT"]
HOLDOUT2 = _SPLITS["HOLDOUT2"]
HOLDOUT3 = _SPLITS["HOLDOUT3"]
HOLDOUT4 = _SPLITS["HOLDOUT4"]
HOLDOUT5 = _SPLITS["HOLDOUT5"]
HOLDOUT6 = _SPLITS["HOLDOUT6"]
HOLDOUT7 = _SPLITS["HOLDOUT7"]
HOLDOUT8 = _SPLITS["HOLDOUT8"]
NEIGHBOURS = _SPLITS["NEIGHBOURS"]
LIVE = _SPLITS["LIVE"]
FRESH = _SPLITS["FRESH"]
EXAMPLES: dict[str, list[str]] = _DATA["examples"]["by_tool"]
SEVERAL = _CALLS["SEVERAL"]
SHARED_VALUES = _CALLS["SHARED_VALUES"]
TYPED_CALLS = _CALLS["TYPED_CALLS"]
CALLS_HOLDOUT = _CALLS["CALLS_HOLDOUT"]
FRESH_CALLS = _CALLS["FRESH_CALLS"]
