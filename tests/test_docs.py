"""The README and docs/: every command block that shows output is the command's real output (no drift).

A ```console block is checked: each `$ toolaudit ...` line (continued with `\\`) is run from the
repository root and its output compared with the lines under it, after scrubbing what changes
from run to run (timestamps, versions) and trailing spaces. A line `…` stands for any number of
lines; a last line `exit N` is the expected exit code (else 0). A block that cannot be checked
(it reads a user's home folder) says so in its title, `console title="not checked: …"`, and such
blocks stay few. Commands on ../shared/corpus run where that corpus is present.
`TOOLAUDIT_REGEN_DOCS=1` writes the real output into a drifted block (one command, no `…`), on purpose.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from conftest import CORPUS, ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_LIMIT = 12_000  # "≤ 12 KB": the stricter, decimal reading
MAX_UNCHECKED = 4
FENCE = re.compile(r"^(```+|~~~+)\s*([\w-]*)(.*)$")
SCRUB = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"), "<time>"),
    (re.compile(r"(toolaudit,? (?:version )?|genai-prices |\"version\": \")\d+\.\d+\.\d+\w*"), r"\1<version>"),
]


@dataclass(frozen=True)
class Block:
    """One fenced block of a Markdown file."""

    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    attrs: str
    lines: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


@dataclass(frozen=True)
class Example:
    """A command of a console block and the output shown under it."""

    block: Block
    argv: tuple[str, ...]
    expected: tuple[str, ...]


def pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file."""
    out, opened, body = [], None, []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(text.strip())
        if opened is None and match:
            opened, body = (number, match.group(1), match.group(2), match.group(3).strip()), []
        elif opened is not None and text.strip() == opened[1]:
            out.append(Block(path, opened[0], opened[2], opened[3], tuple(body)))
            opened = None
        elif opened is not None:
            body.append(text)
    return out


def unchecked(block: Block) -> bool:
    return 'title="not checked' in block.attrs


def examples(block: Block) -> list[Example]:
    """Each `$ ...` command of a console block (continuation lines joined) with the lines under it."""
    found: list[tuple[str, list[str]]] = []
    lines = list(block.lines)
    while lines:
        text = lines.pop(0)
        if text.startswith("$ "):
            command = text[2:]
            while command.endswith("\\") and lines:
                command = command[:-1] + " " + lines.pop(0).strip()
            found.append((command, []))
        elif found:
            found[-1][1].append(text)
    out = []
    for command, output in found:
        argv = tuple(shlex.split(command, comments=True))
        if argv[:1] == ("toolaudit",):
            out.append(Example(block, argv[1:], tuple(output)))
        else:  # `make replay-demo` beside the command it runs: shown, not run, so it must show no output
            assert not any(o.strip() for o in output), f"{block.where}: only toolaudit commands are checked: {command}"
    return out


ALL_BLOCKS = [b for page in pages() for b in blocks(page)]
CHECKED = [e for b in ALL_BLOCKS if b.lang == "console" and not unchecked(b) for e in examples(b)]


def scrub(text: str) -> str:
    for pattern, repl in SCRUB:
        text = pattern.sub(repl, text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def matches(expected: list[str], actual: list[str]) -> bool:
    """`expected` equals `actual`, a line `…` standing for any run of lines."""
    if "…" not in expected:
        return expected == actual
    parts, gaps = [], [[]]
    for line in expected:
        if line == "…":
            gaps.append([])
        else:
            gaps[-1].append(line)
    parts = gaps
    if actual[:len(parts[0])] != parts[0]:
        return False
    pos = len(parts[0])
    for part in parts[1:-1]:
        found = next((i for i in range(pos, len(actual) - len(part) + 1) if actual[i:i + len(part)] == part), None)
        if found is None:
            return False
        pos = found + len(part)
    last = parts[-1]
    return len(actual) - pos >= len(last) and (not last or actual[len(actual) - len(last):] == last)


@pytest.mark.parametrize("example", CHECKED, ids=[f"{e.block.where}:{' '.join(e.argv)[:40]}" for e in CHECKED])
def test_console_block_is_the_real_output(example, monkeypatch):
    from toolaudit.cli import cli

    if any(str(a).startswith("../shared/corpus") for a in example.argv) and not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS}")
    monkeypatch.chdir(ROOT)
    expected = list(example.expected)
    code = 0
    if expected and re.fullmatch(r"exit \d+", expected[-1].strip()):
        code = int(expected.pop().split()[1])
    result = CliRunner().invoke(cli, list(example.argv), catch_exceptions=False, env={"NO_COLOR": "1"})
    actual = scrub(result.output).splitlines()
    wanted = scrub("\n".join(expected)).splitlines()
    if os.environ.get("TOOLAUDIT_REGEN_DOCS") and not matches(wanted, actual):
        regenerate(example, result.output, result.exit_code)
    assert result.exit_code == code, f"{example.block.where}: exit {result.exit_code}\n{result.output}"
    assert matches(wanted, actual), (
        f"{example.block.where}: `toolaudit {' '.join(example.argv)}` prints something else now; "
        f"paste its real output into the block:\n" + "\n".join(actual))


def regenerate(example: Example, output: str, code: int) -> None:
    """TOOLAUDIT_REGEN_DOCS=1: write the real output into a block that holds one command and no `…`, on purpose."""
    block = example.block
    if "…" in example.expected or len(examples(block)) != 1:
        return
    body = list(block.lines)
    head = body[:len(body) - len(example.expected)]  # the command and its continuation lines
    new = head + [line.rstrip() for line in output.rstrip("\n").split("\n")] + ([f"exit {code}"] if code else [])
    text = block.path.read_text(encoding="utf-8")
    old = "\n".join(body) + "\n```"  # found by its text: an earlier rewrite may have moved its lines
    assert text.count(old) == 1, f"{block.where}: cannot find the block to rewrite"
    block.path.write_text(text.replace(old, "\n".join(new) + "\n```"), encoding="utf-8")


def test_matches_handles_elisions():
    lines = ["a", "b", "c", "d"]
    assert matches(["a", "…", "d"], lines) and matches(["…", "c", "d"], lines) and matches(["a", "b", "…"], lines)
    assert matches(lines, lines) and not matches(["a", "…", "b", "x"], lines) and not matches(["b", "…"], lines)
    assert not matches(["a", "b", "c"], lines) and not matches(["a", "…", "c", "b"], lines)


def test_every_output_block_is_checked_and_few_are_not():
    # a `$ toolaudit` line outside a console block would show output no test reads
    stray = [b.where for b in ALL_BLOCKS if b.lang != "console" and any(l.startswith("$ toolaudit") for l in b.lines)]
    assert not stray, f"command output outside ```console blocks (unchecked): {stray}"
    skipped = [b.where for b in ALL_BLOCKS if b.lang == "console" and unchecked(b)]
    assert len(skipped) <= MAX_UNCHECKED, f"too many unchecked console blocks: {skipped}"
    assert len(CHECKED) >= 10  # the README and the docs show real output of every command
    assert {e.argv[0] for e in CHECKED} >= {"scan", "simulate", "ci", "compare", "replay", "calibrate", "list"}


def test_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= README_LIMIT, f"README.md is {len(text.encode())} bytes (limit {README_LIMIT})"
    assert "make demo" in text and "make test" in text
    assert "pip install agent-toolaudit" not in text  # not on PyPI: never a command that fails today
    readme_examples = [e for e in CHECKED if e.block.path == README]
    assert {e.argv[0] for e in readme_examples} >= {"scan", "simulate", "ci", "compare", "replay"}
    for e in readme_examples:  # one screen each
        assert len(e.expected) <= 12, f"{e.block.where}: {len(e.expected)} rows (at most 12 on the front page)"


def test_readme_links_resolve():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert local, "the README links into docs/"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_every_page_is_in_the_nav():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def entries(nav) -> list[str]:
        out = []
        for item in nav:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            out += entries(value) if isinstance(value, list) else [value]
        return out

    nav = entries(config["nav"])
    assert all((DOCS / page).is_file() for page in nav), [p for p in nav if not (DOCS / p).is_file()]
    pages_on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages_on_disk, "every docs/ page belongs in mkdocs.yml's nav (and only those)"


# ------------------------------------------------------------------ docs/python.md: a session that runs

PYTHON_DOC = DOCS / "python.md"


def test_the_python_api_page_runs_as_written(monkeypatch):
    # its ```pycon blocks are one session, run with doctest from the repository's root
    import doctest

    monkeypatch.chdir(ROOT)
    text = "\n".join("\n".join(b.lines) for b in blocks(PYTHON_DOC) if b.lang == "pycon")
    assert text.count(">>> ") >= 20
    test = doctest.DocTestParser().get_doctest(text, {}, "docs/python.md", str(PYTHON_DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: pytest.fail(s))
    assert runner.summarize(verbose=False).failed == 0
