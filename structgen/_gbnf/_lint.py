"""Lint for GBNF grammars: mistakes llama.cpp reports badly, crashes on, or runs slowly; and,
asked for (``portable=True``, ``lint_portable``), constructs other engines read otherwise
(code ``portable``, see ``_portable.py``).

Each finding has a place (1-based line and column; 0 when a hand-built tree has no positions),
a stable ``code`` and a message. ``check_safe`` turns the fatal ones into a GrammarError.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._memo import memo
from .._errors import GrammarError
from ._analysis import (
    effective_max,
    is_nullable,
    left_corner_refs,
    nullable_rules,
    reachable_rules,
    recursive_cycles,
)
from ._format import format_expr, format_gbnf
from ._parser import MAX_REPETITION, excerpt_at, parse_gbnf
from ._portable import PORTABLE_CODE, portable_issues
from ._tree import Alt, CharClass, Expr, LiteralText, GbnfGrammar, Repeat, RuleRef, Seq, Span, walk

__all__ = ["LintFinding", "check", "check_safe", "lint", "lint_portable", "FATAL_CODES",
           "PORTABLE_CODE"]

# Findings that make a grammar unusable: llama.cpp refuses it, crashes, or never terminates.
FATAL_CODES = frozenset(
    {"undefined-rule", "missing-root", "left-recursion", "nullable-loop", "repetition-limit"}
)
# A rule whose llama.cpp expansion has more elements than this is flagged as a memory risk.
HUGE_EXPANSION = 20_000
CHAINED_OPTIONALS = 3


@dataclass(frozen=True)
class LintFinding:
    line: int
    column: int
    code: str
    message: str
    severity: str = "warning"  # "error" or "warning"

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity}: {self.message} [{self.code}]"


class _Linter:
    def __init__(self, grammar: GbnfGrammar, root: str) -> None:
        self.grammar = grammar
        self.root = root
        self.findings: list[LintFinding] = []
        self.nodes = {name: walk(body) for name, body in grammar.rules.items()}
        self.references = {
            name: [node for node in nodes if isinstance(node, RuleRef)] for name, nodes in self.nodes.items()
        }
        self.nullable = nullable_rules(grammar, self.references)

    def add(self, at: Span | None, code: str, message: str, *, fallback: str | None = None) -> None:
        if at is None and fallback is not None:
            at = self.grammar.span_of(fallback)
        severity = "error" if code in FATAL_CODES else "warning"
        line, column = (at.line, at.column) if at is not None else (0, 0)
        self.findings.append(LintFinding(line, column, code, message, severity))

    def run(self, fatal_only: bool) -> list[LintFinding]:
        rules = self.grammar.rules
        for name in rules:
            for ref in self.references[name]:
                if ref.name not in rules:
                    self.add(ref.at, "undefined-rule", f"undefined rule '{ref.name}'", fallback=name)
        if self.root not in rules:
            self.add(Span(1, 1), "missing-root", f"the grammar has no '{self.root}' rule")
        self.left_recursion()
        for name in rules:
            self.rule_body(name)
        if not fatal_only:
            self.structure()
        else:
            self.findings = [f for f in self.findings if f.code in FATAL_CODES]
        return sorted(self.findings, key=lambda f: (f.line, f.column, f.code))

    def structure(self) -> None:
        rules = self.grammar.rules
        for name, at in self.grammar.duplicates:
            self.add(at, "duplicate-rule", f"rule '{name}' is defined again; this definition replaces the earlier one")
        if self.root in rules:
            used = reachable_rules(self.grammar, self.root, self.references)
            for name in rules:
                if name not in used:
                    self.add(None, "unused-rule", f"rule '{name}' is not reachable from '{self.root}'", fallback=name)
        for name, body in rules.items():
            size = _expansion_size(body)
            if size > HUGE_EXPANSION:
                self.add(
                    None,
                    "huge-expansion",
                    f"rule '{name}' expands to about {size} grammar elements in llama.cpp; "
                    "nest the repetitions or lower the counts",
                    fallback=name,
                )

    def left_recursion(self) -> None:
        rules = self.grammar.rules
        first_refs = {name: left_corner_refs(body, self.nullable) for name, body in rules.items()}
        graph = {name: [ref.name for ref in refs if ref.name in rules] for name, refs in first_refs.items()}
        for cycle in recursive_cycles(graph):
            following = cycle[1] if len(cycle) > 1 else cycle[0]
            ref = next((r for r in first_refs[cycle[0]] if r.name == following), None)
            path = " -> ".join(cycle + [cycle[0]])
            self.add(
                ref.at if ref is not None else None,
                "left-recursion",
                f"left recursion {path}: llama.cpp refuses or crashes on it; "
                "rewrite with repetition (x ::= y (op y)*)",
                fallback=cycle[0],
            )

    def rule_body(self, name: str) -> None:
        for node in self.nodes[name]:
            if isinstance(node, Repeat):
                self.repetition(name, node)
            elif isinstance(node, Seq):
                self.chained_optionals(name, node)
            elif isinstance(node, CharClass):
                self.char_class(name, node)

    def char_class(self, name: str, node: CharClass) -> None:
        if not node.ranges:
            self.add(node.at, "empty-class", "an empty character class matches the empty string in llama.cpp", fallback=name)
        elif node.negated and any(high >= 0x80 and high >= low for low, high in node.ranges):
            # llama.cpp checks a token that ends inside a UTF-8 sequence against every code
            # point the sequence could still become; one excluded candidate rejects it.
            self.add(
                node.at,
                "negated-class-split-utf8",
                "a negated class that excludes non-ASCII characters: llama.cpp rejects any character "
                "sharing their UTF-8 lead bytes when a token splits it, so acceptance depends on the tokenizer",
                fallback=name,
            )

    def repetition(self, name: str, node: Repeat) -> None:
        if node.min > MAX_REPETITION:
            self.add(node.at, "repetition-limit", f"repetition count {node.min} exceeds llama.cpp's limit of {MAX_REPETITION}", fallback=name)
        elif node.max is not None and node.max > MAX_REPETITION:
            self.add(
                node.at,
                "unbounded-maximum",
                f"llama.cpp ignores the maximum {node.max} (above {MAX_REPETITION}) and allows unbounded repetition",
                fallback=name,
            )
        if node.max is not None and node.max < node.min:
            self.add(node.at, "repetition-limit", f"repetition maximum {node.max} is below the minimum {node.min}", fallback=name)
        if effective_max(node) is not None:
            return
        if is_nullable(node.item, self.nullable):
            self.add(
                node.at,
                "nullable-loop",
                f"unbounded repetition of {_short(node.item)}, which can match the empty string: "
                "an endless empty loop (make the repeated item non-empty)",
                fallback=name,
            )
        if self.unbounded_inside(node.item, set()):
            self.add(
                node.at,
                "nested-repetition",
                f"unbounded repetition of {_short(node.item)}, itself an unbounded repetition: "
                "exponentially many ways to match (slow in llama.cpp)",
                fallback=name,
            )

    def unbounded_inside(self, expr: Expr, visiting: set[str]) -> bool:
        """Can ``expr`` match as nothing but an unbounded repetition (directly or via rules)?"""
        if isinstance(expr, Repeat):
            if effective_max(expr) is None:
                return True
            return effective_max(expr) != 0 and self.unbounded_inside(expr.item, visiting)
        if isinstance(expr, RuleRef):
            if expr.name in visiting or expr.name not in self.grammar.rules:
                return False
            visiting.add(expr.name)
            return self.unbounded_inside(self.grammar.rules[expr.name], visiting)
        if isinstance(expr, Alt):
            return any(self.unbounded_inside(option, visiting) for option in expr.options)
        if isinstance(expr, Seq):
            solid = [item for item in expr.items if not is_nullable(item, self.nullable)]
            if len(solid) == 1:
                return self.unbounded_inside(solid[0], visiting)
            return False
        return False

    def chained_optionals(self, name: str, node: Seq) -> None:
        items = node.items
        start = 0
        while start < len(items):
            first = items[start]
            end = start + 1
            if isinstance(first, Repeat) and (first.min, first.max) == (0, 1):
                while end < len(items) and items[end] == first:
                    end += 1
            count = end - start
            if count >= CHAINED_OPTIONALS:
                assert isinstance(first, Repeat)
                text = _short(first.item)
                self.add(
                    first.at,
                    "chained-optionals",
                    f"{count} optional copies of {text} in a row are very slow in llama.cpp; "
                    f"write {text}{{0,{count}}}",
                    fallback=name,
                )
            start = end


def _short(expr: Expr) -> str:
    text = format_expr(expr)
    if isinstance(expr, (Seq, Alt)) and not text.startswith("("):
        text = f"({text})"
    return text if len(text) <= 40 else text[:37] + "..."


def _expansion_size(expr: Expr) -> int:
    """Roughly how many grammar elements llama.cpp makes of ``expr`` (repetitions copy)."""
    if isinstance(expr, Seq):
        return sum(_expansion_size(item) for item in expr.items)
    if isinstance(expr, Alt):
        return sum(_expansion_size(option) + 1 for option in expr.options) + 1
    if isinstance(expr, Repeat):
        inner = _expansion_size(expr.item)
        # A group is one reference plus its rule, made once; other items are copied.
        copy = 1 if isinstance(expr.item, (Seq, Alt)) else inner
        group = inner if isinstance(expr.item, (Seq, Alt)) else 0
        high = effective_max(expr)
        optional = 1 if high is None else max(high - expr.min, 0)
        return group + expr.min * copy + optional * (copy + 3)
    if isinstance(expr, CharClass):
        return 2 * len(expr.ranges)
    if isinstance(expr, LiteralText):
        return len(expr.text)
    return 1


def _as_grammar(tree_or_text: GbnfGrammar | str) -> GbnfGrammar:
    if isinstance(tree_or_text, str):
        return parse_gbnf(tree_or_text, check_undefined=False)
    if isinstance(tree_or_text, GbnfGrammar):
        return tree_or_text
    raise TypeError(f"expected GBNF text or a GbnfGrammar, not {type(tree_or_text).__name__}")


def lint(tree_or_text: GbnfGrammar | str, *, root: str = "root", portable: bool = False
         ) -> list[LintFinding]:
    """All findings, sorted by place. Text that does not parse gives one ``syntax`` finding.
    ``portable`` adds the ``portable`` findings (see ``lint_portable``)."""
    try:
        grammar = _as_grammar(tree_or_text)
    except GrammarError as err:
        return [LintFinding(err.line or 0, err.column or 0, "syntax", err.message, "error")]
    findings = _Linter(grammar, root).run(fatal_only=False)
    if portable:
        findings = sorted(findings + _portable_findings(grammar),
                          key=lambda f: (f.line, f.column, f.code))
    return findings


def lint_portable(tree_or_text: GbnfGrammar | str) -> list[LintFinding]:
    """The constructs that xgrammar (vLLM, SGLang) or llguidance read otherwise than llama.cpp
    or refuse, each a ``portable`` warning, sorted by place; a grammar with none means the same
    in all three. A tree without its source text is checked as ``format_gbnf`` writes it."""
    try:
        grammar = _as_grammar(tree_or_text)
    except GrammarError as err:
        return [LintFinding(err.line or 0, err.column or 0, "syntax", err.message, "error")]
    return sorted(_portable_findings(grammar), key=lambda f: (f.line, f.column))


def _portable_findings(grammar: GbnfGrammar) -> list[LintFinding]:
    text = grammar.source if grammar.source is not None else format_gbnf(grammar)
    findings = []
    for issue in portable_issues(text, grammar):
        if issue.offset >= 0:  # findings are few: their lines are counted one by one
            line = text.count("\n", 0, issue.offset) + 1
            column = issue.offset - (text.rfind("\n", 0, issue.offset) + 1) + 1
        else:
            line, column = (issue.span.line, issue.span.column) if issue.span else (0, 0)
        findings.append(LintFinding(line, column, PORTABLE_CODE, issue.message))
    return findings


def _raise(grammar: GbnfGrammar, finding: LintFinding) -> GrammarError:
    excerpt = ""
    if grammar.source is not None and finding.line > 0:
        excerpt = excerpt_at(grammar.source, finding.line, finding.column)
    line = finding.line or None
    return GrammarError(finding.message, line=line, column=finding.column if line else None, excerpt=excerpt)


def check(grammar: GbnfGrammar, root: str = "root") -> None:
    """Raise GrammarError unless ``root`` names a rule of ``grammar`` (llama.cpp needs it)."""
    if root not in grammar.rules:
        raise GrammarError(f"the grammar has no '{root}' rule", line=1, column=1, excerpt=(
            excerpt_at(grammar.source, 1, 1) if grammar.source is not None else ""))


def check_safe(tree: GbnfGrammar | str, root: str = "root") -> GbnfGrammar:
    """Raise GrammarError for the first fatal problem (undefined rule, missing root, left
    recursion, empty loop, repetition beyond llama.cpp's limits); return the parsed grammar."""
    if isinstance(tree, str):
        return _check_text(tree, root)
    findings = _Linter(tree, root).run(fatal_only=True)
    if findings:
        raise _raise(tree, findings[0])
    return tree


@memo(128)
def _check_text(text: str, root: str) -> GbnfGrammar:
    # Grammar values check their text on construction, often the same text again; the
    # parsed tree is immutable, so it can be shared (failures are not cached).
    return check_safe(parse_gbnf(text), root)
