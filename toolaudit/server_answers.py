"""What each MCP tool answers: the numbers an agent acts on from the API's result, small by design (see
server_fit), and the transcript a call without a path reads (server_session)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .server_fit import Ranked, fit, row

_GROUP = ("calls", "tokens", "share", "tokens_p95", "tokens_max", "error_calls", "agent_truncated_calls")
_QUIET = ("error_calls", "agent_truncated_calls", "later_used", "errors_cut", "json_broken", "affected_calls")
_ADD = ("calls", "tokens", "share", "error_calls", "agent_truncated_calls")


def current_session(confined, env):
    """(Found, "") for the current session's transcript inside the server's folders, or (None, where it was
    looked for)."""
    from . import server_session

    def allowed(path: Path) -> bool:
        try:
            confined.path(str(path))
        except Exception:  # noqa: BLE001 -- the server's refusal: outside its folders, or a link out
            return False
        return True

    def reaches(folder: Path) -> bool:  # the folder lies in a root, or holds one
        return any(folder == r or folder.is_relative_to(r) or r.is_relative_to(folder) for r in confined.roots)

    return server_session.current(allowed, env, reaches)


def _problems(doc: dict) -> dict:
    """Counts of what could not be read, and the first such line (`file:line: reason`)."""
    skipped = doc.get("skipped") or {}
    errors, unrecognised = doc.get("errors") or [], doc.get("unrecognised") or []
    first = [*errors, *unrecognised, *(skipped.get("first") or [])]
    return {"skipped_lines": skipped.get("count", 0) or None, "unrecognised_files": len(unrecognised) or None,
            "errors": len(errors) or None, "first_problem": first[0] if first else None}


def context(now, source: dict, rows: int, max_tokens: int) -> str:
    """The `context` tool's answer (scan.ContextNow)."""
    doc: dict[str, Any] = {"source": source, "session": now.session, "calls": now.calls,
                           "in_context": now.in_context, "context": now.context,
                           "share": None if now.share is None else round(now.share, 4), "resent": now.resent,
                           "estimated": now.estimated or None, "tokenizer": now.tokenizer,
                           "skipped_lines": len(now.skipped) or None}
    tools = Ranked("by_tool", [{"tool": t, "tokens": n} for t, n in now.by_tool], rows, ("tokens",))
    return fit(doc, [tools], max_tokens, essential=("source", "session", "calls", "in_context", "context", "share"))


def _group_rows(rows: list[dict], key: str) -> list[dict]:
    """A group's name, its other words (project, agent, start date, when the scan gives them) and numbers."""
    out = []
    for r in rows:
        words = [k for k, v in r.items() if isinstance(v, str) and k != key]
        out.append(row(r, (key, *words, *_GROUP), _QUIET))
    return out


def scan(doc: dict, source: dict, by: str, rows: int, max_tokens: int) -> str:
    """The `scan` tool's answer: totals, the largest groups (and tools), the rest summed, the bill's share."""
    meta = doc.get("meta") or {}
    answer: dict[str, Any] = {
        "source": source, "by": by, "tokenizer": meta.get("tokenizer_label"),
        "estimated": meta.get("estimated") or None,
        "totals": row(doc.get("totals") or {}, ("calls", "tokens", "files", "sessions", "tokens_p95", "tokens_max",
                                                "error_calls", "agent_truncated_calls", "carried_tokens"), _QUIET),
        "usage": row(doc.get("usage") or {}, ("requests", "input_total", "output", "cache_read",
                                              "tool_output_share", "tool_output_share_estimated"),
                     ("tool_output_share_estimated",)),
        **_problems(doc)}
    ranked = [Ranked("tools", _group_rows(doc.get("tools") or [], "tool"), rows if by == "tool" else min(rows, 5),
                     _ADD)]
    if by != "tool":
        ranked.insert(0, Ranked("groups", _group_rows(doc.get("groups") or [], by), rows, _ADD))
    if doc.get("top"):
        keep = ("tool", "session", "file", "line", "tokens", "args_preview", "output_preview")
        ranked.append(Ranked("top", [row(t, keep) for t in doc["top"]], len(doc["top"]), ("tokens",)))
    return fit(answer, ranked, max_tokens, essential=("source", "by", "totals", "usage"))


def simulate(result, source: dict, rows: int, max_tokens: int) -> str:
    """The `simulate` tool's answer: the verdict lines first, the totals, the context policy's bill, and the
    tools it saves most on."""
    import json

    from .reports.sim_data import SimView

    doc = json.loads(result.to_json())
    meta, totals = doc.get("meta") or {}, doc.get("totals") or {}
    headline = SimView().headline(result)
    answer: dict[str, Any] = {
        "source": source, "policy": _policy(meta), "verdict": headline[1] if headline else None,
        "tokenizer": meta.get("tokenizer_label"),
        "totals": row(totals, ("calls", "affected_calls", "tokens_before", "tokens_after", "tokens_saved", "saved_pct",
                               "weighted_tokens_saved", "later_used", "errors_cut", "json_broken"), _QUIET[2:]),
        **_problems(doc)}
    if doc.get("context"):
        c = doc["context"]
        answer["context"] = {**row(c, ("policy", "requests", "gross_tokens_saved", "removed_calls", "compactions",
                                       "unpriced_requests"), ("compactions", "unpriced_requests")),
                             **row(totals, ("net_tokens_saved", "refetched", "refetch_tokens", "cache_invalidations",
                                            "cost_before_usd", "cost_after_usd"), (), digits=2)}
    # a context policy alone cuts no output: its answer is the bill, not a table of zeros (as the CLI's)
    context_only = doc.get("context") and not any(v.totals.selected_calls for v in result.variants)
    tools = [] if context_only else sorted(doc.get("tools") or [], key=lambda t: (-(t.get("tokens_saved") or 0),
                                                                                  -(t.get("tokens_before") or 0)))
    keep = ("tool", "calls", "affected_calls", "tokens_before", "tokens_saved", "saved_pct", "later_used",
            "errors_cut", "json_broken")
    ranked = [Ranked("tools", [row(t, keep, (*_QUIET, "tokens_saved", "saved_pct")) for t in tools], rows,
                     ("calls", "affected_calls", "tokens_before", "tokens_saved", "later_used"))]
    return fit(answer, ranked, max_tokens, essential=("source", "policy", "verdict", "totals", "context"))


def _policy(meta: dict) -> Any:
    """The policy a simulation ran, as its meta names it (preset, caps, context)."""
    spec = meta.get("policy_spec") or {}
    return {"preset": meta.get("preset"), "caps": meta.get("policies"), "tools": spec.get("tools"),
            "context": spec.get("context")}


def advise(doc: dict, source: dict, rows: int, max_tokens: int) -> str:
    """The `advise` tool's answer: the best recommendations, each with the agent's setting, the rest summed."""
    recs = []
    for rec in doc.get("recommendations") or []:
        out = row(rec, ("kind", "tools", "policy", "net_tokens_saved", "saved_usd", "risk", "evidence", "why",
                        "policy_file", "cost_before_usd", "cost_after_usd", "fields"), digits=4)
        setting = rec.get("setting")
        if isinstance(setting, dict):  # its source is the evidence behind it: `toolaudit advise` prints it
            out["setting"] = row(setting, ("agent", "name", "value", "where", "note"))
        recs.append(out)
    answer: dict[str, Any] = {
        "source": source, "budget": doc.get("budget"), "calls": doc.get("calls"), "files": doc.get("files"),
        "agents": doc.get("agents"), "rejected": len(doc.get("rejected") or []) or None, **_problems(doc)}
    ranked = [Ranked("recommendations", recs, rows, ("net_tokens_saved", "saved_usd"))]
    return fit(answer, ranked, max_tokens, essential=("source", "budget", "calls"))
