"""Every value the tool policy was fitted or chosen with, in one place, each with where it was
fitted and on what. The rules (``_table``) read them from here; the records of each choice are
in bench/notes/benchmarks-history.md under the heading named beside it.

The splits named here: TUNE, the tuning requests of bench/data/tool_requests.json (HOLDOUT3-7,
LIVE and NEIGHBOURS report); BFCL's tuning half, the even half of bench/suites/bfcl.py's split of
the dev categories (its other half reports).
"""

from __future__ import annotations

from dataclasses import dataclass

# -- the scored gate (``_gate``) ------------------------------------------------------------------


@dataclass(frozen=True)
class Weights:
    """A fitted logistic score over the signals one setting has: ``bias`` plus each weight
    times its signal; above 0, the tool fits the request."""

    bias: float
    similarity: float = 0.0
    channel: float = 0.0
    words: float = 0.0
    action: float = 0.0


#: One score per set of available signals (similarity, channel). Fitted on TUNE and 120 requests
#: of BFCL's tuning half by bench/experiments/fit_decision.py ("How `"meaning"` was fitted").
FITTED: dict[tuple[bool, bool], Weights] = {
    (True, True): Weights(bias=-1.0, similarity=4.0, channel=1.0, words=0.3),
    (True, False): Weights(bias=-0.55, similarity=4.63, words=0.88),
    (False, True): Weights(bias=-0.2, channel=1.12, words=1.3),
    (False, False): Weights(bias=-1.4, words=1.46),  # one shared word: the word rule
}
#: ``decision="action"``: the ``(True, True)`` score with the action-or-answer signal added; chosen
#: on TUNE end to end (fit_decision.py --end-to-end; "The action decision").
WITH_ACTION = Weights(bias=-1.5, similarity=4.0, channel=1.0, words=0.3, action=15.0)
#: Tools that carry example requests, by whether the channel score is there; fitted on TUNE with
#: examples written by someone who saw no split (bench/experiments/fit_examples.py; "Example
#: requests per tool").
EXAMPLES_FITTED: dict[bool, Weights] = {
    True: Weights(bias=-1.75, similarity=4.0, channel=1.5, words=0.3),
    False: Weights(bias=-1.25, similarity=4.0, words=0.3),
}
EXAMPLES_WITH_ACTION = Weights(bias=-3.0, similarity=6.0, channel=1.5, words=0.3, action=15.0)
#: Shared words count up to this many in a score (fit_decision.py's feature).
SHARED_WORDS_CAP = 3
#: ``offered_tools="close"``: a tool scored this far below the best is not offered beside it
#: (offered tools compete by their names' likelihood, which knows less than the score); chosen on
#: TUNE ("The model's judgement through llama-server; the offer cap and the grounding rule").
MARGIN = 0.25
#: Most tools offered to the call step (same record).
MAX_OFFERED = 3
#: ``channel="undecided"``: the channel score's usual band, its 10th to 90th percentile over every
#: tool of 160 requests of BFCL's tuning half on Qwen2.5-Coder-0.5B, and its median, by which a tool
#: it was not weighed for ranks: the narrowest band of those tried that decides as many of those
#: requests right as weighing every tool (bench/experiments/channel_range.py; "Where a tool turn's
#: time goes").
CHANNEL_RANGE = (-0.37, 1.11)
CHANNEL_USUAL = 0.31

# -- the channel score's two prompts (written, not fitted; "How `"meaning"` was fitted") --------

#: What the request is compared with when no tool is in view (the channel score's baseline).
CHAT_CONTEXT = "A chat assistant answers questions and writes text. A user asks:"
#: The text after which the request is read as meant for a tool (its name with spaces, and its
#: description).
TOOL_CONTEXT = "The {name} tool: {description} A user asks:"

# -- the action-or-answer signal (``decision="action"``) -----------------------------------------

#: Requests of both kinds, written for the signal and sharing no tool's words (written before
#: TUNE was run; bench/experiments/fit_intent.py measured them: "The action decision"). A
#: request's signal is its mean similarity to the ``CLOSEST`` action prototypes less that to the
#: ``CLOSEST`` questions.
ACTIONS = (
    "Turn off the lights in the kitchen.", "Order me a large pepperoni pizza.", "Call a taxi to the station.",
    "Look up flights from Boston to Denver next Friday.", "Cancel my 3pm meeting.", "Text Maria that I'm running late.",
    "Start a timer for ten minutes.", "Add milk and eggs to my shopping list.", "Check the status of order 4471.",
    "Pay my electricity bill.", "Open the garage door.", "Find me a hotel in Lisbon for two nights.",
    "What's the balance on my checking account?", "How long will my commute take right now?",
    "Schedule a call with the design team on Tuesday.", "Save this article for later.", "Share my location with Tom.",
    "Look up the score of tonight's game.", "Is my package out for delivery?", "Rent a bike near me.",
    "Get me the latest figures for our sales dashboard.", "Search my files for the tax form.",
    "Mute notifications until tomorrow.", "Buy two tickets for the 8pm show.", "Reset my password.",
)
QUESTIONS = (
    "Why is the sky blue?", "Explain photosynthesis simply.", "Write a short poem about autumn.",
    "What is the capital of Australia?", "Tell me a joke about cats.", "How does a vaccine work?",
    "What's the difference between a virus and bacteria?", "Summarize the plot of Hamlet.",
    "Give me tips for a job interview.", "What does 'serendipity' mean?", "Who painted the Mona Lisa?",
    "How many legs does a spider have?", "What is 15 percent of 80?", "Can you help me name my dog?",
    "Is coffee bad for you?", "Describe a sunset over the ocean.", "What causes inflation?",
    "How do I say no politely?", "Why do people dream?", "Write a thank-you note for a gift.",
    "What's a good way to start a speech?", "How old is the universe?", "Compare cats and dogs as pets.",
    "What rhymes with orange?", "Hi, how are you today?",
)
CLOSEST = 3

# -- words (``_words``: shared words, grounding, copied and named values) ------------------------

#: Words compare by their first letters once a common suffix is gone (chosen by hand on TUNE's
#: paraphrases: "How `"meaning"` was fitted").
STEM = 5
SUFFIXES = ("ing", "ed", "es", "s")
#: Words that neither make a tool relevant nor ground a value (English function words of three
#: letters and more, written by hand; shorter words never count as content words).
STOP_WORDS = frozenset(
    "about also and any are can could did does for from get give have how into its may might "
    "must not now our please shall should show some tell than that the their them then there "
    "these they this those use using want was were what when where which who why will with "
    "would you your".split()
)
#: Short function words: a listed value made only of these (or of stop words) is never "named"
#: ("in Paris" names no unit "in"; "Listed values the request names").
SHORT_WORDS = frozenset("am an as at be by do go he if in is it me my no of on or so to up us we".split())

# -- copied arguments (``arguments="copied"``; "Copied arguments") -----------------------------

#: The longest run of words a copied string may be.
MAX_WORDS = 16
#: The most words of what was said that runs are taken from (the last ones are kept).
MAX_SOURCE_WORDS = 200

__all__ = [
    "ACTIONS", "CHANNEL_RANGE", "CHANNEL_USUAL", "CHAT_CONTEXT", "CLOSEST", "EXAMPLES_FITTED", "EXAMPLES_WITH_ACTION",
    "FITTED", "MARGIN", "MAX_OFFERED", "MAX_SOURCE_WORDS", "MAX_WORDS", "QUESTIONS", "SHARED_WORDS_CAP", "SHORT_WORDS",
    "STEM", "STOP_WORDS", "SUFFIXES", "TOOL_CONTEXT", "WITH_ACTION", "Weights",
]
