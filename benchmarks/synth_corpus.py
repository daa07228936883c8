"""Deterministic, realistic Claude Code and Codex transcripts at scale, for benchmarks.

Shapes follow shared/docs/formats.md §1–2 and the real files in shared/corpus: split
assistant lines sharing `message.id` and `usage`, hook `progress` lines, tool results
duplicated in `toolUseResult`; Codex `session_meta`/`turn_context`, `function_call` /
`function_call_output`, `exec_command_end` mirrors and doubled `token_count` events.
Text is assembled from pools of code, log, grep and prose lines built once per seed,
so generation stays fast next to the scan it feeds.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_CODE_WORDS = (
    "self config path items result value index buffer stream token count cache session "
    "request response handler client server parse render load save update delete user "
    "record entry output input error status payload message event worker queue limit "
    "offset cursor batch schema model field table query filter"
).split()
# Common English words, so prose and comments tokenize like real text does.
_ENGLISH = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an "
    "they you were her all she there would their we him been has when who will more no if out so said what up "
    "its about into than them can only other new some could time these two may then do first any my now such "
    "like our over man me even most made after also did many before must through back years where much your way "
    "well down should because each just those people how too little state good very make world still own see "
    "work long get here between both life being under never day same another know while last might us great old "
    "year off come since against go came right used take three file function returns value when called before "
    "test fails because the config is missing check whether path exists update handler so that errors surface "
    "early note this runs once per session and caches results"
).split()
_TYPES = "str int bool dict list Path Session Record Response Config Optional[str] bytes".split()
_EXTS = "py ts tsx go rs ex md json yaml".split()


def _dumps(obj) -> str:
    # Compact and raw UTF-8, as JSON.stringify and serde_json write transcripts.
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _rid(rng: random.Random, n: int = 24) -> str:
    return "".join(rng.choices(_ALNUM, k=n))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


@dataclass(frozen=True)
class Pools:
    """Line pools every output is assembled from."""

    words: tuple[str, ...]
    paths: tuple[str, ...]
    code: tuple[str, ...]
    logs: tuple[str, ...]
    prose: tuple[str, ...]


@cache
def pools(seed: int) -> Pools:
    """The pools for a seed (built once per process)."""
    rng = random.Random(f"pools:{seed}")
    syll = ["ka", "lo", "ri", "men", "tor", "va", "shi", "pel", "dra", "qu", "in", "ex", "on", "ar"]
    # Mostly real words; the made-up ones stand in for project-specific identifiers.
    words = tuple(_CODE_WORDS + _ENGLISH * 3 + ["".join(rng.choices(syll, k=rng.randint(2, 4))) for _ in range(300)])
    w = lambda: rng.choice(words)  # noqa: E731
    ident = lambda: f"{w()}_{w()}" if rng.random() < 0.6 else w() + w().capitalize()  # noqa: E731
    paths = tuple(
        f"src/{w()}/{w()}/{ident()}.{rng.choice(_EXTS)}" if rng.random() < 0.8 else f"tests/test_{ident()}.py"
        for _ in range(1500)
    )
    templates = [
        lambda: f"import {w()}.{w()}",
        lambda: f"from {w()} import {w().capitalize()}, {ident()}",
        lambda: f"def {ident()}({w()}: {rng.choice(_TYPES)}, {w()}: int = {rng.randint(0, 999)}) -> {rng.choice(_TYPES)}:",
        lambda: f"    {ident()} = self.{ident()}.get({w()!r}, {rng.randint(0, 99)})",
        lambda: f"    if {w()} is None or len({ident()}) > {rng.randint(1, 4096)}:",
        lambda: f'        raise ValueError(f"{w()} {{{w()}!r}} not {w()}")',
        lambda: f"    return [{w()[0]} for {w()[0]} in {ident()} if {w()[0]}.{w()}]",
        lambda: f"    # {' '.join(rng.choices(words, k=rng.randint(4, 12)))}",
        lambda: f"const {ident()} = await {w()}.{ident()}({{ {w()}: {rng.randint(0, 999)}, {w()}: '{w()}' }});",
        lambda: f"export function {w().capitalize()}{w().capitalize()}({w()}: {rng.choice(_TYPES)}): void {{",
        lambda: "  }",
        lambda: "",
        lambda: f"\tif err := {ident()}(ctx, {w()}); err != nil {{ return fmt.Errorf(\"{w()}: %w\", err) }}",
        lambda: f'    "{w()}": {rng.choice([str(rng.randint(0, 10**6)), "true", "null", repr(w())])},',
    ]
    code = tuple(rng.choice(templates)() for _ in range(5000))
    log_templates = [
        lambda: f"2026-02-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z INFO [{w()}-{rng.randint(1, 9)}] {w()} {ident()}={rng.randint(0, 9999)} in {rng.randint(1, 900)}ms",
        lambda: f"{rng.choice(paths)}::test_{ident()} {rng.choice(['PASSED', 'PASSED', 'PASSED', 'FAILED', 'SKIPPED'])} [{rng.randint(1, 100):3d}%]",
        lambda: f"npm WARN deprecated {w()}@{rng.randint(0, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}: {' '.join(rng.choices(words, k=6))}",
        lambda: f" M {rng.choice(paths)}",
        lambda: f"{rng.choice(paths)}:{rng.randint(1, 900)}:{rng.randint(1, 80)}: error: undefined name '{ident()}'",
        lambda: f"   Compiling {w()} v0.{rng.randint(1, 30)}.{rng.randint(0, 9)}",
        lambda: "=" * rng.randint(10, 80),
    ]
    logs = tuple(rng.choice(log_templates)() for _ in range(4000))
    prose = tuple(
        " ".join(rng.choices(words, k=rng.randint(8, 30))).capitalize() + rng.choice([".", ".", "?", ":"])
        for _ in range(1500)
    )
    return Pools(words, paths, code, logs, prose)


def _lines(rng: random.Random, pool: tuple[str, ...], nbytes: int) -> list[str]:
    """Lines drawn from a pool until about `nbytes`."""
    out, size = [], 0
    while size < nbytes:
        batch = rng.choices(pool, k=max(1, (nbytes - size) // 40 + 1))
        for line in batch:
            out.append(line)
            size += len(line) + 1
            if size >= nbytes:
                break
    return out


def output_size(rng: random.Random) -> int:
    """A tool output size: many small, some 10–100 KB, a few 0.5–2 MB (log-uniform in each band)."""
    r = rng.random()
    lo, hi = (100, 2_000) if r < 0.80 else (10_000, 100_000) if r < 0.985 else (500_000, 2_000_000)
    return int(math.exp(rng.uniform(math.log(lo), math.log(hi))))


# ---- tool outputs: (tool name, input, model-visible content, toolUseResult) -----------


def _bash(rng, p, n, cwd):
    cmd = rng.choice(["pytest -q", "npm run build", "cargo build", "git status", "make lint", "ls -la src"])
    text = "\n".join(_lines(rng, p.logs, n))
    if len(text) > 30_000:  # Claude Code middle-truncates Bash output at 30,000 chars
        cut = len(text) - 30_000
        text = f"{text[:15_000]}\n\n... [{cut} characters truncated] ...\n\n{text[-15_000:]}"
    side = {"stdout": text, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
    return "Bash", {"command": cmd, "description": "Run " + cmd.split()[0]}, text, side


def _read(rng, p, n, cwd):
    path = f"{cwd}/{rng.choice(p.paths)}"
    lines = _lines(rng, p.code, n)
    shown = "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(lines, 1))
    shown += "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware.\n</system-reminder>\n"
    raw = "\n".join(lines)
    side = {"type": "text", "file": {"filePath": path, "content": raw, "numLines": len(lines), "startLine": 1, "totalLines": len(lines)}}
    return "Read", {"file_path": path}, shown, side


def _grep(rng, p, n, cwd):
    hits = _lines(rng, p.code, n)
    text = "\n".join(f"{rng.choice(p.paths)}:{rng.randint(1, 2000)}:{line}" for line in hits)
    files = sorted({line.split(":", 1)[0] for line in text.splitlines()})
    side = {"mode": "content", "filenames": files, "numFiles": len(files), "content": text, "numLines": len(hits)}
    return "Grep", {"pattern": rng.choice(p.words), "output_mode": "content", "-n": True}, text, side


def _glob(rng, p, n, cwd):
    names = [f"{cwd}/{path}" for path in _lines(rng, p.paths, min(n, 20_000))]
    side = {"filenames": names, "durationMs": rng.randint(5, 400), "numFiles": len(names), "truncated": False}
    return "Glob", {"pattern": "**/*." + rng.choice(_EXTS)}, "\n".join(names), side


def _edit(rng, p, n, cwd):
    path = f"{cwd}/{rng.choice(p.paths)}"
    original = "\n".join(_lines(rng, p.code, n))
    old, new = rng.choice(p.code), rng.choice(p.code)
    text = f"The file {path} has been updated successfully."
    side = {"filePath": path, "oldString": old, "newString": new, "originalFile": original,
            "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-" + old, "+" + new]}],
            "userModified": False, "replaceAll": False}
    return "Edit", {"file_path": path, "old_string": old, "new_string": new}, text, side


def _webfetch(rng, p, n, cwd):
    text = "# " + rng.choice(p.prose) + "\n\n" + "\n\n".join(_lines(rng, p.prose, n))
    url = f"https://docs.example.org/{rng.choice(p.words)}/{rng.choice(p.words)}"
    side = {"bytes": len(text) * 3, "code": 200, "codeText": "OK", "result": text, "durationMs": rng.randint(300, 9000), "url": url}
    return "WebFetch", {"url": url, "prompt": rng.choice(p.prose)}, text, side


def _mcp(rng, p, n, cwd):
    records = []
    size = 0
    while size < n:
        rec = {"id": rng.randint(1, 10**6), "path": rng.choice(p.paths), "title": rng.choice(p.prose),
               "labels": rng.sample(p.words[:60], 3), "body": rng.choice(p.code)}
        records.append(rec)
        size += len(rec["title"]) + len(rec["body"]) + 120
    text = json.dumps({"total_count": len(records), "items": records}, indent=2)
    blocks = [{"type": "text", "text": text}]
    return "mcp__github__search_code", {"q": rng.choice(p.words)}, blocks, blocks


def _task(rng, p, n, cwd):
    text = "\n\n".join(_lines(rng, p.prose, n))
    blocks = [{"type": "text", "text": text}]
    side = {"status": "completed", "prompt": rng.choice(p.prose), "content": blocks, "totalDurationMs": rng.randint(10**4, 10**6),
            "totalTokens": len(text) // 4, "totalToolUseCount": rng.randint(1, 40)}
    return "Task", {"description": rng.choice(p.words), "prompt": rng.choice(p.prose), "subagent_type": "general-purpose"}, blocks, side


_SMALL_TOOLS = [(_bash, 35), (_read, 20), (_grep, 12), (_glob, 6), (_edit, 12), (_webfetch, 5), (_mcp, 5), (_task, 5)]
_BIG_TOOLS = [(_read, 25), (_grep, 20), (_bash, 15), (_webfetch, 10), (_mcp, 20), (_task, 10)]


def _claude_tool(rng, p, cwd, budget):
    n = min(output_size(rng), max(100, budget))  # the last calls shrink so files end near their target
    table = _SMALL_TOOLS if n < 100_000 else _BIG_TOOLS  # huge outputs come from reads, MCP, fetches
    fn = rng.choices([t[0] for t in table], weights=[t[1] for t in table])[0]
    return fn(rng, p, n, cwd)


# ---- Claude Code session file ------------------------------------------------------------


def write_claude(path: Path, seed: int, index: int, target: int) -> int:
    """Write one Claude Code session of about `target` bytes; returns the tool calls written."""
    rng = random.Random(f"claude:{seed}:{index}")
    p = pools(seed)
    session = path.stem  # Claude Code names the file after the session id
    proj = path.parent.name
    cwd = "/" + proj.strip("-").replace("-", "/")
    clock = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=rng.randint(0, 60 * 24 * 50))
    env = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
           "version": "2.1.38", "gitBranch": "main", "slug": "-".join(rng.sample(p.words[:60], 3))}
    calls = written = 0
    with open(path, "w", encoding="utf-8") as fh:

        def emit(obj: dict, **fields) -> str:
            nonlocal clock, written
            clock += dt.timedelta(milliseconds=rng.randint(5, 4000))
            line_uuid = _uuid(rng)
            obj = {**env, **obj, **fields, "uuid": line_uuid, "timestamp": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"}
            env["parentUuid"] = line_uuid
            text = _dumps(obj) + "\n"
            fh.write(text)
            written += len(text)
            return line_uuid

        emit({"type": "user", "message": {"role": "user", "content": rng.choice(p.prose)}}, permissionMode="default")
        context = 18_000
        while written < target:
            if rng.random() < 0.08:
                emit({"type": "user", "message": {"role": "user", "content": rng.choice(p.prose)}})
            msg_id, req_id = "msg_01" + _rid(rng), "req_011" + _rid(rng)
            usage = {"input_tokens": rng.randint(1, 50), "cache_creation_input_tokens": rng.randint(100, 9000),
                     "cache_read_input_tokens": context, "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                     "output_tokens": 1, "service_tier": "standard"}
            blocks: list[dict] = []
            if rng.random() < 0.5:
                blocks.append({"type": "text", "text": rng.choice(p.prose)})
            if rng.random() < 0.3:
                blocks.append({"type": "thinking", "thinking": " ".join(rng.choices(p.prose, k=3)), "signature": _rid(rng, 200)})
            tools = [_claude_tool(rng, p, cwd, (target - written) // 2) for _ in range(rng.choices([1, 2, 3], weights=[70, 20, 10])[0])]
            ids = ["toolu_01" + _rid(rng) for _ in tools]
            blocks += [{"type": "tool_use", "id": tid, "name": t[0], "input": t[1], "caller": {"type": "direct"}} for tid, t in zip(ids, tools)]
            owners = {}
            for block in blocks:  # streaming split: one block per line, usage repeated, output_tokens running
                usage = {**usage, "output_tokens": usage["output_tokens"] + rng.randint(1, 200)}
                message = {"model": "claude-opus-4-6", "id": msg_id, "type": "message", "role": "assistant",
                           "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage}
                owner = emit({"type": "assistant", "message": message}, requestId=req_id)
                if block["type"] == "tool_use":
                    owners[block["id"]] = owner
            for tid, (name, _, content, side) in zip(ids, tools):
                emit({"type": "progress", "data": {"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": f"PostToolUse:{name}",
                      "command": "callback"}}, parentToolUseID=tid, toolUseID=tid)
                error = rng.random() < 0.03
                result = {"tool_use_id": tid, "type": "tool_result", "content": content, "is_error": error}
                emit({"type": "user", "message": {"role": "user", "content": [result]}},
                     toolUseResult=("Error: " + content) if error and isinstance(content, str) else side,
                     sourceToolAssistantUUID=owners[tid])
                context += (len(content) if isinstance(content, str) else len(content[0]["text"])) // 4
                calls += 1
            if context > 160_000:  # compaction keeps the running context realistic
                emit({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "level": "info",
                      "compactMetadata": {"trigger": "auto", "preTokens": context}})
                context = 20_000
    return calls


# ---- Codex rollout file --------------------------------------------------------------------


def write_codex(path: Path, seed: int, index: int, target: int, when: dt.datetime, session: str) -> int:
    """Write one Codex rollout of about `target` bytes; returns the tool calls written."""
    rng = random.Random(f"codex:{seed}:{index}")
    p = pools(seed)
    legacy = rng.random() < 0.4  # 0.58-style `shell` with JSON-in-string outputs, no exec mirrors
    cwd = f"/home/dev/{rng.choice(p.words)}"
    clock = when
    calls = written = 0
    totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}
    with open(path, "w", encoding="utf-8") as fh:

        def emit(kind: str, payload: dict) -> None:
            nonlocal clock, written
            clock += dt.timedelta(milliseconds=rng.randint(1, 3000))
            text = _dumps({"timestamp": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", "type": kind, "payload": payload}) + "\n"
            fh.write(text)
            written += len(text)

        emit("session_meta", {"id": session, "timestamp": when.isoformat().replace("+00:00", "Z"), "cwd": cwd,
                              "originator": "codex_cli_rs", "cli_version": "0.58.0" if legacy else "0.104.0", "instructions": None,
                              "source": "cli", "model_provider": "openai",
                              "git": {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": "main", "repository_url": "git@github.com:dev/app.git"}})
        context = 10_000
        while written < target:
            prompt = rng.choice(p.prose)
            emit("event_msg", {"type": "user_message", "message": prompt, "images": []})
            emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
            turn_id = _uuid(rng)
            for _ in range(rng.randint(2, 8)):
                if written >= target:
                    break
                emit("turn_context", {"cwd": cwd, "approval_policy": "never", "sandbox_policy": {"mode": "workspace-write"},
                                      "model": "gpt-5.1-codex", "effort": "high", "summary": "auto", "turn_id": turn_id})
                thought = rng.choice(p.prose)
                emit("event_msg", {"type": "agent_reasoning", "text": thought})
                emit("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": thought}],
                                       "content": None, "encrypted_content": "gAAAAA" + _rid(rng, rng.randint(300, 1500))})
                call_id = "call_" + _rid(rng)
                n = min(output_size(rng), max(100, (target - written) // 4))  # results are stored up to 4 times
                mcp = rng.random() < 0.05
                cmd = rng.choice(["rg -n " + rng.choice(p.words), "cat " + rng.choice(p.paths), "pytest -q", "git diff", "ls -R src"])
                if cmd.startswith("rg"):
                    text = "\n".join(f"{rng.choice(p.paths)}:{rng.randint(1, 2000)}:{line}" for line in _lines(rng, p.code, n))
                elif cmd.startswith(("cat", "git")):
                    text = "\n".join(_lines(rng, p.code, n))
                else:
                    text = "\n".join(_lines(rng, p.logs, n))
                if mcp:
                    name, args = "github__search_issues", {"query": rng.choice(p.words)}
                    output: str | list = [{"type": "input_text", "text": text}]
                elif legacy:
                    name, args = "shell", {"command": ["bash", "-lc", cmd], "workdir": cwd}
                    output = _dumps({"output": text, "metadata": {"exit_code": 0, "duration_seconds": round(rng.random(), 1)}})
                else:
                    name, args = "exec_command", {"cmd": cmd, "workdir": cwd, "yield_time_ms": 10000}
                    output = (f"Chunk ID: {_rid(rng, 6).lower()}\nWall time: {rng.random():.4f} seconds\nProcess exited with code 0\n"
                              f"Original token count: {len(text) // 4}\nOutput:\n{text}")
                emit("response_item", {"type": "function_call", "name": name, "arguments": _dumps(args), "call_id": call_id})
                if not legacy and not mcp:  # the UI mirror carries the same output three more times
                    emit("event_msg", {"type": "exec_command_end", "call_id": call_id, "turn_id": turn_id,
                                       "command": ["bash", "-lc", cmd], "cwd": cwd, "parsed_cmd": [{"type": "unknown", "cmd": cmd}],
                                       "source": "agent", "stdout": text, "stderr": "", "aggregated_output": text, "exit_code": 0,
                                       "duration": {"secs": rng.randint(0, 9), "nanos": rng.randint(0, 10**9 - 1)},
                                       "formatted_output": text, "status": "completed"})
                emit("response_item", {"type": "function_call_output", "call_id": call_id, "output": output})
                calls += 1
                context += len(text) // 4
                last = {"input_tokens": context, "cached_input_tokens": context - rng.randint(100, 3000),
                        "output_tokens": rng.randint(20, 600), "reasoning_output_tokens": rng.randint(0, 300)}
                last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
                totals = {k: totals[k] + last[k] for k in totals}
                info = {"total_token_usage": totals, "last_token_usage": last, "model_context_window": 258400}
                for _ in range(2):  # Codex emits each token_count twice
                    emit("event_msg", {"type": "token_count", "info": info, "rate_limits": None})
            message = rng.choice(p.prose)
            emit("event_msg", {"type": "agent_message", "message": message})
            emit("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": message}]})
    return calls


# ---- the corpus ------------------------------------------------------------------------------


def plan(size_bytes: int, seed: int, small: bool = False) -> list[tuple]:
    """(kind, index, relative path, target bytes, extra) for every file: ~2/3 Claude, ~1/3 Codex by bytes.
    Files of 1-20 MB, or with `small` of 15-800 KB (~200 KB on average: 2 GB is ~10k files, the shape of a
    real ~/.claude/projects after months of daily use)."""
    rng = random.Random(f"plan:{seed}")
    p = pools(seed)
    jobs, total, index = [], 0, 0
    projects = [f"-home-dev-{w}" for w in rng.sample(p.words, 8)]
    low, high = (15_000, 800_000) if small else (1_000_000, 20_000_000)
    while total < size_bytes:
        target = int(math.exp(rng.uniform(math.log(low), math.log(high))))
        target = min(target, max(size_bytes - total, low))
        if rng.random() < 2 / 3:
            rel = f".claude/projects/{rng.choice(projects)}/{_uuid(rng)}.jsonl"
            jobs.append(("claude", index, rel, target, None))
        else:
            when = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=rng.randint(0, 86400 * 60))
            session = _uuid(rng)
            rel = f".codex/sessions/{when:%Y/%m/%d}/rollout-{when:%Y-%m-%dT%H-%M-%S}-{session}.jsonl"
            jobs.append(("codex", index, rel, target, (when, session)))
        total += target
        index += 1
    return jobs


def write_one(root: Path, seed: int, job: tuple) -> tuple[str, int, int]:
    """Write one planned file; returns (relative path, bytes, tool calls)."""
    kind, index, rel, target, extra = job
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "claude":
        calls = write_claude(path, seed, index, target)
    else:
        calls = write_codex(path, seed, index, target, *extra)
    return rel, path.stat().st_size, calls
