"""llama.cpp's own load settings, typed (:class:`LlamaOptions`), checked before the slow load,
passed to ``llama_cpp.Llama``, and read back from one for ``describe()``."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Union

from typing_extensions import get_type_hints


class LlamaOptions(TypedDict, total=False):
    """llama.cpp's load settings that ``LLM(path, ...)`` and ``LlamaCppBackend.load`` pass on to
    ``llama_cpp.Llama`` as they are (llama-cpp-python's documentation says what each does;
    its defaults apply to those not given):

    - ``n_gpu_layers``: layers offloaded to the GPU (-1: all; a GPU build of llama-cpp-python),
      ``split_mode`` (``llama_cpp.LLAMA_SPLIT_MODE_*``), ``main_gpu``, ``tensor_split`` (each
      GPU's share), ``offload_kqv`` (the KV cache on the GPU), ``op_offload``;
    - ``use_mmap`` (map the file instead of reading it), ``use_mlock`` (keep it in RAM),
      ``kv_overrides`` (metadata values replaced at load);
    - ``n_ubatch`` (the physical batch), ``flash_attn``, ``type_k``/``type_v`` (the KV cache's
      types, ``llama_cpp.GGML_TYPE_*``), ``swa_full``;
    - ``rope_scaling_type`` (``llama_cpp.LLAMA_ROPE_SCALING_TYPE_*``), ``rope_freq_base`` and
      ``rope_freq_scale`` (0: the model's).
    """

    n_gpu_layers: int
    split_mode: int
    main_gpu: int
    tensor_split: Sequence[float]
    offload_kqv: bool
    op_offload: bool
    use_mmap: bool
    use_mlock: bool
    kv_overrides: Mapping[str, Union[bool, int, float, str]]
    n_ubatch: int
    flash_attn: bool
    type_k: int
    type_v: int
    swa_full: bool
    rope_scaling_type: int
    rope_freq_base: float
    rope_freq_scale: float


#: Each option's name, in the order :class:`LlamaOptions` lists them.
LLAMA_OPTIONS: tuple[str, ...] = tuple(get_type_hints(LlamaOptions))
_BOOLS = frozenset(name for name, kind in get_type_hints(LlamaOptions).items() if kind is bool)
_FLOATS = frozenset({"rope_freq_base", "rope_freq_scale"})


def checked_llama_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` as ``llama_cpp.Llama`` takes them, or a TypeError naming the one that is not
    a setting or not of its type (before the slow load; llama-cpp-python ignores unknown ones)."""
    checked: dict[str, Any] = {}
    for name, value in options.items():
        if name not in LLAMA_OPTIONS:
            raise TypeError(
                f"unexpected keyword argument {name!r} (llama.cpp's settings are LlamaOptions': "
                f"{', '.join(LLAMA_OPTIONS)})"
            )
        checked[name] = _checked(name, value)
    return checked


def _checked(name: str, value: Any) -> Any:
    if name in _BOOLS:
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
        return value
    if name == "tensor_split":
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            raise TypeError("tensor_split must be a sequence of numbers, one per GPU")
        return [float(v) for v in value]
    if name == "kv_overrides":
        if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, (bool, int, float, str)) for k, v in value.items()):
            raise TypeError("kv_overrides must map metadata keys to bool, int, float or str values")
        return dict(value)
    kinds = (int, float) if name in _FLOATS else (int,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"{name} must be {'a number' if name in _FLOATS else 'an int'}, not {type(value).__name__}")
    return value


def llama_settings(llama: Any) -> dict[str, Any]:
    """The settings ``llama`` (a ``llama_cpp.Llama``) was made with: the context's size, its
    threads and batch, and each of :data:`LLAMA_OPTIONS` whose value is not llama-cpp-python's
    default. Empty for an object that is not a ``Llama`` (a test's double)."""
    try:
        state = llama.__getstate__()
        shown: dict[str, Any] = {
            "n_ctx": int(llama.n_ctx()), "n_threads": state["n_threads"], "n_threads_batch": state["n_threads_batch"],
        }
    except Exception:
        return {}
    defaults = _defaults()
    if state.get("n_batch") != defaults.get("n_batch"):
        shown["n_batch"] = state.get("n_batch")
    for name in LLAMA_OPTIONS:
        if name in state and state[name] != defaults.get(name):
            shown[name] = state[name]
    return shown


def _defaults() -> dict[str, Any]:
    """llama-cpp-python's default of each setting, as a ``Llama`` made with it reports it."""
    import llama_cpp

    context = llama_cpp.llama_context_default_params()
    defaults: dict[str, Any] = {}
    for name, parameter in inspect.signature(llama_cpp.Llama.__init__).parameters.items():
        default = parameter.default
        if default is None and hasattr(context, name):  # None: llama.cpp's own default
            default = getattr(context, name)
        defaults[name] = default
    return defaults


__all__ = ["LLAMA_OPTIONS", "LlamaOptions", "checked_llama_options", "llama_settings"]
