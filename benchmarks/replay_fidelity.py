"""Fidelity of the agents' own tools re-run now (`replay --identity`) on real sessions committed beside their code.

The sessions are Entire's: github.com/entireio/cli keeps Claude Code transcripts on its
`entire/checkpoints/v1` branch (`<id[:2]>/<id[2:]>/<n>/full.jsonl`), and the `Entire-Checkpoint: <id>`
trailer of a commit of its history ties a checkpoint to a commit its sessions made. A session can span
several checkpoints (each folder's `metadata.json` names its `session_id`): its transcript is the longest one
kept, and its start state the last commit written (author date) before its first timestamp on the
first-parent history of the branch it recorded (Claude Code's gitBranch) when the clone still has it, else
of the earliest commit whose checkpoint holds it: replay's own `--at-session-start` (`--commit MADE` in the
second case; branches were rebased, merged and deleted: that commit's parent can be days newer than the
session, and a squash merge leaves none of the branch's own commits). Nothing here fetches anything: give a clone of the repository (all branches), e.g.

    git clone https://github.com/entireio/cli entire-cli && git -C entire-cli fetch origin entire/checkpoints/v1
    python benchmarks/replay_fidelity.py --repo entire-cli --sessions 25

The checkpoint branch is read from the clone (`git archive`) into a temporary folder. Each session's own
Read/Grep/Glob/Bash calls are re-run through Claude Code's emulated tools in the session's state (that
commit, the session's edits applied in order). Prints the fidelity per tool, the reasons for the rest, and
one line per session.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import toolaudit  # noqa: E402

BRANCH = "entire/checkpoints/v1"
TOOLS = ("Read", "Grep", "Glob")


def checkpoints(repo: Path) -> dict[str, list[tuple[int, str]]]:
    """checkpoint id -> [(commit time, commit)] of every commit whose message carries its trailer."""
    # the code's history only: the checkpoint branch's own commits carry the trailer too
    out = subprocess.run(["git", "-C", str(repo), "log", f"--exclude=*{BRANCH}*", "--all",
                          "--format=%x1e%ct %H %P%x1f%(trailers:"
                          "key=Entire-Checkpoint,valueonly)"], capture_output=True, text=True, check=True).stdout
    found: dict[str, list[tuple[int, str]]] = {}
    for record in out.split("\x1e"):
        head, _, ids = record.partition("\x1f")
        parts = head.split()
        if len(parts) >= 3:
            for cid in ids.replace(",", " ").split():
                found.setdefault(cid, []).append((int(parts[0]), parts[1]))
    return found


def extract(repo: Path, into: Path) -> None:
    """The checkpoint branch's files (a local branch, or the clone's origin/...), into `into`."""
    ref = BRANCH
    if subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", ref], capture_output=True).returncode:
        ref = f"origin/{BRANCH}"
    with subprocess.Popen(["git", "-C", str(repo), "archive", ref], stdout=subprocess.PIPE) as proc:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            tar.extractall(into, filter="data")


AGENTS = ("claude-code", "gemini-cli")  # toolaudit's collector keys (metadata.json's `agent` is not always right)


def agent_sessions(root: Path, found: dict[str, list[tuple[int, str]]], agent: str) -> list[tuple[Path, str]]:
    """(transcript, earliest commit) of each session of `agent`: its longest transcript, the first commit it made."""
    longest: dict[str, Path] = {}
    starts: dict[str, list[tuple[int, str]]] = {}
    for meta in sorted(root.glob("*/*/*/metadata.json")):
        session = meta.parent / "full.jsonl"
        sid = json.loads(meta.read_text(encoding="utf-8")).get("session_id")
        if not sid or not session.is_file() or _format(session) != agent:
            continue
        starts.setdefault(sid, []).extend(found.get(meta.parts[-4] + meta.parts[-3], []))
        if sid not in longest or session.stat().st_size > longest[sid].stat().st_size:
            longest[sid] = session
    return [(path, min(starts[sid])[1]) for sid, path in longest.items() if starts.get(sid)]


def _format(session: Path) -> str | None:
    """The transcript format toolaudit detects in `session` (its collector's key)."""
    from toolaudit.collectors import discover

    cls, _ = discover.detect(session)
    return cls.key if cls is not None else None


def _has_branch(repo: Path, session: Path) -> bool:
    """Whether the clone has the branch the session recorded (Claude Code's gitBranch), locally or as a remote's."""
    with session.open(encoding="utf-8", errors="replace") as lines:
        branch = next((json.loads(line).get("gitBranch") for line in lines if '"gitBranch"' in line), None)
    if not branch:
        return False
    refs = subprocess.run(["git", "-C", str(repo), "for-each-ref", "--format=%(refname)", f"refs/heads/{branch}",
                           f"refs/remotes/*/{branch}"], capture_output=True, text=True).stdout.split()
    return bool(refs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a clone of entireio/cli with the checkpoints branch")
    ap.add_argument("--sessions", type=int, default=25, help="how many sessions (those with the most calls first)")
    ap.add_argument("--json", type=Path, help="also write the per-session figures here")
    ap.add_argument("--checkpoints", type=Path, help="the checkpoint branch's files, already extracted")
    ap.add_argument("--agent", choices=AGENTS, default="claude-code", help="whose sessions")
    ap.add_argument("--on-branch", action="store_true",
                    help="only sessions whose recorded branch the clone still has (main included): a branch deleted "
                         "after a squash merge leaves no commit of the state its sessions started from")
    args = ap.parse_args()
    found = checkpoints(args.repo)
    with tempfile.TemporaryDirectory() as tmp:
        if args.checkpoints:
            tmp = str(args.checkpoints)
        else:
            extract(args.repo, Path(tmp))
        sessions = agent_sessions(Path(tmp), found, args.agent)
        if args.on_branch:  # only sessions whose start state can be read from a branch the clone still has
            sessions = [s for s in sessions if _has_branch(args.repo, s[0])]
        # the sessions with the most read-only calls: the ones a fidelity table is about
        counted = sorted(sessions, key=lambda s: -sum(s[0].read_text(errors="replace").count(f'"name":"{t}"')
                                                     for t in TOOLS))[: args.sessions]  # Gemini's: by file order
        totals: dict[str, Counter] = {}
        reasons: Counter = Counter()
        rows = []
        for path, made in counted:
            # replay's own --at-session-start: the last commit written before the session began on the history of
            # the branch it recorded when the clone still has it, else of the first commit it made (--commit)
            on_branch = _has_branch(args.repo, path)
            result = toolaudit.replay([path], workspace=str(args.repo), identity=True,
                                      commit=None if on_branch else made, at_session_start=True)
            report = result.identity
            if report is None:
                continue
            rows.append({"session": str(path.relative_to(tmp)), "commit": None if on_branch else made,
                         "notes": list(result.notes),
                         **{k: getattr(report.totals, k) for k in ("calls", "replayed", "identical", "order_only",
                                                                   "within_1pct")}})
            for row in report.tools:
                acc = totals.setdefault(row.tool, Counter())
                for k in ("calls", "replayed", "identical", "order_only", "within_1pct"):
                    acc[k] += getattr(row, k)
                reasons.update({(row.tool, r): n for r, n in row.reasons})
            print(f"{rows[-1]['session']}: {report.totals.within_1pct}/{report.totals.replayed} within ±1%, "
                  f"{report.totals.identical} identical, of {report.totals.calls} calls", file=sys.stderr)
    print(f"{len(rows)} sessions")
    print(f"{'tool':6} {'calls':>6} {'replayed':>8} {'identical':>9} {'reordered':>9} {'±1%':>6} {'rate':>7}")
    for tool, acc in sorted(totals.items(), key=lambda kv: -kv[1]["calls"]):
        rate = acc["within_1pct"] / acc["replayed"] if acc["replayed"] else 0
        print(f"{tool:6} {acc['calls']:6} {acc['replayed']:8} {acc['identical']:9} {acc['order_only']:9} "
              f"{acc['within_1pct']:6} {rate:7.1%}")
    folded: Counter = Counter()  # the many "uncertain: after `CMD`" reasons said once per tool
    for (tool, reason), n in reasons.items():
        if reason.startswith("uncertain:") and "`git status` showed" in reason:
            reason = "uncertain: the session's own `git status` listed it as not committed (not compared)"
        elif reason.startswith("uncertain:"):
            reason = "uncertain: after a command that may have written files (not compared)"
        folded[(tool, reason)] += n
    for tool in sorted(totals, key=lambda t: -totals[t]["calls"]):
        for (t, reason), n in sorted(folded.items(), key=lambda kv: -kv[1]):
            if t == tool:
                print(f"  {tool}: {n} × {reason}")
    if args.json:
        args.json.write_text(json.dumps({"sessions": rows, "tools": {t: dict(acc) for t, acc in totals.items()},
                                         "reasons": [[t, r, n] for (t, r), n in folded.most_common()]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
