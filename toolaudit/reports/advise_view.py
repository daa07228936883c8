"""The advise view: recommendations ranked by net saving, each with its agent's setting and the evidence."""

from __future__ import annotations

from typing import Any

from ..advise.rank import AdviceResult, Recommendation
from .html_verdict import dollars
from .view import Lines, Section, View, meta_doc, num, register, tokenizer_text

COLUMNS = ("rank", "tools", "net", "risk", "policy", "setting", "kind")


def _setting(r: Recommendation) -> str:
    if r.setting is None:
        return "no setting: policy file" if r.policy_file else "no setting"
    return f"{r.setting.agent}: {r.setting.name} = {r.setting.value}"


def _setting_cell(r: Recommendation) -> str:
    """The table's setting: its name and value, which a terminal must not cut (the agent is named in the lines
    below, `#N TOOL (AGENT)` and `set NAME = VALUE`)."""
    return _setting(r) if r.setting is None else f"{r.setting.name} = {r.setting.value}"


def _worth(r: Recommendation) -> str:
    """A recommendation's dollars: saved, and the bill before and after when known; or why there are none."""
    if r.saved_usd is None:
        return "dollars unknown (" + ("a change to the server, not measured" if r.kind == "mcp" else
                                      "no price for its calls' model") + ")"
    bill = (f" (the bill {dollars(r.cost_before_usd)} → {dollars(r.cost_after_usd)})"
            if r.cost_before_usd is not None and r.cost_after_usd is not None else "")
    return f"saves {dollars(r.saved_usd)}{bill}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _risk(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _risk_text(value: float | None) -> str:
    return "unknown" if value is None else f"{100 * value:.1f}%"


def recommendation_dict(r: Recommendation) -> dict[str, Any]:
    """One recommendation as JSON."""
    return {"kind": r.kind, "tools": list(r.tools), "policy": r.policy, "net_tokens_saved": r.net_tokens_saved,
            "saved_usd": r.saved_usd, "risk": _risk(r.risk), "evidence": {"sessions": r.evidence[0],
                                                                          "events": r.evidence[1]},
            "setting": r.setting.as_dict() if r.setting else None, "why": r.why,
            "policy_file": r.policy_file, "cost_before_usd": r.cost_before_usd, "cost_after_usd": r.cost_after_usd,
            "curve": [{"value": p.value, "net_tokens_saved": p.net_tokens_saved, "risk": _risk(p.risk),
                       "in_budget": p.in_budget} for p in r.curve],
            "fields": [{"path": name, "tokens": tokens} for name, tokens in r.fields]}


def advise_dict(result: AdviceResult) -> dict[str, Any]:
    """The JSON document of `advise`."""
    meta = result.meta
    return {
        "schema_version": meta.schema_version,
        "meta": meta_doc(meta, "advise"),
        "budget": {"max_later_used": result.budget[0], "max_refetch": result.budget[1],
                   "min_net_tokens": result.floor},
        "recommendations": [recommendation_dict(r) for r in result.recommendations],
        "rejected": list(result.rejected),
        "agents": dict(result.agents),
        "calls": result.calls,
        "files": result.files,
        "skipped": {"count": result.skipped_count},
        "unrecognised": list(result.unrecognised),
        "errors": list(result.errors),
    }


TOOLS_WIDTH = 18  # the tools cell on a terminal


def _tools_cell(rank: int, tools: tuple[str, ...]) -> str:
    """The tools a recommendation covers as a cell: by count where their names pass the cell's width, as its line
    below names them all (a terminal cut them in the middle: nine read `[REDACTE…ite_stdin`, four `execute_…ce_editor`)."""
    names = ", ".join(tools)
    if not tools:
        return "(context)"
    return names if len(tools) == 1 or len(names) <= TOOLS_WIDTH else f"{len(tools)} tools (#{rank} below)"


@register
class AdviseView(View):
    """`advise`: a ranked table, then each recommendation's evidence, setting source and policy file."""

    kind = "advise"
    title = "toolaudit advise"

    def doc(self, result: AdviceResult) -> dict:
        return advise_dict(result)

    def csv_rows(self, result: AdviceResult) -> list[dict]:
        return [{"rank": i, **{k: v for k, v in recommendation_dict(r).items() if k not in ("curve", "fields")},
                 "tools": ",".join(r.tools), "setting": _setting(r)}
                for i, r in enumerate(result.recommendations, 1)]

    def headline(self, result: AdviceResult) -> tuple[str, list[str]] | None:
        if not result.recommendations:
            return ("info", ["no change saves tokens within the risk budget"])
        # every recommendation, as the table ranks them, each with its dollars (or why none)
        return ("info", [f"{i}. {r.policy} on {', '.join(r.tools) or 'the context'}: {_worth(r)}; "
                         f"{r.net_tokens_saved:,} tokens saved net; {_setting(r)}"
                         for i, r in enumerate(result.recommendations, 1)])

    def blocks(self, result: AdviceResult) -> list:
        rows = [[str(i), _tools_cell(i, r.tools), num(r.net_tokens_saved), _risk_text(r.risk), r.policy,
                 _setting_cell(r), r.kind] for i, r in enumerate(result.recommendations, 1)]
        # on a narrow terminal the kind and the policy go first: the setting is what a user acts on, and the
        # lines below restate the policy
        table = Section(["#", "tools", "net saved", "risk", "policy", "setting", "kind"], rows,
                        title="Recommendations", columns=list(COLUMNS), compact=COLUMNS,
                        shorten={1: TOOLS_WIDTH, 4: 26, 5: 36}, keep=("tools", "net", "risk", "setting"),
                        left=("tools", "policy", "setting", "kind"))
        lines = []
        for i, r in enumerate(result.recommendations, 1):
            lines.append(f"#{i} {r.why}")
            lines.append(f"   evidence: {_count(r.evidence[0], 'session')}, {_count(r.evidence[1], 'event')}"
                         + (f"; worth {dollars(r.saved_usd)}" if r.saved_usd is not None else "")
                         + ("; risk unknown: nothing measured behind it" if r.risk is None and r.kind != "mcp" else ""))
            if r.cost_before_usd is not None and r.cost_after_usd is not None:
                lines.append(f"   cost {dollars(r.cost_before_usd)} → {dollars(r.cost_after_usd)}")
            if r.setting is not None:
                lines.append(f"   set {r.setting.name} = {r.setting.value} ({r.setting.where})"
                             + (f"; {r.setting.note}" if r.setting.note else "") + f" [source: {r.setting.source}]")
            elif r.policy_file:
                lines.append("   no setting in the agent; as a policy file for `simulate --policy-file`: "
                             + r.policy_file.replace("\n", "; "))
        lo, rf = result.budget
        notes = [f"budget: a cap may put {lo:.1%} of a tool's calls at risk (later_used + errors_cut); a context "
                 f"policy may refetch {rf:.1%} of all calls, and must not raise the bill; a recommendation saves at "
                 f"least {result.floor:,} tokens net and names a setting the agent has (a policy file where toolaudit "
                 "knows no settings of the agent); ranked by dollars where priced, then tokens",
                 f"calls: {result.calls:,} in {result.files} files; agents: "
                 + ", ".join(f"{a} {n:,}" for a, n in result.agents),
                 f"tokenizer: {tokenizer_text(result.meta)}"]
        if result.rejected:
            notes.append(f"left out ({len(result.rejected)}): " + "; ".join(result.rejected[:6])
                         + (" …" if len(result.rejected) > 6 else ""))
        return [table, Lines(lines), Lines(notes)]
