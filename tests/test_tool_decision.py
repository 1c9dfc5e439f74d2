"""Which tools a conversation is about, and when a proposed call is grounded (no model)."""

from __future__ import annotations

from typing import Literal

import structgen as sg
from structgen._tools._tool import as_tools
from structgen._backends._seam import Message
from structgen._tools._calls import ToolCall, canonical
from structgen._tools.policy._grounding import grounded
from structgen._tools.policy._words import relevant_tools


def get_weather(city: str) -> str:
    """Current weather conditions for a city."""
    return "sunny"


def order_food(dish: Literal["PIZZA", "SOUP"]) -> str:
    """Changes the selection on the order."""
    return "ok"


def createInvoice(customerId: int) -> str:
    return "done"


TOOLS = as_tools([get_weather, order_food, createInvoice])


def names(text: str) -> list[str]:
    return [t.name for t in relevant_tools(TOOLS, [Message("user", text)])]


def test_a_tool_is_relevant_when_it_shares_a_content_word_with_the_request() -> None:
    assert names("What's the weather like in Oslo?") == ["get_weather"]
    assert names("Tell me a joke.") == []


def test_words_compare_by_stem_and_split_at_case_changes() -> None:
    assert names("Is it raining? I need the weather conditions.") == ["get_weather"]
    assert names("Create an invoice for customer 7") == ["createInvoice"]


def test_parameter_names_and_enum_values_count() -> None:
    assert names("Order me pizza") == ["order_food"]
    assert names("which city is warmest") == ["get_weather"]


def test_stop_words_alone_make_nothing_relevant() -> None:
    assert names("Can you tell me what they would want?") == []


def test_a_request_in_another_script_makes_every_tool_relevant() -> None:
    assert names("上海现在天气怎么样？") == ["get_weather", "order_food", "createInvoice"]


def test_tool_results_count_as_what_was_said() -> None:
    conversation = [Message("user", "Hi"), Message("tool", "The weather is fine", name="get_weather")]
    assert [t.name for t in relevant_tools(TOOLS, conversation)] == ["get_weather"]


def call(city: str, tool: sg.Tool = TOOLS[0]) -> ToolCall:
    text = '{"city": "%s"}' % city
    return ToolCall(tool.name, tool.validate(text), "id", tool, text)


def test_a_call_is_grounded_by_an_argument_value_the_user_wrote() -> None:
    asked = [Message("user", "Weather in New-York please")]
    assert grounded([call("new york")], asked)
    assert not grounded([call("Paris")], asked)


def test_a_call_made_earlier_in_the_conversation_is_not_grounded_again() -> None:
    earlier = {"id": "1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    conversation = [Message("user", "Weather in Oslo?"), Message("assistant", "", (earlier,))]
    assert not grounded([call("Oslo")], conversation)


def test_canonical_arguments_ignore_key_order_and_spacing() -> None:
    assert canonical('{"b": 1, "a": [2]}') == canonical({"a": [2], "b": 1})


def test_a_fully_grounded_call_chose_every_value_from_the_request() -> None:
    def convert(amount: float, unit: Literal["C", "F"] = "C", precise: bool = False, note: str = "none") -> str:
        return ""

    tool = as_tools([convert])[0]

    def made(text: str) -> ToolCall:
        return ToolCall(tool.name, tool.validate(text), "id", tool, text)

    asked = [Message("user", "Convert 40 please")]
    assert grounded([made('{"amount": 40, "unit": "F", "precise": true}')], asked, fully=True)
    assert not grounded([made('{"amount": 40, "note": "hot"}')], asked, fully=True)
    assert grounded([made('{"amount": 40, "note": "hot"}')], asked)
    assert not grounded([made('{"amount": 7}')], asked, fully=True)


def test_values_count_as_whole_words_or_numbers_and_defaults_never() -> None:
    def send_email(to: str, language: str = "en") -> str:
        """Send an email."""
        return ""

    tool = as_tools([send_email])[0]

    def made(text: str) -> ToolCall:
        return ToolCall(tool.name, tool.validate(text), "id", tool, text)

    asked = [Message("user", "Send an email to Dana")]
    assert grounded([made('{"to": "dana"}')], asked)
    assert not grounded([made('{"to": "Bob", "language": "en"}')], asked)  # "en" is the default
    assert not grounded([made('{"to": "Bob", "language": "an"}')], [Message("user", "sendanemail")])
    assert grounded([made('{"to": "Bob", "language": "an"}')], [Message("user", "write an email")])
    numbers = [Message("user", "Transfer 1,000.50 dollars")]
    assert _grounded_value("1000.5", numbers) and not _grounded_value("100", numbers)


def _grounded_value(value: str, conversation: list[Message]) -> bool:
    from structgen._tools.policy._words import said, was_heard, words

    return was_heard(value, words(said(conversation)))


def test_relevance_reads_the_latest_request_and_grounding_the_whole_conversation() -> None:
    """A tool is relevant by the latest user message (and the results after it); a call is
    grounded by anything the conversation said: "And tomorrow?" still means Oslo."""
    old = [Message("user", "Weather in Oslo?"), Message("assistant", "Sunny."), Message("user", "And tomorrow?")]
    assert grounded([call("Oslo")], old)
    assert not grounded([call("Lima")], old)
    assert names_in(old) == []
    after = [*old, Message("tool", "Lima: rain", name="get_weather")]
    assert grounded([call("Lima")], after)


def test_a_later_call_of_the_turn_must_add_a_word_of_this_request() -> None:
    """Words of an earlier turn ground a first call, not a second one: in an agent's later turn
    the offered call would otherwise repeat what the user asked before."""
    old = [Message("user", "Weather in Oslo?"), Message("assistant", "Sunny."), Message("user", "And in Lima?")]
    assert grounded([call("Oslo")], old)
    assert not grounded([call("Oslo")], old, earlier=[call("Lima")])
    assert grounded([call("Lima")], old, earlier=[call("Paris")])


def names_in(conversation: list[Message]) -> list[str]:
    return [t.name for t in relevant_tools(TOOLS, conversation)]


def test_a_multi_word_value_needs_half_its_words_said() -> None:
    asked = [Message("user", "Remind me to water the plants at seven")]
    assert _grounded_value("water the plants", asked)
    assert _grounded_value("Water the garden plants", asked)
    assert not _grounded_value("buy some milk", asked)
    assert not _grounded_value("the", asked)  # a stop word alone grounds nothing


def test_a_placeholder_spelled_as_an_identifier_is_not_said() -> None:
    asked = [Message("user", "How should I structure a formal email to a professor?")]
    assert not _grounded_value("Your_Email_To", asked)
    assert _grounded_value("formal email", asked)


def test_a_later_call_of_a_tool_must_add_a_said_word_no_earlier_call_of_it_chose() -> None:
    def weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        """Current weather in a city."""
        return ""

    tool = as_tools([weather])[0]

    def made(text: str) -> ToolCall:
        return ToolCall(tool.name, tool.validate(text), "id", tool, text)

    first = made('{"city": "Mariposa, CA", "unit": "celsius"}')
    asked = [Message("user", "Weather in Mariposa, CA, and in Fresno too")]
    assert grounded([made('{"city": "CA"}')], asked)  # alone, it is grounded
    assert not grounded([made('{"city": "CA"}')], asked, earlier=[first])  # after it, it adds nothing
    assert not grounded([made('{"city": "Mariposa, CA", "unit": "fahrenheit"}')], asked, earlier=[first])
    assert grounded([made('{"city": "Fresno"}')], asked, earlier=[first])
    other = as_tools([get_weather])[0]
    assert grounded([ToolCall(other.name, other.validate('{"city": "Mariposa"}'), "id", other, '{"city": "Mariposa"}')],
                    asked, earlier=[first])  # another tool may take the same values
