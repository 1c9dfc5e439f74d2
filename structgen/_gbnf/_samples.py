"""Random strings of a GBNF grammar's language, and a hypothesis strategy over them.

A derivation picks alternatives and repetition counts at random until it is ``max_depth``
rule references deep or has produced ``max_size`` characters; from then on it takes, at every
choice, an alternative of least derivation height, then length (computed beforehand), which always
terminates. Characters are drawn so that the text stays encodable (no surrogates, no NUL).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .._memo import memo
from .._errors import GrammarError
from ._analysis import contains_token, effective_max, reachable_rules
from ._compile import ANY_CHAR, CharRanges
from ._lint import check_safe
from ._tree import Alt, AnyChar, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq, Token

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["Sampler", "gbnf_samples", "random_derivation"]

_INFINITE = float("inf")
_Cost = tuple[float, float]
_NEVER: _Cost = (_INFINITE, _INFINITE)
_PRINTABLE_ASCII = CharRanges(((0x20, 0x7E),))
_ENCODABLE = CharRanges(((1, 0xD7FF), (0xE000, 0x10FFFF)))
EXTRA_REPEATS = 3


@memo(4096)
def _drawable(node: CharClass | AnyChar) -> tuple[CharRanges, CharRanges]:
    """The encodable characters a class matches, and the printable ASCII among them."""
    if isinstance(node, AnyChar):
        chars = ANY_CHAR
    else:
        chars = CharRanges.of(node.ranges)
        if node.negated:
            chars = chars.complement()
    usable = _intersect(chars, _ENCODABLE)
    return usable, _intersect(usable, _PRINTABLE_ASCII)


def _intersect(a: CharRanges, b: CharRanges) -> CharRanges:
    result = []
    for low, high in a.ranges:
        for other_low, other_high in b.ranges:
            if max(low, other_low) <= min(high, other_high):
                result.append((max(low, other_low), min(high, other_high)))
    return CharRanges.of(result)


def _pick(chars: CharRanges, rng: random.Random) -> str:
    low, high = rng.choice(chars.ranges)
    return chr(rng.randint(low, high))


class Sampler:
    """Random derivations of one grammar from one root (costs are computed once)."""

    def __init__(self, grammar: GbnfGrammar | str, root: str = "root") -> None:
        tree = check_safe(grammar, root)
        for name in reachable_rules(tree, root):
            token = contains_token(tree.rules[name])
            if token is not None:
                raise GrammarError(f"token {token.spelling} in rule '{name}' cannot be sampled as text")
        self.rules = tree.rules
        self.root = root
        self.costs = self._rule_costs()
        self._cache: dict[int, _Cost] = {}
        if self.costs[root][0] == _INFINITE:
            raise GrammarError(f"rule '{root}' derives no finite string")

    def _cost(self, expr: Expr, costs: dict[str, _Cost]) -> _Cost:
        """(least depth of rule references, then least length) of a string from ``expr``.

        Choosing by least depth first guarantees termination; length breaks the ties."""
        if isinstance(expr, RuleRef):
            height, length = costs.get(expr.name, _NEVER)
            return (height + 1, length)
        if isinstance(expr, Seq):
            parts = [self._cost(item, costs) for item in expr.items]
            return (max((h for h, _ in parts), default=0), sum(n for _, n in parts))
        if isinstance(expr, Alt):
            return min(self._cost(option, costs) for option in expr.options)
        if isinstance(expr, Repeat):
            if expr.min == 0 or effective_max(expr) == 0:
                return (0, 0)
            height, length = self._cost(expr.item, costs)
            return (height, length * expr.min)
        if isinstance(expr, LiteralText):
            return (0, len(expr.text))
        if isinstance(expr, Token):
            return _NEVER
        if isinstance(expr, CharClass) and not expr.ranges:
            return (0, 0)  # llama.cpp: an empty class matches the empty string
        # A class without a drawable character (e.g. [z-a]) cannot be derived.
        return (0, 1) if _drawable(expr)[0] else _NEVER

    def _rule_costs(self) -> dict[str, _Cost]:
        costs = {name: _NEVER for name in self.rules}
        changed = True
        while changed:
            changed = False
            for name in reversed(list(self.rules)):
                cost = self._cost(self.rules[name], costs)
                if cost < costs[name]:
                    costs[name] = cost
                    changed = True
        return costs

    def cost(self, expr: Expr) -> _Cost:
        """``_cost`` with the final rule costs, cached per node (by identity: hashing a
        frozen tree is recursive)."""
        key = id(expr)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._cost(expr, self.costs)
        return found

    def derive(self, rng: random.Random, max_depth: int = 12, max_size: int = 2000) -> str:
        out: list[str] = []
        self._emit(self.rules[self.root], 0, rng, max_depth, max_size, out, [0])
        return "".join(out)

    def _emit(
        self, expr: Expr, depth: int, rng: random.Random, max_depth: int, max_size: int,
        out: list[str], size: list[int],
    ) -> None:
        shortest = depth >= max_depth or size[0] >= max_size
        if isinstance(expr, LiteralText):
            out.append(expr.text)
            size[0] += len(expr.text)
        elif isinstance(expr, (CharClass, AnyChar)):
            if isinstance(expr, CharClass) and not expr.ranges:
                return  # llama.cpp: an empty class matches the empty string
            usable, printable = _drawable(expr)
            out.append(_pick(printable if printable and rng.random() < 0.8 else usable, rng))
            size[0] += 1
        elif isinstance(expr, RuleRef):
            self._emit(self.rules[expr.name], depth + 1, rng, max_depth, max_size, out, size)
        elif isinstance(expr, Seq):
            for item in expr.items:
                self._emit(item, depth, rng, max_depth, max_size, out, size)
        elif isinstance(expr, Alt):
            options = expr.options
            if shortest:
                costs = [self.cost(option) for option in options]
                best = min(costs)
                options = tuple(o for o, c in zip(options, costs) if c == best)
            else:
                options = tuple(o for o in options if self.cost(o)[0] != _INFINITE)
            self._emit(rng.choice(options), depth, rng, max_depth, max_size, out, size)
        elif isinstance(expr, Repeat):
            high = effective_max(expr)
            count = expr.min
            if not shortest and high != expr.min:
                # Go beyond the minimum only with an item that can terminate.
                if self.cost(expr.item)[0] != _INFINITE:
                    limit = expr.min + EXTRA_REPEATS if high is None else min(high, expr.min + EXTRA_REPEATS)
                    count = rng.randint(expr.min, limit)
            for _ in range(count):
                self._emit(expr.item, depth, rng, max_depth, max_size, out, size)
        else:  # tokens were refused up front
            raise TypeError(f"not a GBNF expression: {expr!r}")


def random_derivation(
    tree: GbnfGrammar | str, root: str, rng: random.Random, max_depth: int = 12, max_size: int = 2000
) -> str:
    """One random string of the language of ``root`` (see the module docstring)."""
    return Sampler(tree, root).derive(rng, max_depth, max_size)


def gbnf_samples(
    grammar_text_or_tree: GbnfGrammar | str, root: str = "root", max_depth: int = 12, max_size: int = 2000
) -> SearchStrategy[str]:
    """A hypothesis strategy of random strings the grammar derives from ``root``.

    It shrinks toward depth 0, i.e. toward the shortest derivations."""
    from hypothesis import strategies as st

    sampler = Sampler(grammar_text_or_tree, root)
    return st.builds(
        lambda depth, seed: sampler.derive(random.Random(seed), depth, max_size),
        st.integers(min_value=0, max_value=max_depth),
        st.integers(min_value=0, max_value=2**32 - 1),
    )
