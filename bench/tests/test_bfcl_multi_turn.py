"""The BFCL multi-turn suite (bench/suites/bfcl_multi_turn.py): its split, the type converter, the
call strings BFCL's executor reads, and that BFCL's own ground truth passes BFCL's checker
through the suite's plumbing while a wrong step fails it (``bfcl-eval``: ``make`` installs it).

No model.
"""

from __future__ import annotations

import json

import pytest

from bench.suites.bfcl_multi_turn import (CaseRun, Step, call_string, decoded_step, half, is_even, json_schema,
                                          openai_tool, tool_name)


def test_split_is_fixed_by_the_ids() -> None:
    ids = [f"multi_turn_base_{i}" for i in range(200)]
    even = [i for i in ids if is_even(i)]
    assert 60 < len(even) < 140  # about half
    halves = {i: half(i) for i in even}
    assert set(halves.values()) == {"tune", "test"}
    assert halves == {i: half(i) for i in even}  # no seed, no state


def test_types_become_json_schema() -> None:
    spec = {"type": "dict", "properties": {
        "price": {"type": "float", "description": "p"},
        "pair": {"type": "tuple", "items": {"type": "integer"}},
        "rows": {"type": "array", "items": {"type": "dict", "properties": {"x": {"type": "any"}}}},
        "name": {"type": "string", "enum": ["a", "b"], "default": "a"},
    }, "required": ["price"]}
    assert json_schema(spec) == {"type": "object", "properties": {
        "price": {"type": "number", "description": "p"},
        "pair": {"type": "array", "items": {"type": "integer"}},
        "rows": {"type": "array", "items": {"type": "object", "properties": {"x": {}}}},
        "name": {"type": "string", "enum": ["a", "b"], "default": "a"},
    }, "required": ["price"]}
    with pytest.raises(ValueError):
        json_schema({"type": "HashMap"})


def test_openai_tool_and_names() -> None:
    tool = openai_tool({"name": "math.mean", "description": "Mean.", "parameters": {
        "type": "dict", "properties": {"numbers": {"type": "array", "items": {"type": "float"}}},
        "required": ["numbers"]}, "response": {"type": "dict"}})
    assert tool == {"type": "function", "function": {"name": "math_mean", "description": "Mean.", "parameters": {
        "type": "object", "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
        "required": ["numbers"]}}}
    assert tool_name("cd") == "cd"


def test_call_strings_are_python_calls() -> None:
    assert call_string("cd", {"folder": "it's"}) == 'cd(folder="it\'s")'
    assert call_string("ls", {}) == "ls()"
    assert call_string("f", {"a": [1, 2.5], "b": {"k": None}, "c": True}) == "f(a=[1, 2.5],b={'k': None},c=True)"
    made = [{"id": "1", "type": "function", "function": {"name": "math_mean", "arguments": json.dumps({"numbers": [1]})}},
            {"id": "2", "type": "function", "function": {"name": "ls", "arguments": {"a": True}}}]
    assert decoded_step(made, {"math_mean": "math.mean"}) == ["math.mean(numbers=[1])", "ls(a=True)"]
    with pytest.raises(ValueError):
        decoded_step([{"function": {"name": "ls", "arguments": "[1]"}}], {})


def test_only_steps_with_calls_reach_the_checker() -> None:
    run = CaseRun([[Step(["ls()"]), Step([])], [Step([])]])
    assert run.decoded() == [[["ls()"]], []]


def test_bfcl_checker_through_the_suite() -> None:
    from bench.suites.bfcl_multi_turn import State, cases, verdict

    chosen = cases(["multi_turn_base", "multi_turn_miss_func"], "tune", 1)
    assert [c["category"] for c in chosen] == ["multi_turn_base", "multi_turn_miss_func"]
    assert all(is_even(c["id"]) and half(c["id"]) == "tune" for c in chosen)
    for case in chosen:
        truth = CaseRun([[Step(list(turn)), Step([])] for turn in case["ground_truth"]])
        assert verdict(case, truth, "test") == (True, "", "")
    case = chosen[0]
    silent = CaseRun([[Step([])] for _ in case["ground_truth"]])
    assert verdict(case, silent, "test")[1] == "multi_turn:empty_turn_model_response"
    short = CaseRun([[Step(list(case["ground_truth"][0]))]], failure="force_terminated")
    assert verdict(case, short, "test")[:2] == (False, "multi_turn:force_terminated")
    missed = chosen[1]
    turn = next(int(t) for t in missed["missed_function"])
    assert not missed["question"][turn]  # the turn that only adds the held-out functions
    held = {f["name"] for docs in missed["missed_function"].values() for f in docs}
    assert held and not held & {f["name"] for f in missed["function"]}
    state = State(case, "test")  # its own instances: two states do not share a file system
    other = State(case, "test")
    try:
        assert state.execute(["pwd()"]) == other.execute(["pwd()"])
    finally:
        state.close()
        other.close()


def test_usage_joins_the_steps_of_the_conversation() -> None:
    from bench.suites.bfcl_multi_turn import _with_usage

    usage = [(10, 100, 1.0), (5, 105, 0.5), (3, 110, 0.2)]
    steps = _with_usage([Step(["ls()"]), Step(["pwd()"]), Step([])], usage)
    assert [(s.calls, s.evaluated) for s in steps] == [(["ls()"], 10), (["pwd()"], 5), ([], 3)]
    # a step of repeated calls, not run, is not in the conversation: it is a step without calls
    steps = _with_usage([Step(["ls()"]), Step([])], usage)
    assert [(s.calls, s.evaluated) for s in steps] == [(["ls()"], 10), ([], 5), ([], 3)]
    steps = _with_usage([Step(["ls()"]), Step(["pwd()"]), Step(["cd(folder='a')"]), Step([])], usage)
    assert [s.evaluated for s in steps] == [None] * 4
