"""Whole-grammar facts the lint, the recognizer and the sampler share.

Everything here works on the tree and mirrors how llama.cpp expands it: ``{m,n}`` with n above
2000 counts as unbounded, an empty character class matches the empty string.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._parser import MAX_REPETITION
from ._tree import Alt, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq, Token, walk

__all__ = [
    "effective_max",
    "left_corner_refs",
    "nullable_rules",
    "is_nullable",
    "recursive_cycles",
    "reachable_rules",
    "references_by_rule",
    "rule_references",
]


def effective_max(node: Repeat) -> int | None:
    """The upper bound llama.cpp actually uses (it drops bounds above its limit)."""
    if node.max is not None and node.max > MAX_REPETITION:
        return None
    return node.max


def rule_references(expr: Expr) -> list[RuleRef]:
    return [node for node in walk(expr) if isinstance(node, RuleRef)]


def references_by_rule(grammar: GbnfGrammar) -> dict[str, list[RuleRef]]:
    return {name: rule_references(body) for name, body in grammar.rules.items()}


def reachable_rules(
    grammar: GbnfGrammar, root: str, references: Mapping[str, list[RuleRef]] | None = None
) -> set[str]:
    refs = references if references is not None else references_by_rule(grammar)
    seen = {root} if root in grammar.rules else set()
    todo = list(seen)
    while todo:
        for ref in refs[todo.pop()]:
            if ref.name in grammar.rules and ref.name not in seen:
                seen.add(ref.name)
                todo.append(ref.name)
    return seen


def is_nullable(expr: Expr, nullable: Mapping[str, bool]) -> bool:
    """Can ``expr`` match the empty string, given which rules can?"""
    if isinstance(expr, LiteralText):
        return expr.text == ""
    if isinstance(expr, CharClass):
        return not expr.ranges
    if isinstance(expr, RuleRef):
        return nullable.get(expr.name, False)
    if isinstance(expr, Seq):
        return all(is_nullable(item, nullable) for item in expr.items)
    if isinstance(expr, Alt):
        return any(is_nullable(option, nullable) for option in expr.options)
    if isinstance(expr, Repeat):
        return expr.min == 0 or effective_max(expr) == 0 or is_nullable(expr.item, nullable)
    return False  # AnyChar, Token


def nullable_rules(
    grammar: GbnfGrammar, references: Mapping[str, list[RuleRef]] | None = None
) -> dict[str, bool]:
    """Which rules derive the empty string: a worklist fixpoint (linear in grammar size)."""
    refs = references if references is not None else references_by_rule(grammar)
    nullable = {name: False for name in grammar.rules}
    users: dict[str, set[str]] = {name: set() for name in grammar.rules}
    for name in grammar.rules:
        for ref in refs[name]:
            if ref.name in users:
                users[ref.name].add(name)
    todo = list(grammar.rules)
    while todo:
        name = todo.pop()
        if nullable[name] or not is_nullable(grammar.rules[name], nullable):
            continue
        nullable[name] = True
        todo.extend(user for user in users[name] if not nullable[user])
    return nullable


def left_corner_refs(expr: Expr, nullable: Mapping[str, bool]) -> list[RuleRef]:
    """References that can come first in a match of ``expr`` (after empty matches only)."""
    found: list[RuleRef] = []

    def visit(node: Expr) -> None:
        if isinstance(node, RuleRef):
            found.append(node)
        elif isinstance(node, Seq):
            for item in node.items:
                visit(item)
                if not is_nullable(item, nullable):
                    break
        elif isinstance(node, Alt):
            for option in node.options:
                visit(option)
        elif isinstance(node, Repeat) and effective_max(node) != 0:
            visit(node.item)

    visit(expr)
    return found


def recursive_cycles(graph: Mapping[str, list[str]]) -> list[list[str]]:
    """One cycle (as a list of rule names, first repeated implicitly) per strongly connected
    component that has one, via an iterative Tarjan walk (grammars can have thousands of rules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in graph:
                    continue
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(graph[succ])))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    components.append(component)
    return [_cycle_in(component, graph) for component in components]


def _cycle_in(component: list[str], graph: Mapping[str, list[str]]) -> list[str]:
    """A concrete cycle through the component's first-defined member (breadth-first)."""
    members = set(component)
    order = {name: i for i, name in enumerate(graph)}
    start = min(component, key=order.__getitem__)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for succ in graph[node]:
                if succ == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return list(reversed(path))
                if succ in members and succ not in parents:
                    parents[succ] = node
                    following.append(succ)
        frontier = following
    return [start]


def contains_token(expr: Expr) -> Token | None:
    for node in walk(expr):
        if isinstance(node, Token):
            return node
    return None
