"""How a tool turn under ``tool_choice="auto"`` decides, writes and keeps its calls: a policy
(:class:`Policy`, one value per rule) run through the rules table (``_table``), phase by phase
(``_phases``). docs/policy.md describes every rule.

- ``_policies``: :class:`Policy` and the named policies;
- ``_table``: the rules table (the dispatch) and the phases' runners;
- ``_phases``: what the rules read and write, one hook signature per phase;
- ``_gate``: the decide phase's rules (the gate), and the channel score;
- ``_arguments``: the grammar phase's argument rules (listed values, copied strings);
- ``_grounding``: the keep phase's rules (grounding, later calls);
- ``_words``: what was said, in words; ``_meanings``: similarity of meanings;
- ``_fitted``: every fitted value, prototype sentence, stop word and scoring prompt;
- ``_encoder``: the sentence encoder itself, all-MiniLM-L6-v2 in numpy.
"""

from __future__ import annotations

from ._meanings import Meanings, MeaningsLoader
from ._policies import Policy, policy_rules, resolve_policy

__all__ = ["Meanings", "MeaningsLoader", "Policy", "policy_rules", "resolve_policy"]
