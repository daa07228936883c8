"""builtin:NAME on the seed repository: known answers computed here, by walking the files, not by the code under test."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from toolaudit.errors import ToolauditError, UsageError
from toolaudit.replay.base import FAILED, REFUSED, REPLAYED, Sandbox, implementations
from toolaudit.replay.builtin import Builtin, parse_spec
from toolaudit.replay.builtin import ripgrep

SEARCH_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "search_repo"
NOTICE = "[toolaudit: {} matches omitted; narrow your search]"
MARKER = "\n[toolaudit: {} {} omitted; ask again with a narrower range]\n"
HANDBOOK = "docs/handbook/operations-handbook.txt"
LONG_LINES = "data/long_lines.txt"
WEBHOOK = "src/delivery/webhook.py"


def constant(repo: Path) -> str:
    """`src/delivery/webhook.py:N:RETRY_LIMIT = 7`, N read from the file."""
    number = (repo / WEBHOOK).read_text().split("\n").index("RETRY_LIMIT = 7") + 1
    return f"{WEBHOOK}:{number}:RETRY_LIMIT = 7"


@pytest.fixture
def search_repo(tmp_path: Path) -> Path:
    """A fresh copy of tests/fixtures/search_repo (outside any git checkout, so no .gitignore applies)."""
    repo = tmp_path / "repo"
    shutil.copytree(SEARCH_REPO, repo, symlinks=True)
    return repo


def tool(spec: str, repo: Path) -> Builtin:
    return Builtin(spec, Sandbox(workspace=repo, timeout=60))


def walk(repo: Path, suffixes: tuple[str, ...] = ()) -> list[str]:
    """Every file below `repo`, relative, sorted by path component by component (ripgrep's --sort path)."""
    found = []
    for folder, dirs, files in os.walk(repo):
        for name in files:
            rel = (Path(folder) / name).relative_to(repo).as_posix()
            if not suffixes or rel.endswith(suffixes):
                found.append(rel)
    return sorted(found, key=lambda p: p.split("/"))


def matching_lines(repo: Path, needle: str, suffixes: tuple[str, ...] = ()) -> list[str]:
    """`path:line:content` for every line holding `needle`, in path then line order."""
    out = []
    for rel in walk(repo, suffixes):
        for number, line in enumerate((repo / rel).read_text(encoding="utf-8").split("\n"), 1):
            if needle in line:
                out.append(f"{rel}:{number}:{line}")
    return out


def expected_capped(lines: list[str], max_matches: int, max_bytes: int) -> str:
    """The documented cut: the first `max_matches` results, then the longest prefix that leaves room for a
    newline and the notice within `max_bytes`; the notice counts the results not shown in full."""
    kept = "".join(line + "\n" for line in lines[:max_matches])
    omitted = len(lines)
    while True:
        notice = NOTICE.format(omitted)
        part = kept.encode()[: max_bytes - len(notice.encode()) - 1].decode("utf-8", "ignore")
        shown, end = 0, 0
        for line in lines[:max_matches]:
            end += len(line)
            if end > len(part):
                break
            shown, end = shown + 1, end + 1
        if len(lines) - shown == omitted:
            return part + ("" if part.endswith("\n") else "\n") + notice
        omitted = len(lines) - shown


# --- grep ----------------------------------------------------------------------------------


def test_grep_seed_is_capped_to_100_results_and_10000_bytes(search_repo: Path) -> None:
    full = matching_lines(search_repo, "RETRY_LIMIT", (".py", ".md"))
    assert len(full) > 150 and len("\n".join(full).encode()) > 25_000  # the fixture is what the seed needs
    assert constant(search_repo) in full
    args = {"pattern": "RETRY_LIMIT", "path": ".", "include": ["*.py", "*.md"], "ignore_case": False,
            "fixed_strings": False, "max_count": None}
    got = tool("grep", search_repo).call("Bash", args, search_repo)
    assert (got.status, got.is_error) == (REPLAYED, False)
    assert got.output == expected_capped(full, 100, 10_000)
    assert len(got.output.encode()) <= 10_000
    body, notice = got.output.rsplit("\n", 1)
    results = body.split("\n")
    assert notice.startswith("[toolaudit: ") and notice.endswith("narrow your search]")
    assert len(results) <= 100
    paths = [line.split(":", 1)[0] for line in results]
    assert paths == sorted(paths, key=lambda p: p.split("/")) and paths[0].startswith("config/")
    assert constant(search_repo) not in got.output  # sorted after the old configs and docs


def test_grep_match_limit_binds_before_the_byte_limit(search_repo: Path) -> None:
    full = matching_lines(search_repo, "RETRY_LIMIT", (".py", ".md"))
    got = tool("grep?max_matches=5&max_bytes=100000", search_repo).call(
        "Grep", {"pattern": "RETRY_LIMIT", "glob": "*.{py,md}"}, search_repo)
    assert got.output == "\n".join(full[:5]) + "\n" + NOTICE.format(len(full) - 5)
    assert got.output == expected_capped(full, 5, 100_000)


def test_grep_byte_limit_alone_is_still_the_match_limit(search_repo: Path) -> None:
    full = matching_lines(search_repo, "RETRY_LIMIT", (".py", ".md"))
    got = tool("grep?max_matches=none&max_bytes=2000", search_repo).call(
        "Grep", {"pattern": "RETRY_LIMIT", "include": ["*.py", "*.md"]}, search_repo)
    assert got.output == expected_capped(full, len(full), 2000)


def test_grep_without_include_searches_every_file_and_is_exact_when_small(search_repo: Path) -> None:
    got = tool("grep?max_matches=1000&max_bytes=none", search_repo).call("Grep", {"pattern": "RETRY_LIMIT"}, search_repo)
    assert got.output == "\n".join(matching_lines(search_repo, "RETRY_LIMIT"))
    assert "config/defaults.toml:2:RETRY_LIMIT = 7" in got.output


def test_grep_in_a_subfolder_finds_the_constant(search_repo: Path) -> None:
    got = tool("grep", search_repo).call("Grep", {"pattern": r"RETRY_LIMIT = \d", "path": "src"}, search_repo)
    assert got.output == constant(search_repo)


def test_grep_reads_claude_code_arguments(search_repo: Path) -> None:
    args = {"pattern": "retry_limit =", "-i": True, "-n": True, "glob": "*.toml", "output_mode": "content"}
    got = tool("grep", search_repo).call("Grep", args, search_repo)
    assert got.output == "config/defaults.toml:2:RETRY_LIMIT = 7"
    files = tool("grep", search_repo).call("Grep", {"pattern": "RETRY_LIMIT", "output_mode": "files_with_matches"},
                                          search_repo)
    assert files.output.split("\n") == [p for p in walk(search_repo) if "RETRY_LIMIT" in (search_repo / p).read_text()]
    head = tool("grep", search_repo).call("Grep", {"pattern": "RETRY_LIMIT", "head_limit": 3, "offset": 1}, search_repo)
    assert head.output.split("\n") == matching_lines(search_repo, "RETRY_LIMIT")[1:4]


def test_grep_max_count_is_per_file(search_repo: Path) -> None:
    got = tool("grep?max_matches=none&max_bytes=none", search_repo).call(
        "grep", {"pattern": "RETRY_LIMIT", "include": ["*.md"], "max_count": 1}, search_repo)
    firsts, seen = [], set()
    for line in matching_lines(search_repo, "RETRY_LIMIT", (".md",)):
        if line.split(":", 1)[0] not in seen:
            seen.add(line.split(":", 1)[0])
            firsts.append(line)
    assert got.output == "\n".join(firsts)


def test_grep_context_lines_and_separators(search_repo: Path) -> None:
    got = tool("grep", search_repo).call("Grep", {"pattern": "^RETRY_LIMIT", "path": "src", "-C": 1}, search_repo)
    lines = (search_repo / WEBHOOK).read_text().split("\n")
    n = lines.index("RETRY_LIMIT = 7") + 1
    path = WEBHOOK
    assert got.output == f"{path}-{n - 1}-{lines[n - 2]}\n{path}:{n}:{lines[n - 1]}\n{path}-{n + 1}-{lines[n]}"


def test_grep_no_match_is_a_normal_empty_result(search_repo: Path) -> None:
    got = tool("grep", search_repo).call("Grep", {"pattern": "NO_SUCH_CONSTANT_ANYWHERE"}, search_repo)
    assert (got.output, got.is_error, got.status) == ("No matches found", False, REPLAYED)


def test_grep_bad_regex_is_an_error_result_with_rgs_message(search_repo: Path) -> None:
    got = tool("grep", search_repo).call("Grep", {"pattern": "RETRY_LIMIT(["}, search_repo)
    assert (got.is_error, got.status) == (True, REPLAYED)
    assert "regex parse error" in got.output


def test_grep_missing_pattern_and_missing_path_are_error_results(search_repo: Path) -> None:
    got = tool("grep", search_repo).call("Grep", {"path": "src"}, search_repo)
    assert (got.is_error, got.status) == (True, REPLAYED) and "pattern" in got.output
    got = tool("grep", search_repo).call("Grep", {"pattern": "x", "path": "nowhere"}, search_repo)
    assert (got.is_error, got.status) == (True, REPLAYED) and "nowhere" in got.output


def test_grep_uses_the_workspace_of_the_call(search_repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    builtin = Builtin("grep", Sandbox(workspace=other, timeout=60))
    got = builtin.call("Grep", {"pattern": r"RETRY_LIMIT = \d", "path": "src"}, search_repo)
    assert got.output == constant(search_repo)
    assert builtin.call("Grep", {"pattern": "RETRY_LIMIT", "path": "src"}, other).is_error  # no src/ there


# --- glob ----------------------------------------------------------------------------------


def test_glob_lists_matching_paths_sorted(search_repo: Path) -> None:
    got = tool("glob", search_repo).call("Glob", {"pattern": "*.py", "path": "src"}, search_repo)
    assert got.output.split("\n") == [p for p in walk(search_repo, (".py",)) if p.startswith("src/")]
    got = tool("glob", search_repo).call("Glob", {"pattern": "**/*.md"}, search_repo)
    assert got.output.split("\n") == walk(search_repo, (".md",))


def test_glob_caps_with_the_notice(search_repo: Path) -> None:
    got = tool("glob?max_matches=3", search_repo).call("glob", {"pattern": "*.py"}, search_repo)
    paths = walk(search_repo, (".py",))
    assert got.output == "\n".join(paths[:3]) + "\n" + NOTICE.format(len(paths) - 3)


def test_glob_honours_head_limit_and_offset_like_grep(search_repo: Path) -> None:
    # `find . -name '*.py' | head -2` translates to {"pattern": "**/*.py", "path": ".", "head_limit": 2}
    paths = walk(search_repo, (".py",))
    assert len(paths) > 3
    got = tool("glob", search_repo).call("glob", {"pattern": "**/*.py", "path": ".", "head_limit": 2}, search_repo)
    assert got.output.split("\n") == paths[:2]
    got = tool("glob", search_repo).call("Glob", {"pattern": "*.py", "limit": 2, "offset": 1}, search_repo)
    assert got.output.split("\n") == paths[1:3]
    got = tool("glob?max_matches=1", search_repo).call("glob", {"pattern": "*.py", "head_limit": 3}, search_repo)
    assert got.output == paths[0] + "\n" + NOTICE.format(2)
    bad = tool("glob", search_repo).call("glob", {"pattern": "*.py", "head_limit": -1}, search_repo)
    assert bad.is_error and "head_limit" in bad.output


def test_glob_no_file_is_a_normal_empty_result(search_repo: Path) -> None:
    got = tool("glob", search_repo).call("Glob", {"pattern": "*.rs"}, search_repo)
    assert (got.output, got.is_error, got.status) == ("No files found", False, REPLAYED)


# --- search_files --------------------------------------------------------------------------


def _contents(output: str) -> list[str]:
    return [line.split(":", 2)[2] for line in output.split("\n")]


def test_search_files_previews_a_500_char_match_to_103_chars(search_repo: Path) -> None:
    line = (search_repo / LONG_LINES).read_text().split("\n")[7]
    assert len(line) == 500 and "WIDE_MATCH_07" in line
    got = tool("search_files", search_repo).call("search_files", {"regex": "WIDE_MATCH_07"}, search_repo)
    assert _contents(got.output) == [line[:100] + "..."]
    assert len(_contents(got.output)[0]) == 103


def test_search_files_50_matches_make_5150_chars_and_include_content_keeps_them(search_repo: Path) -> None:
    lines = (search_repo / LONG_LINES).read_text().split("\n")[:50]
    got = tool("search_files", search_repo).call("search_files", {"regex": "WIDE_MATCH", "path": "data"}, search_repo)
    assert sum(map(len, _contents(got.output))) == 5150
    assert _contents(got.output) == [line[:100] + "..." for line in lines]
    whole = tool("search_files?include_content=true&max_bytes=none", search_repo).call(
        "search_files", {"regex": "WIDE_MATCH", "file_pattern": "*.txt"}, search_repo)
    assert _contents(whole.output) == lines and sum(map(len, _contents(whole.output))) == 25_000


# --- read_file -----------------------------------------------------------------------------


def test_read_file_max_chars_keeps_40_60_head_and_tail_with_the_marker(search_repo: Path) -> None:
    text = (search_repo / HANDBOOK).read_text(encoding="utf-8")
    assert len(text) == 25_134 and len(text.encode()) > len(text)  # chars, not bytes, are counted
    got = tool("read_file?max_chars=5000", search_repo).call("Read", {"file_path": HANDBOOK}, search_repo)
    assert got.output == text[:2000] + MARKER.format(25_134 - 5000, "chars") + text[-3000:]


def test_read_file_whole_offset_limit_and_tail_lines(search_repo: Path) -> None:
    path = WEBHOOK
    text = (search_repo / path).read_text()
    lines = text.split("\n")[:-1]
    read = tool("read_file", search_repo)
    assert read.call("Read", {"file_path": path}, search_repo).output == text
    got = read.call("Read", {"file_path": path, "offset": 10, "limit": 2}, search_repo)
    assert got.output == lines[9] + "\n" + lines[10] + "\n"
    tail = tool("read_file?tail_lines=2", search_repo).call("read_file", {"absolute_path": path}, search_repo)
    assert tail.output == MARKER.format(len(lines) - 2, "lines") + lines[-2] + "\n" + lines[-1] + "\n"


def test_read_file_missing_or_folder_is_an_error_result(search_repo: Path) -> None:
    read = tool("read_file", search_repo)
    for args in ({"file_path": "nope.txt"}, {"file_path": "src"}, {}):
        got = read.call("Read", args, search_repo)
        assert (got.is_error, got.status) == (True, REPLAYED)


def test_read_file_over_the_output_cap_fails(search_repo: Path) -> None:
    read = Builtin("read_file", Sandbox(workspace=search_repo, max_output_bytes=1000))
    got = read.call("Read", {"file_path": HANDBOOK}, search_repo)
    assert (got.status, got.is_error) == (FAILED, True) and "1000" in got.reason


# --- list_dir ------------------------------------------------------------------------------


def test_list_dir_names_sorted_with_slashes(search_repo: Path) -> None:
    names = sorted(n + ("/" if (search_repo / n).is_dir() else "") for n in os.listdir(search_repo))
    got = tool("list_dir", search_repo).call("LS", {}, search_repo)
    assert got.output == "\n".join(names) and "src/" in names
    capped = tool("list_dir?max_entries=3", search_repo).call("list_directory", {"dir_path": "."}, search_repo)
    assert capped.output == "".join(n + "\n" for n in names[:3]) + MARKER.format(len(names) - 3, "lines")


# --- confinement ---------------------------------------------------------------------------

CALLS = [
    ("grep", {"pattern": "secret"}), ("glob", {"pattern": "*"}), ("search_files", {"regex": "secret"}),
    ("read_file", {}), ("list_dir", {}),
]


@pytest.fixture
def escapes(search_repo: Path, tmp_path: Path) -> list[str]:
    """Paths that leave the workspace: `..`, absolute, and symlinks made now (never committed) pointing out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret RETRY_LIMIT = 99 OUTSIDE-CONTENT\n")
    (search_repo / "docs" / "escape").symlink_to(outside)
    (search_repo / "escape.txt").symlink_to(outside / "secret.txt")
    return ["..", "../outside/secret.txt", "docs/../../outside", str(outside), str(outside / "secret.txt"),
            "/etc/passwd", "docs/escape", "docs/escape/secret.txt", "escape.txt"]


@pytest.mark.parametrize("name,args", CALLS)
def test_paths_outside_the_workspace_are_refused(search_repo: Path, escapes: list[str], name: str, args: dict) -> None:
    key = "file_path" if name == "read_file" else "path"
    for path in escapes:
        got = tool(name, search_repo).call(name, {**args, key: path}, search_repo)
        assert (got.status, got.is_error) == (REFUSED, True), path
        assert repr(path) in got.output and path in got.reason
        assert "OUTSIDE-CONTENT" not in got.output  # the path may hold digits (pytest-99): the content never


def test_a_symlink_out_is_never_followed_while_searching(search_repo: Path, escapes: list[str]) -> None:
    got = tool("grep", search_repo).call("Grep", {"pattern": "RETRY_LIMIT = 99"}, search_repo)
    assert got.output == "No matches found"
    got = tool("glob", search_repo).call("Glob", {"pattern": "secret.txt"}, search_repo)
    assert got.output == "No files found"


@pytest.mark.parametrize("text", ["x; rm -rf ~ ; touch {m}", "$(touch {m})", "`touch {m}`", "a && touch {m}"])
def test_shell_metacharacters_in_arguments_are_inert(search_repo: Path, tmp_path: Path, text: str) -> None:
    marker = tmp_path / "pwned"
    arg = text.format(m=marker)
    for name, args in (("grep", {"pattern": arg}), ("grep", {"pattern": "x", "include": [arg]}),
                       ("glob", {"pattern": arg}), ("grep", {"pattern": "x", "path": arg}),
                       ("read_file", {"file_path": arg}), ("list_dir", {"path": arg})):
        got = tool(name, search_repo).call(name, args, search_repo)
        assert got.status == REPLAYED
        assert got.output in ("No matches found", "No files found") or got.is_error
    assert not marker.exists()
    assert (search_repo / "src" / "delivery" / "webhook.py").exists()


def test_arguments_that_look_like_rg_flags_stay_operands(search_repo: Path, tmp_path: Path) -> None:
    # `rg --pre CMD` would run CMD on every file: a recorded pattern or glob must never become that flag
    marker = tmp_path / "ran"
    script = tmp_path / "pre.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat \"$1\"\n")
    script.chmod(0o755)
    for name, args in (("grep", {"pattern": f"--pre={script}"}), ("grep", {"pattern": "-e", "path": f"--pre={script}"}),
                       ("grep", {"pattern": "x", "include": [f"--pre={script}"], "type": "py"}),
                       ("glob", {"pattern": f"--pre={script}"})):
        got = tool(name, search_repo).call(name, args, search_repo)
        assert got.status == REPLAYED
    assert not marker.exists()
    # a pattern starting with "-" is searched for, not parsed as flags
    got = tool("grep", search_repo).call("Grep", {"pattern": "-01", "include": ["*.py"]}, search_repo)
    assert got.output == "\n".join(matching_lines(search_repo, "-01", (".py",))) and not got.is_error


# --- the spec ------------------------------------------------------------------------------


def test_the_builtin_kind_is_registered() -> None:
    assert implementations.get("builtin") is Builtin


def test_spec_parameters_are_typed_from_the_declaration() -> None:
    name, params = parse_spec("search_files?preview_chars=20&include_content=true&max_bytes=none")
    assert name == "search_files"
    assert (params.preview_chars, params.include_content, params.max_bytes, params.max_matches) == (20, True, None, 100)
    assert parse_spec("read_file?max_chars=5000&head_ratio=0.5")[1].head_ratio == 0.5


@pytest.mark.parametrize("spec,words", [
    ("grp", ["grep", "glob", "search_files", "read_file", "list_dir"]),
    ("grep?max_match=3", ["max_matches", "max_bytes"]),
    ("grep?max_matches=many", ["int"]),
    ("grep?max_matches=-1", ["negative"]),
    ("search_files?include_content=perhaps", ["bool"]),
    ("read_file?max_chars=10&head_ratio=2", ["head-ratio"]),
    ("grep?max_matches=1&max_matches=2", ["twice"]),
])
def test_bad_specs_are_usage_errors_naming_the_choices(spec: str, words: list[str]) -> None:
    with pytest.raises(UsageError) as info:
        parse_spec(spec)
    assert all(word in info.value.message for word in words), info.value.message


def test_arguments_that_are_not_an_object_are_an_error_result(search_repo: Path) -> None:
    got = tool("grep", search_repo).call("Grep", ["RETRY_LIMIT"], search_repo)  # type: ignore[arg-type]
    assert got.is_error and got.status == REPLAYED


def test_a_missing_rg_is_a_clear_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(ripgrep.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(ripgrep.sysconfig, "get_path", lambda name: str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    ripgrep.rg_path.cache_clear()
    try:
        with pytest.raises(ToolauditError) as info:
            Builtin("grep", Sandbox(workspace=tmp_path))
        assert "ripgrep" in info.value.message and info.value.slug == "no-ripgrep"
        Builtin("read_file", Sandbox(workspace=tmp_path))  # needs no rg
    finally:
        ripgrep.rg_path.cache_clear()
