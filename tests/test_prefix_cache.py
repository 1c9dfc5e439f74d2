"""Prompts paid once: earlier prompts' KV states kept in host memory and copied back.

The store's bookkeeping is checked on its own; everything else on the real default model: calls
of two types (or two tool lists) taking turns reuse each one's prefix as if they came grouped,
and answer exactly as from an empty cache. Types, instructions and tools are those of the
prefix-cache suite (``tests/support/prefix_cache.py``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import structgen as sg
from tests.support.prefix_cache import CONTACT_RULES, TICKET_RULES, Contact, Ticket
from tests.support.prefix_cache import CONTACTS as CONTACT_TEXTS, TICKETS as TICKET_TEXTS
from tests.support.prefix_cache import convert_currency, get_forecast, get_stock_price, get_weather
from structgen._backends.llamacpp._prefixes import PrefixStore, SavedPrefix, shared_length
from structgen.testing import ScriptedBackend

WORDS = replace(sg.policy("small-model"), decision="words")

model = pytest.mark.model
Call = tuple[Any, str, str]


CONTACTS: list[Call] = [(Contact, CONTACT_RULES, text) for text in CONTACT_TEXTS[:2]]
TICKETS: list[Call] = [(Ticket, TICKET_RULES, text) for text in TICKET_TEXTS[:2]]
WEATHER = [get_weather, get_forecast]
MONEY = [convert_currency, get_stock_price]


@pytest.fixture(scope="module")
def llm() -> Iterator[sg.LLM]:
    loaded = sg.LLM(n_ctx=2048, max_tokens=120, n_threads=1)
    yield loaded
    loaded.close()


@pytest.fixture(scope="module")
def no_store() -> Iterator[sg.LLM]:
    loaded = sg.LLM(n_ctx=2048, max_tokens=120, n_threads=1, prompt_cache_bytes=0)
    yield loaded
    loaded.close()


def runner_of(llm: sg.LLM) -> Any:
    return llm.backend._runner  # type: ignore[attr-defined]


def run(llm: sg.LLM, call: Call) -> sg.Result[Any]:
    output_type, rules, text = call
    return llm.run(output_type, text, system=rules, max_retries=0)


def in_order(llm: sg.LLM, calls: list[Call]) -> list[sg.Result[Any]]:
    """The calls one after the other, from an empty cache and store."""
    runner_of(llm).forget()
    return [run(llm, call) for call in calls]


# -- on the real model ------------------------------------------------------------------------------


@model
def test_alternating_types_reuse_what_grouped_calls_reuse(llm: sg.LLM, no_store: sg.LLM) -> None:
    grouped = in_order(llm, [CONTACTS[0], CONTACTS[1], TICKETS[0], TICKETS[1]])
    alternating = in_order(llm, [CONTACTS[0], TICKETS[0], CONTACTS[1], TICKETS[1]])
    second_contact, second_ticket = grouped[1].usage, grouped[3].usage
    # The second call of each type starts from the first one's state, taking turns or not.
    assert alternating[2].usage.cached_prompt_tokens == second_contact.cached_prompt_tokens
    assert alternating[3].usage.cached_prompt_tokens == second_ticket.cached_prompt_tokens
    assert second_contact.cached_prompt_tokens > 40 and second_ticket.cached_prompt_tokens > 40
    # Without the store, only the previous call's prefix is reused: the chat header.
    previous_only = in_order(no_store, [CONTACTS[0], TICKETS[0], CONTACTS[1], TICKETS[1]])
    assert previous_only[2].usage.cached_prompt_tokens < second_contact.cached_prompt_tokens // 4
    assert len(runner_of(no_store).saved) == 0
    texts = {r.text for r in (grouped[1], alternating[2], previous_only[2])}
    assert len(texts) == 1


@model
def test_answers_are_those_of_an_empty_cache(llm: sg.LLM) -> None:
    calls = [CONTACTS[0], TICKETS[0], CONTACTS[1], TICKETS[1], CONTACTS[0], TICKETS[1]]
    cold = []
    for call in calls:
        runner_of(llm).forget()
        cold.append(run(llm, call))
    warm = in_order(llm, calls)
    assert [r.text for r in warm] == [r.text for r in cold]
    assert all(r.usage.cached_prompt_tokens == 0 for r in cold)
    # The repeated calls reuse all of their prompt but the last token (evaluated for its logits).
    for repeated in warm[4:]:
        assert repeated.usage.cached_prompt_tokens == repeated.usage.prompt_tokens - 1
    store = runner_of(llm).saved
    assert 0 < store.nbytes <= store.budget


@model
def test_alternating_tool_sets_reuse_each_listing(llm: sg.LLM, no_store: sg.LLM) -> None:
    def turns(model_: sg.LLM, order: list[tuple[str, list[Any]]]) -> list[sg.ToolTurn]:
        # "words" (on the small-model policy's other rules): every tool is listed ("meaning" lists
        # only those that fit each request).
        runner_of(model_).forget()
        return [model_.call_tools(request, tools, tool_choice="required", policy=WORDS)
                for request, tools in order]

    weather1 = ("What is the weather in Paris?", WEATHER)
    weather2 = ("What will the weather be in Rome over the next 5 days?", WEATHER)
    money1 = ("Convert 250 US dollars to euros.", MONEY)
    grouped = turns(llm, [weather1, weather2])
    alternating = turns(llm, [weather1, money1, weather2])
    previous_only = turns(no_store, [weather1, money1, weather2])
    reused = grouped[1].usage.cached_prompt_tokens
    assert alternating[2].usage.cached_prompt_tokens == reused
    assert reused > 100  # the tool listing is not evaluated again
    assert previous_only[2].usage.cached_prompt_tokens < reused // 4
    calls = [[(c.name, c.text) for c in t.calls] for t in (grouped[1], alternating[2], previous_only[2])]
    assert calls[0] == calls[1] == calls[2] and "Rome" in calls[0][0][1]


@model
def test_the_state_the_store_drops_to_make_room_still_serves_the_prompt(llm: sg.LLM) -> None:
    """The best saved state for a prompt can be the one the store drops when the state the
    cache holds is saved to make room for it; the prompt still starts from the best state."""
    runner = runner_of(llm)
    first, _ = in_order(llm, [CONTACTS[0], TICKETS[0]])  # the contact's state is saved
    store, budget = runner.saved, runner.saved.budget
    holding = runner.lib.llama_state_seq_get_size(runner.ctx, runner.seq)
    store.budget = max(store.nbytes, holding)  # room for one state: saving the ticket's drops the contact's
    try:
        again = run(llm, CONTACTS[0])
    finally:
        store.budget = budget
    assert again.text == first.text
    assert again.usage.cached_prompt_tokens == again.usage.prompt_tokens - 1
    assert len(store) == 1


@model
def test_saved_states_outlive_direct_use_of_the_llama(llm: sg.LLM) -> None:
    first, _ = in_order(llm, [CONTACTS[0], TICKETS[0]])
    llama = llm.backend.llama  # type: ignore[attr-defined]
    llama.create_completion("The capital of France is", max_tokens=3, temperature=0.0)
    again = run(llm, CONTACTS[0])
    assert again.text == first.text
    assert again.usage.cached_prompt_tokens == again.usage.prompt_tokens - 1


@model
def test_forget_and_close_free_the_store() -> None:
    loaded = sg.LLM(n_ctx=1024, max_tokens=120, n_threads=1)
    runner = runner_of(loaded)
    in_order(loaded, [CONTACTS[0], TICKETS[0]])
    assert len(runner.saved) == 1
    runner.forget()
    assert len(runner.saved) == 0 and runner.saved.nbytes == 0
    in_order(loaded, [CONTACTS[0], TICKETS[0]])
    loaded.close()
    assert len(runner.saved) == 0


@model
@pytest.mark.parametrize("budget", [-1, True, 1.5])
def test_the_budget_must_be_a_byte_count(llm: sg.LLM, budget: Any) -> None:
    with pytest.raises(ValueError, match="prompt_cache_bytes"):
        sg.LlamaCppBackend(llm.backend.llama, prompt_cache_bytes=budget)  # type: ignore[attr-defined]


def test_the_budget_is_a_model_option() -> None:
    with pytest.raises(TypeError, match="model options"):
        sg.LLM(backend=ScriptedBackend(), prompt_cache_bytes=2**20)


# -- the store's bookkeeping ----------------------------------------------------------------------


def saved(tokens: list[int], nbytes: int = 100) -> SavedPrefix:
    return SavedPrefix(np.array(tokens, dtype=np.int64), (ctypes.c_uint8 * nbytes)())


def test_best_is_the_longest_shared_prefix() -> None:
    store = PrefixStore(1000)
    a, b = saved([1, 2, 3, 4]), saved([1, 2, 7, 8, 9])
    store.add(a)
    store.add(b)
    assert store.best([1, 2, 3, 9]) == (a, 3)
    assert store.best([1, 2, 7, 8, 9, 10]) == (b, 5)
    assert store.best([5]) == (None, 0)
    assert store.covers([1, 2, 7]) and not store.covers([1, 2, 7, 6])


def test_a_state_replaces_those_it_extends() -> None:
    store = PrefixStore(1000)
    store.add(saved([1, 2]))
    store.add(saved([1, 3]))
    longer = saved([1, 2, 3])
    store.add(longer)
    assert len(store) == 2 and store.nbytes == 200
    assert store.best([1, 2, 3]) == (longer, 3)


def test_the_least_recently_used_go_first_within_the_budget() -> None:
    store = PrefixStore(250)
    a, b, c = saved([1]), saved([2]), saved([3])
    store.add(a)
    store.add(b)
    store.used(a)
    store.add(c)  # over budget: b, the least recently used, goes
    assert store.best([2]) == (None, 0) and store.best([1])[0] is a and store.best([3])[0] is c
    assert store.nbytes == 200
    assert not store.fits(251) and store.fits(250)


def test_the_state_about_to_be_used_is_kept_when_room_is_made() -> None:
    store = PrefixStore(150)
    a, b = saved([1]), saved([2])
    store.add(a)
    store.add(b, keep=a)  # no room for both: the new state goes, not the kept one
    assert store.best([1])[0] is a and store.best([2]) == (None, 0) and store.nbytes == 100
    c = saved([3])
    store.add(c)
    assert store.best([3])[0] is c and len(store) == 1


def test_shared_length() -> None:
    assert shared_length([1, 2, 3], [1, 2, 4]) == 2
    assert shared_length([1, 2], [1, 2, 3]) == 2
    assert shared_length([], [1]) == 0
    assert shared_length(np.array([5, 6]), [5, 6]) == 2
