"""Every text file of a skill package, read once: what content scans (SL803) search.

A package ships more than the files its rules otherwise read: configuration, templates,
``.env`` files, data. This module gives each regular file of the package as text, with
three limits that keep a hostile package from costing more than its cap:

* a file over the read cap (SL011's ``max-bytes``) is not read at all;
* a file whose suffix names a binary format (images, archives, fonts, compiled code)
  is not opened, and one with a NUL byte in its first 8 KiB is dropped as binary;
* at most :data:`MAX_FILES` files per package are read.

Texts another scan already read are taken from it rather than read again: SKILL.md
(:attr:`SkillPackage.source`), the documents of the reference graph, the scripts that
SL701-SL703 read. Files in nested skills (their own packages) and in vendored
environments (``site-packages``, ``venv``, ``node_modules``) are left out.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ..fsafe import UnsafeFile, read_capped
from .script_lexers import SKIPPED_FOLDERS

if TYPE_CHECKING:
    from .package import SkillPackage

MAX_FILES = 2_000  # text files read per package

SNIFF_BYTES = 8192  # a NUL byte in these first bytes makes a file binary

# Suffixes of formats that are not text: never opened.
BINARY_SUFFIXES = frozenset(
    """
    png jpg jpeg gif webp bmp ico icns tif tiff psd heic avif
    pdf zip gz tgz bz2 xz zst 7z rar tar jar war ear whl egg apk ipa dmg iso
    pyc pyo so dylib dll exe bin class o a lib obj wasm
    woff woff2 ttf otf eot
    mp3 mp4 m4a wav ogg oga flac aac mov avi mkv webm
    docx xlsx pptx odt ods odp doc xls ppt
    sqlite sqlite3 db parquet feather arrow npy npz pkl pickle h5 hdf5 onnx pt pth safetensors ckpt
    """.split()
)


def package_texts(package: SkillPackage, memo: dict | None = None) -> dict[str, str]:
    """``{package-relative path: text}`` of every text file of the package (kept in ``memo``, the
    rules' per-package scratch, when given).

    Texts have LF line ends (CRLF and lone CR turned into LF) and no byte-order mark, so line
    ``n`` of the text is line ``n`` of the file as every other rule counts lines."""
    memo = memo if memo is not None else {}
    cached = memo.get("text_files.all")
    if cached is not None:
        return cached
    found: dict[str, str] = {}
    known = _texts_read_already(package, memo)
    inventory = package.inventory
    cap = package.max_bytes
    skill_md = _skill_md_text(package)
    if skill_md is not None:
        found[package.skill_md_name] = skill_md
    for rel, entry in sorted(inventory.entries.items()):
        if rel in found or entry.kind != "file" or rel == "." or entry.size == 0 or entry.size > cap:
            continue
        parts = rel.split("/")
        if any(part in SKIPPED_FOLDERS for part in parts[:-1]) or inventory.in_nested_skill(rel):
            continue
        if posixpath.splitext(parts[-1])[1][1:].lower() in BINARY_SUFFIXES:
            continue
        text = known.get(rel)
        if text is None:
            text = _read(package, rel, cap)
            if text is None:
                continue
        found[rel] = text
        if len(found) >= MAX_FILES:
            break
    memo["text_files.all"] = found
    return found


def _texts_read_already(package: SkillPackage, memo: dict) -> dict[str, str]:
    """The texts other scans of this run read (whole files only), by package-relative path."""
    known: dict[str, str] = {}
    scripts = memo.get("scripts.all")
    for script in scripts or ():
        known[script.rel] = _normalised(script.text)
    graph = package.__dict__.get("references")  # built by an earlier rule: its documents are read
    if graph is not None:
        for rel, text in graph.texts.items():
            if rel != package.skill_md_name:  # SKILL.md's entry there is its body only
                known.setdefault(rel, _normalised(text))
    return known


def _skill_md_text(package: SkillPackage) -> str | None:
    """SKILL.md as the package read it (through a link inside the tree too), or None."""
    if package.skill_md_name is None or not package.readable or package.truncated or b"\x00" in package.raw[:SNIFF_BYTES]:
        return None
    return _normalised(package.source.text)


def _read(package: SkillPackage, rel: str, cap: int) -> str | None:
    try:
        data = read_capped(package.root / rel, cap, whole=True).data
    except (UnsafeFile, OSError):
        return None
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    return _normalised(data.decode("utf-8", errors="replace"))


def _normalised(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
