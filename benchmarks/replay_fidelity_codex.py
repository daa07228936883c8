"""Fidelity of Codex CLI's shell tools re-run now (`replay --identity`) on real sessions committed beside their code.

The sessions are Codex CLI rollouts (`rollout-*.jsonl`, codex_cli_rs 0.34 - 0.116: `shell`, `shell_command`,
`exec_command`) that public repositories commit, most of them because the project sets CODEX_HOME to its own
`.codex/` folder (`.codex/sessions/YYYY/MM/DD/rollout-….jsonl`). The repository is then the session's workspace and
its start state is the commit the rollout recorded (session_meta.git.commit_hash) when the clone has it, else the last
commit written before the session's first timestamp (replay's own `--at-session-start`); a session older than every
commit of its repository (the session created it) has no start state and is left out, as are the calls replay cannot
place in a known state (after a command it cannot read, or an edit that did not apply). One pair differs:
AcidicSoil/codex-session-view commits a 0.58.0 rollout whose session worked in a fork of mckaywrigley/chatbot-ui; the
commit it recorded (0f022a04, AcidicSoil/chatbot-ui) is not public, and AcidicSoil/chatbot-ui-cloud holds the same
working tree committed 3.5 hours after the session (`first commit` e97a404): that is its workspace (`--commit`).

Nothing here fetches anything: give the clones, every ref included (some rollouts and commits are only on pull
request refs), e.g. for each repository of REPOS (and AcidicSoil/chatbot-ui-cloud):

    git clone --mirror https://github.com/Hoper-J/cpolar-connect clones/Hoper-J+cpolar-connect.git
    python benchmarks/replay_fidelity_codex.py --clones clones

A clone may also be named `owner+name` (any clone with the refs), or given one by one: `--clone owner/name=PATH`.
Each repository's rollouts (the longest version of each, read from the clone's history with `git show`) are replayed
together, so that a resumed session's calls, which repeat those of the session it continues, count once. Prints the
fidelity per tool (calls, replayed in a known state, byte-identical, reordered, within ±1% tokens, rate), the reasons
replay gives for the rest, one line per repository, and with `--classify` what differs in each replayed call that is
not byte-identical (read from the two texts: the start state, the machine, the order, or the emulation; it reads
replay's per-call results through its runner, an internal seam).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import toolaudit  # noqa: E402

# repositories committing Codex rollouts whose sessions worked in the repository itself (checked by hand: the
# recorded cwd is the repository's root, POSIX shell, and the recorded commit, or one before the session, exists)
REPOS = (
    "Monotoba/OpenPrintKit",                    # 0.34.0 shell
    "Hoper-J/cpolar-connect",                   # 0.36.0 shell
    "Maidang1/madinah",                         # 0.46.0 shell
    "chunrui-qashier/md-http-server",           # 0.46.0 shell
    "Nuttapong14/crypto-wallet",                # 0.46.0 - 0.47.0 shell
    "Kooksun/RPS_3",                            # 0.47.0 - 0.50.0 shell
    "LeroySalih/planner-004",                   # 0.53.0 shell
    "Kooksun/Lotto645",                         # 0.55.0 shell
    "brianlan/paper2md",                        # 0.55.0 shell
    "MikeLockz/el-dorado-tanstack",             # 0.57.0 - 0.58.0 shell
    "EdofEngland/code_butler",                  # 0.63.0 shell_command
    "MaksimKravchuk/brain_buddy",               # 0.63.0 - 0.64.0 shell_command
    "aneesh199608/dslint",                      # 0.66.0 shell_command
    "Ogekuri/useReq",                           # 0.70.0 - 0.72.0 shell_command
    "Ogekuri/G",                                # 0.70.0 - 0.72.0 shell_command
    "arnemohr/funke",                           # 0.72.0 shell_command
    "0h-n0/local-voice-assistant-codex",        # 0.77.0 shell_command
    "AidenPeacock/ECE_493_Lab_2",               # 0.98.0 exec_command
    "493-Property-Estimator/Capstone-Test-Repo",  # 0.98.0 - 0.104.0 exec_command
    "DimiCheck/dimicheck4",                     # 0.116.0 exec_command
)
# a rollout committed in one repository whose session worked in another: (rollout repo, file, workspace repo, commit)
ELSEWHERE = (
    ("AcidicSoil/codex-session-view",
     ".sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
     "AcidicSoil/chatbot-ui-cloud", "e97a404fc9cbf80ff2fc84976158565c2697a78a"),
)
# seen and left out: Quelklef/shell-ws, borfast/cooking-times, IsaacIndex/qna-data-dashboard (the sessions predate
# every commit), AaronBakerDev/knearme-platform (sessions in folders since moved into a monorepo),
# Gordondalos/mail-agent (Windows, PowerShell), JaydenXsoe/ocodex (rollouts without cwd or version)
SHELL_TOOLS = ("shell", "shell_command", "exec_command", "local_shell")
KEYS = ("calls", "replayed", "identical", "order_only", "within_1pct")


def git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)


def find_clone(clones: Path | None, given: dict[str, Path], repo: str) -> Path | None:
    """The clone of `repo`: given with --clone, else `owner+name[.git]`, `owner/name[.git]` or `name` in --clones."""
    if repo in given:
        return given[repo]
    if clones is None:
        return None
    owner, name = repo.split("/")
    for candidate in (f"{owner}+{name}", f"{owner}+{name}.git", f"{owner}/{name}", f"{owner}/{name}.git", name):
        if (clones / candidate).is_dir():
            return clones / candidate
    return None


def rollouts(clone: Path) -> dict[str, str]:
    """Every rollout the clone's history holds: path -> the commit holding its longest version."""
    out = git(clone, "log", "--all", "--format=%x1e%H", "--name-only", "--diff-filter=AM", "--",
              "*rollout-*.jsonl").stdout.decode()
    found: dict[str, tuple[int, str]] = {}
    for record in out.split("\x1e"):
        commit, *paths = record.strip().split("\n")
        for path in filter(None, paths):
            size = git(clone, "cat-file", "-s", f"{commit}:{path}").stdout.strip()
            if size.isdigit() and int(size) > found.get(path, (-1, ""))[0]:
                found[path] = (int(size), commit)
    return {path: commit for path, (_, commit) in sorted(found.items())}


@dataclass
class Session:
    file: Path          # the rollout, extracted
    name: str           # repo:path, for the report
    version: str
    first: str          # its first timestamp
    recorded: str       # session_meta.git.commit_hash ("" when none)


def extract(clone: Path, path: str, commit: str, into: Path, repo: str) -> Session | None:
    """The rollout written to `into`, or None when it holds no shell call of Codex."""
    data = git(clone, "show", f"{commit}:{path}").stdout
    if not any(f'"name":"{tool}"'.encode() in data for tool in SHELL_TOOLS):
        return None
    target = into / repo.replace("/", "+") / Path(path).name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    meta, first = {}, ""
    for line in data.decode("utf-8", "replace").splitlines()[:20]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        first = first or record.get("timestamp", "")
        if record.get("type") == "session_meta":
            meta = record.get("payload") or {}
            break
    recorded = (meta.get("git") or {}).get("commit_hash") or ""
    return Session(target, f"{repo}:{path}", meta.get("cli_version") or "?", first, recorded)


def has_commit(clone: Path, rev: str) -> bool:
    return bool(rev) and git(clone, "cat-file", "-e", f"{rev}^{{commit}}").returncode == 0


def commit_before(clone: Path, when: str) -> bool:
    """Whether the clone's HEAD history has a commit written before `when` (the session's first timestamp)."""
    try:
        stamp = datetime.fromisoformat(when).timestamp()
    except ValueError:
        return False
    dates = git(clone, "log", "--first-parent", "--format=%at", "HEAD").stdout.decode().split()
    return any(int(d) < stamp for d in dates)


# ------------------------------------------------------------------ what differs, read from the two texts

def _body(text: str) -> str:
    """A Codex output's command output: the JSON wrapper's `output`, or what follows `Output:`."""
    if text.startswith('{"output":'):
        try:
            return json.loads(text)["output"]
        except (ValueError, KeyError, TypeError):
            return text
    return text.partition("\nOutput:\n")[2] if "\nOutput:\n" in text else text


_PROFILE = re.compile(r"^/\S+: line \d+: .*\n")  # a login shell's profile complaining (Homebrew's shellenv.sh)
_LS_LONG = re.compile(r"^(total \d+|[-dlcbps][-rwxsStT]{9}[@+.]?\s+\d+\s)")
# macOS's ls and find say `ls: P: No such…`, GNU's `ls: cannot access 'P': No such…` and `find: ‘P’: No such…`
_BSD = re.compile(r"^(ls: (?!cannot access )|find: (?!‘))[^:\n]+: No such file or directory$", re.MULTILINE)
_MISSING = ("No such file or directory", "cannot access", "can't read")


def what_differs(command: str, recorded: str, replayed: str) -> str:
    """Why a replayed call's output is not the recorded one, from the texts alone, in a few words."""
    rec, got = _body(recorded), _body(replayed)
    if _PROFILE.match(rec) and not _PROFILE.match(got):
        return "machine: the login shell's profile printed a line first (Homebrew shellenv.sh under Codex's sandbox)"
    if rec == got:
        return "emulation: the same command output, wrapped or cut otherwise"
    rec_lines, got_lines = rec.splitlines(), got.splitlines()
    if re.search(r"\bgit (status|diff|log)\b", command):
        return "start state: git status/diff (uncommitted changes, the detached worktree's branch)"
    if sorted(rec_lines) == sorted(got_lines):
        if re.search(r"\b(rg|grep|find)\b", command):
            return "order: the same lines in another order (rg's or find's walk, the disk's own order)"
        return "order: the same lines in another order (ls and globs sorted by the user's locale)"
    changed = [line for line in rec_lines if line not in got_lines] + [line for line in got_lines
                                                                       if line not in rec_lines]
    if changed and all(_LS_LONG.match(line) for line in changed):
        return "machine: `ls -l` owner, times and sizes"
    if _BSD.search(rec) and not _BSD.search(got):
        return "machine: macOS (BSD) tools' messages and output"
    if any(m in got[:300] for m in _MISSING) and not any(m in rec[:300] for m in _MISSING):
        return "start state: a path the session saw is not in the commit (untracked, or committed later)"
    if set(got_lines) < set(rec_lines):
        return "start state: files the session saw that the commit lacks (untracked: builds, caches, new files)"
    if any(m in rec[:300] for m in _MISSING) and not any(m in got[:300] for m in _MISSING):
        return "start state: a path the session lacked is in the commit"
    cut = "[... omitted" in rec or "truncated" in rec[:200] or "Total output lines" in rec[:40]
    if cut and re.search(r"\b(rg|grep|find)\b", command):
        return "order: the walk's order under the cut (other lines kept)"
    return "start state: the files differ from the commit (uncommitted changes, or edits applied otherwise)"


@contextmanager
def captured_calls():
    """The replayed calls of every file replay reads (its runner's per-file result), for --classify."""
    from toolaudit.replay import runner

    seen: list = []
    original = runner.Runner.replay_file

    def replay_file(self, path, forced=None):
        done = original(self, path, forced)
        seen.append(done)
        return done

    runner.Runner.replay_file = replay_file
    try:
        yield seen
    finally:
        runner.Runner.replay_file = original


def classify(files: list) -> Counter:
    """(tool, within ±1% tokens or not, what differs) for every call counted as replayed in a known state and not
    byte-identical."""
    from toolaudit.replay.fidelity import DIFFERS
    from toolaudit.replay.fidelity import classify as kind_of
    from toolaudit.tokenizers import get_tokenizer

    count = get_tokenizer().count
    found: Counter = Counter()
    for done in files:
        for item in done.calls:
            if (item.identity is None or item.doubt or not item.emulated or item.status == "duplicate"
                    or item.before.tool not in SHELL_TOOLS or item.identity.output == item.before.output):
                continue
            try:
                args = json.loads(item.before.args)
                command = args.get("command") or args.get("cmd") or ""
            except (ValueError, AttributeError):
                command = ""
            command = command[-1] if isinstance(command, list) and command else command
            recorded, replayed = item.before.output, item.identity.output
            within = kind_of(recorded, replayed, count(recorded), count(replayed)) != DIFFERS
            found[(item.before.tool, within, what_differs(str(command), recorded, replayed))] += 1
    return found


# ------------------------------------------------------------------ main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clones", type=Path, help="a folder of clones named owner+name (or owner+name.git)")
    ap.add_argument("--clone", action="append", default=[], metavar="OWNER/NAME=PATH", help="one clone (repeatable)")
    ap.add_argument("--repo", action="append", default=[], help="only this repository (repeatable)")
    ap.add_argument("--classify", action="store_true", help="say what differs in each replayed call not identical")
    ap.add_argument("--json", type=Path, help="also write the per-repository figures here")
    args = ap.parse_args()
    given = {}
    for pair in args.clone:
        name, _, path = pair.partition("=")
        given[name] = Path(path)
    wanted = set(args.repo)
    totals: dict[str, Counter] = {}
    reasons: Counter = Counter()
    differs: Counter = Counter()
    rows, missing, left_out = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        groups: list[tuple[str, Path, str | None, bool, list[Session]]] = []
        for repo in REPOS:
            if wanted and repo not in wanted:
                continue
            clone = find_clone(args.clones, given, repo)
            if clone is None:
                missing.append(repo)
                continue
            recorded, at_start = [], []
            held = rollouts(clone)
            if not held:  # said, not silently skipped: a clone without every ref may lack the rollouts
                left_out.append(f"{repo}: its clone's history holds no rollout-*.jsonl (cloned without every ref?)")
            for path, commit in held.items():
                session = extract(clone, path, commit, Path(tmp), repo)
                if session is None:
                    continue
                if has_commit(clone, session.recorded):
                    recorded.append(session)
                elif commit_before(clone, session.first):
                    at_start.append(session)
                else:
                    left_out.append(f"{session.name}: no commit before the session ({session.first})")
            groups += [(repo, clone, None, False, recorded), (repo, clone, None, True, at_start)]
        for repo, path, workspace, commit in ELSEWHERE:
            if wanted and repo not in wanted and workspace not in wanted:
                continue
            clone, space = find_clone(args.clones, given, repo), find_clone(args.clones, given, workspace)
            if clone is None or space is None:
                missing += [r for r, c in ((repo, clone), (workspace, space)) if c is None]
                continue
            held = rollouts(clone)
            session = extract(clone, path, held[path], Path(tmp), repo) if path in held else None
            if session is not None:
                groups.append((repo, space, commit, False, [session]))
        for repo, clone, commit, at_start, sessions in groups:
            if not sessions:
                continue
            with captured_calls() as files:
                result = toolaudit.replay([str(s.file) for s in sessions], workspace=str(clone), identity=True,
                                          commit=commit, at_session_start=at_start)
            report = result.identity
            if report is None:
                continue
            if args.classify:
                differs.update(classify(files))
            versions = sorted({s.version for s in sessions})
            rows.append({"repo": repo, "sessions": [s.name.split(":", 1)[1] for s in sessions],
                         "versions": versions, "commit": commit, "at_session_start": at_start,
                         "duplicates_dropped": result.duplicates_dropped,
                         **{k: getattr(report.totals, k) for k in KEYS}})
            for row in report.tools:
                acc = totals.setdefault(row.tool, Counter())
                for k in KEYS:
                    acc[k] += getattr(row, k)
                reasons.update({(row.tool, r): n for r, n in row.reasons})
            t = report.totals
            how = f"--commit {commit[:10]}" if commit else "--at-session-start" if at_start else "recorded commits"
            print(f"{repo} ({len(sessions)} sessions, {', '.join(versions)}, {how}): {t.within_1pct}/{t.replayed} "
                  f"within ±1%, {t.identical} identical, of {t.calls} calls", file=sys.stderr)
    for line in left_out:
        print(f"left out: {line}", file=sys.stderr)
    if missing:
        print(f"no clone of: {', '.join(sorted(set(missing)))}", file=sys.stderr)
    print(f"{sum(len(r['sessions']) for r in rows)} sessions in {len({r['repo'] for r in rows})} repositories")
    print(f"{'tool':13} {'calls':>6} {'replayed':>8} {'identical':>9} {'reordered':>9} {'±1%':>6} {'rate':>7}")
    whole = Counter()
    for tool, acc in sorted(totals.items(), key=lambda kv: -kv[1]["calls"]):
        whole.update(acc)
        rate = acc["within_1pct"] / acc["replayed"] if acc["replayed"] else 0
        print(f"{tool:13} {acc['calls']:6} {acc['replayed']:8} {acc['identical']:9} {acc['order_only']:9} "
              f"{acc['within_1pct']:6} {rate:7.1%}")
    if len(totals) > 1:
        rate = whole["within_1pct"] / whole["replayed"] if whole["replayed"] else 0
        print(f"{'TOTAL':13} {whole['calls']:6} {whole['replayed']:8} {whole['identical']:9} {whole['order_only']:9} "
              f"{whole['within_1pct']:6} {rate:7.1%}")
    for (tool, reason), n in reasons.most_common(25):
        print(f"  {tool}: {n} × {reason}")
    if args.classify:
        for within, heading in ((False, "not within ±1% tokens"), (True, "within ±1% tokens, not byte-identical")):
            print(f"what differs, {heading}:")
            picked = [(tool, what, n) for (tool, w, what), n in differs.items() if w == within]
            for tool, what, n in sorted(picked, key=lambda t: (t[0], -t[2], t[1])):
                print(f"  {tool}: {n} × {what}")
    if args.json:
        differs_rows = [[tool, within, what, n] for (tool, within, what), n in differs.items()]
        args.json.write_text(json.dumps({"repositories": rows, "left_out": left_out, "differs": differs_rows},
                                        indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
