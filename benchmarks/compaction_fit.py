"""How well `simulate --context claude-code` / `--context codex` reproduce the compactions recorded in real
sessions: where each fired, and the input of the first request after it, predicted vs recorded.

    python benchmarks/compaction_fit.py [PATH ...]             # default: ../shared/corpus/claude-code and codex
    python benchmarks/compaction_fit.py --markdown PATH ...    # the tables docs/simulate.md shows

A Claude Code compaction is a `compact_boundary` system line (its `compactMetadata.preTokens`: what Claude
Code counted when it fired), the `isCompactSummary` user line after it, and the first request after it; a
Codex one is a `compacted` item and the first request after it. For each the preset of the session's version
(`claude-code@VERSION`, `codex`) predicts:

- where it fires: replaying the session's requests since the previous compaction (and, last, the count the
  agent made when it fired: Claude Code's preTokens; Codex's, see codex()), the input of the request
  after which the preset compacts; recorded: the input of the last request before the compaction;
- the input of the first request after it: the preset's `rebuilt` (the context's first request, or over
  45,000 tokens the preset's `continued`; the summary; the newest file reads re-attached; the rest it adds),
  beside the model before issue 30 (a 3,000-token summary after the prefix read right after a recorded
  compaction).

The summary and extra sizes in the presets were fitted on the compactions at even positions in the order printed
(the summary: the median summary; extra: the value, in steps of 500, that puts the most of them within ±15%);
the odd ones are the held-out half; `continued` is the median first input of the fitted half's contexts under
45,000. Sessions are read directly (not through a collector), each JSON line once; file reads are counted with
the scan's tokenizer. The Codex lines "through simulate" are the exception: there the rollout is read by the
Codex collector and the preset fires in simulate's own timeline (simulated()).
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from toolaudit.collectors.codex import CodexCollector  # noqa: E402
from toolaudit.model import MAIN_AGENT, ToolCall, Usage  # noqa: E402
from toolaudit.simulate import context  # noqa: E402
from toolaudit.simulate.context import timeline  # noqa: E402
from toolaudit.simulate.context.compact import FIXED_MAX, READ_TOOLS, prefix_of  # noqa: E402
from toolaudit.tokenizers import get_tokenizer  # noqa: E402

DEFAULT = [HERE.parent.parent / "shared" / "corpus" / "claude-code", HERE.parent.parent / "shared" / "corpus" / "codex"]
OLD_SUMMARY, OLD_FIXED_MAX = 3_000, 40_000  # the model before issue 30
OLD_AT = {"claude-code": 167_000, "codex": 244_800}


@dataclass
class Compaction:
    """One recorded compaction and what the presets make of it."""

    agent: str
    where: str  # file:line
    version: str
    trigger: str  # auto, manual (Claude Code); "" where the rollout does not say
    inputs: list[int]  # the requests' inputs since the previous compaction, then the count the agent fired at
    outputs: list[int]
    fired: int  # recorded: the input of the last request before it
    first_input: int  # the session's first request
    first_read: int  # what the first request after it read (the prefix kept in the cache)
    reads: list[int]  # file reads since the previous compaction, oldest first (Claude Code)
    summary: int  # the summary's tokens (Claude Code), 0 where not recorded apart
    after: int  # recorded: the input of the first request after it
    counts: list[int] | None = None  # what the agent counts against its limit, per request, but reasoning (None: inputs)
    earlier: list[int] | None = None  # Codex: the reasoning tokens of the turns before each request's own
    window: int = 0  # Codex: the effective context window its rollout recorded (95% of the model's)
    spoke: bool = False  # Codex: the user spoke after the last request before it (the count starts a turn)
    simulated: int | None = None  # Codex: where `simulate --context codex` fires (simulated(); None: it does not)

    @property
    def policy(self):
        """The agent's preset at the session's version (Codex: at 90% of the model's window, where recorded)."""
        policy = context.parse(f"{self.agent}@{self.version}" if self.version else self.agent)
        if self.agent == "codex" and self.window:
            policy = replace(policy, at=policy.limit(self.window * 100 // 95))
        return policy

    def predicted_fire(self, reasoning: int | None = None) -> int | None:
        """The input of the request after which the preset compacts (None: it would not have fired here); with
        `reasoning`, that percentage of the earlier turns' reasoning counted instead of the preset's."""
        policy = self.policy
        share = policy.reasoning if reasoning is None else reasoning
        counts = [c + e * share // 100 for c, e in zip(self.counts, self.earlier)] if self.counts else self.inputs
        for r in range(1, len(counts)):
            if counts[r] >= policy.at:
                return self.inputs[r - 1]
        return None

    def predicted_after(self) -> int:
        """The preset's input of the first request after the compaction."""
        return self.policy.rebuilt(self.fixed, self.reads)

    @property
    def fixed(self) -> int:
        """The preset's fixed prefix: the first request's input, or a fresh context's where it holds history."""
        return prefix_of(self.first_input, self.policy.continued)

    def before_after(self, old_fixed: int) -> int:
        """The model before issue 30: the fixed prefix it took and a 3,000-token summary."""
        return old_fixed + OLD_SUMMARY


def _total(u: dict) -> int:
    return u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0) + u.get("cache_creation_input_tokens", 0)


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(b.get("text") if b.get("type") == "text" else b.get("content"))
                         if isinstance(b, dict) else str(b) for b in content)
    return "" if content is None else str(content)


def claude_code(path: Path, count) -> list[tuple[Compaction, int]]:
    """The compactions of one Claude Code session, each with the old model's fixed prefix."""
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append({})
    version = next((o.get("version") for o in rows if isinstance(o, dict) and o.get("version")), "") or ""
    found, seen = [], set()
    inputs: list[int] = []
    outputs: list[int] = []
    reads: list[int] = []
    pending: set[str] = set()
    requests: list[tuple[int, int]] = []  # every main-chain request: (input, cache read)
    marks: list[int] = []  # request positions where a recorded compaction happened
    for i, o in enumerate(rows):
        if not isinstance(o, dict) or o.get("isSidechain"):
            continue
        msg = o.get("message") if isinstance(o.get("message"), dict) else {}
        if o.get("type") == "assistant" and msg.get("usage") and msg.get("model") != "<synthetic>":
            for b in msg.get("content") or []:  # every line of a split message: each holds its own blocks
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in READ_TOOLS:
                    pending.add(b.get("id"))
            key = msg.get("id") or i
            if key in seen:
                continue  # a split line of a request already counted
            seen.add(key)
            total = _total(msg["usage"])
            if not total:
                continue
            requests.append((total, msg["usage"].get("cache_read_input_tokens", 0)))
            inputs.append(total)
            outputs.append(msg["usage"].get("output_tokens", 0))
        elif o.get("type") == "user" and isinstance(msg.get("content"), list):
            for b in msg["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in pending:
                    pending.discard(b["tool_use_id"])
                    reads.append(count(_text(b.get("content"))))
        elif o.get("type") == "system" and o.get("subtype") == "compact_boundary" and inputs:
            meta = o.get("compactMetadata") or {}
            summary, after = 0, None
            for j in range(i + 1, min(len(rows), i + 500)):
                oj = rows[j] if isinstance(rows[j], dict) else {}
                mj = oj.get("message") if isinstance(oj.get("message"), dict) else {}
                if oj.get("isSidechain"):
                    continue
                if oj.get("isCompactSummary") and not summary:
                    summary = count(_text(mj.get("content")))
                if oj.get("type") == "assistant" and mj.get("usage") and mj.get("model") != "<synthetic>" \
                        and _total(mj["usage"]):
                    after = mj["usage"]
                    break
            if after is not None:
                pre = meta.get("preTokens") or inputs[-1] + outputs[-1]
                found.append(Compaction("claude-code", f"{path.name}:{i + 1}", version, meta.get("trigger", ""),
                                        inputs + [pre], outputs + [0], inputs[-1], requests[0][0],
                                        after.get("cache_read_input_tokens", 0), list(reads), summary, _total(after)))
            marks.append(len(requests))
            inputs, outputs, reads, pending = [], [], [], set()
    return [(c, _old_fixed(requests, marks)) for c in found]


def _old_fixed(requests: list[tuple[int, int]], marks: list[int]) -> int:
    """The old model's fixed prefix: what the request right after a recorded compaction read, else the first
    request's input, at most 40,000."""
    after = [requests[m][1] for m in marks if m < len(requests) and requests[m][1] > 0]
    return min(after) if after else min(requests[0][0], OLD_FIXED_MAX) if requests else 0


_MODEL_ITEMS = ("reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call")


def _estimate(item: dict) -> int:
    """codex-rs's estimate of an item it added since the last response: its JSON bytes at 4 a token."""
    item = {k: v for k, v in item.items() if k != "metadata"}  # the rollout's own note, not sent to the model
    return (len(json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode()) + 3) // 4


def codex(path: Path) -> list[tuple[Compaction, int]]:
    """The compactions of one Codex rollout (its token_count events are the requests).

    What Codex compares with its limit (codex-rs `get_total_token_usage`): the last response's total (input and
    output), its estimate of the items added since the last item the model wrote, and its estimate of the
    reasoning items of the turns before the current one (the reasoning tokens those responses recorded). A
    turn starts at a user message."""
    version, window, found, marks = "", 0, [], []
    inputs: list[int] = []
    counts: list[int] = []
    earlier: list[int] = []
    outputs: list[int] = []
    requests: list[tuple[int, int]] = []
    waiting = None
    added, done, turn, total, user, spoke = 0, 0, 0, 0, False, False
    for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines()):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if not isinstance(o, dict):
            continue
        p = o.get("payload") if isinstance(o.get("payload"), dict) else {}
        kind = p.get("type")
        if o.get("type") == "session_meta":
            version = p.get("cli_version") or version
        user = False if kind == "task_started" else user or kind == "user_message"
        if o.get("type") == "response_item":
            if kind in _MODEL_ITEMS or (kind == "message" and p.get("role") == "assistant"):
                added = 0
            else:
                added += _estimate(p)
            if kind == "message" and p.get("role") == "user":  # a turn boundary: the turns before it are earlier
                done, turn, spoke = done + turn, 0, True
        if kind == "token_count" and isinstance(p.get("info"), dict):
            last = p["info"].get("last_token_usage") or {}
            window = p["info"].get("model_context_window") or window
            if last.get("input_tokens", 0) > 0:
                read = last.get("cached_input_tokens", 0)
                if requests and (last["input_tokens"], read) == requests[-1] and waiting is None:
                    continue  # a repeated token_count event
                requests.append((last["input_tokens"], read))
                if waiting is not None:
                    found.append(Compaction("codex", waiting[0], version, waiting[3], waiting[1], waiting[2],
                                            waiting[1][-2], requests[0][0], read, [], 0, last["input_tokens"],
                                            counts=waiting[4], earlier=waiting[5], window=window,
                                            spoke=waiting[6]))
                    waiting = None
                inputs.append(last["input_tokens"])
                counts.append(last["input_tokens"])
                earlier.append(done)
                spoke = False
                outputs.append(last.get("output_tokens", 0))
                total = last.get("total_tokens") or last["input_tokens"] + outputs[-1]
                turn += last.get("reasoning_output_tokens", 0)
        if o.get("type") == "compacted" and inputs:
            # what Codex counted when it fired: the last response's total, the items since and earlier turns' reasoning
            waiting = (f"{path.name}:{i + 1}", inputs + [inputs[-1]], outputs + [0], "auto" if user else "manual",
                       counts + [total + added], earlier + [done], spoke)
            marks.append(len(requests))
            inputs, counts, earlier, outputs, added, done, turn = [], [], [], [], 0, 0, 0
    found = simulated(path, found)
    return [(c, _old_fixed(requests, marks)) for c in found]


def simulated(path: Path, found: list[Compaction]) -> list[Compaction]:
    """`found` with where `simulate --context codex` fires in each segment: the rollout read by the Codex
    collector, each segment's requests in simulate's Timeline (their turns as the collector records them) and the
    preset's own Compact.apply, with one request more at the end: what Codex counted when it fired (the last
    response's total and the items added since). Not a re-implementation: a change of the collector's turns, the
    timeline or the policy changes this."""
    records = [r for r in CodexCollector().collect(path) if isinstance(r, (Usage, ToolCall))
               and r.agent == MAIN_AGENT and r.request_index is not None]
    usage = sorted((r for r in records if isinstance(r, Usage)), key=lambda u: u.request_index)
    calls = [r for r in records if isinstance(r, ToolCall)]
    policy = context.parse("codex")
    out, start = [], 0
    for c in found:
        end = int(c.where.rsplit(":", 1)[1])  # the compacted line: the segment's requests are the lines before it
        mine = [u for u in usage if start < u.line < end]
        start = end
        if not mine or mine[-1].input_total != c.fired:  # the collector's requests are not the benchmark's
            out.append(c)
            continue
        last = mine[-1]
        fired = replace(last, line=end, request_id=f"{last.request_id}+", input_uncached=c.counts[-1], cache_write=0,
                        cache_read=0, output=0, reasoning=0, request_index=last.request_index + 1, turn_start=c.spoke)
        first = mine[0].request_index
        requests = [replace(u, request_index=u.request_index - first) for u in [*mine, fired]]
        # the outputs each request first carried (sizes do not move the trigger): where no turn is recorded,
        # simulate guesses one at a request that carries none
        outputs = [timeline.Output(t.request_index - first, len(requests), 0, 0, t.tool) for t in calls
                   if first <= t.request_index <= fired.request_index]
        tl = timeline.build(requests, outputs)
        base = tl.base()
        effect = policy.apply(tl, base, tl.positions(base), lambda text: 0)
        out.append(replace(c, simulated=effect.summaries[0][1] if effect.summaries else None))
    return out


def collect(paths: list[Path]) -> list[tuple[Compaction, int]]:
    """Every recorded compaction under `paths`, in path order."""
    count = get_tokenizer().count
    files = sorted({f for p in paths for f in ([p] if p.is_file() else p.rglob("*.jsonl"))})
    out, seen = [], set()
    for f in files:
        head = f.read_text(encoding="utf-8", errors="replace")[:4000]
        if '"session_meta"' in head or '"type":"compacted"' in f.read_text(encoding="utf-8", errors="replace"):
            out += codex(f)
        else:
            out += claude_code(f, count)
    unique = []
    for c, old in out:
        key = (c.agent, c.version, c.fired, c.after)
        if key not in seen:  # a session copied under two names counts once
            seen.add(key)
            unique.append((c, old))
    return unique


def _best_extra(fit: list[Compaction], summary: float, continued: int) -> int:
    """The `extra` (in steps of 500) that puts the most of `fit` within ±15% of the record (ties: the smallest)."""
    def within(extra: int) -> int:
        return sum(abs(c.policy.rebuilt(prefix_of(c.first_input, continued), c.reads) - c.policy.summary
                       - c.policy.extra + summary + extra - c.after) <= 0.15 * c.after for c in fit)
    return max(range(0, 20_001, 500), key=lambda e: (within(e), -e))


def _best_reasoning(fit: list[Compaction]) -> int:
    """The share of the earlier turns' reasoning (percent, in steps of 5) that makes the most of `fit` fire within
    ±5k of the record (ties: the smallest): Codex estimates encrypted reasoning items the rollout does not keep."""
    auto = [c for c in fit if c.trigger != "manual"]

    def near(share: int) -> int:
        return sum(f is not None and abs(f - c.fired) <= 5_000 for c in auto for f in [c.predicted_fire(share)])
    return max(range(0, 201, 5), key=lambda k: (near(k), -k))


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1%}"


def _err(predicted: int, recorded: int) -> float:
    return (predicted - recorded) / recorded


def main(argv: list[str]) -> None:
    markdown = "--markdown" in argv
    paths = [Path(p) for p in argv if p != "--markdown"] or DEFAULT
    found = collect(paths)
    if not found:
        print("no recorded compaction found")
        return
    rows = []
    for k, (c, old_fixed) in enumerate(found):
        fire = c.predicted_fire()
        rows.append((k, c, fire, c.predicted_after(), c.before_after(old_fixed)))
    sep = " | " if markdown else "  "
    head = ["#", "session:line", "agent", "version", "trigger", "fired at (rec.)", "preset fires at", "diff",
            "first input after (rec.)", "predicted", "error", "before #30", "error"]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    else:
        print(sep.join(head))
    for k, c, fire, after, before in rows:
        cells = [str(k), c.where, c.agent, c.version, c.trigger or "-", f"{c.fired:,}",
                 "does not fire" if fire is None else f"{fire:,}", "" if fire is None else f"{fire - c.fired:+,}",
                 f"{c.after:,}", f"{after:,}", _pct(_err(after, c.after)), f"{before:,}", _pct(_err(before, c.after))]
        print(("| " + " | ".join(cells) + " |") if markdown else sep.join(cells))
    print()
    for agent in sorted({c.agent for _, c, *_ in rows}):
        mine = [r for r in rows if r[1].agent == agent]
        for label, part in (("all", mine), ("fitted (even #)", [r for r in mine if r[0] % 2 == 0]),
                            ("held out (odd #)", [r for r in mine if r[0] % 2 == 1])):
            if not part:
                continue
            errs = [_err(a, c.after) for _, c, _, a, _ in part]
            olds = [_err(b, c.after) for _, c, _, _, b in part]
            auto = [(f, c.fired) for _, c, f, _, _ in part if c.trigger != "manual"]
            near = sum(1 for f, rec in auto if f is not None and abs(f - rec) <= 5_000)
            print(f"{agent} {label}: {len(part)} compactions; first input after: median error {_pct(statistics.median(errs))}"
                  f", {sum(abs(e) <= 0.15 for e in errs)} within ±15% (before #30: median {_pct(statistics.median(olds))}"
                  f", {sum(abs(e) <= 0.15 for e in olds)} within ±15%); fires within ±5k of the record: {near} of "
                  f"{len(auto)} not manual" + ("" if markdown else ""))
        fit = [c for k, c, *_ in mine if k % 2 == 0]
        if agent == "claude-code" and fit:
            summary = statistics.median(c.summary for c in fit)
            policy = fit[0].policy
            # a context whose first request holds a continued session's history: a fresh context's prefix
            continued = statistics.median(c.first_input for c in fit if c.first_input <= FIXED_MAX)
            extra = _best_extra(fit, round(summary, -2), round(continued, -2))
            print(f"{agent} fitted on the even half: summary {summary:,.0f}, extra {extra:,.0f} tokens, a continued "
                  f"context's fixed prefix {continued:,.0f} (the median first input of the fresh ones) (presets: "
                  f"{policy.summary:,}, {policy.extra:,}, {policy.continued:,})")
        if agent == "codex" and fit:
            kept = statistics.median(c.after - c.fixed for c in fit)
            auto = [c for k, c, *_ in mine if c.trigger != "manual"]
            for label, part in (("all", auto), ("fitted (even #)", [c for k, c, *_ in mine if k % 2 == 0 and
                                                                    c.trigger != "manual"]),
                                ("held out (odd #)", [c for k, c, *_ in mine if k % 2 == 1 and c.trigger != "manual"])):
                near = sum(c.simulated is not None and abs(c.simulated - c.fired) <= 5_000 for c in part)
                print(f"{agent} through simulate --context codex (the collector's turns, simulate's timeline and "
                      f"policy), {label}: fires within ±5k of the record: {near} of {len(part)} not manual")
            print(f"{agent} fitted on the even half: summary and kept user messages {kept:,.0f} tokens, the earlier "
                  f"turns' reasoning counted at {_best_reasoning(fit)}% (preset: {fit[0].policy.summary:,}, "
                  f"{fit[0].policy.reasoning}%)")


if __name__ == "__main__":
    main(sys.argv[1:])
