"""Any string but a few names (an undeclared property key), straight from the trie of the names.

At each trie node a key may end (unless a name ends there), follow a child, or leave the trie with
any other character and then continue with anything at all. The same name sets recur across
grammars, so the text of a trie is kept as a template whose character references are slots.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import lru_cache

from ._charset import UNIVERSE, CharSet
from ._rules import RuleSet, expr_refs

#: Trie depth from which a node's alternatives become a rule of their own.
_INLINE_DEPTH = 24
#: Name sets with more characters than this are written afresh each time (a template's text
#: grows with them, and the cache keeps up to TEMPLATES of them).
MAX_TEMPLATE_CHARS = 2000
TEMPLATES = 1024
CharSetRef = Callable[[CharSet], str]
Trie = dict[str, "Trie"]  # child per character; the key "" marks the end of a word


def exclusion_body(words: list[str], rules: RuleSet, hint: str, char: CharSetRef, final: str
                   ) -> tuple[str, tuple[str, ...]]:
    """Any string but ``words`` (the usual "additional property name" case), straight from their
    trie: at each node, end (unless a word ends there), follow a child, or leave the trie with any
    other character and then anything at all. Also the rule names the text uses (for
    ``RuleSet.add``: the reachability walk need not scan the text)."""
    writer = _TrieWriter(rules, hint, char, final)
    if max(map(len, words)) >= _INLINE_DEPTH or sum(map(len, words)) > MAX_TEMPLATE_CHARS:
        text = writer.body(_trie(words), 0)  # deep nodes become rules; huge sets stay uncached
    else:
        # The same key sets recur across grammars: their text is kept with the character
        # references as slots, filled by asking for the references in the order writing the
        # text would have asked (so the rules they add are named exactly as before).
        pieces, keys = _trie_template(tuple(words), final)
        values = [writer.rest] + [writer.ref(key) for key in keys]
        text = "".join([values[p] if isinstance(p, int) else p for p in pieces])
    return text, tuple({name for value in writer.used for name in expr_refs(value)})


def _trie(words: list[str]) -> Trie:
    trie: Trie = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}  # marks the end of a word
    return trie


_SLOT = re.compile("\x00([0-9]+)\x00")  # NUL never occurs in grammar text


@lru_cache(maxsize=TEMPLATES)
def _trie_template(words: tuple[str, ...], final: str) -> tuple[tuple[str | int, ...], tuple[str, ...]]:
    """The text of a shallow trie as pieces (text, or the number of a slot: 0 for the "rest"
    rule, k for the k-th character reference asked for) and the references in asking order."""
    writer = _TrieText(final)
    text = writer.body(_trie(list(words)), 0)
    pieces: list[str | int] = []
    for i, part in enumerate(_SLOT.split(text)):
        pieces.append(int(part) if i % 2 else part)
    return tuple(pieces), tuple(writer.asked)


class _TrieBody(ABC):
    """The alternatives of each trie node (a class, not closures: a recursive closure is a
    reference cycle that only the cyclic garbage collector frees). Subclasses say what stands
    for a character reference, for the "rest" rule and for a node deep enough to be a rule."""

    final = ""
    rest = ""

    @abstractmethod
    def ref(self, key: str) -> str:
        """A character reference: ``key`` itself, or every character but those after ``^``."""

    @abstractmethod
    def deep(self, sub: str) -> str:
        """The body of a node at depth ``_INLINE_DEPTH`` or more, as a rule reference."""

    def body(self, node: Trie, depth: int) -> str:
        # Below the branching prefix most nodes lead on to a single child: walk such chains in a
        # loop, asking for the references in the order the recursion would (the "any other
        # character" set on the way down, the character itself on the way up).
        final, rest, ref = self.final, self.rest, self.ref
        chain: list[tuple[str, int, str]] = []
        while len(node) == 1:
            (c,) = node
            if not c:
                break  # the end of a word, nothing after it
            chain.append((c, depth, f"{final} | {ref('^' + c)} {rest}"))
            node = node[c]
            depth += 1
        text = self._branches(node, depth)
        for c, at, head in reversed(chain):
            sub = self._nested(text, at)  # before ref(c): a deep node's rule comes first
            text = f"{head} | {ref(c)} {sub}"
        return text

    def _branches(self, node: Trie, depth: int) -> str:
        keys = sorted(node)  # "" (the end of a word) sorts first
        if keys and keys[0] == "":
            alts = []
            del keys[0]
        else:
            alts = [self.final]
        ref = self.ref
        alts.append(f"{ref('^' + ''.join(keys))} {self.rest}")
        for c in keys:
            sub = self._nested(self.body(node[c], depth + 1), depth)
            alts.append(f"{ref(c)} {sub}")
        return " | ".join(alts)

    def _nested(self, sub: str, depth: int) -> str:
        """A child's text as one item after its parent's character (the parent at ``depth``)."""
        if depth >= _INLINE_DEPTH:
            return self.deep(sub)
        return f"({sub})" if " | " in sub else sub


class _TrieWriter(_TrieBody):
    """A trie's text with its rules added to ``rules``."""

    def __init__(self, rules: RuleSet, hint: str, char: CharSetRef, final: str) -> None:
        self.rules, self.hint, self.char, self.final = rules, hint, char, final
        self.rest = rules.add(f"{hint}-rest", f"{char(UNIVERSE)}* {final}".strip())
        # Per character, and per "any character but these" (key "^..."); shared by the tries of
        # one grammar (``final`` tells JSON from raw characters).
        self.refs: dict[str, str] = rules.memo.setdefault(("trie-refs", final), {})
        #: The references written into the text (rule names or inline groups; ``final`` is a
        #: literal), read for the rule names they hold once the text is done.
        self.used = {self.rest}

    def ref(self, key: str) -> str:
        found = self.refs.get(key)
        if found is None:
            found = self.refs[key] = self.char(_key_charset(key))
        self.used.add(found)
        return found

    def deep(self, sub: str) -> str:
        name = self.rules.add(f"{self.hint}-k", sub)
        self.used.add(name)
        return name


class _TrieText(_TrieBody):
    """A shallow trie's text with numbered slots instead of rule names (``_trie_template``)."""

    def __init__(self, final: str) -> None:
        self.final = final
        self.rest = "\x000\x00"
        self.slots: dict[str, str] = {}
        self.asked: list[str] = []

    def ref(self, key: str) -> str:
        found = self.slots.get(key)
        if found is None:
            self.asked.append(key)
            found = self.slots[key] = f"\x00{len(self.asked)}\x00"
        return found

    def deep(self, sub: str) -> str:
        raise ValueError("templates are only made of tries shallower than _INLINE_DEPTH")


@lru_cache(maxsize=16384)
def _key_charset(key: str) -> CharSet:
    """A trie edge's characters: ``key`` itself, or every character but those after a ``^``."""
    return UNIVERSE - CharSet.chars(key[1:]) if key.startswith("^") else CharSet.chars(key)
