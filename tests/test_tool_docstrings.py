"""parse_docstring: Google, NumPy and reST docstrings, odd input, and never raising."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structgen._tools._docstrings import Docstring, Style, parse_docstring


def test_google() -> None:
    def f() -> None:
        """Search the catalogue.

        Looks every title up in
        the local index.

        Args:
            query (str): What to look for; words are
                matched case-insensitively
                and in any order.
            limit: At most this many results.
            filters (dict[str, list[int]], optional): Field filters.
            *args: Extra positional things.
            **kwargs: Passed to the backend.

        Returns:
            list[str]: The matching titles,
                best first.

        Raises:
            ValueError: If the query is empty.

        Examples:
            >>> search("dune")
            ['Dune']
        """

    doc = parse_docstring(f.__doc__)
    assert doc.summary == "Search the catalogue.\n\nLooks every title up in the local index."
    assert doc.params == {
        "query": "What to look for; words are matched case-insensitively and in any order.",
        "limit": "At most this many results.",
        "filters": "Field filters.",
        "args": "Extra positional things.",
        "kwargs": "Passed to the backend.",
    }
    assert list(doc.params) == ["query", "limit", "filters", "args", "kwargs"]
    assert doc.returns == "The matching titles, best first."


@pytest.mark.parametrize("header", ["Args:", "Arguments:", "Parameters:", "Params:", "Keyword Args:"])
def test_google_param_headers(header: str) -> None:
    doc = parse_docstring(f"Do it.\n\n{header}\n    x: The x.\n")
    assert doc == Docstring("Do it.", {"x": "The x."}, None)


def test_google_yields_and_inline_returns() -> None:
    assert parse_docstring("Count.\n\nYields:\n    int: The next number.").returns == "The next number."
    assert parse_docstring("Count.\n\nReturns: The total\n    so far.").returns == "The total so far."
    # a description that is not a type is kept whole
    doc = parse_docstring("Check.\n\nReturns:\n    True if found: otherwise False.")
    assert doc.returns == "True if found: otherwise False."


def test_google_other_sections_end_params() -> None:
    doc = parse_docstring(
        """Load a file.

        Args:
            path: Where it is.

        Note:
            This reads: the whole file.

        Attributes:
            size: Not a parameter.

        See Also:
            other: Not a parameter either.

        Args:
            mode: A second parameter section also counts.
        """
    )
    assert doc.summary == "Load a file."
    assert doc.params == {"path": "Where it is.", "mode": "A second parameter section also counts."}
    assert doc.returns is None


def test_numpy() -> None:
    def f() -> None:
        """Distance between two points.

        Uses the Euclidean metric.

        Parameters
        ----------
        x, y : float
            The coordinates of the point,
            in metres.
        origin : tuple of float, optional
            Where to measure from.
        *args
            Ignored.
        unused : int

        Other Parameters
        ----------------
        verbose : bool
            Print progress.

        Returns
        -------
        float
            The distance, never
            negative.

        Raises
        ------
        ValueError
            If a coordinate is NaN.

        Examples
        --------
        >>> distance(3, 4)
        5.0
        """

    doc = parse_docstring(f.__doc__)
    assert doc.summary == "Distance between two points.\n\nUses the Euclidean metric."
    assert doc.params == {
        "x": "The coordinates of the point, in metres.",
        "y": "The coordinates of the point, in metres.",
        "origin": "Where to measure from.",
        "args": "Ignored.",
        "verbose": "Print progress.",
    }
    assert doc.returns == "The distance, never negative."


def test_numpy_named_returns() -> None:
    doc = parse_docstring("Split.\n\nReturns\n-------\nhead : str\n    The first part.\ntail : str\n    The rest.\n")
    assert doc.returns == "The first part.\n\nThe rest."


def test_rest() -> None:
    def f() -> None:
        """Send a message.

        The message is queued, not sent at once.

        :param recipient: Who gets it; an address
            or a user name.
        :type recipient: str
        :param int retries: How often to retry.
        :arg body: The text.
        :parameter priority: Higher is sooner.
        :keyword timeout: Seconds to wait.
        :raises ConnectionError: If the server is down.
        :returns: The message id,
            unique per server.
        :rtype: str
        """

    doc = parse_docstring(f.__doc__)
    assert doc.summary == "Send a message.\n\nThe message is queued, not sent at once."
    assert doc.params == {
        "recipient": "Who gets it; an address or a user name.",
        "retries": "How often to retry.",
        "body": "The text.",
        "priority": "Higher is sooner.",
        "timeout": "Seconds to wait.",
    }
    assert doc.returns == "The message id, unique per server."


def test_rest_roles_in_summary_are_not_fields() -> None:
    doc = parse_docstring(":class:`Tool` helper.\n\n:return: Nothing much.")
    assert doc.summary == ":class:`Tool` helper."
    assert doc.returns == "Nothing much."


def test_description_only() -> None:
    doc = parse_docstring(
        """
        Fetch the weather for a city.

        The   data comes from
        a public API.
        """
    )
    assert doc == Docstring("Fetch the weather for a city.\n\nThe data comes from a public API.", {}, None)


@pytest.mark.parametrize("text", [None, "", "   ", "\n\n\t\n"])
def test_none_and_empty(text: str | None) -> None:
    assert parse_docstring(text) == Docstring("", {}, None)


def test_summary_with_raises_and_examples() -> None:
    doc = parse_docstring(
        """Parse a date.

        Accepts ISO 8601 only.

        Raises:
            ValueError: If the text is not a date.

        Examples:
            >>> parse("2024-01-01")
            date(2024, 1, 1)
        """
    )
    assert doc == Docstring("Parse a date.\n\nAccepts ISO 8601 only.", {}, None)


def test_generic_section_ends_summary_but_inline_note_does_not() -> None:
    doc = parse_docstring("Run it.\nNote: it is slow.\n\nUsage:\n    run()\n")
    assert doc.summary == "Run it. Note: it is slow."


def test_style_restricts_recognised_syntax() -> None:
    text = "Do it.\n\n:param x: The x.\n\nArgs:\n    y: The y.\n"
    assert parse_docstring(text).params == {"x": "The x.", "y": "The y."}
    assert parse_docstring(text, style="google").params == {"y": "The y."}
    assert parse_docstring(text, style="rest").params == {"x": "The x."}
    assert parse_docstring(text, style="numpy").params == {}


def test_first_description_wins_and_empty_ones_are_left_out() -> None:
    doc = parse_docstring("Do.\n\n:param x:\n:param x: First.\n:param x: Second.\n:param:\n")
    assert doc.params == {"x": "First."}


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_never_raises(text: str) -> None:
    doc = parse_docstring(text)
    assert isinstance(doc, Docstring)
    assert isinstance(doc.summary, str)
    assert isinstance(doc.params, dict)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in doc.params.items())
    assert doc.returns is None or isinstance(doc.returns, str)


_PIECES = st.sampled_from([
    "Args:", "Returns:", "Parameters", "----------", "Returns: x", ":param x: y", ":param:",
    ":returns:", "x (int): d", "x : int", "*args", "**kw: v", "  ", "    more", "\t", "(", ")",
    ":", "Note:", "---", "x, y", "\\*a", "[", "]", "|", "Yields", "a" * 50, "é", "\u2028",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=6).map(" ".join), max_size=20).map("\n".join))
def test_never_raises_on_docstring_like_text(text: str) -> None:
    styles: tuple[Style, ...] = ("auto", "google", "numpy", "rest")
    for style in styles:
        doc = parse_docstring(text, style=style)
        assert isinstance(doc.summary, str) and isinstance(doc.params, dict)
        assert doc.returns is None or isinstance(doc.returns, str)
