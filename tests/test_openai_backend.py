"""``OpenAICompatibleBackend`` without a model: where the chat template comes from, the request
each engine gets, lazy grammars as structural tags, and the bodies checked against the engines'
documented request schemas.

The schemas below are transcribed from the engines' own sources and docs (no network here):

- llama-server's ``/v1/completions``: OpenAI's completion fields, and llama.cpp's own that
  ``params_from_json_cmpl`` reads for ``/completion`` too (``grammar``, ``grammar_lazy``,
  ``grammar_triggers``, ``top_k``, ``min_p``, ``cache_prompt``, ``n_probs``); verified on the
  real binary in ``test_openai_parity.py``;
- vLLM's ``ChatCompletionRequest`` (``structured_outputs``: ``StructuredOutputsParams`` of
  ``vllm/sampling_params.py``, whose ``structural_tag`` is a JSON string; ``guided_grammar``
  before 0.12, when it was removed, docs/features/structured_outputs.md);
- SGLang's ``ChatCompletionRequest`` (``python/sglang/srt/entrypoints/openai/protocol.py``:
  ``ebnf``, ``response_format`` as a legacy structural tag or xgrammar's ``StructuralTag``);
- xgrammar's structural tag (``docs/structural_tag/structural_tag.md``, 0.2.x): the formats this
  backend writes (``triggered_tags``, ``tag``, ``grammar``, ``sequence``, ``any_text``).

Each mirror forbids fields it does not know, so a misspelt or undocumented field fails here.
Where xgrammar itself is installed (the portability environment), the structural tags are also
compiled and matched by it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import httpx
import pytest
from pydantic import BaseModel, ConfigDict, Field

import structgen as sg
from structgen._backends._seam import Reasoning, chat_template_of
from structgen._backends.server._structural_tag import grammar_after, literal_prefix, structural_tag
from structgen._errors import BackendError
from structgen._gbnf import Recognizer
from structgen._tools._formats import HERMES_FORMAT, LLAMA3_FORMAT, MISTRAL_FORMAT
from structgen._tools._tool import Tool
from structgen.backends import Completion, CompletionRequest, SamplingSettings, ScoreRequest, ScoringBackend

GBNF = 'root ::= "{" ws "\\"city\\"" ws ":" ws "\\"" [A-Za-z]+ "\\"" ws "}"\nws ::= [ ]?\n'
ANSWER = '{"city": "Lisbon"}'
#: A small chat template in ChatML, which renders tools (so: a tool-trained, Hermes-format model).
TEMPLATE = (
    "{%- if tools %}<|im_start|>system\nTools: {% for t in tools %}{{ t.function.name }} {% endfor %}"
    "<tool_call></tool_call><|im_end|>\n{% endif %}"
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
THINKING = TEMPLATE.replace("<|im_start|>assistant\n{% endif %}", "<|im_start|>assistant\n<think>\n{% endif %}")
TOOLS = [Tool("get_weather", "Get the weather.", {"type": "object", "properties": {"city": {"type": "string"}},
                                                   "required": ["city"]}),
         Tool("get_time", "Get the time.", {"type": "object", "properties": {"timezone": {"type": "string"}},
                                            "required": ["timezone"]})]


def _request(**changes: Any) -> CompletionRequest:
    fields: dict[str, Any] = {"messages": (sg.Message("user", "Where?"),), "gbnf": GBNF, **changes}
    return CompletionRequest(**fields)


class Server:
    """A fake OpenAI-compatible server: what it tells on ``GET`` (path -> JSON, else 404), and
    the streams it answers each ``POST`` with; every request is kept."""

    def __init__(self, gets: dict[str, Any] | None = None, text: str | list[str] = ANSWER) -> None:
        self.gets = gets or {}
        self.texts = [text] if isinstance(text, str) else text  # the last one answers every later POST
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if request.method == "GET":
            if request.url.path in self.gets:
                return httpx.Response(200, json=self.gets[request.url.path])
            return httpx.Response(404, json={"error": "Not Found"})
        text = self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]
        if request.url.path == "/v1/completions":
            return httpx.Response(200, content=_completion_stream(text))
        return httpx.Response(200, content=_chat_stream(text))

    def posts(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.seen if r.method == "POST"]

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.path}" for r in self.seen]


def _sse(*events: Any) -> bytes:
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode() + b"data: [DONE]\n\n"


def _chat_stream(text: str) -> bytes:
    return _sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                {"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 7}})


def _completion_stream(text: str) -> bytes:
    """What llama-server streams on ``/v1/completions`` (as the real one does: the last chunk
    holds the finish, the usage and llama.cpp's timings)."""
    return _sse({"choices": [{"index": 0, "text": text[:4], "finish_reason": None}]},
                {"choices": [{"index": 0, "text": text[4:], "finish_reason": None}]},
                {"choices": [{"index": 0, "text": "", "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 30, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 12}},
                 "timings": {"cache_n": 12, "prompt_n": 18, "prompt_ms": 40.0, "predicted_n": 9, "predicted_ms": 60.0}})


def _backend(server: Server, **options: Any) -> sg.OpenAICompatibleBackend:
    mock = httpx.MockTransport(server)
    return sg.OpenAICompatibleBackend("http://engine.test:8000", transport=mock, async_transport=mock, **options)


PROPS = {"chat_template": TEMPLATE, "bos_token": "<|endoftext|>", "eos_token": "<|im_end|>"}


# -- where the template comes from -----------------------------------------------------------


def test_llama_server_tells_its_template_and_the_model_is_then_treated_as_its_template_says() -> None:
    server = Server({"/props": PROPS})
    backend = _backend(server, model="qwen")
    assert "GET /props (not read yet)" in repr(backend) and server.seen == []  # repr asks nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert chat_template_of(backend) == TEMPLATE
    assert (backend.template_source, backend.chat_template_source) == ("GET /props", "server")
    llm = sg.LLM.from_backend(backend)
    assert llm.tool_policy == "tool-trained"
    assert repr(backend) == ("OpenAICompatibleBackend('http://engine.test:8000', engine='llama-server', "
                             "model='qwen', chat_template='GET /props')")
    assert backend.model_name == "http://engine.test:8000 (qwen)"
    chat_template_of(backend)
    assert server.paths() == ["GET /props"]  # asked once


def test_a_given_template_a_jinja_file_or_a_gguf_file(tmp_path: Path) -> None:
    server = Server({"/props": {"bos_token": "<s>", "eos_token": "</s>"}})
    given = _backend(server, chat_template=TEMPLATE)
    assert "chat_template='chat_template= (the Jinja source)'" in repr(given)
    assert given.chat_template == TEMPLATE and given.chat_template_source == "user"
    file = tmp_path / "qwen.jinja"
    file.write_text(TEMPLATE)
    from_file = _backend(Server(), chat_template=file, engine="sglang")
    assert from_file.chat_template == TEMPLATE and str(file) in from_file.template_source
    gguf = sg.default_model_path()
    from_gguf = _backend(Server(), chat_template=gguf, engine="vllm")
    assert "{%" in (from_gguf.chat_template or "") and "(a GGUF file)" in from_gguf.template_source
    with pytest.raises(ValueError, match="neither a Jinja template"):
        _backend(Server(), chat_template=str(tmp_path / "missing.jinja"))
    with pytest.raises(TypeError):
        _backend(Server(), chat_template=3)  # type: ignore[arg-type]


def test_where_neither_says_a_warning_once_names_what_is_assumed() -> None:
    server = Server()
    backend = _backend(server)
    with pytest.warns(UserWarning, match="GET /props tells none.*generic JSON format.*'small-model'.*chat_template=") as caught:
        llm = sg.LLM.from_backend(backend)
        assert llm.tool_policy == "small-model"
        chat_template_of(backend)
    assert len(caught) == 1 and caught[0].filename == __file__  # shown at the caller's line
    assert backend.chat_template is None and backend.chat_template_source == "none"
    assert backend.template_source.startswith("none (assumed")
    list(backend.complete(_request()))
    assert server.paths() == ["GET /props", "POST /v1/chat/completions"]  # the server renders


def test_vllm_tells_its_template_only_with_its_tokenizer_info_endpoint() -> None:
    named = [{"name": "default", "template": "{{ messages }}"}, {"name": "tool_use", "template": TEMPLATE}]
    backend = _backend(Server({"/tokenizer_info": {"chat_template": named, "eos_token": {"content": "<|im_end|>"}}}),
                       engine="vllm")
    assert backend.chat_template == TEMPLATE and backend.template_source == "GET /tokenizer_info"
    with pytest.warns(UserWarning, match="GET /tokenizer_info tells none"):
        assert _backend(Server(), engine="vllm").chat_template is None


def test_sglang_tells_none_and_is_not_asked() -> None:
    server = Server()
    backend = _backend(server, engine="sglang")
    assert "chat_template='none'" in repr(backend)
    with pytest.warns(UserWarning, match="the SGLang server does not tell it"):
        assert backend.chat_template is None
    assert server.seen == []


def test_an_unreachable_server_is_an_error_not_an_assumption() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    mock = httpx.MockTransport(refuse)
    backend = sg.OpenAICompatibleBackend("http://engine.test", transport=mock, retries=1)
    with pytest.raises(BackendError, match="cannot reach the llama.cpp server at http://engine.test/props"):
        _ = backend.chat_template


# -- llama-server with the template: /v1/completions ------------------------------------------


def test_llama_server_gets_the_prompt_rendered_here_and_a_completion() -> None:
    server = Server({"/props": PROPS})
    backend = _backend(server, model="qwen")
    request = _request(tools=(TOOLS[0].to_openai(),), sampling=SamplingSettings(temperature=0.5, seed=3))
    events = list(backend.complete(request))
    assert "".join(e.text for e in events if isinstance(e, sg.TextDelta)) == ANSWER
    completion = events[-1]
    assert isinstance(completion, Completion) and completion.text == ANSWER
    usage = completion.usage
    assert (usage.prompt_tokens, usage.cached_prompt_tokens, usage.sampled_tokens) == (30, 12, 9)
    assert usage.model_seconds == pytest.approx(0.1) and usage.prompt_seconds == pytest.approx(0.04)
    (body,) = server.posts()
    assert server.paths() == ["GET /props", "POST /v1/completions"]
    assert body["prompt"] == ("<|im_start|>system\nTools: get_weather <tool_call></tool_call><|im_end|>\n"
                              "<|im_start|>user\nWhere?<|im_end|>\n<|im_start|>assistant\n")
    LlamaServerCompletion.model_validate(body)
    assert body["grammar"] == GBNF and body["seed"] == 3 and body["model"] == "qwen"
    assert "grammar_lazy" not in body and "messages" not in body


def test_lazy_grammars_go_to_llama_server_as_its_completion_endpoint_takes_them() -> None:
    server = Server({"/props": PROPS}, text='Sure. <tool_call>\n{"name": "get_weather"}')
    backend = _backend(server)
    list(backend.complete(_request(triggers=("(<tool_call>\\n)", 151657))))
    (body,) = server.posts()
    LlamaServerCompletion.model_validate(body)
    assert body["grammar_lazy"] is True
    assert body["grammar_triggers"] == [{"type": 2, "value": "(<tool_call>\\n)"},
                                        {"type": 0, "value": "", "token": 151657}]


def test_a_reasoning_section_is_a_completion_of_its_own_stopped_at_its_marker() -> None:
    server = Server({"/props": {**PROPS, "chat_template": THINKING}}, text=["ok", ANSWER])
    backend = _backend(server)
    section = Reasoning("<think>", "</think>", 40, always=False)
    events = list(backend.complete(_request(reasoning=section)))
    thought, answer = server.posts()
    assert thought["prompt"].endswith("<think>\n") and thought["max_tokens"] == 40
    assert thought["stop"] == ["</think>"] and "grammar" not in thought
    assert answer["prompt"] == thought["prompt"] + "ok</think>\n\n" and answer["grammar"] == GBNF
    completion = events[-1]
    assert isinstance(completion, Completion) and completion.reasoning == "ok" and completion.text == ANSWER
    assert completion.usage.reasoning_tokens == 9


def test_llama_server_scores_text_as_llama_server_backend_does() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if request.url.path == "/tokenize":
            return httpx.Response(200, json={"tokens": [{"id": 12095, "piece": " Paris"}]})
        assert body["grammar"] == "root ::= <[12095]>" and body["n_probs"] == 1
        step = {"id": 12095, "token": " Paris", "bytes": list(b" Paris"), "logprob": -0.25}
        return httpx.Response(200, json={"choices": [{"text": " Paris", "logprobs": {"content": [step]}}]})

    mock = httpx.MockTransport(handle)
    backend = sg.OpenAICompatibleBackend("http://engine.test", transport=mock, chat_template=TEMPLATE)
    assert isinstance(backend, ScoringBackend)
    (score,) = backend.score(ScoreRequest("The capital of France is", (" Paris",)))
    assert (score.logprob, score.tokens) == (-0.25, 1)
    assert not isinstance(sg.OpenAICompatibleBackend("http://x", engine="vllm", chat_template=TEMPLATE), ScoringBackend)


# -- chat completions: vLLM and SGLang ----------------------------------------------------------


def _lazy_request(fmt: Any = HERMES_FORMAT, **changes: Any) -> CompletionRequest:
    grammar, _ = fmt.grammar(TOOLS, max_calls=2, lazy=True)
    return _request(gbnf=grammar.gbnf, root=grammar.root, triggers=fmt.triggers(TOOLS),
                    tools=tuple(t.to_openai() for t in TOOLS), **changes)


@pytest.mark.parametrize("engine", ["vllm", "vllm-legacy", "sglang"])
def test_each_engine_gets_a_body_its_documented_schema_takes(engine: str) -> None:
    server = Server()
    backend = _backend(server, engine=engine, chat_template=TEMPLATE, model="m")
    list(backend.complete(_request(tools=(TOOLS[0].to_openai(),))))
    (body,) = server.posts()
    assert server.paths()[-1] == "POST /v1/chat/completions"
    SCHEMAS[engine].model_validate(body)
    # SGLang renders tools only when tool_choice is not "none"; vLLM does with "none".
    assert body["tool_choice"] == ("auto" if engine == "sglang" else "none")


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_lazy_grammar_is_a_structural_tag_on_vllm_and_sglang(engine: str) -> None:
    server = Server(text='<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>')
    backend = _backend(server, engine=engine, chat_template=TEMPLATE)
    list(backend.complete(_lazy_request()))
    (body,) = server.posts()
    SCHEMAS[engine].model_validate(body)
    if engine == "vllm":
        assert set(body["structured_outputs"]) == {"structural_tag"}
        tag = json.loads(body["structured_outputs"]["structural_tag"])
    else:
        assert "ebnf" not in body
        tag = body["response_format"]
    StructuralTag.model_validate(tag)
    form = tag["format"]
    assert form["type"] == "triggered_tags" and form["stop_after_first"] is True
    assert form["triggers"] == ["<tool_call>\n", "```json\n{", "```\n{"]  # the bare "{" is too wide
    assert [t["begin"] for t in form["tags"]] == form["triggers"]


def test_a_lazy_grammar_with_a_reasoning_section_first() -> None:
    server = Server(text="<think>hm</think>\n\nno tool")
    backend = _backend(server, engine="vllm", chat_template=THINKING)
    list(backend.complete(_lazy_request(reasoning=Reasoning("<think>", "</think>", 30, always=False))))
    tag = json.loads(server.posts()[0]["structured_outputs"]["structural_tag"])
    StructuralTag.model_validate(tag)
    section, calls = tag["format"]["elements"]
    # The template opens the section itself: the model writes its text and the closing marker.
    assert section == {"type": "tag", "begin": "", "content": {"type": "any_text"}, "end": "</think>\n\n"}
    assert calls["type"] == "triggered_tags"


def test_lazy_grammars_are_refused_where_no_field_takes_them() -> None:
    with pytest.raises(BackendError, match="before 0.12 has no field for a lazy grammar"):
        list(_backend(Server(), engine="vllm-legacy", chat_template=TEMPLATE).complete(_lazy_request()))
    with pytest.warns(UserWarning), pytest.raises(BackendError, match="pass chat_template="):
        list(_backend(Server()).complete(_lazy_request()))
    with pytest.raises(BackendError, match="token id"):
        list(_backend(Server(), engine="vllm", chat_template=TEMPLATE).complete(_request(triggers=(151657,))))


def test_a_template_that_knows_reasoning_gets_its_section_on_chat_engines_unless_it_closes_it() -> None:
    server = Server(text="<think>hm</think>\n\n" + ANSWER)
    backend = _backend(server, engine="sglang", chat_template=TEMPLATE)
    section = Reasoning("<think>", "</think>", 30, always=False)
    completion = list(backend.complete(_request(reasoning=section)))[-1]
    assert isinstance(completion, Completion) and (completion.reasoning, completion.text) == ("hm", ANSWER)
    body = server.posts()[0]
    assert body["ebnf"].startswith('root ::= "<think>"') and body["max_tokens"] == 512 + 30
    closed = TEMPLATE.replace("<|im_start|>assistant\n{% endif %}", "<|im_start|>assistant\n<think></think>{% endif %}")
    server = Server()
    list(_backend(server, engine="sglang", chat_template=closed).complete(_request(reasoning=section)))
    assert server.posts()[0]["ebnf"] == GBNF  # thinking off in the template: no section


# -- the structural tag's parts ----------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "text"), [
    ("(<tool_call>\\n)", "<tool_call>\n"),
    ('(```json\\n\\{\\s{0,20}"name")', "```json\n{"),
    ("(\\[TOOL_CALLS\\]\\[)", "[TOOL_CALLS]["),
    ("(ab?c)", "a"),
    ("(a+)", ""),
    ("x\\d", "x"),
    ("(?:ab)", ""),
])
def test_the_literal_text_a_trigger_starts_with(pattern: str, text: str) -> None:
    assert literal_prefix(pattern) == text


@pytest.mark.parametrize("fmt", [HERMES_FORMAT, MISTRAL_FORMAT], ids=lambda f: f.name)
def test_the_grammar_after_a_trigger_holds_exactly_the_rest_of_each_call_turn(fmt: Any) -> None:
    grammar, _ = fmt.grammar(TOOLS, max_calls=2, lazy=True)
    whole = Recognizer(grammar.gbnf, grammar.root)
    calls = [fmt.spell([{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]),
             fmt.spell([{"function": {"name": "get_time", "arguments": {"timezone": "UTC"}}},
                        {"function": {"name": "get_weather", "arguments": {"city": "Rome"}}}])]
    tag = structural_tag(grammar.gbnf, grammar.root, fmt.triggers(TOOLS), "x")
    for t in tag["format"]["tags"]:
        after = Recognizer(t["content"]["grammar"], "root")
        for text in calls:
            if text.startswith(t["begin"]):
                assert whole.initial().advance_text(text).is_accepting()  # type: ignore[union-attr]
                assert after.initial().advance_text(text[len(t["begin"]):]).is_accepting()  # type: ignore[union-attr]
        assert after.initial().advance_text('{"name": "nope"') is None


def test_grammar_after_follows_rules_repeats_and_alternatives() -> None:
    gbnf = 'root ::= "ab" item{1,3} | "x"\nitem ::= [0-9] "," | "a" item\n'
    after = grammar_after(gbnf, "root", "ab1,a")
    r = Recognizer(after, "root")
    for text, ok in [("2,", True), ("2,3,", True), ("2,3,4,", False), ("a2,", True), ("", False)]:
        state = r.initial().advance_text(text)
        assert (state is not None and state.is_accepting()) == ok, text
    with pytest.raises(BackendError, match="cannot start with"):
        grammar_after(gbnf, "root", "zz")


def test_an_empty_trigger_is_no_laziness_at_all() -> None:
    """Llama 3's calls have no opener: its "lazy" turn holds the grammar from the first
    character, so the engines get the grammar itself."""
    server = Server(text='{"name": "get_weather", "parameters": {"city": "Paris"}}')
    list(_backend(server, engine="sglang", chat_template=TEMPLATE).complete(_lazy_request(LLAMA3_FORMAT)))
    body = server.posts()[0]
    assert "response_format" not in body and body["ebnf"].startswith("root ::=")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _StreamOptions(_Strict):
    include_usage: bool = False
    continuous_usage_stats: bool = False


class _Function(_Strict):
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class _Tool(_Strict):
    type: Literal["function"]
    function: _Function


class _Trigger(_Strict):
    type: int  # llama.cpp's common_grammar_trigger_type: 0 token, 1 word, 2 pattern, 3 full pattern
    value: str
    token: int | None = None


class LlamaServerCompletion(_Strict):
    """llama-server's ``/v1/completions`` request, the fields this backend sends."""

    prompt: str
    model: str | None = None
    max_tokens: int
    temperature: float
    top_k: int
    top_p: float
    min_p: float
    seed: int | None = None
    stream: bool
    stream_options: _StreamOptions | None = None
    cache_prompt: bool
    grammar: str
    grammar_lazy: bool | None = None
    grammar_triggers: list[_Trigger] | None = None
    stop: list[str] | None = None
    n_probs: int | None = None


class _Chat(_Strict):
    """The OpenAI chat fields every engine takes."""

    messages: list[dict[str, Any]]
    model: str | None = None
    max_tokens: int
    temperature: float
    top_p: float
    top_k: int | None = None
    min_p: float
    seed: int | None = None
    stream: bool
    stream_options: _StreamOptions | None = None
    tools: list[_Tool] | None = None
    tool_choice: Literal["none", "auto", "required"] | None = None


class _StructuredOutputs(_Strict):
    """vLLM's ``StructuredOutputsParams`` (one constraint at a time)."""

    json_: str | dict[str, Any] | None = Field(None, alias="json")
    regex: str | None = None
    choice: list[str] | None = None
    grammar: str | None = None
    json_object: bool | None = None
    disable_any_whitespace: bool = False
    disable_additional_properties: bool = False
    whitespace_pattern: str | None = None
    structural_tag: str | None = None


class VllmChat(_Chat):
    structured_outputs: _StructuredOutputs


class VllmLegacyChat(_Chat):
    guided_grammar: str


class _GrammarFormat(_Strict):
    type: Literal["grammar"]
    grammar: str


class _AnyTextFormat(_Strict):
    type: Literal["any_text"]
    excludes: list[str] = []
    max_tokens: int | None = None
    max_chars: int | None = None


class _TagFormat(_Strict):
    type: Literal["tag"]
    begin: str
    content: _Format
    end: str | list[str]


class _TriggeredTagsFormat(_Strict):
    type: Literal["triggered_tags"]
    triggers: list[str]
    tags: list[_TagFormat]
    at_least_one: bool = False
    stop_after_first: bool = False
    excludes: list[str] = []


class _SequenceFormat(_Strict):
    type: Literal["sequence"]
    elements: list[_Format]


_Format = Annotated[Union[_GrammarFormat, _AnyTextFormat, _TagFormat, _TriggeredTagsFormat, _SequenceFormat],
                    Field(discriminator="type")]


class StructuralTag(_Strict):
    """xgrammar's top-level structural tag (``response_format`` shape)."""

    type: Literal["structural_tag"]
    format: _Format


class SglangChat(_Chat):
    ebnf: str | None = None
    response_format: StructuralTag | None = None


for _model in (_TagFormat, _SequenceFormat, StructuralTag, SglangChat):
    _model.model_rebuild()

SCHEMAS: dict[str, type[BaseModel]] = {"vllm": VllmChat, "vllm-legacy": VllmLegacyChat, "sglang": SglangChat}
