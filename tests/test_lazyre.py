"""skilllint.lazyre: a module-level pattern costs nothing until a run uses it."""

import re

from skilllint import lazyre


def test_a_lazy_pattern_is_compiled_on_first_use_and_then_behaves_as_re():
    pattern = lazyre.compile(r"(?P<word>[a-z]+)-(\d+)", re.IGNORECASE)
    assert "_compiled" not in pattern.__dict__
    assert pattern.pattern == r"(?P<word>[a-z]+)-(\d+)"  # known without compiling
    assert "_compiled" not in pattern.__dict__
    real = re.compile(r"(?P<word>[a-z]+)-(\d+)", re.IGNORECASE)
    text = "Alpha-1 beta-22 GAMMA-333"
    assert pattern.search(text).group("word") == real.search(text).group("word")
    assert pattern.findall(text) == real.findall(text)
    assert pattern.sub(r"\2", text) == real.sub(r"\2", text)
    assert pattern.flags == real.flags and pattern.groupindex == real.groupindex
    assert pattern.compiled() is pattern.__dict__["_compiled"]


def test_each_attribute_is_looked_up_once_then_kept_on_the_instance():
    pattern = lazyre.compile(r"x")
    pattern.match("x")
    assert "match" in pattern.__dict__  # later calls skip __getattr__
    assert pattern.match is pattern.__dict__["match"]


def test_dunder_probes_do_not_compile():
    import copy

    pattern = lazyre.compile(r"[")  # invalid: compiling would raise
    copy.copy(pattern)
    assert "_compiled" not in pattern.__dict__
    try:
        pattern.search("x")
    except re.error:
        pass
    else:
        raise AssertionError("an invalid pattern raises re.error when first used")


def test_compile_all_compiles_every_pattern_made_and_leaves_a_bad_one_to_its_use():
    made = [lazyre.compile(r"a+b"), lazyre.compile(r"["), lazyre.compile(rb"c")]
    lazyre.compile_all()
    assert "_compiled" in made[0].__dict__ and "_compiled" in made[2].__dict__
    assert "_compiled" not in made[1].__dict__
    assert made[0].fullmatch("aab")
