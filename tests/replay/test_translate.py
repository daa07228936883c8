"""--translate shell-search: recorded shell searches become grep/glob calls; anything else a shell
would interpret is refused with a stable reason. Nothing is run, except grep and rg in the regex
test, which checks that a rewritten pattern finds the very lines GNU grep finds."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from toolaudit.collectors import discover
from toolaudit.model import ToolCall
from toolaudit.replay.posix_regex import to_rust
from toolaudit.replay.translate import SHELL_TOOLS, NotTranslated, Translated, translate


def call(command, tool: str = "Bash", raw: bool = False, **extra) -> ToolCall:
    args = command if raw else json.dumps({"command": command, **extra})
    return ToolCall("t.jsonl", 1, "test", "s", tool, "", args=args)


def grep(pattern, path=".", include=(), ignore_case=False, fixed=False, max_count=None, **extra) -> Translated:
    return Translated("grep", {"pattern": pattern, "path": path, "include": list(include), "ignore_case": ignore_case,
                               "fixed_strings": fixed, "max_count": max_count, **extra})


@pytest.mark.parametrize("command, expected", [
    ('grep -rn "RETRY_LIMIT" . --include="*.py" --include="*.md"', grep("RETRY_LIMIT", include=["*.py", "*.md"])),
    ("grep -R -i -F 'a.b' src", grep("a.b", "src", ignore_case=True, fixed=True)),
    ("grep -rniI --include '*.ts' TODO lib/", grep("TODO", "lib/", include=["*.ts"], ignore_case=True)),
    ("grep -r -e -x- .", grep("-x-")),
    ("grep -r -- -x- .", grep("-x-")),
    ("grep -rE 'a+|b{2}' .", grep("a+|b{2}")),
    ("egrep -r 'a+' .", grep("a+")),
    ("fgrep -r 'a+' .", grep("a+", fixed=True)),
    ("grep -rm 3 foo .", grep("foo", max_count=3)),
    (r"grep -r 'a\|b' .", grep("a|b")),
    ("grep -r 'a|b+' .", grep(r"a\|b\+")),
    ("grep needs_extensions sphinx/config.py", grep("needs_extensions", "sphinx/config.py")),
    ("grep -r foo . | head -20", grep("foo", head_limit=20)),
    ("grep -r foo . | head", grep("foo", head_limit=10)),
    ("grep -r foo . | head -n 5", grep("foo", head_limit=5)),
    ("grep -r foo . | head -n5", grep("foo", head_limit=5)),
    ("grep -r foo . | head --lines=7", grep("foo", head_limit=7)),
    ("grep -r foo /abs/dir 2>/dev/null | head -3", grep("foo", "/abs/dir", head_limit=3)),
    ("cd /app && grep -ri foo src", grep("foo", "/app/src", ignore_case=True)),
    ("cd sub && grep -r foo .", grep("foo", "sub")),
    ("/usr/bin/grep -r foo .", grep("foo")),
    ('rg -n "ollama" -n', grep("ollama")),
    ('rg -n "local" app/api -g"*.ts"', grep("local", "app/api", include=["*.ts"])),
    (r"rg 'a\|b' --glob=*.py", grep(r"a\|b", include=["*.py"])),  # ripgrep syntax: left as written
    ("rg -S foo", grep("foo", ignore_case=True)),
    ("rg -S Foo", grep("Foo")),
    ("rg -i -s Foo", grep("Foo")),
    ("rg --no-heading --color=never --sort path -F 'x(' src", grep("x(", "src", fixed=True)),
    ("rg --max-count=2 foo", grep("foo", max_count=2)),
    ("grep -r 'x; rm -rf ~' .", grep("x; rm -rf ~")),  # quoted: data, never a command
    ('grep -r "a|b && c" .', grep(r"a\|b && c")),
])
def test_searches_become_grep_calls(command, expected):
    assert translate(call(command)) == expected


@pytest.mark.parametrize("command, pattern, path", [
    ('find /w/test/support -type f -name "*.ex" 2>/dev/null', "**/*.ex", "/w/test/support"),
    ("find . -name validators.py", "**/validators.py", "."),
    ("find -name 'x.py' -print", "**/x.py", "."),
    ("find src", "**/*", "src"),
    ("find src -type f", "**/*", "src"),
    ('find . -iname "readme*"', "**/[rR][eE][aA][dD][mM][eE]*", "."),
    ('find . -iname "[ab]*.MD"', "**/[ab]*.[mM][dD]", "."),
    ('find . -path "*/tests/*"', "**/tests/**", "."),
    ('find . -path "./src/*"', "src/**", "."),
    ("find src -path 'src/a/*.py' -type f", "a/*.py", "src"),
    ("find . -path '*.py'", "**/*.py", "."),
    ("ls -R", "**/*", "."),
    ("ls -R1 lib", "**/*", "lib"),
])
def test_find_and_ls_become_glob_calls(command, pattern, path):
    assert translate(call(command)) == Translated("glob", {"pattern": pattern, "path": path})


def test_find_with_head_gets_a_head_limit():
    assert translate(call("find . -name '*.py' | head -50")) == Translated(
        "glob", {"pattern": "**/*.py", "path": ".", "head_limit": 50})


@pytest.mark.parametrize("command, reason", [
    ("grep -r foo . | wc -l", "pipe"),
    ("grep -r foo . | head -c 10", "pipe"),
    ("grep -r foo . | head -0", "pipe"),
    ("grep -r foo . |& head", "pipe"),
    ("ls -R | grep -i validators", "pipe"),
    ('grep -r "x" /d 2>/dev/null || echo "No matches"', "compound command"),
    ("grep -r foo . && echo done", "compound command"),
    ("cd a && cd b && grep -r x .", "compound command"),
    ("cd && grep -r x .", "compound command"),
    ("grep -r foo .; ls", "compound command"),
    ("grep -r foo . &", "compound command"),
    ("grep -r foo .\nls", "compound command"),
    ("grep -r foo \\\n .", "compound command"),
    ("grep -r foo . > out.txt", "redirection"),
    ("grep -r foo . >> out.txt", "redirection"),
    ("grep -r foo . 2>&1", "redirection"),
    ("grep -r foo . &>/dev/null", "redirection"),
    ("grep -r foo < list", "redirection"),
    ("grep -r foo . 2>/dev/nullx", "redirection"),
    ("(grep -r foo .)", "subshell"),
    ("grep -r $(whoami) .", "command substitution"),
    ('grep -r "$(whoami)" .', "command substitution"),
    ("grep -r `whoami` .", "command substitution"),
    ('grep -r "`id`" .', "command substitution"),
    ("grep -r $HOME .", "variable expansion"),
    ('grep -r "${X}" .', "variable expansion"),
    ("grep -r foo *.py", "unquoted glob"),
    ("find . -name *.py", "unquoted glob"),
    ("grep -r fo[o] .", "unquoted glob"),
    ("grep -r foo src/{a,b}", "brace expansion"),
    ("grep -r --include=*.{py,md} foo .", "brace expansion"),
    ("grep -r foo {1..3}", "brace expansion"),
    ("grep -r foo ~/src", "tilde expansion"),
    ("grep -r foo . # why", "comment"),
    ("LC_ALL=C grep -r foo .", "env assignment"),
    ("grep -r 'foo .", "unparsable"),
    ("grep -r foo . |", "empty command"),
    ("cat a.py", "not a search"),
    ("ls -la", "not a search"),
    ("python -c 'import os'", "not a search"),
    ("grep -rl foo .", "unsupported grep flag -l"),
    ("grep -rw foo .", "unsupported grep flag -w"),
    ("grep -rP 'a(?=b)' .", "unsupported grep flag -P"),
    ("grep -A 3 foo a.py", "unsupported grep flag -A"),
    ("grep -rC5 foo .", "unsupported grep flag -C"),
    ("grep -r --exclude-dir=node_modules foo .", "unsupported grep flag --exclude-dir"),
    ("grep -r -m x foo .", "unsupported max count"),
    ("rg -t py foo", "unsupported rg flag -t"),
    ("rg -E utf8 foo", "unsupported rg flag -E"),
    ("rg -l foo", "unsupported rg flag -l"),
    ("rg --hidden foo", "unsupported rg flag --hidden"),
    ("rg --sort modified foo", "unsupported rg flag --sort"),
    ("rg foo -g '!*.md'", "negated glob"),
    ("rg foo a b -g '*.py'", "several paths"),
    ("grep -r -e a -e b .", "several patterns"),
    ("grep -r", "no pattern"),
    ("grep foo", "reads stdin"),
    ("grep -r foo -", "reads stdin"),
    (r"grep -r '\(a\)\1' .", "unsupported regex: backreference in regex"),
    ("grep -r '[[.a.]]' .", "unsupported regex: collating element in regex"),
    ("grep -r '[abc' .", "unsupported regex: unterminated bracket in regex"),
    ('find . -name "*.ex" -o -type d', "unsupported find predicate -type d"),
    ("find . -type d -name x", "unsupported find predicate -type d"),
    ("find . -maxdepth two -name x", "unsupported find predicate -maxdepth two"),
    ("find . -name '*.py' -exec grep -l x {} ;", "compound command"),
    ("find . -name '*.py' -exec grep -l x '{}' \\;", "unsupported find predicate -exec"),
    ("find . -name '*.py' -exec grep -l x {} +", "unsupported find predicate -exec"),  # `{}` is no brace expansion
    ("find . -name a -name b", "several patterns"),
    ("find a b -name x", "several paths"),
    ("find . -name 'a/b'", "find -name with a slash"),
    ("find . -path 'src/*'", "find -path outside the start folder"),
    ("ls -Ra", "unsupported ls flag -a"),
    ("ls -R a b", "several paths"),
])
def test_other_commands_are_not_translated(command, reason):
    assert translate(call(command)) == NotTranslated(reason)


def test_every_agent_shape_of_a_shell_call():
    codex = {"command": ["bash", "-lc", "rg -n foo src"], "workdir": "/home/u/proj"}
    assert translate(call(json.dumps(codex), tool="shell", raw=True)) == grep("foo", "/home/u/proj/src")
    # an argv list runs without a shell: `;` and `$` are plain characters of the pattern
    argv = {"command": ["rg", "-n", "x; $(rm -rf ~)"]}
    assert translate(call(json.dumps(argv), tool="shell", raw=True)) == grep("x; $(rm -rf ~)")
    exec_command = {"cmd": "grep -rn foo .", "workdir": "/r"}
    assert translate(call(json.dumps(exec_command), tool="exec_command", raw=True)) == grep("foo", "/r")
    local = {"type": "exec", "command": ["sh", "-c", "find . -name '*.md'"], "working_directory": "/r"}
    assert translate(call(json.dumps(local), tool="local_shell", raw=True)) == Translated(
        "glob", {"pattern": "**/*.md", "path": "/r"})
    assert translate(call("grep -rn foo lib", tool="run_shell_command", dir_path="/g")) == grep("foo", "/g/lib")
    assert translate(call("grep -r x /abs", tool="run_shell_command", cwd="/g")) == grep("x", "/abs")
    assert translate(call("grep -r x .", tool="execute_bash", is_input="false")) == grep("x")
    assert translate(call("q", tool="execute_bash", is_input="true")) == NotTranslated("input to a running command")
    assert translate(call("grep -r x .", run_in_background=True)) == NotTranslated("background command")
    assert translate(call("grep -r x .", tool="terminal")) == grep("x")
    # mini-swe-agent records the bare command, not JSON
    assert translate(call("grep -r needs_extensions sphinx", tool="bash", raw=True)) == grep("needs_extensions", "sphinx")
    assert translate(call("grep -r x .", tool="Grep")) == NotTranslated("not a shell call")
    assert translate(call(json.dumps({"description": "x"}), raw=True)) == NotTranslated("no command")
    assert translate(call("  ", tool="bash", raw=True)) == NotTranslated("no command")
    # Codex localpush redacted every argument: not a command line
    redacted = "[REDACTED_ARGUMENTS len=109 sha=4aedd932]"
    assert translate(call(redacted, tool="exec_command", raw=True)) == NotTranslated("arguments not JSON")
    assert all(t in SHELL_TOOLS for t in {"Bash", "bash", "shell", "exec_command", "run_shell_command", "execute_bash", "terminal"})


# ------------------------------------------------------------------ real commands from the corpus

def shell_calls(path: Path) -> list[ToolCall]:
    cls, doc = discover.detect(path, None)
    return [r for r in cls().collect(path, doc) if isinstance(r, ToolCall) and r.tool in SHELL_TOOLS]


def command_of(c: ToolCall) -> str:
    try:
        args = json.loads(c.args)
    except ValueError:
        return c.args
    command = args.get("command") or args.get("cmd") if isinstance(args, dict) else args
    return command[-1] if isinstance(command, list) else command


def by_command(calls: list[ToolCall]) -> dict[str, Translated | NotTranslated]:
    return {command_of(c): translate(c) for c in calls}


def test_real_codex_ripgrep_calls(corpus):
    calls = shell_calls(corpus / "codex" / "codex-session-view" /
                        "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl")
    got = by_command(calls)
    root = "/home/user/projects/temp/chatbot-ui"
    assert got['rg -n "local" app/api -g"*.ts"'] == grep("local", f"{root}/app/api", include=["*.ts"])
    assert got['rg -n "eventsource-parser" -n src -g"*.ts"'] == grep("eventsource-parser", f"{root}/src", include=["*.ts"])
    assert got["rg -n 'provider === \"lmstudio\"' -n"] == grep('provider === "lmstudio"', root)
    assert got["ls"] == NotTranslated("not a search")
    searches = [t for t in got.values() if isinstance(t, Translated)]
    assert len(searches) >= 10 and all(t.tool == "grep" for t in searches)


def test_real_claude_code_grep_and_find_calls(corpus):
    calls = shell_calls(corpus / "claude-code" / "spotter" / "8463c716-a2ea-4c14-9efa-87158ebd9f20" /
                        "subagents" / "agent-a7be2f0.jsonl")
    got = by_command(calls)
    root = "/home/USER/projects/spotter-worktrees/spotter-fum"
    assert got[f'grep -r "Phoenix.LiveViewTest\\|mount\\|render_submit" {root}/test --include="*.exs" '
               '2>/dev/null | head -20'] == grep("Phoenix.LiveViewTest|mount|render_submit", f"{root}/test",
                                                 include=["*.exs"], head_limit=20)
    assert got[f'find {root}/test/support -type f -name "*.ex" 2>/dev/null'] == Translated(
        "glob", {"pattern": "**/*.ex", "path": f"{root}/test/support"})
    assert got[f'grep -r "conn_case\\|ConnCase\\|live_view" {root}/test/support/ 2>/dev/null '
               '|| echo "No matches"'] == NotTranslated("compound command")
    assert got[f'find {root}/test -name "*case*.ex" -o -name "*helper*.ex" 2>/dev/null'] == Translated(
        "glob", {"pattern": ["**/*case*.ex", "**/*helper*.ex"], "path": f"{root}/test"})


def test_real_mini_swe_agent_calls(corpus):
    got = by_command(shell_calls(corpus / "mini-swe-agent" / "gemini-3-pro-swebench" / "django__django-11099.traj.json"))
    assert got["ls -R | grep -i validators"] == NotTranslated("pipe")
    assert got['find . -name "validators.py" | grep "contrib/auth"'] == NotTranslated("pipe")
    # a basic regex with escaped brackets and a `$` that is not at the end: the same characters for ripgrep
    assert got["grep -r \"r'\\^\\[\\\\\\\\w.@+-\\]+\\$'\" ."] == grep(r"r'\^\[\\w.@\+-\]\+\$'")
    assert got["grep -A 20 \"class EmailValidator\" django/core/validators.py"] == NotTranslated(
        "unsupported grep flag -A")


def test_every_shell_call_of_the_corpus_is_translated_or_has_a_known_reason(corpus):
    reasons: Counter = Counter()
    translated = 0
    for path in sorted(p for p in corpus.rglob("*") if p.suffix in (".jsonl", ".json")):
        if discover.detect(path, None)[0] is None:
            continue
        for c in shell_calls(path):
            result = translate(c)
            if isinstance(result, Translated):
                translated += 1
                assert result.tool in ("grep", "glob") and isinstance(result.args["path"], str)
            else:
                reasons[result.reason.split(" -")[0].split(":")[0]] += 1
    known = {"pipe", "compound command", "redirection", "subshell", "command substitution", "variable expansion",
             "unquoted glob", "brace expansion", "tilde expansion", "comment", "env assignment", "unparsable",
             "empty command", "not a search", "unsupported grep flag", "unsupported rg flag", "unsupported find predicate",
             "unsupported ls flag", "several paths", "several patterns", "no pattern", "reads stdin", "no command",
             "unsupported regex", "input to a running command", "arguments not JSON", "background command", "negated glob",
             "find -name with a slash", "find -path outside the start folder", "unsupported max count"}
    assert set(reasons) <= known, set(reasons) - known
    # a pipe or redirection of a program that is no search says "not a search" (issue 17 §5), so pipes are fewer
    assert translated >= 30 and reasons["not a search"] > 200 and reasons["pipe"] >= 5


# ------------------------------------------------------------------ the rewritten regex means what grep meant

LINES = ["a|b", "ab", "b", "aab", "a+", "(x)", "x", "a{2}", "aa", "tail$", "$mid", "^start", "mid^",
         "*star", "back\\slash", "w", "brace{", "d9", "end", "a.b", "a]b", "word here", "x?"]
PATTERNS = [
    (r"a\|b", True), ("a|b", True), ("a+", True), (r"a\+", True), ("(x)", True), (r"\(x\)", True),
    (r"a\{2\}", True), ("a{2}", True), ("tail$", True), ("$mid", True), ("^start", True), ("mid^", True),
    ("*star", True), (r"[\w]", True), ("[]a]", True), (r"\d9", True), ("[[:digit:]]", True), (r"x\?", True),
    (r"\<word\>", True), ("a.b", True), ("[^ab]", True), ("[a-c&]", True),
    ("a|b", False), ("a+", False), (r"a\|b", False), ("a{2}", False), ("brace{", False), ("(x)", False),
    (r"\(x\)", False), ("*star", False), (r"[\w]", False), ("x?", False), ("^(a|b)$", False),
]


@pytest.mark.skipif(shutil.which("grep") is None or sys.platform != "linux", reason="needs GNU grep")
@pytest.mark.parametrize("pattern, basic", PATTERNS)
def test_rewritten_patterns_match_what_gnu_grep_matches(tmp_path, pattern, basic):
    rg = Path(sys.executable).parent / "rg"
    if not rg.exists():
        pytest.skip(f"ripgrep not installed beside {sys.executable}")
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(LINES) + "\n")
    gnu = subprocess.run(["grep", "-n", "-G" if basic else "-E", "-e", pattern, str(text)],
                         capture_output=True, text=True, env={"LC_ALL": "C.UTF-8"})
    ours = subprocess.run([str(rg), "--no-config", "-n", "-e", to_rust(pattern, basic), str(text)],
                          capture_output=True, text=True)
    assert gnu.returncode in (0, 1) and ours.returncode in (0, 1), (gnu.stderr, ours.stderr)
    assert ours.stdout.splitlines() == gnu.stdout.splitlines()



@pytest.mark.parametrize("command,tool,args", [
    # issue 17 §5: forms that were refused
    ("grep -n TODO cmd/*.go", "grep", {"pattern": "TODO", "path": ".", "include": ["/cmd/*.go"]}),
    ("grep -rn foo src lib/a.py", "grep", {"pattern": "foo", "path": ".", "include": ["/src/**", "/lib/a.py"]}),
    ("rg --files -g '*.py' src", "glob", {"pattern": "**/*.py", "path": "src"}),
    ("rg --files -g '*.py' -g '*.md'", "glob", {"pattern": ["**/*.py", "**/*.md"], "path": "."}),
    ("find . -maxdepth 2 -name '*.go'", "glob", {"pattern": "**/*.go", "path": ".", "max_depth": 2}),
    ("find src \\( -name '*.ts' -o -name '*.tsx' \\)", "glob", {"pattern": ["**/*.ts", "**/*.tsx"], "path": "src"}),
])
def test_globs_alternatives_and_depths_translate(command, tool, args):
    got = translate(call(command))
    assert isinstance(got, Translated) and got.tool == tool
    assert {k: v for k, v in got.args.items() if k in args} == args


def test_a_command_that_is_no_search_says_so_whatever_its_shell_syntax():
    for command in ("go test ./... > out.txt", "npm test 2>&1 | tee log", "make build && ./bin/app"):
        assert translate(call(command)) == NotTranslated("not a search"), command
