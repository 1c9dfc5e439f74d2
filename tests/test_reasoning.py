"""``reasoning=``: a bounded free section before the typed answer and before tool calls, on the
real models and llama.cpp's own sampler (in process, through llama-server's ``/completion`` and
through its OpenAI-compatible chat endpoint)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from pydantic import BaseModel

import structgen as sg
from structgen._backends._section_grammar import SectionReader, section_grammar
from structgen._backends._seam import Reasoning, TextDelta
from structgen._generate._reasoning import (
    DEFAULT_MARKERS, DEFAULT_REASONING_BUDGET, OPENED_REASONING_BUDGET, checked_budget, reasoning_section,
    template_markers,
)
from structgen.testing import ScriptedBackend, accepts
from tests.server_support import running_server, tool_model_path
from tests.support.models import chat_templates


class Person(BaseModel):
    name: str
    age: int


def get_weather(city: str) -> str:
    """Get the current weather in a city."""
    return f"sunny in {city}"


QWEN3_LIKE = "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{%- endfor %}" \
             "{%- if add_generation_prompt %}<|im_start|>assistant\n<think>\n{%- endif %}"


#: The shape of the template in DeepSeek-R1-Distill-Qwen-7B's first GGUF (written here, not copied).
R1_FIRST_LIKE = "{%- for m in messages %}{% set content = m.content %}{% if '</think>' in content %}" \
                "{% set content = content.split('</think>')[-1] %}{% endif %}<｜{{ m.role }}｜>{{ content }}" \
                "{%- endfor %}{% if add_generation_prompt %}<｜Assistant｜>{% endif %}"


# -- the option and the markers (no model) ------------------------------------------------------


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-5, ValueError), (1.5, TypeError), ("64", TypeError)])
def test_bad_budgets_are_clear_errors_before_any_request(bad: object, error: type[Exception]) -> None:
    backend = ScriptedBackend()  # no answer: a request would fail with BackendError instead
    llm = sg.LLM(backend=backend)
    with pytest.raises(error, match="reasoning"):
        llm.generate(Person, "Alice is 31.", reasoning=bad)  # type: ignore[call-overload]
    with pytest.raises(error, match="reasoning"):
        llm.call_tools("Weather in Paris?", [get_weather], reasoning=bad)  # type: ignore[arg-type]
    with pytest.raises(error, match="reasoning"):
        list(llm.stream(Person, "Alice is 31.", reasoning=bad))  # type: ignore[call-overload]
    assert backend.requests == []


def test_the_budget_of_true_and_the_markers_a_template_names() -> None:
    assert checked_budget(True) == DEFAULT_REASONING_BUDGET
    assert checked_budget(None) is None and checked_budget(False) is None
    assert template_markers(QWEN3_LIKE.replace("<think>\n", "<think>\n</think>")) == ("<think>", "</think>")
    assert template_markers("{{ '[THINK]' }}...{{ '[/THINK]' }}") == ("[THINK]", "[/THINK]")
    assert template_markers("<|im_start|>assistant") is None and template_markers(None) is None
    # DeepSeek-R1 distills' first template never writes <think>: it cuts earlier answers at </think>.
    assert template_markers(R1_FIRST_LIKE) == ("<think>", "</think>")
    # GPT-OSS's harmony format: an analysis channel, then the final one; Phi-3 ends turns with <|end|> too.
    harmony = reasoning_section(None, "<|start|>assistant<|channel|>analysis<|message|>{{ m.thinking }}<|end|>")
    assert harmony is not None and (harmony.open, harmony.close) == ("<|channel|>analysis<|message|>", "<|end|>")
    assert harmony.separator == "<|start|>assistant<|channel|>final<|message|>"
    assert template_markers("<|user|>{{ m.content }}<|end|><|assistant|>") is None
    # A template without markers gets the documented pair; none when not asked.
    assert reasoning_section(32, None) == Reasoning(*DEFAULT_MARKERS, 32)
    assert reasoning_section(None, "<|im_start|>") is None
    # A template that knows reasoning gets it bounded even when not asked, whether it opens the
    # section itself or leaves the model to open it (Qwen3's); not where the prompt closes one.
    known = reasoning_section(None, "<think></think>")
    assert known is not None and not known.always and known.budget == OPENED_REASONING_BUDGET
    assert known.wanted("<|im_start|>assistant\n<think>\n") and known.wanted("<|im_start|>assistant\n")
    assert not known.wanted("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    # reasoning=False: thinking off, a section the template knows closed at once.
    off = reasoning_section(False, "<think></think>")
    assert off == Reasoning("<think>", "</think>", 0, always=False) and reasoning_section(False, None) is None


def test_the_section_grammar_puts_the_section_before_the_answer() -> None:
    section = Reasoning("<think>", "</think>", 4)
    gbnf = section_grammar('root ::= "{" item "}"\nitem ::= [a-z]+ | root\n', "root", section)
    assert accepts(gbnf, '<think>some thoughts</think>\n\n{ab}')
    assert accepts(gbnf, '<think></think>\n\n{{ab}}')  # the answer's own recursion is kept
    assert not accepts(gbnf, '{ab}')  # the section is not skipped
    assert not accepts(gbnf, '<think>' + "x" * 17 + '</think>\n\n{ab}')  # four characters a token
    assert not accepts(gbnf, '<think>a</think>\n\n<think>b</think>\n\n{ab}')  # the section comes once


@given(st.text(alphabet="ab<>/thinkz \n", max_size=40), st.text(alphabet='{}"ab', max_size=12),
       st.lists(st.integers(1, 9), max_size=12))
def test_a_streamed_section_splits_the_same_however_it_is_cut(thought: str, answer: str, cuts: list[int]) -> None:
    section = Reasoning("<think>", "</think>", 100)
    thought = thought.replace("</think>", "")
    text = f"<think>{thought}</think>\n\n{answer}"
    reader, at, pieces = SectionReader(section), 0, []
    for size in [*cuts, len(text)]:
        pieces += reader.feed(text[at : at + size])
        at += size
    assert reader.reasoning == thought and reader.answer == answer
    assert "".join(p.text for p in pieces if not isinstance(p, TextDelta)) == thought
    assert "".join(p.text for p in pieces if isinstance(p, TextDelta)) == answer


# -- the real sampler, in process ------------------------------------------------------------------


@pytest.fixture(scope="module")
def smol() -> Iterator[sg.LLM]:
    llm = sg.LLM(n_ctx=2048, max_tokens=120)
    yield llm
    llm.close()


@pytest.mark.model
@pytest.mark.parametrize("budget", [1, 8, 40])
def test_the_budget_always_closes_the_section(smol: sg.LLM, budget: int) -> None:
    result = smol.run(Person, "Alice turned 31 last week. Who is she?", reasoning=budget)
    assert result.value == Person.model_validate_json(result.text)
    sampled = len(smol.backend.tables.tokenize(result.reasoning))  # type: ignore[attr-defined]
    assert sampled <= budget + 1  # re-spelled, a section's text may merge or split a token
    assert result.usage.reasoning_tokens <= budget + 8  # the markers and separator
    assert "think>" not in result.text and "think>" not in result.value.name


@pytest.mark.model
def test_a_section_the_model_closes_itself_ends_there(smol: sg.LLM) -> None:
    result = smol.run(Person, "Alice turned 31 last week.", reasoning=64)
    assert 0 < result.usage.reasoning_tokens < 64 + 8  # the model closed it before the budget
    assert result.reasoning and "</think>" not in result.reasoning
    assert result.value.age == 31


@pytest.mark.model
def test_streams_separate_the_reasoning_from_the_answer(smol: sg.LLM) -> None:
    items = list(smol.stream(Person, "Bob is 40.", reasoning=24))
    deltas = [i for i in items if isinstance(i, sg.ReasoningDelta)]
    values = [i for i in items if isinstance(i, Person)]
    assert deltas and values and items.index(values[0]) > items.index(deltas[-1])
    reference = smol.run(Person, "Bob is 40.", reasoning=24)
    assert "".join(d.text for d in deltas).strip() == reference.reasoning
    assert values[-1] == reference.value
    # Without the option the stream is only values, as before.
    assert all(isinstance(i, Person) for i in smol.stream(Person, "Bob is 40."))


@pytest.mark.model
def test_async_generation_reasons_alike(smol: sg.LLM) -> None:
    async def main() -> tuple[Person, list[object]]:
        value = await smol.agenerate(Person, "Bob is 40.", reasoning=24)
        return value, [item async for item in smol.astream(Person, "Bob is 40.", reasoning=24)]

    value, items = asyncio.run(main())
    assert value == smol.generate(Person, "Bob is 40.", reasoning=24)
    assert isinstance(items[0], sg.ReasoningDelta) and items[-1] == value


@pytest.mark.model
def test_reasoning_before_tool_calls_and_in_the_agent_loop(smol: sg.LLM) -> None:
    turn = smol.call_tools("What's the weather in Paris?", [get_weather], tool_choice="required", reasoning=24)
    assert turn.reasoning and turn.calls[0].name == "get_weather"
    events = list(smol.stream_tools("What's the weather in Paris?", [get_weather], tool_choice="required",
                                    reasoning=24))
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "ReasoningDelta" and "ToolCall" in kinds
    assert kinds.index("ToolCall") > max(i for i, k in enumerate(kinds) if k == "ReasoningDelta")
    assert events[-1].reasoning == turn.reasoning  # type: ignore[union-attr]
    run = smol.run_tools("What's the weather in Paris?", [get_weather], output_type=str, reasoning=16, max_rounds=3)
    assert run.reasoning and all(run.reasoning)


@pytest.mark.model
def test_a_template_that_opens_reasoning_gets_it_bounded_unasked(monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp

    import structgen._generate._reasoning as reasoning

    monkeypatch.setattr(reasoning, "OPENED_REASONING_BUDGET", 12)
    llama = llama_cpp.Llama(str(sg.default_model_path()), n_ctx=1024, n_threads=1, verbose=False)
    llama.metadata["tokenizer.chat_template"] = QWEN3_LIKE.replace("{%- endif %}", "{%- endif %}{# </think> #}")
    llm = sg.LLM.from_llama(llama, max_tokens=80)
    try:
        result = llm.run(Person, "Alice turned 31 last week.")  # no reasoning= given
        assert result.reasoning and result.usage.reasoning_tokens <= 12 + 8
        assert result.value == Person.model_validate_json(result.text)
        # The opening is the template's: it is not written a second time.
        assert not result.reasoning.startswith("<think>")
    finally:
        llm.close()
        llama.close()


def _with_template(name: str) -> tuple[sg.LLM, Any]:
    """The default model under a real model's chat template (llama.cpp's models/templates)."""
    import llama_cpp

    llama = llama_cpp.Llama(str(sg.default_model_path()), n_ctx=1024, n_threads=1, verbose=False)
    llama.metadata["tokenizer.chat_template"] = (chat_templates() / name).read_text()
    return sg.LLM.from_llama(llama, max_tokens=80), llama


@pytest.mark.model
@pytest.mark.parametrize("template", ["Qwen-Qwen3-0.6B.jinja", "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
                                      "LFM2.5-Instruct.jinja", "openai-gpt-oss-120b.jinja"])
def test_a_thinking_models_template_gets_a_bounded_section_unasked_and_false_turns_it_off(
    template: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Qwen3's template leaves the model to open its thinking, DeepSeek-R1's opens it, LFM2.5's
    only cuts earlier answers at ``</think>``, GPT-OSS's has an analysis channel: each way the
    model thinks, bounded, with no option; ``reasoning=False`` closes the section at once."""
    import structgen._generate._reasoning as reasoning

    monkeypatch.setattr(reasoning, "OPENED_REASONING_BUDGET", 12)
    llm, llama = _with_template(template)
    try:
        section = reasoning_section(None, llama.metadata["tokenizer.chat_template"])
        assert section is not None
        markers = len(llama.tokenize((section.open + section.close + section.separator).encode(), add_bos=False))
        thought = llm.run(Person, "Alice turned 31 last week.")
        assert thought.reasoning and 0 < thought.usage.reasoning_tokens <= 12 + markers + 2
        assert thought.value == Person.model_validate_json(thought.text)
        off = llm.run(Person, "Alice turned 31 last week.", reasoning=False)
        assert off.reasoning == "" and off.usage.reasoning_tokens <= markers + 2  # the markers, forced
        assert off.value == Person.model_validate_json(off.text)
    finally:
        llm.close()
        llama.close()


@pytest.mark.model
def test_extract_keeps_the_reasoning_on_request(smol: sg.LLM, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": "ada", "text": "Ada Lovelace is 36 years old."}\n{"id": "bob", "text": "Bob is 41."}\n')
    for keep in (True, False):
        out = tmp_path / f"out-{keep}.jsonl"
        got = list(sg.extract(Person, source, llm=smol, output=out, reasoning=24, keep_reasoning=keep))
        assert all(bool(r.reasoning) == keep for r in got)
        records = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["id"] for r in records] == ["ada", "bob"] and all("value" in r for r in records)
        assert all(bool(r.get("reasoning")) == keep for r in records)
    with pytest.raises(ValueError, match="keep_reasoning needs a reasoning budget"):
        sg.extract(Person, source, llm=smol, output=tmp_path / "x.jsonl", keep_reasoning=True)


# -- the real sampler, on the tool-trained model ------------------------------------------------


@pytest.mark.model
def test_a_tool_trained_model_reasons_then_calls() -> None:
    llm = sg.LLM(tool_model_path(), n_threads=1, max_tokens=120)
    try:
        turn = llm.call_tools("Get the current weather in Paris.", [get_weather], reasoning=48)
        assert [c.name for c in turn.calls] == ["get_weather"] and turn.calls[0].arguments.city == "Paris"
        assert turn.reasoning and turn.usage.reasoning_tokens <= 48 + 8
        result = llm.run(Person, "Alice turned 31 last week.", reasoning=48)
        assert result.value == Person(name="Alice", age=31) and result.reasoning
    finally:
        llm.close()


# -- the servers ------------------------------------------------------------------------------------


@pytest.mark.model
def test_reasoning_on_llama_server_and_its_chat_endpoint(smol: sg.LLM) -> None:
    here = smol.run(Person, "Alice turned 31 last week.", reasoning=24)
    with running_server("-c", "2048", "-np", "1") as (url, _):
        remote = sg.LLM(backend=sg.LlamaServerBackend(url))
        there = remote.run(Person, "Alice turned 31 last week.", reasoning=24)
        # Two requests on the server (the section, then the answer after it) write what one
        # writes in process: the same sampler, greedy. The worked reply is free text, where a
        # near tie may fall the other way on the server's batch and thread counts (seen after
        # 45 characters), so its start is compared, and the answer whole.
        assert there.value == here.value and there.reasoning[:30] == here.reasoning[:30]
        assert 0 < there.usage.reasoning_tokens <= 24
        streamed = list(remote.stream(Person, "Bob is 40.", reasoning=16))
        assert isinstance(streamed[0], sg.ReasoningDelta) and isinstance(streamed[-1], Person)

        # /v1/completions with the prompt rendered here: the same two requests, the same answer (the
        # free reply's start compared: the server's prompt cache changes its batches between runs).
        v1 = sg.LLM(backend=sg.OpenAICompatibleBackend(url)).run(Person, "Alice turned 31 last week.", reasoning=24)
        assert v1.value == there.value and v1.reasoning[:30] == there.reasoning[:30]
        assert 0 < v1.usage.reasoning_tokens <= 24

        class ServerRendered(sg.OpenAICompatibleBackend):  # as where the server tells no template
            def _prompt_template(self) -> Any:
                return None

        chat = sg.LLM(backend=ServerRendered(url))
        answer = chat.run(Person, "Alice turned 31 last week.", reasoning=24)
        assert answer.value.age == 31 and "think>" not in answer.text
        assert len(answer.reasoning) <= 4 * 24  # bounded in characters by the grammar
        streamed = list(chat.stream(Person, "Bob is 40.", reasoning=16))
        assert isinstance(streamed[0], sg.ReasoningDelta) and isinstance(streamed[-1], Person)
