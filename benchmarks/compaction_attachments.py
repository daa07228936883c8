"""What Claude Code re-attaches after compacting, rebuilt from the transcript as its cli.js (2.1.39) rebuilds it,
and whether that explains the first request after a compaction better than the preset's fitted constants.

    python benchmarks/compaction_attachments.py PATH ...   # the Claude Code sessions of compaction_fit.py

cli.js (`Os4`, `_s4`, `RZ6`, `Js4` beside "Not enough messages to compact."): the 5 newest entries of its
readFileState (one per file: a Read, Write or Edit refreshes it; the plan file and memory files left out),
each re-read whole with a 5,000-token limit (a larger file fails and is left out), together at most 50,000;
the todo list; the plan file; every skill invoked in the session, whole; the status of finished background
agents; and what the SessionStart hooks print for "compact". From the transcript: a file read whole or written
has a known text (an edit is applied to it); a file read in parts has none (left out: it was read in parts
because it is large); the todo list is the last TodoWrite's; the plan the last ExitPlanMode's or plan-file
write; a skill's text the meta message after its Skill call. Hook outputs and background agents are not in
the transcript. Each row: what is left of the recorded first input after the fixed prefix (the preset's: the
session's first request, or a fresh context's size where that holds a continued session's history), the
recorded summary and the re-attachments, under the preset's files and under this rebuild; then the spread of
both.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import compaction_fit  # noqa: E402
from toolaudit.tokenizers import get_tokenizer  # noqa: E402

FILES, FILE_TOKENS, BUDGET = 5, 5_000, 50_000  # cli.js 2.1.39: Ys4, smY, amY
_NUMBER = re.compile(r"^\s*\d+→")


def _render(text: str) -> str:
    """A file as the Read tool shows it (a line number and → before each line)."""
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(text.split("\n"), 1))


def _edited(text: str | None, edits: list[dict]) -> str | None:
    for e in edits:
        if text is not None:
            old, new = e.get("old_string") or "", e.get("new_string") or ""
            text = text.replace(old, new) if e.get("replace_all") else text.replace(old, new, 1)
    return text


def attachments(path: Path, count) -> dict[str, dict[str, int]]:
    """Per compact_boundary (file:line), the tokens of each re-attachment rebuilt from the transcript."""
    state: dict[str, tuple[int, str | None]] = {}  # file -> (order of its last touch, its text if known whole)
    pending: dict[str, tuple[str, bool]] = {}
    todos, plan, skills, order, found = None, None, {}, 0, {}
    for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines()):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if not isinstance(o, dict) or o.get("isSidechain"):
            continue
        order += 1
        msg = o.get("message") if isinstance(o.get("message"), dict) else {}
        if o.get("type") == "assistant":
            for b in msg.get("content") or []:
                if not isinstance(b, dict) or b.get("type") != "tool_use" or not isinstance(b.get("input"), dict):
                    continue
                name, given = b.get("name"), b["input"]
                target = given.get("file_path")
                if name == "Read" and target:
                    pending[b.get("id")] = (target, bool(given.get("offset") or given.get("limit")))
                elif name == "Write" and target:
                    state[target] = (order, given.get("content") or "")
                elif name in ("Edit", "MultiEdit") and target:
                    state[target] = (order, _edited(state.get(target, (0, None))[1], given.get("edits") or [given]))
                elif name == "TodoWrite":
                    todos = given.get("todos")
                elif name == "ExitPlanMode" and given.get("plan"):
                    plan = given["plan"]
                if name in ("Write", "Edit", "MultiEdit") and target and "/.claude/plans/" in target:
                    plan = state[target][1] or plan
        elif o.get("type") == "user":
            content = msg.get("content")
            if o.get("isMeta") and o.get("sourceToolUseID"):
                skills[o["sourceToolUseID"]] = count(compaction_fit._text(content))
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in pending:
                    target, part = pending.pop(b["tool_use_id"])
                    text = compaction_fit._text(b.get("content"))
                    state[target] = (order, None if part else "\n".join(_NUMBER.sub("", t, 1) for t in text.split("\n")))
        elif o.get("type") == "system" and o.get("subtype") == "compact_boundary":
            newest = sorted(((v[0], k, v[1]) for k, v in state.items()
                             if "/.claude/plans/" not in k and not k.endswith("CLAUDE.md")), reverse=True)[:FILES]
            files, kept = 0, {}
            for _, name, text in newest:
                tokens = count(_render(text)) if text is not None else None
                if tokens is not None and tokens <= FILE_TOKENS and files + tokens <= BUDGET:
                    files += tokens
                    kept[name] = (order, text)
            found[f"{path.name}:{i + 1}"] = {"files": files, "todos": count(json.dumps(todos)) if todos else 0,
                                             "plan": count(plan) if plan else 0, "skills": sum(skills.values())}
            state = kept  # cli.js clears readFileState; the files it re-read are in it again
    return found


def main(argv: list[str]) -> None:
    count = get_tokenizer().count
    rows = [c for c, _ in compaction_fit.collect([Path(p) for p in argv]) if c.agent == "claude-code"]
    files = {f.name: f for p in argv for f in ([Path(p)] if Path(p).is_file() else Path(p).rglob("*.jsonl"))}
    cache: dict[str, dict] = {}
    left, preset = [], []
    print("session:line  first input after  fixed  summary  files (preset)  files  todos  plan  skills  "
          "left (preset)  left")
    for c in rows:
        name = c.where.rsplit(":", 1)[0]
        if name not in cache:
            cache[name] = attachments(files[name], count)
        a = cache[name][c.where]
        fixed = c.fixed  # the preset's: a continued context's is a fresh one's size
        was = c.after - fixed - c.summary - c.policy.reattached(c.reads)
        now = c.after - fixed - c.summary - sum(a.values())
        preset.append(was)
        left.append(now)
        print(f"{c.where}  {c.after:,}  {fixed:,}  {c.summary:,}  {c.policy.reattached(c.reads):,}  {a['files']:,}  "
              f"{a['todos']:,}  {a['plan']:,}  {a['skills']:,}  {was:+,}  {now:+,}")
    print(f"\n{len(rows)} compactions; left unexplained: median {statistics.median(preset):+,.0f} (preset's files) → "
          f"{statistics.median(left):+,.0f} (rebuilt), spread (population sd) {statistics.pstdev(preset):,.0f} → "
          f"{statistics.pstdev(left):,.0f} tokens")


if __name__ == "__main__":
    main(sys.argv[1:])
