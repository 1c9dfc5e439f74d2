"""Any string but a few names (an undeclared property key), straight from the trie of the names.

At each trie node a key may end (unless a name ends there), follow a child, or leave the trie with
any other character and then continue with anything at all. The same name sets recur across
grammars, and a JSON trie's text names its character rules by what they match (``char-but-i``),
so that text is made once per name set and only its rules are added to each grammar.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import partial

from ..._memo import memo
from ..automata.charset import UNIVERSE, CharSet, NamedRule, json_char_parts, json_char_ref
from ..._gbnf._rules import RuleSet, expr_refs, group_depth

#: Trie depth from which a node's alternatives become a rule of their own.
_INLINE_DEPTH = 24
#: Name sets with more characters than this are written afresh each time (the cache keeps up
#: to CACHED_TRIES of them, and their text grows with them).
MAX_CACHED_CHARS = 2000
CACHED_TRIES = 1024
CharSetRef = Callable[[CharSet], str]
Trie = dict[str, "Trie"]  # child per character; the key "" marks the end of a word
#: The end of a JSON string, and the rule for the rest of a key that has left the trie.
QUOTE = '"\\""'
_JSON_REST = ("char-rest", f"char* {QUOTE}", ("char",))


@memo(2)
def _json_rest_rules(escapes_needed: bool) -> tuple[NamedRule, ...]:
    """The rest rule and the character rules it uses."""
    _, char_rules = json_char_parts(UNIVERSE.ranges, escapes_needed)
    return (_JSON_REST, *char_rules)


#: A trie's text, the rule names it uses and how deep its groups nest (for ``RuleSet.add``:
#: neither the reachability walk nor the nesting check need scan the text).
TrieText = tuple[str, tuple[str, ...], int]


def json_exclusion_body(words: list[str], rules: RuleSet, hint: str) -> TrieText:
    """Any JSON string body but ``words``, closing quote included."""
    if max(map(len, words)) >= _INLINE_DEPTH or sum(map(len, words)) > MAX_CACHED_CHARS:
        # Deep nodes become rules of this grammar; huge sets stay uncached.
        for rule in _json_rest_rules(rules.escapes_needed):
            rules.add_named(*rule)
        writer = _TrieWriter(rules, hint, partial(json_char_ref, rules), QUOTE, _JSON_REST[0])
        text, nesting = writer.body(_trie(words), 0)
        return text, writer.names(), nesting
    text, names, nesting, needed = _json_trie(tuple(words), rules.escapes_needed)
    for rule in needed:
        rules.add_named(*rule)
    return text, names, nesting


def exclusion_body(words: list[str], rules: RuleSet, hint: str, char: CharSetRef) -> TrieText:
    """Any string but ``words`` as bare characters (the raw-pattern mode)."""
    rest = rules.add(f"{hint}-rest", f"{char(UNIVERSE)}*")
    writer = _TrieWriter(rules, hint, char, "", rest)
    text, nesting = writer.body(_trie(words), 0)
    return text, writer.names(), nesting


def _trie(words: list[str]) -> Trie:
    trie: Trie = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}  # marks the end of a word
    return trie


@memo(CACHED_TRIES)
def _json_trie(words: tuple[str, ...], escapes_needed: bool
               ) -> tuple[str, tuple[str, ...], int, tuple[NamedRule, ...]]:
    """A shallow JSON trie's text, the rule names it uses, how deep its groups nest, and every
    rule it needs defined."""
    writer = _JsonTrieText(escapes_needed)
    text, nesting = writer.body(_trie(list(words)), 0)
    return text, tuple(writer.direct), nesting, tuple(writer.needed.values())


class _TrieBody(ABC):
    """The alternatives of each trie node (a class: a recursive closure is a reference cycle,
    and a conversion keeps none, so reference counting frees it on return). Subclasses say what stands for a character reference
    and for a node deep enough to be a rule."""

    final = ""
    rest = ""

    @abstractmethod
    def ref(self, key: str) -> str:
        """A character reference: ``key`` itself, or every character but those after ``^``."""

    @abstractmethod
    def deep(self, sub: str, nesting: int) -> str:
        """The body of a node at depth ``_INLINE_DEPTH`` or more (its groups nesting
        ``nesting`` deep), as a rule reference."""

    def body(self, node: Trie, depth: int) -> tuple[str, int]:
        """The text of ``node`` (at ``depth``) and how deep its groups nest (``final`` and
        ``rest`` hold none; a character reference may be an inline group)."""
        # Below the branching prefix most nodes lead on to a single child: walk such chains in a
        # loop, asking for the references in the order the recursion would (the "any other
        # character" set on the way down, the character itself on the way up).
        final, rest, ref = self.final, self.rest, self.ref
        chain: list[tuple[str, int, str, str]] = []
        while len(node) == 1:
            (c,) = node
            if not c:
                break  # the end of a word, nothing after it
            other = ref('^' + c)
            chain.append((c, depth, f"{final} | {other} {rest}", other))
            node = node[c]
            depth += 1
        text, nesting = self._branches(node, depth)
        for c, at, head, other in reversed(chain):
            # Before ref(c): a deep node's rule comes first.
            sub, nesting = self._nested(text, nesting, at)
            char = ref(c)
            text = f"{head} | {char} {sub}"
            nesting = max(nesting, group_depth(other), group_depth(char))
        return text, nesting

    def _branches(self, node: Trie, depth: int) -> tuple[str, int]:
        keys = sorted(node)  # "" (the end of a word) sorts first
        if keys and keys[0] == "":
            alts = []
            del keys[0]
        else:
            alts = [self.final]
        ref = self.ref
        other = ref('^' + ''.join(keys))
        alts.append(f"{other} {self.rest}")
        nesting = group_depth(other)
        for c in keys:
            sub, sub_nesting = self._nested(*self.body(node[c], depth + 1), depth)
            char = ref(c)
            alts.append(f"{char} {sub}")
            nesting = max(nesting, sub_nesting, group_depth(char))
        return " | ".join(alts), nesting

    def _nested(self, sub: str, nesting: int, depth: int) -> tuple[str, int]:
        """A child's text (and its nesting) as one item after its parent's character (the
        parent at ``depth``)."""
        if depth >= _INLINE_DEPTH:
            return self.deep(sub, nesting), 0
        return (f"({sub})", nesting + 1) if " | " in sub else (sub, nesting)


class _TrieWriter(_TrieBody):
    """A trie's text with its rules added to ``rules``."""

    def __init__(self, rules: RuleSet, hint: str, char: CharSetRef, final: str, rest: str
                 ) -> None:
        self.rules, self.hint, self.char, self.final, self.rest = rules, hint, char, final, rest
        self.refs: dict[str, str] = {}
        #: The references written into the text (rule names or inline groups; ``final`` is a
        #: literal), read for the rule names they hold once the text is done.
        self.used = {rest}

    def ref(self, key: str) -> str:
        found = self.refs.get(key)
        if found is None:
            found = self.refs[key] = self.char(_key_charset(key))
        self.used.add(found)
        return found

    def deep(self, sub: str, nesting: int) -> str:
        name = self.rules.add(f"{self.hint}-k", sub, nesting=nesting)
        self.used.add(name)
        return name

    def names(self) -> tuple[str, ...]:
        return tuple({name for value in self.used for name in expr_refs(value)})


class _JsonTrieText(_TrieBody):
    """A shallow JSON trie's text, collecting the character rules it needs (``_json_trie``)."""

    final = QUOTE
    rest = _JSON_REST[0]

    def __init__(self, escapes_needed: bool) -> None:
        self.escapes_needed = escapes_needed
        self.refs: dict[str, str] = {}
        self.direct: dict[str, None] = {self.rest: None}
        self.needed: dict[str, NamedRule] = {
            rule[0]: rule for rule in _json_rest_rules(escapes_needed)}

    def ref(self, key: str) -> str:
        found = self.refs.get(key)
        if found is None:
            found, needed = _json_key_ref(key, self.escapes_needed)
            self.refs[key] = found
            if needed:  # ``found`` names the first of them
                self.direct[found] = None
                for rule in needed:
                    self.needed.setdefault(rule[0], rule)
        return found

    def deep(self, sub: str, nesting: int) -> str:
        raise ValueError("only tries shallower than _INLINE_DEPTH are cached")


@memo(16384)
def _json_key_ref(key: str, escapes_needed: bool) -> tuple[str, tuple[NamedRule, ...]]:
    """A JSON trie edge's reference and the rules it needs (``json_char_parts``), in one
    lookup."""
    return json_char_parts(_key_charset(key).ranges, escapes_needed)


@memo(16384)
def _key_charset(key: str) -> CharSet:
    """A trie edge's characters: ``key`` itself, or every character but those after a ``^``."""
    return UNIVERSE - CharSet.chars(key[1:]) if key.startswith("^") else CharSet.chars(key)
