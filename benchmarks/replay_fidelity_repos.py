"""Fidelity of `replay --identity` on repositories the replay rules were not tuned on, per agent version.

The repositories (benchmarks/replay_sources.py: REPOSITORIES) commit Claude Code and Codex sessions beside their code,
on Entire's checkpoint branch or refs, or as a committed `claude-session.jsonl`/`codex-session.jsonl`. Each Claude Code
session is replayed alone, the Codex sessions of one version and start together (a resumed or forked rollout repeats
the calls of the one it continues: they count once), with `--identity` at `--at-session-start`: on the branch it recorded when the clone has it (Codex: the
commit the rollout recorded), else on the history of the commit it made (`--commit`). Nothing is fetched: give a
folder of clones, every ref included, named `owner+name` (or `owner+name.git`, or fetch's `owner+name/repo`):

    git clone --mirror https://github.com/rommeld/leeson clones/rommeld+leeson.git
    python benchmarks/replay_fidelity_repos.py --clones clones --json after.json

Prints the read-only calls (Claude Code's Read/Grep/Glob; Codex's shell tools, which replay re-runs only for
read-only commands) per agent version, per repository and per tool: calls, replayed in a known state, byte-identical,
reordered, within ±1% tokens, and the rate (within ±1% of replayed); the tuning set and the held-out set
(HELD_OUT: measured, never looked into while rules change) apart; the reasons for the calls not replayed; with
`--examples N`, what differs in each call replayed and not within ±1% (read from the two texts: the start state
or the emulation; Codex's as replay_fidelity_codex.py reads them), and up to N such calls per version (tool, what it
read, tokens recorded and replayed: no output text), read through replay's runner (an internal seam).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(1, str(Path(__file__).resolve().parent))

import toolaudit  # noqa: E402
from replay_sources import HELD_OUT, READ_ONLY, REPOSITORIES, bucket, find_clone, sessions  # noqa: E402

KEYS = ("calls", "replayed", "identical", "order_only", "within_1pct")
BASH = ("Bash",)


@contextmanager
def captured_calls():
    """The replayed calls of every file replay reads (its runner's per-file result), for --examples."""
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


def _what(args: str) -> str:
    """What a call read, in a few words (its path, pattern or command), never its output."""
    try:
        value = json.loads(args)
    except ValueError:
        return args[:80]
    if not isinstance(value, dict):
        return str(value)[:80]
    for key in ("file_path", "pattern", "command", "cmd", "path"):
        if value.get(key):
            got = value[key]
            got = " ".join(got) if isinstance(got, list) else str(got)
            extra = {k: v for k, v in value.items() if k in ("offset", "limit", "glob", "output_mode", "path")
                     and k != key}
            return (got[:100] + (f" {extra}" if extra else ""))[:140]
    return json.dumps(value)[:100]


_PREFIX = re.compile(r"^\s*\d+(→|\t)", re.MULTILINE)
_ABSENT = ("does not exist", "No such file", "not found", "ENOENT", "cannot access")


def what_differs(agent: str, tool: str, command: str, recorded: str, replayed: str) -> str:
    """Why a replayed call is outside ±1% tokens, read from the two texts: the start state or the emulation."""
    if agent == "codex":
        from replay_fidelity_codex import what_differs as codex_differs

        return codex_differs(command, recorded, replayed)
    if any(m in replayed[:400] for m in _ABSENT) and not any(m in recorded[:400] for m in _ABSENT):
        return "start state: a path the session read is not in the commit (untracked, or committed later)"
    if any(m in recorded[:400] for m in _ABSENT) and not any(m in replayed[:400] for m in _ABSENT):
        return "start state: a path the session lacked is in the commit"
    rec, got = _PREFIX.sub("", recorded), _PREFIX.sub("", replayed)
    if rec == got:
        return "emulation: the same lines, numbered otherwise"
    if rec.split("<system-reminder>")[0].rstrip() == got.split("<system-reminder>")[0].rstrip():
        return "emulation: the same text, another reminder"
    rec_lines, got_lines = set(rec.splitlines()), set(got.splitlines())
    if tool in ("Grep", "Glob") and got_lines < rec_lines:
        return "start state: files the session saw that the commit lacks"
    if tool in ("Grep", "Glob") and rec_lines < got_lines:
        return "start state: files in the commit the session did not see (added later, or ignored then)"
    return "start state: the file's text differs from the commit's (uncommitted work, or edits applied otherwise)"


def misses(files: list, agent: str) -> list[dict]:
    """The calls counted as replayed that are not within ±1% tokens: tool, what it read, token counts."""
    from toolaudit.replay.fidelity import DIFFERS
    from toolaudit.replay.fidelity import classify as kind_of
    from toolaudit.tokenizers import get_tokenizer

    count = get_tokenizer().count
    found = []
    for done in files:
        for item in done.calls:
            if (item.identity is None or item.doubt or not item.emulated or item.status == "duplicate"
                    or item.before.tool not in READ_ONLY[agent]):
                continue
            recorded, replayed = item.before.output, item.identity.output
            a, b = count(recorded), count(replayed)
            if kind_of(recorded, replayed, a, b) == DIFFERS:
                what = _what(item.before.args)
                found.append({"tool": item.before.tool, "what": what, "recorded_tokens": a, "replayed_tokens": b,
                              "differs": what_differs(agent, item.before.tool, what, recorded, replayed)})
    return found


def _no_start(result) -> bool:
    """Whether replay refused the session's calls for want of a commit written before it began."""
    return any(reason.startswith("no commit before the session started") for _, reason, _ in result.reasons)


def _verdict(result) -> str:
    """The report's verdict line, as a user replaying the session sees it (a session that replays none must say why
    and what to do)."""
    from toolaudit.reports.replay_view import _verdict as verdict

    return verdict(result.totals, result.new_errors, result)


def _add(acc: Counter, row) -> None:
    for k in KEYS:
        acc[k] += getattr(row, k)


def _rate(acc: Counter) -> str:
    return f"{acc['within_1pct'] / acc['replayed']:.1%}" if acc["replayed"] else "-"


def _table(title: str, rows: dict[str, Counter], width: int = 34) -> None:
    print(f"\n{title}")
    print(f"{'':{width}} {'sessions':>8} {'none':>5} {'calls':>6} {'replayed':>8} {'identical':>9} {'reordered':>9} "
          f"{'±1%':>6} {'rate':>7}")
    for name, acc in rows.items():
        print(f"{name:{width}} {acc['sessions'] or '':8} {acc['none'] or '':5} {acc['calls']:6} {acc['replayed']:8} "
              f"{acc['identical']:9} {acc['order_only']:9} {acc['within_1pct']:6} {_rate(acc):>7}")


def _version_key(name: str) -> tuple:
    digits = [int(p) for p in name.replace("x", "0").replace("-", " ").replace(".", " ").split() if p.isdigit()]
    return (name.startswith("Codex"), digits)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clones", type=Path, required=True, help="a folder of clones named owner+name")
    ap.add_argument("--repo", action="append", default=[], help="only this repository (repeatable)")
    ap.add_argument("--held-out", dest="held_out", action="store_true",
                    help="only the held-out repositories (never tuned on)")
    ap.add_argument("--tuning", action="store_true", help="only the repositories rules may be tuned on")
    ap.add_argument("--agent", choices=("claude-code", "codex"), help="only this agent's sessions")
    ap.add_argument("--per-repo", type=int, default=12,
                    help="sessions per repository and agent version (those with the most read-only calls first)")
    ap.add_argument("--examples", type=int, default=0, help="list up to N calls per version outside ±1%%")
    ap.add_argument("--no-chain", dest="chain", action="store_false",
                    help="replay each Claude Code session without the sessions that ran before it behind one commit")
    ap.add_argument("--json", type=Path, help="also write every session's figures here")
    args = ap.parse_args()
    repos = [r for r in REPOSITORIES if (not args.repo or r.name in args.repo)
             and not (args.held_out and not r.held_out) and not (args.tuning and r.held_out)]
    by_version: dict[str, Counter] = defaultdict(Counter)
    by_repo: dict[str, Counter] = defaultdict(Counter)
    by_tool: dict[str, Counter] = defaultdict(Counter)
    by_set: dict[str, Counter] = defaultdict(Counter)
    by_set_version: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    by_agent: dict[str, Counter] = defaultdict(Counter)
    reasons: Counter = Counter()
    refused_why: Counter = Counter()  # (agent, status: reason) -> calls of any tool
    differs: Counter = Counter()  # (version group, what differs) -> calls replayed and not within ±1%
    examples: dict[str, list[dict]] = defaultdict(list)
    rows, missing = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for repo in repos:
            clone = find_clone(args.clones, repo.name)
            source = find_clone(args.clones, repo.sessions_from) if repo.sessions_from else clone
            if clone is None or source is None:
                missing.append(repo.name if clone is None else repo.sessions_from)
                continue
            picked: dict[str, list] = defaultdict(list)
            by_made: dict[str, list] = defaultdict(list)  # the sessions behind one commit
            for session in sessions(source, repo.name, Path(tmp), clone if repo.sessions_from else None):
                if any(part in session.name for part in repo.leave_out):
                    continue
                by_made[session.made].append(session)
                if args.agent in (None, session.agent):
                    picked[bucket(session.agent, session.version)].append(session)
            chosen = [s for group in picked.values()
                      for s in sorted(group, key=lambda s: -s.calls)[: args.per_repo] if s.calls]
            # a Codex session resumed or forked repeats the calls of the one it continues in a rollout of its own:
            # the sessions of one version and start are replayed together, so that those count once
            units: dict[tuple, list] = defaultdict(list)
            for one in chosen:
                commit = None if one.on_branch else one.made or None  # imported: the default branch then
                units[(one.agent, bucket(one.agent, one.version) if one.agent == "codex" else one.name,
                       commit)].append(one)
            for (_, _, commit), together in units.items():
                session = replace(together[0], name=", ".join(s.name for s in together),
                                  version=", ".join(sorted({s.version for s in together})),
                                  calls=sum(s.calls for s in together))
                with captured_calls() as files:
                    try:
                        # the other sessions behind the commit a Claude Code session led to (Entire's checkpoint,
                        # Codex's included): those that ran before it in its folder left their work there
                        # (replay.chain), read for that alone
                        earlier = [str(s.file) for s in by_made.get(together[0].made, ())
                                   if s not in together] if together[0].agent == "claude-code" \
                            and together[0].made else []  # imported sessions share no commit
                        result = toolaudit.replay([str(s.file) for s in together], workspace=str(clone),
                                                  identity=True, commit=commit, at_session_start=True,
                                                  earlier=earlier if args.chain else [])
                        if commit is None and together[0].made and _no_start(result):
                            # the recorded branch holds no commit written before the session: its history was
                            # rewritten (paretoimproved's `main` is a new root of 2026-04-04, its sessions ran in
                            # February and March); the commit the session made is on the history it worked on
                            files.clear()
                            result = toolaudit.replay([str(s.file) for s in together], workspace=str(clone),
                                                      identity=True, commit=together[0].made, at_session_start=True,
                                                      earlier=earlier if args.chain else [])
                    except Exception as exc:  # a refusal is a figure too: the session replays nothing
                        print(f"{repo.name} {session.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
                        rows.append({"repo": repo.name, "session": session.name, "agent": session.agent,
                                     "version": session.version, "error": f"{type(exc).__name__}: {exc}"})
                        failed = Counter(sessions=len(together), none=len(together), calls=session.calls)
                        which = "held out" if repo.held_out else "tuning"
                        group = bucket(session.agent, together[0].version)
                        for acc in (by_version[group], by_repo[repo.name], by_set[which], by_set_version[which][group]):
                            acc.update(failed)
                        continue
                report = result.identity
                group = bucket(session.agent, together[0].version)
                whole, shell = Counter(), Counter()
                # the calls as recorded (the main table's): the identity report of some versions leaves out
                # the calls it refused outright
                recorded = {row.tool: row.calls for row in result.tools}
                for row in (report.tools if report is not None else ()):
                    if row.tool in READ_ONLY[session.agent] + BASH:
                        into = whole if row.tool in READ_ONLY[session.agent] else shell
                        _add(into, row)
                        _add(by_tool[f"{session.agent} {row.tool}"], row)
                        into["calls"] += recorded.get(row.tool, row.calls) - row.calls
                        by_tool[f"{session.agent} {row.tool}"]["calls"] += recorded.get(row.tool, row.calls) - row.calls
                    if row.tool in READ_ONLY[session.agent]:
                        reasons.update({(session.agent, row.tool, r): n for r, n in row.reasons
                                        if not r.startswith("the same lines")})
                listed = {row.tool for row in (report.tools if report is not None else ())}
                for tool, n in recorded.items():
                    if tool in READ_ONLY[session.agent] and tool not in listed:
                        whole["calls"] += n
                        by_tool[f"{session.agent} {tool}"]["calls"] += n
                # why calls were refused outright (a version, no start commit), over all the session's tools
                refusals = [(status, reason, n) for status, reason, n in result.reasons
                            if status not in ("kept", "replayed") and "no --tool mapping" not in reason]
                for status, reason, n in refusals:
                    refused_why[(session.agent, f"{status}: {reason}")] += n
                whole["sessions"] = len(together)
                whole["none"] = len(together) if whole["calls"] > 0 and whole["replayed"] == 0 else 0
                which = "held out" if repo.held_out else "tuning"
                for acc in (by_version[group], by_repo[repo.name], by_set[which], by_set_version[which][group],
                            by_agent["Claude Code (all)" if session.agent == "claude-code" else "Codex (all)"]):
                    acc.update(whole)
                if args.examples:
                    for miss in misses(files, session.agent):
                        differs[(group, miss["differs"])] += 1
                        if len(examples[group]) < args.examples:
                            examples[group].append({"repo": repo.name, "session": session.name,
                                                    "version": session.version, **miss})
                rows.append({"repo": repo.name, "session": session.name, "agent": session.agent,
                             "version": session.version, "group": group, "held_out": repo.held_out,
                             "commit": commit, "notes": [str(n) for n in getattr(result, "notes", ())],
                             "duplicates_dropped": result.duplicates_dropped,
                             "refused": [list(r) for r in refusals], "verdict": _verdict(result),
                             **{k: whole[k] for k in KEYS}, "bash": {k: shell[k] for k in KEYS}})
                print(f"{repo.name} {session.name} ({session.version}): {whole['within_1pct']}/{whole['replayed']} "
                      f"within ±1% of {whole['calls']} read-only calls", file=sys.stderr)
    if missing:
        print(f"no clone of: {', '.join(missing)}", file=sys.stderr)
    print(f"{len(rows)} sessions in {len(by_repo)} repositories (read-only calls: Claude Code's Read/Grep/Glob, "
          f"Codex's shell tools)")
    _table("per agent version", {**dict(sorted(by_version.items(), key=lambda kv: _version_key(kv[0]))),
                                 **dict(sorted(by_agent.items()))})
    for which, versions in sorted(by_set_version.items()):
        _table(f"per agent version, {which}", dict(sorted(versions.items(), key=lambda kv: _version_key(kv[0]))))
    _table("per repository", {f"{n}{' (held out)' if n in HELD_OUT else ''}": acc
                              for n, acc in sorted(by_repo.items())}, 44)
    _table("tuning and held-out sets", dict(sorted(by_set.items())))
    _table("per tool", dict(sorted(by_tool.items())))
    print("\nnot replayed or not within ±1% (reasons replay gives; `none`: sessions that replayed none of theirs):")
    for (agent, tool, reason), n in reasons.most_common(30):
        print(f"  {agent} {tool}: {n} × {reason[:160]}")
    print("\ncalls of any tool refused or not run, by reason:")
    for (agent, why), n in refused_why.most_common(15):
        print(f"  {agent}: {n} × {why[:160]}")
    nothing = [r for r in rows if "error" not in r and r["calls"] and not r["replayed"]]
    if nothing:
        print("\nsessions that replayed none of their read-only calls, and their verdict:")
        for row in nothing:
            print(f"  {row['repo']} {row['session']} ({row['version']}): {row['verdict'][:200]}")
    refused = [r for r in rows if "error" in r]
    for row in refused:
        print(f"  crashed: {row['repo']} {row['session']}: {row['error'][:160]}")
    if args.examples:
        print("\nwhat differs in the calls replayed and not within ±1% tokens:")
        for (group, what), n in sorted(differs.items(), key=lambda kv: (_version_key(kv[0][0]), -kv[1])):
            print(f"  {group}: {n} × {what}")
        print("\ncalls replayed and not within ±1% tokens:")
        for group in sorted(examples, key=_version_key):
            for ex in examples[group]:
                print(f"  {group}: {ex['repo']} {ex['tool']} {ex['what']!r}: {ex['recorded_tokens']} -> "
                      f"{ex['replayed_tokens']} tokens ({ex['differs']})")
    if args.json:
        args.json.write_text(json.dumps({"sessions": rows, "versions": by_version, "repositories": by_repo,
                                         "sets": by_set, "tools": by_tool, "set_versions": by_set_version,
                                         "reasons": [[a, t, r, n] for (a, t, r), n in reasons.most_common()],
                                         "examples": examples,
                                         "differs": [[g, w, n] for (g, w), n in differs.most_common()]},
                                        indent=2, default=dict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
