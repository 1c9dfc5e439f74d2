"""An agent on a tool-trained model and llama.cpp's own sampler: Qwen2.5-Coder-0.5B-Instruct
over two user turns, with a tool that fails once, a value only a tool result holds, the run
continued from its own messages, the loop guard, and the prompt's prefix reused from step to
step. The control flow alone, replayed without a model, is in test_tool_loop.py.

The model comes from ``tests/server_support.py`` (``make test`` assembles it once).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

import structgen as sg
from tests.server_support import tool_model_path

pytestmark = pytest.mark.model

ORDER = "A-7731"  # said by no user: only find_orders' result holds it


@dataclass
class Shop:
    """The tools of the conversation, with what they were asked."""

    failures: int = 1
    tracked: list[str] = field(default_factory=list)

    def find_orders(self, customer: str) -> str:
        """Find the orders of a customer by name."""
        return f"Order {ORDER}, a desk lamp, placed on May 3."

    def track_order(self, order_id: str) -> str:
        """Track an order by its order id."""
        self.tracked.append(order_id)
        if self.failures:
            self.failures -= 1
            raise ConnectionError("tracking service busy, try again")
        return f"Order {order_id} is in Lisbon, arriving Friday."

    @property
    def tools(self) -> list[object]:
        return [self.find_orders, self.track_order]


@pytest.fixture(scope="module")
def qwen() -> Iterator[sg.LLM]:
    llm = sg.LLM(tool_model_path(), n_threads=1, max_tokens=120)
    yield llm
    llm.close()


@pytest.fixture(scope="module")
def conversation(qwen: sg.LLM) -> tuple[Shop, sg.ToolRun[str], sg.ToolRun[str]]:
    shop = Shop()
    first = qwen.run_tools("My name is Dana Reyes. Find my orders.", shop.tools)
    second = qwen.run_tools([*first.messages, {"role": "user", "content": "Where is that order now?"}], shop.tools)
    return shop, first, second


def test_a_failing_tool_is_retried_with_a_value_only_a_tool_result_held(
    conversation: tuple[Shop, sg.ToolRun[str], sg.ToolRun[str]],
) -> None:
    shop, first, _ = conversation
    made = [(call.name, result) for call, result in first.calls]
    assert made[0] == ("find_orders", f"Order {ORDER}, a desk lamp, placed on May 3.")
    # the order id came from the tool's result; the first try failed, was shown, and was tried again
    assert shop.tracked[:2] == [ORDER, ORDER]
    assert isinstance(made[1][1], sg.ToolExecutionError)
    assert made[2] == ("track_order", f"Order {ORDER} is in Lisbon, arriving Friday.")
    errors = [m for m in first.messages if m.role == "tool" and m.content.startswith("Error: ConnectionError")]
    assert len(errors) == 1 and errors[0].tool_call_id == first.messages[3].tool_calls[0]["id"]


def test_the_run_continues_from_its_messages_in_the_templates_own_roles(
    conversation: tuple[Shop, sg.ToolRun[str], sg.ToolRun[str]],
) -> None:
    _, first, second = conversation
    assert list(second.messages[: len(first.messages)]) == list(first.messages)
    assert second.messages[len(first.messages)].content == "Where is that order now?"
    roles = {m.role for m in second.messages}
    assert roles == {"user", "assistant", "tool"}  # results in the tool role, not as user text
    # the second turn's call reads the id the first turn's tool returned
    assert [(c.name, c.arguments.order_id) for c, _ in second.calls][:1] == [("track_order", ORDER)]
    assert second.ended in ("answer", "repeated") and second.messages[-1].role == "assistant"


def test_each_step_evaluates_only_what_was_added_since_the_step_before(
    conversation: tuple[Shop, sg.ToolRun[str], sg.ToolRun[str]],
) -> None:
    """The conversation's prefix, the tool listing included, stays in the KV cache: a later step
    evaluates the new call and result (and the new user message), not the whole prompt again."""
    _, first, second = conversation
    steps = [*first.turns[1:], *second.turns]
    assert len(steps) >= 3
    for turn in steps:
        usage = turn.usage
        assert usage.prompt_tokens >= 300  # the whole prompt, listing included, as the template renders it
        assert usage.prompt_tokens - usage.cached_prompt_tokens <= 64 * usage.attempts + 96, usage


def test_a_call_that_keeps_failing_as_it_was_ends_the_run_by_the_loop_guard(qwen: sg.LLM) -> None:
    shop = Shop(failures=10)
    run = qwen.run_tools("Track my order A-7731.", shop.tools, max_rounds=20)
    assert run.ended == "repeated"
    assert shop.tracked == [ORDER, ORDER]  # tried again once; a third time was a loop
    assert isinstance(run.output, str) and run.messages[-1].role == "assistant"
