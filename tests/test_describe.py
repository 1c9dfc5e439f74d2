"""What a model gets, shown (``llm.describe()``, ``repr``), and the switches that change it:
``chat_template=``, ``template_options=`` (in process and on llama-server) and llama.cpp's own
load settings (:class:`structgen.LlamaOptions`)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import structgen as sg
from structgen._backends._seam import Message
from structgen._backends.llamacpp._options import LLAMA_OPTIONS, checked_llama_options
from structgen._backends.llamacpp._template import read_chat_template
from structgen.backends import DescribedBackend, LlamaCppBackend
from structgen.testing import ScriptedBackend
from tests.server_support import running_server
from tests.support.models import chat_templates

QWEN3 = "Qwen-Qwen3-0.6B.jinja"


class Person(BaseModel):
    name: str
    age: int


class _Described(ScriptedBackend):
    """A backend that says what it is, with a template of its own."""

    def __init__(self, template: str | None, *answers: str) -> None:
        super().__init__(*answers)
        self.chat_template = template
        self.model_name = "model.gguf"
        self.chat_template_source = "user"
        self.template_options: Mapping[str, Any] = {"enable_thinking": False}
        self.settings: Mapping[str, Any] = {"n_ctx": 2048, "n_threads": 2, "n_threads_batch": 4, "slots": 3}


# -- the description (no model) -------------------------------------------------------------------


def test_a_backend_that_says_nothing_is_described_by_what_follows_from_no_template() -> None:
    llm = sg.LLM(backend=ScriptedBackend())
    described = llm.describe()
    assert described == sg.ModelDescription(
        model="ScriptedBackend", backend="ScriptedBackend", chat_template="unknown", tool_format="json",
        tool_policy="small-model", policy=sg.policy("small-model"), reasoning_markers=("<think>", "</think>"),
        reasoning_unasked=False,
    )
    assert "tool_policy='small-model'" in repr(llm) and "chat_template='unknown'" in repr(llm)
    assert "context        unknown" in str(described) and "threads" not in str(described)


def test_the_template_decides_format_policy_and_markers_and_the_backend_tells_the_rest() -> None:
    backend = _Described((chat_templates() / QWEN3).read_text())
    assert isinstance(backend, DescribedBackend)
    llm = sg.LLM(backend=backend)
    described = llm.describe()
    assert (described.model, described.chat_template, described.tool_format, described.tool_policy) == (
        "model.gguf", "user", "hermes", "tool-trained")
    assert described.policy == sg.policy(llm.tool_policy)
    assert described.reasoning_markers == ("<think>", "</think>") and described.reasoning_unasked
    assert (described.n_ctx, described.n_threads, described.n_threads_batch) == (2048, 2, 4)
    assert dict(described.settings) == {"slots": 3} and dict(described.template_options) == {"enable_thinking": False}
    shown = str(described)
    assert shown.splitlines()[:4] == [
        "model             model.gguf (_Described)", "chat template     chat_template=",
        "tool format       hermes (the template's own)", "tool policy       tool-trained"]
    for line in ("context           2048 tokens", "threads           2 for tokens, 4 for batches",
                 "template options  enable_thinking=False", "settings          slots=3"):
        assert line in shown.splitlines()
    assert repr(llm) == (
        "LLM('model.gguf', backend='_Described', chat_template='user', tool_format='hermes', "
        "tool_policy='tool-trained', reasoning_markers=('<think>', '</think>'), "
        "template_options={'enable_thinking': False}, n_ctx=2048, n_threads=2, n_threads_batch=4, slots=3)"
    )


def test_template_options_are_checked_before_anything_loads() -> None:
    for bad, error, match in [
        ({"messages": []}, ValueError, "given to the template by the render"),
        ({"when": object()}, ValueError, "must be a JSON value"),
        ({"not a name": 1}, ValueError, "not a name"),
        (["enable_thinking"], TypeError, "mapping"),
    ]:
        with pytest.raises(error, match=match):
            sg.LLM(template_options=bad)  # type: ignore[arg-type]
        with pytest.raises(error, match=match):
            sg.LlamaServerBackend("http://127.0.0.1:9", template_options=bad)  # type: ignore[arg-type]


def test_model_options_with_a_backend_are_a_type_error() -> None:
    for options in ({"chat_template": "{{ x }}"}, {"template_options": {"a": 1}}, {"n_gpu_layers": 1}):
        with pytest.raises(TypeError, match="model options are the backend's own"):
            sg.LLM(backend=ScriptedBackend(), **options)


def test_llama_options_are_named_and_typed_before_the_slow_load() -> None:
    assert checked_llama_options({"n_gpu_layers": -1, "tensor_split": (1, 2), "rope_freq_base": 10000}) == {
        "n_gpu_layers": -1, "tensor_split": [1.0, 2.0], "rope_freq_base": 10000}
    for bad, match in [({"n_gpu_layer": 1}, "unexpected keyword argument 'n_gpu_layer'"),
                       ({"use_mmap": 0}, "use_mmap must be a bool"), ({"n_ubatch": 1.5}, "n_ubatch must be an int"),
                       ({"n_gpu_layers": True}, "must be an int"), ({"tensor_split": "1,2"}, "sequence of numbers"),
                       ({"kv_overrides": {"a": None}}, "kv_overrides")]:
        with pytest.raises(TypeError, match=match):
            LlamaCppBackend.load(sg.default_model_path(), **bad)  # type: ignore[arg-type]
    assert set(LLAMA_OPTIONS) == set(sg.LlamaOptions.__annotations__)


def test_a_chat_template_is_its_text_or_a_file_holding_it(tmp_path: Path) -> None:
    assert read_chat_template("{{ messages }}") == "{{ messages }}"
    jinja = tmp_path / "mine.jinja"
    jinja.write_text("{% for m in messages %}{{ m.content }}{% endfor %}")
    assert read_chat_template(jinja) == read_chat_template(str(jinja)) == jinja.read_text()
    with pytest.raises(ValueError, match="neither a Jinja template .* nor a file: 'chatml'"):
        read_chat_template("chatml")
    constant = tmp_path / "constant.jinja"
    constant.write_text("no variables at all")
    text = read_chat_template(constant)
    assert text == "no variables at all" and read_chat_template(text) is text  # read once, not taken for a path
    gguf = read_chat_template(sg.default_model_path())  # its vocabulary read, not its weights
    assert "<|im_start|>" in gguf


# -- llama-server's body and props (no model) --------------------------------------------------------


def test_llama_server_sends_template_options_and_tells_what_it_serves() -> None:
    bodies: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/props":
            return httpx.Response(200, json={
                "chat_template": "{{ '<tool_call>' }}", "model_path": "/models/qwen.gguf", "total_slots": 2,
                "default_generation_settings": {"n_ctx": 1024}})
        bodies.append(json.loads(request.content))
        if request.url.path == "/apply-template":
            return httpx.Response(200, json={"prompt": "p"})
        events = [{"content": "{}", "stop": False}, {"content": "", "stop": True, "stop_type": "eos"}]
        return httpx.Response(200, content="".join(f"data: {json.dumps(e)}\n\n" for e in events).encode(),
                              headers={"Content-Type": "text/event-stream"})

    mock = httpx.MockTransport(handle)
    backend = sg.LlamaServerBackend("http://llama.test:8080", transport=mock, async_transport=mock,
                                    template_options={"enable_thinking": False})
    assert repr(backend) == "LlamaServerBackend('http://llama.test:8080', template_options={'enable_thinking': False})"
    llm = sg.LLM(backend=backend)
    llm.generate(dict[str, int], "nothing")
    assert bodies[0]["chat_template_kwargs"] == {"enable_thinking": False}
    assert "chat_template_kwargs" not in bodies[1]  # the completion continues the rendered prompt
    described = llm.describe()
    assert (described.model, described.chat_template, described.tool_format, described.n_ctx) == (
        "http://llama.test:8080 (qwen.gguf)", "server", "hermes", 1024)
    assert dict(described.settings) == {"slots": 2} and described.n_threads is None


# -- in process, on the default model --------------------------------------------------------------


@pytest.fixture
def untemplated() -> Iterator[Any]:
    import llama_cpp

    llama = llama_cpp.Llama(str(sg.default_model_path()), n_ctx=1024, n_threads=1, verbose=False)
    llama.metadata.pop("tokenizer.chat_template")
    yield llama
    llama.close()


@pytest.mark.model
def test_a_gguf_without_a_chat_template_warns_and_chat_template_overrides_it(untemplated: Any) -> None:
    with pytest.warns(UserWarning, match=r"SmolLM2.*has no chat template .* plain `role: content` text") as caught:
        llm = sg.LLM.from_llama(untemplated)
    assert len(caught) == 1 and caught[0].filename == __file__  # at the caller's line
    try:
        described = llm.describe()
        assert (described.chat_template, described.tool_format, described.reasoning_unasked) == ("none", "json", False)
        assert "none: prompts are plain `role: content` text" in str(described)
        backend: Any = llm.backend
        assert backend.template.text([Message("user", "hi")]) == "user: hi\n\nassistant: "
    finally:
        llm.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llm = sg.LLM.from_llama(untemplated, chat_template=chat_templates() / QWEN3)
    try:
        described = llm.describe()
        assert (described.chat_template, described.tool_format, described.tool_policy) == ("user", "hermes",
                                                                                          "tool-trained")
        assert described.reasoning_unasked and "chat_template='user'" in repr(llm.backend)
    finally:
        llm.close()


@pytest.mark.model
def test_enable_thinking_false_reaches_qwen3s_template_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the option Qwen3's template leaves the model to think (a bounded section); with
    ``enable_thinking=False`` its prompt closes the section, so none is written."""
    import structgen._generate._reasoning as reasoning

    monkeypatch.setattr(reasoning, "OPENED_REASONING_BUDGET", 12)
    template = chat_templates() / QWEN3
    for options, thinks in ((None, True), ({"enable_thinking": False}, False)):
        llm = sg.LLM(n_ctx=1024, n_threads=1, max_tokens=80, chat_template=template, template_options=options)
        try:
            result = llm.run(Person, "Alice turned 31 last week.")
            assert bool(result.reasoning) == thinks and (result.usage.reasoning_tokens > 0) == thinks
            assert result.usage.reasoning_tokens <= 12 + 8
            assert result.value == Person.model_validate_json(result.text)
            backend: Any = llm.backend
            prompt = backend.template.text([Message("user", "hi")])
            assert prompt.endswith("<think>\n\n</think>\n\n") == (not thinks)
        finally:
            llm.close()


@pytest.mark.model
def test_llama_options_reach_llama_cpp_and_are_shown() -> None:
    llm = sg.LLM(n_ctx=512, n_threads=1, use_mmap=False, n_ubatch=64, max_tokens=40)
    try:
        backend: Any = llm.backend
        state = backend.llama.__getstate__()
        assert state["use_mmap"] is False and state["n_ubatch"] == 64
        described = llm.describe()
        assert dict(described.settings) == {"use_mmap": False, "n_ubatch": 64}
        assert (described.n_ctx, described.n_threads) == (512, 1)
        assert "use_mmap=False, n_ubatch=64" in repr(backend) and "use_mmap=False" in repr(llm)
        assert llm.generate(Person, "Alice is 31.").age == 31
    finally:
        llm.close()
    assert "n_ubatch=64" in repr(llm) and llm.describe().n_ctx == 512  # a closed model is not asked


# -- on llama-server ------------------------------------------------------------------------------------


@pytest.mark.model
def test_enable_thinking_false_reaches_qwen3s_template_on_llama_server(monkeypatch: pytest.MonkeyPatch) -> None:
    import structgen._generate._reasoning as reasoning

    monkeypatch.setattr(reasoning, "OPENED_REASONING_BUDGET", 12)
    with running_server("-c", "1024", "-np", "1", "--chat-template-file", str(chat_templates() / QWEN3)) as (url, _):
        for options, thinks in ((None, True), ({"enable_thinking": False}, False)):
            llm = sg.LLM(backend=sg.LlamaServerBackend(url, template_options=options), max_tokens=80)
            result = llm.run(Person, "Alice turned 31 last week.")
            assert bool(result.reasoning) == thinks and (result.usage.reasoning_tokens > 0) == thinks
            assert result.usage.reasoning_tokens <= 12
            assert result.value == Person.model_validate_json(result.text)
            llm.close()
        described = sg.LLM(backend=sg.LlamaServerBackend(url)).describe()
        assert (described.chat_template, described.tool_format, described.n_ctx) == ("server", "hermes", 1024)
        assert described.model.startswith(url) and described.model.endswith(".gguf)")
        assert described.reasoning_unasked and dict(described.settings) == {"slots": 1}
