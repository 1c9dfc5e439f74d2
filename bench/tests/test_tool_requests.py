"""bench/data/tool_requests.json holds what the tool-decision suite promises: at least twelve ordinary
typed tools and thirty requests of each kind, paraphrases that share no word stem with any tool's
text, and TEST requests that never appear in TUNE."""

from __future__ import annotations

from structgen import Message
# The tools from the typed stubs, and the gate's own word rule, which the sets are checked against.
from structgen._tools._tool import as_tools
from structgen._tools.policy._words import relevant_tools
from tests.support.tool_requests import (
    CALLS_HOLDOUT, EXAMPLES, FRESH, FRESH_CALLS, HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7,
    HOLDOUT8, LIVE, NEIGHBOURS, SEVERAL, SHARED_VALUES, TEST, TOOLS, TUNE, TYPED_CALLS,
)

TOOL_LIST = as_tools(TOOLS)


def test_twelve_typed_tools_and_thirty_requests_of_each_kind() -> None:
    assert len(TOOL_LIST) >= 12 and all(t.arguments_type is not None for t in TOOL_LIST)
    assert {kind: len(requests) >= 30 for kind, requests in TEST.items()} == {
        "plain": True, "paraphrase": True, "no_tool": True}
    names = {t.name for t in TOOL_LIST}
    assert all(tool in names for requests in (*TEST.values(), *TUNE.values()) for _, tool in requests if tool)


def test_paraphrases_share_no_word_stem_with_any_tool() -> None:
    for requests in (TEST["paraphrase"], TUNE["paraphrase"], HOLDOUT["paraphrase"], HOLDOUT2["paraphrase"], HOLDOUT3["paraphrase"], HOLDOUT4["paraphrase"],
                     HOLDOUT5["paraphrase"], HOLDOUT6["paraphrase"], HOLDOUT7["paraphrase"], HOLDOUT8["paraphrase"], NEIGHBOURS["paraphrase"], LIVE["paraphrase"], FRESH["paraphrase"]):
        for text, _ in requests:
            assert relevant_tools(TOOL_LIST, [Message("user", text)]) == [], text


def test_most_no_tool_requests_share_a_word_with_some_tool() -> None:
    sharing = [text for text, _ in TEST["no_tool"] if relevant_tools(TOOL_LIST, [Message("user", text)])]
    assert len(sharing) * 3 >= len(TEST["no_tool"]) * 2


def test_the_reported_splits_share_no_request_with_tuning() -> None:
    tune = {text for requests in TUNE.values() for text, _ in requests}
    test = {text for requests in TEST.values() for text, _ in requests}
    holdout = {text for requests in HOLDOUT.values() for text, _ in requests}
    fresh = {text for requests in HOLDOUT2.values() for text, _ in requests}
    third = {text for requests in HOLDOUT3.values() for text, _ in requests}
    assert not tune & test and not tune & holdout and not test & holdout
    fourth = {text for requests in HOLDOUT4.values() for text, _ in requests}
    assert not fresh & (tune | test | holdout) and not third & (tune | test | holdout | fresh)
    assert not fourth & (tune | test | holdout | fresh | third)
    fifth = {text for requests in HOLDOUT5.values() for text, _ in requests}
    assert not fifth & (tune | test | holdout | fresh | third | fourth)
    neighbours = {text for requests in NEIGHBOURS.values() for text, _ in requests}
    assert not neighbours & (tune | test | holdout | fresh | third | fourth | fifth)
    assert all(tool for requests in NEIGHBOURS.values() for _, tool in requests)
    live = {text for requests in LIVE.values() for text, _ in requests}
    assert not live & (tune | test | holdout | fresh | third | fourth | fifth | neighbours)
    later = {text for requests in FRESH.values() for text, _ in requests}
    assert not later & (tune | test | holdout | fresh | third | fourth | fifth | neighbours | live)
    sixth = {text for requests in HOLDOUT6.values() for text, _ in requests}
    assert not sixth & (tune | test | holdout | fresh | third | fourth | fifth | neighbours | live | later)
    seventh = {text for requests in HOLDOUT7.values() for text, _ in requests}
    assert not seventh & (tune | test | holdout | fresh | third | fourth | fifth | neighbours | live | later | sixth)
    for split in (HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7):
        assert {kind: len(requests) for kind, requests in split.items()} == {"plain": 15, "paraphrase": 15, "no_tool": 15}


def test_the_action_signal_is_fitted_on_no_request_of_any_split() -> None:
    from bench.data import intent_sentences

    ACTIONS, ANSWERS = intent_sentences()

    splits = {text for split in (TUNE, TEST, HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7, NEIGHBOURS, LIVE, FRESH)
              for requests in split.values() for text, _ in requests}
    assert not set(ACTIONS) & splits and not set(ANSWERS) & splits


def test_several_calls_share_no_request_and_name_only_the_tools() -> None:
    """SEVERAL (the several-calls suite): new requests, each wanting one or two calls of the tools."""
    splits = {text for split in (TUNE, TEST, HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7, NEIGHBOURS, LIVE, FRESH)
              for requests in split.values() for text, _ in requests}
    names = {t.name for t in TOOL_LIST}
    several = (*SEVERAL, *SHARED_VALUES, *TYPED_CALLS, *CALLS_HOLDOUT, *FRESH_CALLS)
    assert not {text for text, _ in several} & splits
    assert len({text for text, _ in several}) == len(several)
    assert [len(wanted) for _, wanted in CALLS_HOLDOUT] == [1] * 12 + [2] * 12
    assert all(name in names for _, wanted in CALLS_HOLDOUT for name, _ in wanted)
    assert [len(wanted) for _, wanted in FRESH_CALLS] == [1] * 14 + [2] * 12 + [3] * 4
    assert all(name in names for _, wanted in FRESH_CALLS for name, _ in wanted)
    assert all(1 <= len(wanted) <= 2 and all(name in names for name, _ in wanted) for _, wanted in TYPED_CALLS)
    assert all(len({name for name, _ in wanted}) == 2 for _, wanted in SHARED_VALUES)
    assert all(1 <= len(wanted) <= 2 and all(name in names for name, _ in wanted) for _, wanted in SEVERAL)
    assert sum(len(wanted) == 2 for _, wanted in SEVERAL) == 10


def test_example_requests_are_three_a_tool_and_none_is_a_request_of_any_split() -> None:
    from bench.experiments import tools_that_answer

    splits = (TUNE, TEST, HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7, NEIGHBOURS, LIVE, FRESH)
    asked = {text.lower() for split in splits for requests in split.values() for text, _ in requests}
    asked |= {text.lower() for _, requests in tools_that_answer.SETS.values() for text, _ in requests}
    shown = {**EXAMPLES, **tools_that_answer.EXAMPLES}
    assert set(EXAMPLES) == {t.name for t in TOOL_LIST}
    assert all(len(examples) == 3 for examples in shown.values())
    assert not {e.lower() for examples in shown.values() for e in examples} & asked


def test_the_other_tools_requests_hold_what_their_bench_promises() -> None:
    from bench.experiments import own_tools

    for name, (functions, requests, examples) in own_tools.sets().items():
        tools = as_tools(functions)
        assert {kind: len(asked) for kind, asked in requests.items()} == {"plain": 8, "paraphrase": 8, "no_tool": 8}, name
        for kind in ("plain", "paraphrase"):  # each tool once of each kind
            assert sorted(wanted for _, wanted in requests[kind]) == sorted(t.name for t in tools), (name, kind)
        assert all(wanted is None for _, wanted in requests["no_tool"])
        for text, wanted in requests["paraphrase"]:
            # One paraphrase shares "one" with another tool's text ("in one zone"), none its own.
            others = {"water_garden"} if text.endswith("i gotta catch one") else set()
            assert {t.name for t in relevant_tools(tools, [Message("user", text)])} == others != {wanted}, (name, text)
        if examples:
            asked = {text.lower().strip(".?! ") for group in requests.values() for text, _ in group}
            assert set(examples) == {t.name for t in tools}
            assert not {e.lower().strip(".?! ") for shown in examples.values() for e in shown} & asked