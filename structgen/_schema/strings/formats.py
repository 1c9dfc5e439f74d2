"""Anchored regular expressions for the string formats a grammar can enforce.

Every regex uses only plain syntax that both ECMA-262 (as ``automata.regex`` parses it) and Python's
``re`` read the same way: literals, escapes of punctuation, classes with ranges, ``(?:...)``,
alternation and counted quantifiers; no lookarounds, backreferences, ``\\b`` or lazy quantifiers.
Non-ASCII ranges are written as the characters themselves.

What each regex decides, and where it is deliberately narrower than the standard (it may reject a
valid string, it never accepts an invalid one) or wider (listed as a known gap):

- ``date``, ``time``, ``date-time`` (RFC 3339 §5.6): exact month lengths and leap years (divisible
  by 4, not by 100 unless by 400). Narrower, on purpose: years 0001–9999 and seconds 00–59, what
  Python's ``datetime`` and Pydantic accept, so a generated value always validates; RFC 3339's
  year 0000 and leap seconds (``23:59:60``) are refused.
- ``duration`` (RFC 3339 appendix A): exact; integer components only, as the ABNF says.
- ``uuid``: 8-4-4-4-12 hex digits, any case, any version. ``uuid1``…``uuid5`` (Pydantic's types)
  also fix the version nibble and the RFC 4122 variant (8, 9, a or b), as Pydantic checks.
- ``ipv4``: dotted quad, 0–255, no leading zeros. ``ipv6``: RFC 4291 text forms, every ``::``
  compression, optional trailing IPv4; no zone id, no brackets. ``ipvanyaddress``: either.
- ``hostname`` (RFC 1123): labels of 1–63 letters, digits and inner hyphens, separated by dots.
  Narrower: labels with ``--`` in positions 3–4 (IDNA A-labels such as ``xn--…``) are rejected,
  since validating their Punycode is beyond a regex. The 253-character total is kept by a union of
  shapes (at most 3 labels of up to 63 characters, 5 of 49, 10 of 24 or 21 of 11): narrower, it
  rejects long names with many long labels (counting across labels exactly would need tens of
  thousands of automaton states).
- ``idn-hostname``: narrower: only the ASCII hostnames above (U-labels are rejected).
- ``email`` (RFC 5321 Mailbox): dot-atom or quoted-string local part; a domain of hostname labels
  (A-labels allowed here, as RFC 5321 allows any LDH label) or an ``[IPv4]`` / ``[IPv6:…]``
  literal. Narrower: general address literals (``[tag:…]``) are rejected; the 255-octet domain
  limit is kept by shapes as for hostnames (4 labels of up to 63, 5 of 50, 10 of 24, 21 of 11).
  The 64-octet local part is kept by shapes too (one atom of up to 64 characters, 2 of 31, 3 of
  20, ... 32 of 1; a quoted string of 62 characters, or of 31 when it has escapes): narrower
  for long local parts of many long atoms.
- ``idn-email`` (RFC 6531): as ``email`` with any non-ASCII character allowed in the local part;
  narrower: the domain must be ASCII. The 64-octet local part is kept by the widest character it
  uses (UTF-8 takes one to four octets): ASCII as for ``email``; up to 32 characters when none
  takes more than 2 octets, 21 for 3, 16 for 4, in shapes as above (a quoted string of 31, 20 or
  15). Narrower: a long local part with few wide characters (60 letters and one ``é``, 62 octets).
- ``uri``, ``uri-reference`` (RFC 3986) and ``iri``, ``iri-reference`` (RFC 3987): exact syntax.
- ``uri-template`` (RFC 6570, level 4, without the operators reserved for future use): exact; an
  apostrophe is a literal (RFC errata 6937, as the test suite expects).
- ``json-pointer`` (RFC 6901) and ``relative-json-pointer``: exact.
- Anything else, including ``regex`` (not a regular language), is unknown: ``None``.

Beside the standard names (and Pydantic's ``uuid1``…``uuid5`` and ``ipvanyaddress``), a few names
spell what Pydantic's own types read and write, where the standard format differs from it
(``structgen._types`` puts them in the schemas it takes from Python types):

- ``local-date-time``, ``local-time``: ``date-time`` and ``time`` without an offset (a naive
  ``datetime`` or ``time``), up to microseconds as Python keeps them.
- ``iso8601-duration``: a ``timedelta`` as Pydantic writes it (``-P1DT2H3M4.5S``: a sign,
  fractional seconds), years of up to 6 digits and days, hours, minutes, seconds of up to 3, 2,
  2, 2, so that it always fits in a ``timedelta``.
- ``email-address``: what ``EmailStr`` (the email-validator package) accepts: a dot-atom local
  part and a lower-case domain of at least two labels whose top-level label starts with a letter
  and is none of the special-use names (``test``, ``localhost``, ...), 254 characters at most.
  Narrower than ``email``: no quoted local parts or address literals, as email-validator refuses.
- ``http-url`` and ``url``: what ``HttpUrl`` and ``AnyUrl`` accept and write back: ``http`` or
  ``https`` (``url``: also ``ws``, ``wss``, ``ftp``), ``://``, a host name whose last label
  starts with a letter, an IPv4 address or a bracketed IPv6 address, an optional port, and a
  path, query and fragment of characters the WHATWG URL parser keeps as they are; 2083
  characters at most (``HttpUrl``'s limit). Narrower: no user info, other schemes or
  internationalized names.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FORMAT_NAMES", "format_regex"]

# --- dates and times ---------------------------------------------------------------------------

_DAY_OF_MONTH = (
    "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
_QUAD = "(?:0[48]|[2468][048]|[13579][26])"  # two digits divisible by 4, except 00
_YEAR = "(?:[0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)"  # 0001-9999
_LEAP_YEAR = f"(?:[0-9]{{2}}{_QUAD}|{_QUAD}00)"  # 0000 excluded, as in _YEAR
_DATE = f"(?:{_YEAR}-{_DAY_OF_MONTH}|{_LEAP_YEAR}-02-29)"

_HOUR = "(?:[01][0-9]|2[0-3])"
_MINUTE = "[0-5][0-9]"
_FRACTION = "(?:\\.[0-9]+)?"
_OFFSET = f"(?:[Zz]|[+\\-]{_HOUR}:{_MINUTE})"


_TIME = f"{_HOUR}:{_MINUTE}:{_MINUTE}{_FRACTION}{_OFFSET}"
_DATE_TIME = f"{_DATE}[Tt]{_TIME}"


def _duration() -> str:
    n = "[0-9]+"
    second = f"{n}S"
    minute = f"{n}M(?:{second})?"
    hour = f"{n}H(?:{minute})?"
    time = f"T(?:{hour}|{minute}|{second})"
    day = f"{n}D"
    month = f"{n}M(?:{day})?"
    year = f"{n}Y(?:{month})?"
    return f"P(?:(?:{day}|{month}|{year})(?:{time})?|{time}|{n}W)"


# --- addresses ---------------------------------------------------------------------------------

_HEX = "[0-9A-Fa-f]"
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])"
_IPV4 = f"{_OCTET}(?:\\.{_OCTET}){{3}}"


def _ipv6() -> str:
    """RFC 3986's IPv6address: one alternative per position of the "::"."""
    h16 = f"{_HEX}{{1,4}}"
    group = f"{h16}:"
    ls32 = f"(?:{h16}:{h16}|{_IPV4})"

    def before(n: int) -> str:  # up to n groups before "::"
        return "" if n == 0 else f"(?:(?:{group}){{0,{n - 1}}}{h16})?" if n > 1 else f"(?:{h16})?"

    options = [f"(?:{group}){{6}}{ls32}", f"::(?:{group}){{5}}{ls32}"]
    options += [f"{before(n)}::(?:{group}){{{5 - n}}}{ls32}" for n in (1, 2, 3, 4)]
    options += [f"{before(5)}::{ls32}", f"{before(6)}::{h16}", f"{before(7)}::"]
    return "(?:" + "|".join(options) + ")"


_IPV6 = _ipv6()

_ALNUM = "[A-Za-z0-9]"
_LDH = "[A-Za-z0-9\\-]"


def _ldh_label(longest: int) -> str:
    """An LDH label of 1 to ``longest`` characters (RFC 1123)."""
    return f"{_ALNUM}(?:{_LDH}{{0,{longest - 2}}}{_ALNUM})?"


def _host_label(longest: int, first: str = _ALNUM) -> str:
    """The same without "--" in positions 3-4 (RFC 5891 §4.2.3.1: reserved for A-labels)."""
    return (
        f"(?:{first}(?:{_LDH}?{_ALNUM})?"  # 1-3 characters
        f"|{first}{_LDH}{{2}}{_ALNUM}"  # 4: the last one is no hyphen
        f"|{first}{_LDH}(?:{_ALNUM}{_LDH}|-{_ALNUM}){_LDH}{{0,{longest - 5}}}{_ALNUM})"  # 5+
    )


def _bounded_name(label: Callable[[int], str], shapes: tuple[tuple[int, int], ...]) -> str:
    """Dot-separated labels whose total length stays within a limit, as a union of shapes
    (longest label, most labels): counting characters across labels exactly would take an
    automaton of tens of thousands of states; each shape's worst case fits the limit."""
    return "(?:" + "|".join(f"{label(n)}(?:\\.{label(n)}){{0,{k - 1}}}" for n, k in shapes) + ")"


#: Hostnames fit in 253 characters: 3 x 63 + 2, 5 x 49 + 4, 10 x 24 + 9, 21 x 11 + 20.
_HOST_SHAPES = ((63, 3), (49, 5), (24, 10), (11, 21))
#: E-mail domains fit in 255: 4 x 63 + 3, 5 x 50 + 4, 10 x 24 + 9, 21 x 11 + 20.
_DOMAIN_SHAPES = ((63, 4), (50, 5), (24, 10), (11, 21))
_HOSTNAME = _bounded_name(_host_label, _HOST_SHAPES)

# --- e-mail (RFC 5321 / 6531) ------------------------------------------------------------------

_ATEXT = "A-Za-z0-9!#$%&'*+\\-/=?\\^_`{|}~"
_QTEXT = " !#-\\[\\]-~"  # %d32-33 / %d35-91 / %d93-126
_NON_ASCII = "\u0080-\U0010ffff"


#: Dot-atom local parts fit in 64 octets: (longest atom, most atoms) with L * k + k - 1 <= 64.
_LOCAL_SHAPES = ((64, 1), (31, 2), (20, 3), (15, 4), (12, 5), (7, 8), (4, 13), (3, 16), (1, 32))
#: idn-email local parts by the widest character they use: (UTF-8 octets, the non-ASCII
#: characters that take at most that many, shapes with W * L * k + k - 1 <= 64).
_WIDE_LOCAL_PARTS = (
    (2, "\u0080-\u07ff", ((32, 1), (15, 2), (10, 3), (7, 4), (6, 5), (3, 9), (1, 21))),
    (3, "\u0080-\uffff", ((21, 1), (10, 2), (6, 3), (5, 4), (4, 5), (3, 6), (1, 16))),
    (4, _NON_ASCII, ((16, 1), (7, 2), (5, 3), (3, 5), (1, 13))),
)
#: RFC 5321 section 4.5.3.1.1.
LOCAL_PART_OCTETS = 64


def _ascii_local_part() -> str:
    """A dot-atom, or a quoted string of 62 plain characters (64 octets with the quotes), or
    of 31 of which any may be a pair."""
    quoted = f'"(?:[{_QTEXT}]{{0,62}}|(?:[{_QTEXT}]|\\\\[ -~]){{0,31}})"'
    dot_atom = _bounded_name(lambda n: f"[{_ATEXT}]{{1,{n}}}", _LOCAL_SHAPES)
    return f"{dot_atom}|{quoted}"


def _wide_local_part(octets: int, wide: str, shapes: tuple[tuple[int, int], ...]) -> str:
    """A local part with characters of up to ``octets`` UTF-8 octets, few enough of them that
    it fits in 64 however many are that wide (a quoted pair takes 2)."""
    quoted = f'"(?:[{_QTEXT}{wide}]|\\\\[ -~]){{0,{(LOCAL_PART_OCTETS - 2) // octets}}}"'
    dot_atom = _bounded_name(lambda n: f"[{_ATEXT}{wide}]{{1,{n}}}", shapes)
    return f"{dot_atom}|{quoted}"


def _mailbox(non_ascii: bool) -> str:
    parts = [_ascii_local_part()]
    if non_ascii:
        parts += [_wide_local_part(*wide) for wide in _WIDE_LOCAL_PARTS]
    literal = f"\\[(?:{_IPV4}|[Ii][Pp][Vv]6:{_IPV6})\\]"
    domain = f"(?:{_bounded_name(_ldh_label, _DOMAIN_SHAPES)}|{literal})"
    return f"(?:{'|'.join(parts)})@{domain}"


# --- URIs and IRIs (RFC 3986 / 3987) -----------------------------------------------------------

_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    + "".join(f"{chr(plane << 16)}-{chr((plane << 16) + 0xFFFD)}" for plane in range(1, 14))
    + "\U000e1000-\U000efffd"
)
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_UNRESERVED = "A-Za-z0-9\\-._~"
_SUB_DELIMS = "!$&'()*+,;="
_PCT = f"%{_HEX}{{2}}"


def _uri(iri: bool, reference: str) -> str:
    """``reference``: "absolute" (URI / IRI), "reference" (URI- / IRI-reference)."""
    unreserved = _UNRESERVED + (_UCSCHAR if iri else "")

    def chars(extra: str) -> str:
        return f"(?:[{unreserved}{_SUB_DELIMS}{extra}]|{_PCT})"

    pchar = chars(":@")
    segment = f"{pchar}*"
    segment_nz = f"{pchar}+"
    segment_nz_nc = f"{chars('@')}+"
    ip_future = f"[Vv]{_HEX}+\\.[{_UNRESERVED}{_SUB_DELIMS}:]+"
    host = f"(?:\\[(?:{_IPV6}|{ip_future})\\]|{chars('')}*)"
    authority = f"(?:{chars(':')}*@)?{host}(?::[0-9]*)?"
    path_abempty = f"(?:/{segment})*"
    path_absolute = f"/(?:{segment_nz}(?:/{segment})*)?"
    path_rootless = f"{segment_nz}(?:/{segment})*"
    path_noscheme = f"{segment_nz_nc}(?:/{segment})*"
    query_extra = _IPRIVATE if iri else ""
    query = f"(?:\\?(?:{pchar}|[/?{query_extra}])*)?"
    fragment = f"(?:#(?:{pchar}|[/?])*)?"
    scheme = "[A-Za-z][A-Za-z0-9+\\-.]*"
    absolute = f"{scheme}:(?://{authority}{path_abempty}|{path_absolute}|{path_rootless})?{query}{fragment}"
    if reference == "absolute":
        return absolute
    relative = f"(?://{authority}{path_abempty}|{path_absolute}|{path_noscheme})?{query}{fragment}"
    return f"(?:{absolute}|{relative})"


def _uri_template() -> str:
    literal = f"(?:[!#$&-;=?-\\[\\]_a-z~{_UCSCHAR}{_IPRIVATE}]|{_PCT})"
    varchar = f"(?:[A-Za-z0-9_]|{_PCT})"
    varname = f"{varchar}(?:\\.?{varchar})*"
    varspec = f"{varname}(?::[1-9][0-9]{{0,3}}|\\*)?"
    expression = f"\\{{[+#./;?&]?{varspec}(?:,{varspec})*\\}}"
    return f"(?:{literal}|{expression})*"


_JSON_POINTER = "(?:/(?:[^~/]|~[01])*)*"

# --- what Pydantic's own types read ------------------------------------------------------------

_CLOCK = f"{_HOUR}:{_MINUTE}:{_MINUTE}(?:\\.[0-9]{{1,6}})?"


def _iso8601_duration() -> str:
    """A signed duration with fractional seconds, small enough for a ``timedelta``
    (999999 years of 365 days + 999 days + 99 hours, ... < 999999999 days)."""
    seconds = "[0-9]{1,2}(?:\\.[0-9]{1,6})?S"
    minutes = f"[0-9]{{1,2}}M(?:{seconds})?"
    hours = f"[0-9]{{1,2}}H(?:{minutes}|{seconds})?"
    time = f"T(?:{hours}|{minutes}|{seconds})"
    days = "[0-9]{1,3}D"
    years = f"[0-9]{{1,6}}Y(?:{days})?"
    return f"-?P(?:(?:{years}|{days})(?:{time})?|{time})"


#: Top-level names email-validator refuses (special-use domains).
_SPECIAL_USE_NAMES = ("arpa", "invalid", "local", "localhost", "onion", "test")
_LOWER = "abcdefghijklmnopqrstuvwxyz"


def _letters_except(words: tuple[str, ...], longest: int) -> str:
    """Lower-case words of 1 to ``longest`` letters other than ``words``: after each prefix of
    a word, a letter that leaves every word (then any letters), or the next letter of one."""

    def after(prefix: str) -> str:
        nexts = sorted({w[len(prefix)] for w in words if w.startswith(prefix) and w != prefix})
        rest = longest - len(prefix) - 1
        others = "".join(c for c in _LOWER if c not in nexts)
        options = [f"[{others}][a-z]{{0,{rest}}}"] + [f"{c}{after(prefix + c)}" for c in nexts]
        body = "(?:" + "|".join(options) + ")"
        return f"{body}?" if prefix and prefix not in words else body

    return after("")


def _lower_label(longest: int) -> str:
    return _host_label(longest).replace("A-Za-z0-9", "a-z0-9")


#: Domains fit in what the local part (64) and "@" leave of 254: 189 characters.
_EMAIL_DOMAIN_SHAPES = ((62, 2), (40, 4), (20, 8), (10, 16))


def _email_address() -> str:
    """A dot-atom local part; lower-case labels and a top-level label of letters (at least
    two labels, as email-validator requires), no special-use top-level name."""
    local = _bounded_name(lambda n: f"[{_ATEXT}]{{1,{n}}}", _LOCAL_SHAPES)
    top = _letters_except(_SPECIAL_USE_NAMES, 62)
    domains = "|".join(f"(?:{_lower_label(n)}\\.){{1,{k - 1}}}" for n, k in _EMAIL_DOMAIN_SHAPES)
    return f"(?:{local})@(?:{domains}){top}"


#: Characters a WHATWG URL parser keeps as they are in a path, query or fragment (RFC 3986's
#: unreserved, sub-delims but the apostrophe, ":", "@", "/", "?", "#" and "%").
_URL_TAIL = "[A-Za-z0-9\\-._~!$&()*+,;=:@/?#%]"
_PORT = ("(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]"
         "|6553[0-5])")
#: Host names (253 characters at most, as for hostname) whose last label starts with a letter:
#: a WHATWG parser reads a name ending in a number as an IPv4 address.
_URL_HOST_SHAPES = ((63, 3), (49, 5), (24, 10), (11, 21))
#: HttpUrl's limit, 2083, less the longest scheme, "://", host and port.
_URL_TAIL_LENGTH = 2083 - len("https://") - 253 - len(":65535")


def _url(schemes: tuple[str, ...]) -> str:
    names = "|".join(f"(?:{_host_label(n)}\\.){{0,{k - 1}}}{_host_label(n, '[A-Za-z]')}"
                     for n, k in _URL_HOST_SHAPES)
    host = f"(?:{names}|{_IPV4}|\\[{_IPV6}\\])"
    tail = f"(?:[/?#]{_URL_TAIL}{{0,{_URL_TAIL_LENGTH - 1}}})?"
    return f"(?:{'|'.join(schemes)})://{host}(?::{_PORT})?{tail}"


_REGEXES: dict[str, str] = {
    "date": _DATE,
    "time": _TIME,
    "date-time": _DATE_TIME,
    "duration": _duration(),
    "uuid": f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}",
    "ipv4": _IPV4,
    "ipv6": _IPV6,
    "ipvanyaddress": f"(?:{_IPV4}|{_IPV6})",
    "hostname": _HOSTNAME,
    "idn-hostname": _HOSTNAME,
    "email": _mailbox(non_ascii=False),
    "idn-email": _mailbox(non_ascii=True),
    "uri": _uri(False, "absolute"),
    "uri-reference": _uri(False, "reference"),
    "iri": _uri(True, "absolute"),
    "iri-reference": _uri(True, "reference"),
    "uri-template": _uri_template(),
    "json-pointer": _JSON_POINTER,
    "relative-json-pointer": f"(?:0|[1-9][0-9]*)(?:#|{_JSON_POINTER})",
}
_REGEXES.update({
    "local-date-time": f"{_DATE}[Tt]{_CLOCK}",
    "local-time": _CLOCK,
    "iso8601-duration": _iso8601_duration(),
    "email-address": _email_address(),
    "http-url": _url(("https?",)),
    "url": _url(("https?", "wss?", "ftp")),
})
for _version in range(1, 6):
    _REGEXES[f"uuid{_version}"] = (
        f"{_HEX}{{8}}-{_HEX}{{4}}-{_version}{_HEX}{{3}}-[89ABab]{_HEX}{{3}}-{_HEX}{{12}}"
    )

#: Every format name :func:`format_regex` knows.
FORMAT_NAMES = frozenset(_REGEXES)


def format_regex(name: str) -> str | None:
    """The anchored regex (``^...$``) of the strings in format ``name``; None if unknown."""
    body = _REGEXES.get(name)
    return None if body is None else f"^{body}$"
