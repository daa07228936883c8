"""agent:claude-code/Bash: read-only commands re-run without a shell, shown as Claude Code 2.0.64 to 2.1.42 did.

The recorded cases are cut from real sessions (tests/fixtures/agents/claude-code-bash/README.md); the others pin
the rules read in Claude Code's cli.js (the Bash tool's call and result mapping, the tool-error formatter).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from toolaudit.replay import sandbox as sandbox_module
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.agents.claude_code import bash
from toolaudit.replay.base import REFUSED, REPLAYED, Sandbox

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "claude-code-bash"
CASES = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
CWD = "/Users/dev/cli"  # the recorded working folder of the synthetic calls
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"}


def run(root: Path, command: str, at: str | None = "2.1.42", **params: str):
    """One Bash call recorded by Claude Code `at`, as the runner would make it."""
    call = Call(tool="Bash", args={"command": command, "description": "test"}, root=root, cwd=CWD, version=at,
                sandbox=Sandbox(workspace=root, timeout=60), params=params, session="0f1e2d3c-session",
                call_id="toolu_test")
    return EMULATIONS[("claude-code", "Bash")]().run(call)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    (folder / "src").mkdir(parents=True)
    (folder / "a.txt").write_text("alpha\nbeta\n")
    (folder / "src" / "m.py").write_text("x = 1\n")
    return folder


def git_repo(root: Path) -> None:
    """`root` as a repository with one commit (no user or system configuration read)."""
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(root), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for argv in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", *argv], cwd=root, env=env, check=True, capture_output=True)


# --- recorded cases -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_recorded_call_is_reproduced_byte_for_byte(case: dict, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for folder in case["dirs"]:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for rel, fixture in case["files"].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes((FIXTURES / fixture).read_bytes() if fixture else b"")
    if case["git"]:
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        git_repo(root)
    params = {"cwd": case["shell_cwd"]} if "shell_cwd" in case else {}
    call = Call(tool="Bash", args=case["args"], root=root, cwd=case["cwd"], version=case["version"],
                sandbox=Sandbox(workspace=root, timeout=60), params=params, session=case["session"],
                call_id=case["call_id"])
    out = EMULATIONS[("claude-code", "Bash")]().run(call)
    assert out.status == REPLAYED, out.reason
    assert out.output == (FIXTURES / case["expected"]).read_bytes().decode("utf-8")
    assert out.is_error == case["is_error"]


# --- how the output is shown --------------------------------------------------------------------


def test_stderr_follows_stdout_when_the_command_succeeds(root: Path) -> None:
    out = run(root, "cat nope; cat a.txt")  # the last command decides: exit 0
    assert (out.output, out.is_error) == ("alpha\nbeta\ncat: nope: No such file or directory", False)


def test_a_failure_is_the_exit_code_then_stderr_then_stdout(root: Path) -> None:
    out = run(root, "cat a.txt nope")  # stderr keeps its newline: a blank line before stdout, as recorded
    assert (out.output, out.is_error) == ("Exit code 1\ncat: nope: No such file or directory\n\nalpha\nbeta", True)


@pytest.mark.parametrize(("command", "shown", "is_error"), [
    ("grep zzz a.txt", "", False),  # grep's 1 is "No matches found"
    ("grep -c zzz a.txt", "0", False),
    ("cat a.txt | grep zzz", "", False),  # the last command of the pipeline is grep
    ("rg zzz a.txt", "", False),
    ("grep zzz nope", "Exit code 2\ngrep: nope: No such file or directory", True),
    ("grep zzz a.txt && echo found", "Exit code 1", True),  # the last command is echo: 1 is a failure
    ("grep zzz a.txt || echo none", "none", False),
    ("false", "Exit code 1", True),
    ("head -1 nope", "Exit code 1\nhead: cannot open 'nope' for reading: No such file or directory", True),
])
def test_which_exit_codes_are_failures(root: Path, command: str, shown: str, is_error: bool) -> None:
    out = run(root, command)
    assert (out.output, out.is_error) == (shown, is_error)


def test_find_exit_one_is_shown_as_a_success(root: Path) -> None:
    out = run(root, "find nope a.txt")
    assert not out.is_error and out.output.startswith("a.txt\nfind: ") and "nope" in out.output


def test_blank_lines_at_both_ends_and_trailing_whitespace_are_dropped(root: Path) -> None:
    (root / "b.txt").write_text("\n  \n\t\n  indented\n\nlast  \t\n\n \n")
    assert run(root, "cat b.txt").output == "  indented\n\nlast"
    assert run(root, "cat src/../nothing 2>/dev/null; true").output == ""  # no output: an empty content


def test_the_shell_folder_is_the_cwd_parameter(root: Path) -> None:
    assert run(root, "ls", cwd=f"{CWD}/src").output == "m.py"
    assert run(root, "pwd", cwd="src").output == f"{CWD}/src"
    assert run(root, "cd src && pwd").output == f"{CWD}/src"
    assert "outside the workspace" in run(root, "ls", cwd="/etc").reason
    assert "missing in the replay folder" in run(root, "ls", cwd=f"{CWD}/gone").reason


# --- cuts ---------------------------------------------------------------------------------------


def big(root: Path, lines: int = 4000, width: int = 10) -> str:
    text = "".join(f"{i:0{width - 1}d}\n" for i in range(lines))
    (root / "big.txt").write_text(text)
    return text.rstrip("\n")


def test_before_2_1_2_a_long_output_keeps_its_head(root: Path) -> None:
    text = big(root)  # 40,000 characters
    rest = text[30000:].count("\n") + 1
    assert run(root, "cat big.txt", at="2.1.1").output == f"{text[:30000]}\n\n... [{rest} lines truncated] ..."
    assert run(root, "cat big.txt", at="2.0.64", max_output="95").output == \
        f"{text[:95]}\n\n... [{text[95:].count(chr(10)) + 1} lines truncated] ..."


def test_from_2_1_2_a_long_output_is_persisted(root: Path) -> None:
    text = big(root)
    out = run(root, "cat big.txt", at="2.1.2").output
    saved = "/Users/dev/.claude/projects/-Users-dev-cli/0f1e2d3c-session/tool-results/toolu_test.txt"
    head = text[:text[:2000].rfind("\n")]
    assert out == (f"<persisted-output>\nOutput too large (39.1KB). Full output saved to: {saved}\n\n"
                   f"Preview (first 2KB):\n{head}\n...\n</persisted-output>")
    recorded = out.replace(saved, "/Users/dev/.REDACTED.txt")  # what the recordings hold
    params = bash.Bash().from_recording(recorded, None)
    assert params == {"saved_path": "/Users/dev/.REDACTED.txt"}
    assert run(root, "cat big.txt", **params).output == recorded
    assert run(root, "head -c 29999 big.txt").output == text[:29999].rstrip("\n")  # at the size: shown whole


def test_a_long_failure_is_cut_in_the_middle_and_never_persisted(root: Path) -> None:
    text = big(root)
    whole = f"Exit code 1\ncat: nope: No such file or directory\n\n{text}"
    out = run(root, "cat nope big.txt")
    assert out.is_error and out.output == \
        f"{whole[:5000]}\n\n... [{len(whole) - 10000} characters truncated] ...\n\n{whole[-5000:]}"


def test_cut_applies_the_version_cut_to_another_output(root: Path) -> None:
    text = "x" * 35000
    call = Call("Bash", {"command": "cat big.txt"}, root, CWD, "2.1.1", Sandbox(root))
    assert bash.Bash().cut(text, call) == f"{text[:30000]}\n\n... [1 lines truncated] ..."
    later = Call("Bash", {"command": "cat big.txt"}, root, CWD, "2.1.20", Sandbox(root), {"saved_path": "/p"})
    assert bash.Bash().cut(text, later).startswith("<persisted-output>\nOutput too large (34.2KB). Full output "
                                                   "saved to: /p\n\nPreview (first 2KB):\n")


# --- what is not replayed -----------------------------------------------------------------------


@pytest.mark.parametrize(("command", "reason"), [
    ("rm -rf x", "unknown program rm"),
    ("echo x > f", "redirection"),
    ("python script.py", "unknown program python"),
    ("curl https://example.com", "unknown program curl"),
    ("cat $(echo a.txt)", "variable expansion"),
    ("cat `ls`", "command substitution"),
    ("cat ../secret", "outside the workspace"),
])
def test_a_command_that_is_not_read_only_is_refused(root: Path, command: str, reason: str) -> None:
    out = run(root, command)
    assert out.status == REFUSED and out.reason.startswith("not replayable: ") and reason in out.reason
    assert not (root / "f").exists() and not (root / "x").exists()


def test_a_background_command_and_unknown_versions_are_refused(root: Path) -> None:
    call = Call("Bash", {"command": "ls", "run_in_background": True}, root, CWD, "2.1.42", Sandbox(root))
    assert "background" in bash.Bash().run(call).reason
    assert run(root, "ls", at=None).status == REFUSED
    assert run(root, "ls", at="2.1.112").status == "replayed"  # a version after the ones read: as the newest
    assert run(root, "ls", at=None, version="2.1.42").output == "a.txt\nsrc"


def test_nothing_recorded_reaches_a_shell(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[tuple[list[str], bool]] = []
    real = subprocess.Popen

    def spy(argv, *args, **kwargs):
        started.append((list(argv), bool(kwargs.get("shell"))))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(sandbox_module.subprocess, "Popen", spy)
    for command in ("cat a.txt | grep al | head -1", "cd src && ls *.py", "grep -rn 'x; touch pwned' .",
                    "ls; sh -c 'touch pwned'", "bash -c 'touch pwned'", "cat a.txt && $(touch pwned)",
                    "find . -name '*.py' -exec touch pwned \\;", "git log -1; touch pwned"):
        run(root, command)
    assert started, "nothing ran at all"
    assert all(not shell and Path(argv[0]).name not in SHELLS for argv, shell in started)
    assert not (root / "pwned").exists()


def test_registered_with_its_parameters() -> None:
    cls = EMULATIONS[("claude-code", "Bash")]
    assert cls is bash.Bash and cls.versions == "2.0.64 - 2.1.332"
    assert {"cwd", "max_output", "saved_path", "version", "max_result_chars"} <= set(cls.params)
