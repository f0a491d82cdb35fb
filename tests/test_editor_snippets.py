"""The editor snippets of docs/integrations.md: each says the oldest editor version it runs on, and each
Neovim snippet really starts `skilllint server` and shows its findings, in the Neovim this
machine has (headless), when that Neovim is at least the version the snippet asks for."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

INTEGRATIONS = ROOT / "docs" / "integrations.md"
NVIM = shutil.which("nvim")

# What the test runs after the snippet: wait for the server's findings on the SKILL.md given on
# the command line, open a second file of the same repository, and report what Neovim holds.
PROBE = r"""
local function skilllint_clients()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local found = {}
  for _, client in pairs(get()) do
    if client.name == 'skilllint' then table.insert(found, client) end
  end
  return found
end
local first = vim.api.nvim_get_current_buf()
vim.wait(60000, function() return #vim.diagnostic.get(first) > 0 end, 100)
local codes = {}
for _, d in ipairs(vim.diagnostic.get(first)) do table.insert(codes, string.format('%d:%s', d.lnum + 1, tostring(d.code))) end
vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('SKILLLINT_SECOND_FILE')))
local second = vim.api.nvim_get_current_buf()
local attached = vim.wait(30000, function()
  for _, client in ipairs(skilllint_clients()) do
    if vim.lsp.buf_is_attached(second, client.id) then return true end
  end
  return false
end, 100)
local roots = {}
for _, client in ipairs(skilllint_clients()) do table.insert(roots, client.config.root_dir) end
vim.fn.writefile({vim.fn.json_encode({codes = codes, second_attached = attached, roots = roots})}, os.getenv('SKILLLINT_PROBE_OUT'))
vim.cmd('qa!')
"""


def _section() -> str:
    text = INTEGRATIONS.read_text(encoding="utf-8")
    return text.split("\n## Editors\n", 1)[1].split("\n## ", 1)[0]


def _snippets() -> list[tuple[str, tuple[int, ...] | None, str]]:
    """(language, the oldest version the text before it names, code) of each snippet."""
    found = []
    section = _section()
    for match in re.finditer(r"```(\w+)\n(.*?)```", section, re.DOTALL):
        before = section[: match.start()].rsplit("```", 1)[-1]  # the text since the previous snippet
        stated = re.findall(r"\b(\d+\.\d+) or newer\b", before)
        version = tuple(int(part) for part in stated[-1].split(".")) if stated else None
        found.append((match.group(1), version, match.group(2)))
    return found


def _nvim_version() -> tuple[int, ...]:
    out = subprocess.run([NVIM, "--version"], capture_output=True, text=True, timeout=120, check=True).stdout
    return tuple(int(part) for part in re.match(r"NVIM v(\d+)\.(\d+)", out).groups())


def test_every_editor_snippet_says_which_version_it_needs():
    snippets = _snippets()
    assert [language for language, _, _ in snippets] == ["json", "lua", "lua", "lua", "toml"]
    assert all(version is not None for _, version, _ in snippets), [(lang, v) for lang, v, _ in snippets]
    neovim = [version for language, version, _ in snippets if language == "lua"]
    assert neovim == sorted(neovim, reverse=True) and neovim[-1] <= (0, 7)  # down to Debian 12's 0.7.2


@pytest.mark.e2e
@pytest.mark.skipif(NVIM is None, reason="no nvim on this machine (Debian: apt-get install neovim)")
@pytest.mark.parametrize("index", range(3))
def test_the_neovim_snippet_shows_skilllint_findings(tmp_path, index):
    version, snippet = [(v, code) for language, v, code in _snippets() if language == "lua"][index]
    if _nvim_version() < version:
        pytest.skip(f"this snippet needs Neovim {'.'.join(map(str, version))}; this machine has {'.'.join(map(str, _nvim_version()))}")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=120)
    skill = repo / "skills" / "bad"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: Bad_Name\ndescription: Drafts notes. Use when asked. See [the guide](references/guide.md).\n---\n# Bad\n",
        encoding="utf-8",
    )
    (skill / "references" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    init = tmp_path / "init.lua"
    init.write_text(snippet, encoding="utf-8")
    probe = tmp_path / "probe.lua"
    probe.write_text(PROBE, encoding="utf-8")
    out = tmp_path / "probe.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "XDG_"))}
    env.update(
        PATH=os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""),  # the snippets run `skilllint`
        XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
        SKILLLINT_SECOND_FILE=str(skill / "references" / "guide.md"), SKILLLINT_PROBE_OUT=str(out),
    )
    proc = subprocess.run(
        [NVIM, "--headless", "-i", "NONE", "-u", str(init), "bad/SKILL.md", "-c", f"luafile {probe}"],
        cwd=repo / "skills", env=env, capture_output=True, text=True, timeout=240,
    )
    assert out.exists(), proc.stdout + proc.stderr
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert "2:SL104" in seen["codes"], seen  # the uppercase name, on line 2
    assert seen["second_attached"] and seen["roots"] == [str(repo)], seen  # one server for the repository
