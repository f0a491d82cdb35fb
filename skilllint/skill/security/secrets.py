"""Credentials written into a skill's files (SL803), found without printing them.

One compiled pattern finds every candidate in a text in a single scan; a text with none
costs that scan and nothing else. Each candidate is then judged by what it is:

* **provider tokens**, recognised by their documented prefix and shape: AWS access key
  ids (``AKIA``/``ASIA``…, paired with a secret access key written near them), GitHub
  (``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``, whose last six characters are a CRC32 of the
  rest: a made-up token fails it; ``github_pat_``), GitLab (``glpat-``), Slack (``xoxb-``…
  tokens, incoming-webhook URLs), Anthropic (``sk-ant-``), OpenAI (``sk-``, ``sk-proj-``),
  Google API keys (``AIza``), Stripe live keys (``sk_live_``, ``rk_live_``);
* **private key blocks** (``-----BEGIN … PRIVATE KEY-----``) with a body of key material,
  not an ellipsis;
* **connection strings** with a password (``scheme://user:password@host``);
* **random-looking values assigned to secret-like names** (``api_key = "…"``,
  ``GITHUB_TOKEN=…``, ``"client_secret": "…"``).

What authors write when they *show* a credential is not one: the documented examples
(AWS's ``AKIAIOSFODNN7EXAMPLE``), placeholders (``your_api_key_here``, ``<token>``, ``xxxx``,
``${VAR}``, ``{{var}}``, ``sk-...``), references to where the secret really lives
(``os.environ[...]``, ``process.env.X``), code that computes it (``secrets.token_hex(32)``),
patterned fakes (``A1B2C3D4…``, ``1234567890``) and values made of words. The value is
judged, not the prose around it: an author who pastes a real token "as an example" has
still published it.
"""

from __future__ import annotations

import bisect
import math
import zlib
from collections import Counter
from dataclasses import dataclass

from ... import lazyre
from .text_marks import Marks

# The candidates, in scans that each start with characters prose seldom holds (``A``,
# ``-----BEGIN``, ``://``; ``_`` or ``-`` after a provider's prefix; ``:``, ``=`` or ``>`` before a
# value), so each skips ahead in C between them: a pattern that starts with one literal is
# searched for it in a tight loop, one whose alternatives start differently tests a set at
# every character, several times slower on a whole package. What a start needs before it (a
# word boundary, a provider's prefix, a secret-like name) is checked on the few matches. Every
# repetition is bounded: each scan is linear on any input.
KEY_IDS = lazyre.compile(r"A(?:(?:KIA|SIA|BIA|CCA)[A-Z2-7]{16}(?![A-Za-z0-9/+])|Iza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-]))")
KEY_BLOCKS = lazyre.compile(r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")
URL_SECRETS = lazyre.compile(
    r"://(?:hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{1,300}"
    r"|(?P<user>[^\s:/@\"'<>`]{0,64}):(?P<password>[^\s/@\"'<>`]{1,128})@(?P<host>[A-Za-z0-9.\[\]_-]{1,253}))"
)
PREFIXED = (KEY_IDS, KEY_BLOCKS, URL_SECRETS)
PROVIDER_TAILS = lazyre.compile(
    r"[_-](?:(?<=gh[pousr]_)|(?<=github_pat_)|(?<=glpat-)|(?<=xox[abeoprs]-)|(?<=sk-)|(?<=k_live_))[A-Za-z0-9_-]{16,400}"
)
# A value assigned to a name, one scan per operator: a pattern that starts with one literal
# character is searched for that character in a tight C loop, one that starts with a set
# (``[:=>]``) tests the set at every character, several times slower on a whole package.
# ``=>`` (a hash or an object literal) is ``=`` with its ``>``: no scan of its own for ``>``, which
# far more often points (``->``) or quotes (``> ``).
ASSIGNED = tuple(lazyre.compile(operator + r"[ \t]{0,8}[\"'`]?[A-Za-z0-9+=_.~-][A-Za-z0-9+/=_.~-]{15,511}") for operator in (":", "=>?"))
SCANS = (*PREFIXED, PROVIDER_TAILS, *ASSIGNED)

# What a text must hold for PROVIDER_TAILS to match at all (it starts with a set: ``_`` or ``-``):
# a few searches for a literal skip its scan on most texts (most of a package is prose that
# names no provider). Marks that share a first character go in one pattern that starts with it.
_TAIL_MARK = lazyre.compile(r"g(?:h[pousr]_|ithub_pat_|lpat-)")
# sk-, sk_live_, rk_live_ where a word starts (what _prefix_start asks of a candidate): "sk-" ends
# many words ("task-list", "risk-based"), and a text holding one would be scanned for nothing.
_TAIL_K_MARK = lazyre.compile(r"k(?:-(?<=(?<![A-Za-z0-9_-])sk-)|_live_(?<=(?<![A-Za-z0-9_-])[sr]k_live_))")
# The same marks as text_marks.MARKS holds them, asked of marks found in one pass: _TAIL_MARK's
# literals and "xox"; _TAIL_K_MARK's need a word to start before them, asked of the text after.
_TAIL_MARKS = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox")
# What KEY_IDS starts with.
_KEY_ID_STARTS = ("AKIA", "ASIA", "ABIA", "ACCA", "AIza")

# The prefixes a provider candidate ends with, longest first.
_PREFIXES = (
    ("github_pat_", "sk_live_", "rk_live_", "glpat-")
    + tuple(f"xox{letter}-" for letter in "abeoprs")
    + tuple(f"gh{letter}_" for letter in "pousr")
    + ("sk-",)
)

# Each provider's token, matched at the start of a candidate (or of an assigned value).
_PROVIDERS = lazyre.compile(
    r"(?P<aws>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})(?![A-Za-z0-9/+])"
    r"|(?P<github>gh[pousr]_[A-Za-z0-9]{30,251})(?![A-Za-z0-9_-])"
    r"|(?P<github_pat>github_pat_[A-Za-z0-9_]{40,251})(?![A-Za-z0-9_-])"
    r"|(?P<gitlab>glpat-[A-Za-z0-9_-]{20,251})(?![A-Za-z0-9_-])"
    r"|(?P<slack>xox[abeoprs]-[0-9]{6,20}-[A-Za-z0-9-]{8,251})(?![A-Za-z0-9_-])"
    r"|(?P<anthropic>sk-ant-[A-Za-z0-9_-]{32,300})(?![A-Za-z0-9_-])"
    r"|(?P<openai>sk-[A-Za-z0-9_-]{32,300})(?![A-Za-z0-9_-])"
    r"|(?P<google>AIza[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])"
    r"|(?P<stripe>[rs]k_live_[A-Za-z0-9]{20,251})(?![A-Za-z0-9_-])"
)

# Where each provider's token begins its random part.
_PREFIX = {
    "aws": 4, "github": 4, "github_pat": 11, "gitlab": 6, "anthropic": 7, "google": 4, "stripe": 8,
}  # fmt: skip

KINDS = {
    "aws": "an AWS access key id",
    "github": "a GitHub token",
    "github_pat": "a GitHub fine-grained personal access token",
    "gitlab": "a GitLab personal access token",
    "slack": "a Slack token",
    "webhook": "a Slack webhook URL",
    "anthropic": "an Anthropic API key",
    "openai": "an OpenAI API key",
    "google": "a Google API key",
    "stripe": "a Stripe live secret key",
    "pem": "a private key",
    "url": "a password in a connection string",
    "named": "a secret value",
}

# An AWS secret access key: 40 characters of base64, near the key id it pairs with.
_AWS_SECRET = lazyre.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
AWS_PAIR_LINES = 3  # lines either side of a key id where its secret is looked for

# Words that mark a value as a stand-in, in any letter case.
PLACEHOLDER_WORDS = (
    "example", "sample", "dummy", "fake", "placeholder", "your", "redacted", "changeme", "change_me",
    "replace", "insert", "xxxx", "test", "demo", "todo", "secret", "passw", "token", "here", "mock",
    "1234", "abcd", "0000", "...", "\u2026", "***", "<", ">", "{", "}", "$", "%s", "%(",
)  # fmt: skip

# Passwords that come with a tool's default setup, or that only say "a password goes here".
DEFAULT_PASSWORDS = frozenset(
    """
    pass pw pwd passwd password secret admin root guest user test demo dev local default
    postgres mysql redis rabbitmq minio minioadmin neo4j sa changeme letmein
    """.split()
)

# Hosts where a connection string names the author's own machine or no machine at all.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "[::1]", "host", "hostname", "db", "example.com", "example.org", "example.net")

# A ``key`` holds a secret only as one of these (``api_key``, ``AWS_SECRET_ACCESS_KEY``).
KEY_QUALIFIERS = frozenset({"api", "access", "private", "secret", "auth", "signing", "encryption", "master", "client", "license"})

# Words before it that make the name something else: a nonce or a cursor the protocol hands
# out (``plainToken``, ``nextPageToken``, ``csrf_token``), a key meant to be public.
NOT_SECRET_NAME_WORDS = frozenset(
    """
    public publishable anon plain encrypted hashed hash page next continuation cursor challenge
    csrf xsrf cancellation cancel sync resume
    """.split()
)

# The last word of a name that holds a secret (``api_key``, ``githubToken``, ``DB_PASSWORD``).
SECRET_NAME_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "credential", "credentials"})

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_WORD = lazyre.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_IDENTIFIER_PATH = lazyre.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+")

MAX_CANDIDATES = 2_000  # candidates judged per scan of a text: a hostile file of them costs a bounded time
PEM_REACH = 64 * 1024  # characters after a BEGIN line where its END line is looked for


@dataclass(frozen=True, eq=False)
class Secret:
    """One credential found in a text: where it is (1-based, end column exclusive), what kind,
    and how it may be shown. ``value`` is the secret itself: never put it in a message."""

    kind: str  # a key of KINDS
    line: int
    column: int
    end_column: int
    value: str
    paired_line: int | None = None  # an AWS key id's secret access key, found on this line

    @property
    def what(self) -> str:
        return KINDS[self.kind]

    @property
    def masked(self) -> str:
        """The secret as a message may show it: its first four characters and its length; a
        password or a key block only by its length."""
        if self.kind == "url":
            return f"{len(self.value)} characters"
        if self.kind == "pem":
            return f"{self.value.count(chr(10)) + 1} lines"
        return f"`{self.value[:4]}…`, {len(self.value)} characters"


def find_secrets(text: str, marks: Marks | None = None) -> list[Secret]:
    """Every credential in ``text`` (LF line ends), in order, each value once (``marks``: what
    :mod:`skilllint.skill.security.text_marks` found in it, when the caller has it)."""
    matches = []
    for scan in _scans_for(text, marks if marks is not None else Marks(text)):
        assigned = scan in ASSIGNED
        for number, match in enumerate(scan.finditer(text)):
            if number >= MAX_CANDIDATES:
                break
            if assigned and not _may_name_a_secret(text, match):
                continue  # most values assigned in code and YAML: judged here, not one by one below
            matches.append(match)
    if not matches:
        return []
    matches.sort(key=lambda m: m.start())
    found: list[Secret] = []
    seen: set[str] = set()
    lines = _LineIndex(text)
    taken = -1  # where the last credential found ends: a candidate inside it is part of it
    for match in matches:
        if match.start() < taken:
            continue
        judged = _judge(text, match, lines)
        if judged is None:
            continue
        kind, start, end, value = judged
        if start < taken:
            continue
        taken = end
        if value in seen:
            continue
        seen.add(value)
        line, column = lines.position(start)
        end_column = column + (end - start)
        paired = _aws_secret(text, lines, line) if kind == "aws" else None
        if paired is not None:  # one finding for the pair: the secret is named in the key id's
            seen.add(paired[1])
            found = [secret for secret in found if secret.value != paired[1]]
        found.append(Secret(kind, line, column, end_column, value, paired[0] if paired else None))
    return found


def _scans_for(text: str, marks: Marks) -> list:
    """The scans that can match in ``text``: KEY_IDS needs one of its four-letter starts,
    KEY_BLOCKS ``-----BEGIN``, URL_SECRETS ``://``, PROVIDER_TAILS one of the prefixes it looks
    behind for, the ``=`` scan of ASSIGNED an ``=`` (the ``:`` scan is its own test). When ``marks``
    were found in one pass, each is asked of them; else KEY_IDS is its own test too (five searches
    for its starts cost more than its one scan), and the provider prefixes are searched for as
    patterns that start with one character each."""
    if marks.known:
        scans = [KEY_IDS] if any(start in marks for start in _KEY_ID_STARTS) else []
        tails = any(mark in marks for mark in _TAIL_MARKS) or (
            ("sk-" in marks or "k_live_" in marks) and _TAIL_K_MARK.search(text) is not None
        )
    else:
        scans = [KEY_IDS]
        tails = _TAIL_MARK.search(text) is not None or _TAIL_K_MARK.search(text) is not None or "xox" in marks
    if "-----BEGIN" in marks:
        scans.append(KEY_BLOCKS)
    if "://" in marks:
        scans.append(URL_SECRETS)
    if tails:
        scans.append(PROVIDER_TAILS)
    scans.append(ASSIGNED[0])
    if "=" in text:  # a quarter of a package's text is prose with none: found at once where there is one
        scans.append(ASSIGNED[1])
    return scans


def _judge(text: str, match, lines: "_LineIndex") -> tuple[str, int, int, str] | None:
    """(kind, start, end, value) of a candidate that is a credential, else None."""
    scan = match.re
    found = match.group()
    if scan is PROVIDER_TAILS.compiled():
        start = _prefix_start(text, match.start())
        return None if start is None else _provider(text[start : match.end()], start)
    if scan is KEY_IDS.compiled():
        if match.start() and (text[match.start() - 1].isalnum() or text[match.start() - 1] in "/+_-"):
            return None  # inside a longer string
        return _provider(found, match.start())
    if scan is KEY_BLOCKS.compiled():
        body = _pem_body(text, match.end())
        return None if body is None else ("pem", match.start(), match.end(), found + body)
    if scan is not URL_SECRETS.compiled():
        return _named(text, match)  # one of ASSIGNED
    if match.group("host") is not None:
        return _url_password(text, match)
    value = found[3:]  # a Slack webhook
    parts = value.split("/")
    secret = parts[-1] if len(parts) >= 4 else ""
    if len(secret) >= 16 and _looks_random(secret) and not _is_stand_in(value[len("hooks.slack.com/") :]):
        return "webhook", match.start() + 3, match.end(), value
    return None


def _provider(token: str, start: int) -> tuple[str, int, int, str] | None:
    provider = _PROVIDERS.match(token)
    if provider is None:
        return None
    kind = provider.lastgroup
    value = provider.group(kind)
    if kind == "anthropic" or (kind == "openai" and value.startswith("sk-ant-")):
        kind, body = "anthropic", value[7:]
    elif kind == "openai":
        body = value[3:]
        for project in ("proj-", "svcacct-", "admin-"):
            if body.startswith(project):
                body = body[len(project) :]
                break
    elif kind == "slack":
        body = value.rsplit("-", 1)[-1]
    else:
        body = value[_PREFIX[kind] :]
    if _is_stand_in(body):
        return None
    if kind == "aws":
        if _patterned(body):
            return None
    elif kind == "github" and len(body) == 36:
        if not _github_checksum_holds(body):
            return None  # a made-up token: every real one carries its checksum
    elif not _looks_random(body):
        return None
    return kind, start, start + len(value), value


def _github_checksum_holds(body: str) -> bool:
    """GitHub's tokens end in six base62 digits of the CRC32 of the 30 characters before them."""
    number = 0
    for char in body[30:]:
        number = number * 62 + _BASE62.index(char)
    return number == zlib.crc32(body[:30].encode("ascii"))


def _pem_body(text: str, after: int) -> str | None:
    """The key material after a BEGIN line, when it is there (not ``...`` or a placeholder)."""
    reach = text[after : after + PEM_REACH]
    end = reach.find("-----END")
    body = reach[:end] if end >= 0 else reach.split("\n\n", 1)[0]
    # A key in a JSON or code string: its line breaks are written ``\n``, its lines may be quoted.
    material = body.replace("\\n", "\n").replace("\\r", "")
    kept = []
    for line in material.split("\n"):
        line = line.strip().strip("\"',+").strip()
        if not line or ":" in line:  # a blank line, or a header (Proc-Type:, DEK-Info:)
            continue
        kept.append(line)
    joined = "".join(kept)
    if len(joined) < 64 or not set(joined) <= _BASE64 or _is_stand_in(joined) or _patterned(joined):
        return None
    return body


def _url_password(text: str, match) -> tuple[str, int, int, str] | None:
    start = match.start()
    scheme_start = start
    while scheme_start > 0 and scheme_start > start - 32 and (text[scheme_start - 1].isalnum() or text[scheme_start - 1] in "+.-"):
        scheme_start -= 1
    if scheme_start == start or not text[scheme_start].isalpha():
        return None
    user, password, host = match.group("user"), match.group("password"), match.group("host").lower()
    lowered = password.lower()
    if (
        len(password) < 4
        or lowered in DEFAULT_PASSWORDS
        or _default_with_a_word(lowered)
        or lowered == user.lower()
        or _is_stand_in(password)
        or _patterned(password)
        or password.startswith(("$", "%", ":"))
        or host in LOCAL_HOSTS
        or host.endswith((".example.com", ".example.org", ".example.net", ".example", ".invalid", ".local"))
    ):
        return None
    return "url", match.start("password"), match.end("password"), password


def _prefix_start(text: str, separator: int) -> int | None:
    """Where the provider prefix ending at ``separator`` (its ``_`` or ``-``) starts, when a word
    starts there too (``sk-`` in ``task-budgets`` is not one)."""
    for prefix in _PREFIXES:
        start = separator + 1 - len(prefix)
        if start >= 0 and text.startswith(prefix, start):
            if start and (text[start - 1].isalnum() or text[start - 1] in "_-"):
                return None
            return start
    return None


def _named(text: str, match) -> tuple[str, int, int, str] | None:
    operator = match.start()
    candidate = match.group()
    body = candidate[2:] if candidate.startswith("=>") else candidate[1:]
    body = body.lstrip(" \t")
    quote = body[0] if body[0] in "\"'`" else ""
    value = body[len(quote) :]
    end = match.end()
    value_start = end - len(value)
    after = text[end : end + 1]
    if quote and after != quote:
        return None  # the string goes on past what a secret is made of: prose, a template, code
    if not quote and after and after in "([{$<%@:":
        return None  # a call, an index, a template, a URL
    if _PROVIDERS.match(value):
        return _provider(value, value_start)  # a provider's token: judged as such
    if operator and text[operator - 1] in ":=":
        operator -= 1  # ``:=``, ``==``
    name = _name_before(text, operator)
    words = [w.lower() for w in _WORD.findall(name)]
    if not words or words[-1] not in SECRET_NAME_WORDS or not NOT_SECRET_NAME_WORDS.isdisjoint(words):
        return None
    if words[-1] == "key" and (len(words) < 2 or words[-2] not in KEY_QUALIFIERS):
        return None  # a cache key, a sort key, a dictionary key
    if _is_stand_in(value) or "://" in value or _IDENTIFIER_PATH.fullmatch(value) or not _looks_random(value):
        return None
    if words[-1] == "token" and KEY_QUALIFIERS.isdisjoint(words) and _addresses_a_file(text, operator - len(name)):
        return None  # the download token of a shared file, part of the link that shows it
    return "named", value_start, end, value


# A link's address ends at a blank, a quote, an angle bracket or a backtick.
_NOT_IN_ADDRESS = frozenset(" \t\n\r\"'<>`")
# An extension that names a program the server runs (``index.php``): its URL addresses that program, not a file.
_SERVER_PROGRAMS = frozenset({"php", "asp", "aspx", "jsp", "cgi", "pl", "do", "action"})


def _addresses_a_file(text: str, name_start: int) -> bool:
    """Whether the name at ``name_start`` is a query parameter of a URL whose path names one file
    (``https://host/o/uploads%2Fchart.png?alt=media&token=…``): the token is the file's download
    capability, which the storage service (Firebase, GitBook) puts in the link it hands out for the
    file to be shown; it opens that one file and no account, and a page that embeds the file
    publishes it by design. A key in the query of an API call (``/v1/data?api_key=…``) is not one."""
    if name_start <= 0 or text[name_start - 1] not in "?&;":
        return False  # ``?``, ``&``, the ``;`` of ``&amp;`` or ``&#x26;``
    window = text[max(0, name_start - 2048) : name_start]
    scheme_end = window.rfind("://")
    if scheme_end <= 0 or any(char in _NOT_IN_ADDRESS for char in window[scheme_end:]) or not window[scheme_end - 1].isalpha():
        return False
    address = window[scheme_end + 3 :]
    query = address.find("?")
    path_start = address.find("/")
    if query < 0 or path_start < 0 or path_start > query:
        return False
    file_name = address[path_start:query].replace("%2F", "/").replace("%2f", "/").rsplit("/", 1)[-1]
    stem, dot, extension = file_name.rpartition(".")
    return bool(stem and dot and 0 < len(extension) <= 5 and extension.isalnum()) and extension.lower() not in _SERVER_PROGRAMS


# What a value assigned to an ordinary name can still be: a provider's token (judged as such).
_PROVIDER_STARTS = ("AKIA", "ASIA", "ABIA", "ACCA", "AIza", "gh", "github_pat_", "glpat-", "xox", "sk-", "sk_live_", "rk_live_")
_SECRET_NAME_ENDINGS = tuple(SECRET_NAME_WORDS)


def _may_name_a_secret(text: str, match) -> bool:
    """A cheap test that lets through every assignment :func:`_named` can accept: the text before
    the operator (past spaces, a closing quote or bracket, and ``_``, ``-``, ``.``) ends with a
    secret-like word in any case, or the value starts like a provider's token."""
    operator = match.start()
    head = text[operator - 120 if operator > 120 else 0 : operator].rstrip(" \t:=").rstrip("\"'`]").rstrip("_-.")
    if head[-11:].lower().endswith(_SECRET_NAME_ENDINGS):
        return True
    return match.group()[1:].lstrip(">").lstrip(" \t\"'`").startswith(_PROVIDER_STARTS)


def _name_before(text: str, operator: int) -> str:
    """The name assigned to (``GITHUB_TOKEN`` in ``GITHUB_TOKEN=…``, ``apiKey`` in ``"apiKey": …``)."""
    right = operator
    while right > 0 and operator - right < 8 and text[right - 1] in " \t":
        right -= 1
    if right > 0 and text[right - 1] in "\"'`]":
        right -= 1
    left = right
    while left > 0 and right - left < 80 and text[left - 1] in _NAME_CHARS:
        left -= 1
    return text[left:right].rsplit(".", 1)[-1]


def _aws_secret(text: str, lines: "_LineIndex", line: int) -> tuple[int, str] | None:
    """(line, value) of the secret access key written near an AWS key id, if one is."""
    first = max(1, line - AWS_PAIR_LINES)
    last = min(len(lines.starts), line + AWS_PAIR_LINES)
    start = lines.starts[first - 1]
    stop = lines.starts[last] if last < len(lines.starts) else len(text)
    for candidate in _AWS_SECRET.finditer(text, start, stop):
        value = candidate.group()
        if _looks_random(value) and not _is_stand_in(value):
            return lines.position(candidate.start())[0], value
    return None


# -- what a stand-in looks like ------------------------------------------------------------


def _is_stand_in(value: str) -> bool:
    """A placeholder word, template syntax or an ellipsis in the value."""
    lowered = value.lower()
    return any(word in lowered for word in PLACEHOLDER_WORDS)


def _patterned(value: str) -> bool:
    """A fake written by hand: few distinct characters, or a run such as ``A1B2C3`` / ``abcdef``."""
    size = len(value)
    if size < 8:
        return len(set(value)) < 3
    if len(set(value)) < min(size // 3, 8):
        return True
    for stride in (1, 2):
        steps = Counter(ord(value[i + stride]) - ord(value[i]) for i in range(size - stride))
        if steps.most_common(1)[0][1] * 2 >= size - stride:
            return True
    return False


def _default_with_a_word(password: str) -> bool:
    """A stand-in written as a default password with a word to it (``newpass``, ``mypassword``,
    ``secret123``): letters (and digits after them) only, around one of the default passwords of
    four letters or more. A password someone chose to keep is not written so in a public text."""
    letters = password.rstrip("0123456789")
    if not letters.isalpha() or not letters.islower():
        return False
    return any(len(word) >= 4 and word in letters for word in DEFAULT_PASSWORDS)


def _looks_random(value: str) -> bool:
    """Whether a value is machine-made: long enough, letters with digits (or both letter cases
    when long), high in entropy, not made of words, not patterned."""
    core = "".join(ch for ch in value if ch.isalnum())
    if len(core) < 16:
        return False
    has_digit = any(ch.isdigit() for ch in core)
    has_lower = any(ch.islower() for ch in core)
    has_upper = any(ch.isupper() for ch in core)
    if not ((has_digit and (has_lower or has_upper)) or (has_lower and has_upper and len(core) >= 32)):
        return False
    if _entropy(core) < 3.0 or _patterned(core):
        return False
    letters = sum(ch.isalpha() for ch in core)
    words = [w for w in _WORD.findall(core) if not w.isdigit()]
    return not words or letters / len(words) < 3.2  # words of an identifier are longer than chance runs


def _entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


class _LineIndex:
    """Line starts of a text, found once a candidate needs a position."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            starts = [0]
            position = self.text.find("\n")
            while position >= 0:
                starts.append(position + 1)
                position = self.text.find("\n", position + 1)
            self._starts = starts
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1
