"""How a tool turn under ``tool_choice="auto"`` decides between calling and answering:

- ``_policies``: the policies (:class:`Policy`), every rule's values in one table (``RULES``),
  and the named policies;
- ``_gate``: the decisions (:func:`plan`, one function per decision), the scored gate's signals,
  similarity of meanings (:class:`Meanings`) and the loader of the sentence encoder
  (:class:`MeaningsLoader`: on first use, one per LLM, with a warning once where the optional
  model is missing);
- ``_decision``: what the user said, the words a request shares with a tool, grounding;
- ``_later_calls``: which call after a turn's first is kept, one function per ``offered_call`` rule;
- ``_copied``: arguments taken from what was said;
- ``_intent``: the action and question prototypes of the action-or-answer signal;
- ``_encoder``: the sentence encoder itself, all-MiniLM-L6-v2 in numpy.
"""

from __future__ import annotations

from ._gate import Meanings, MeaningsLoader, plan
from ._policies import Policy, policy_rules, resolve_policy

__all__ = ["Meanings", "MeaningsLoader", "Policy", "plan", "policy_rules", "resolve_policy"]
