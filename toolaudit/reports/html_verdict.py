"""The HTML report's verdict: what a reader needs first, with dollars, or a line saying why there are none.

It starts from the view's headline (`View.headline`) and adds, from the view's JSON document, the lead a
report without one lacks (scan, a sweep, a comparison) and the dollars the job computed: scan's bill and its
tool outputs' share (`scan -f html` prices with the offline table), a context policy's bill before and after,
a size policy's or a replayed variant's tool-output dollars before and after, each side of a comparison, the
gated run against its baseline, each advice's saving. Where nothing had a price, one line says why.
"""

from __future__ import annotations

from typing import Callable

# the words that mark a line as the dollar statement, priced or not, so that no second one is added
NO_PRICE = ("not priced", "no dollars", "dollars unknown")


def dollars(value: float | None) -> str:
    """Dollars as a reader reads them: $1,234.56; under a cent as `under $0.01`; n/a for no price."""
    if value is None:
        return "n/a"
    return f"${value:,.2f}" if value >= 0.005 or value == 0 else "under $0.01"


def signed(change: float | None) -> str:
    """A change in dollars with its sign: +$1.20, −$0.40, ±$0.00, and under a cent `less than a cent more|less`
    (a sign before `under $0.01` read as a negative word); n/a for none."""
    if change is None:
        return "n/a"
    if 0 < abs(change) < 0.005:
        return f"less than a cent {'more' if change > 0 else 'less'}"
    return f"{'+' if change > 0 else '−' if change < 0 else '±'}{dollars(abs(change))}"


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def scan_money(doc: dict) -> str:
    """What the tool outputs cost, estimated, against the billed total; or why no price."""
    cost = doc.get("cost")
    if cost is None:
        return "dollars: not priced (scan --cost prices them from the offline price table)"
    priced = [t for t in cost["tools"] if t["total_usd"] is not None]
    unpriced = sum(t["unpriced_calls"] for t in cost["tools"])
    billed = cost.get("billed_usd")
    if not priced:
        return no_price(cost)
    first = sum(t["first_usd"] for t in priced)
    again = sum(t["resent_usd"] for t in priced)
    line = (f"tool outputs cost ≈ {dollars(first + again)} ({dollars(first)} first sent + {dollars(again)} re-sent; "
            f"estimated, {cost['prices']})")
    usage = doc.get("usage") or {}
    if billed is not None:
        line += f", of {dollars(billed)} billed over {usage.get('requests', 0):,} requests"
    else:
        line += "; the bill itself is not priced (no provider usage with a known model)"
    return line + (f"; {unpriced:,} calls without a price" if unpriced else "")


def scan_lead(doc: dict) -> list[str]:
    """The tokens: how many, in how many calls, the largest tool, and their share of the billed input."""
    totals, tools = doc["totals"], doc["tools"]
    line = f"tool outputs: {totals['tokens']:,} tokens in {totals['calls']:,} calls over {totals['sessions']:,} sessions"
    if tools:
        line += f"; the largest, {tools[0]['tool']}: {tools[0]['share']:.1%}"
    share = (doc.get("usage") or {}).get("tool_output_share")
    if share is not None:
        line += f"; ≈ {share:.1%} of billed input (estimated)"
    return [line]


def simulate_money(doc: dict) -> str:
    """A context policy's bill (a sweep: its cheapest value); a size policy's tool-output dollars before → after
    (a sweep: its largest saving); or why there are none."""
    sweep = doc.get("sweep") or []
    if doc["meta"].get("sweep") and sweep and "cost_after_usd" in sweep[0]:
        costs = [v for v in sweep if v["cost_after_usd"] is not None and v["cost_before_usd"] is not None]
        if not costs:
            return "dollars unknown: no price for these requests' models (--model NAME)"
        best = min(costs, key=lambda v: v["cost_after_usd"])
        change = best["cost_after_usd"] - best["cost_before_usd"]
        return (f"the cheapest value, {doc['meta']['sweep']}={best['value']}: the bill {dollars(best['cost_before_usd'])} → "
                f"{dollars(best['cost_after_usd'])} ({'+' if change > 0 else '−'}{dollars(abs(change))})")
    if sweep and "cost" in sweep[0]:
        priced = [v for v in sweep if v["cost"]["saved_usd"] is not None]
        if not priced:
            return no_price(sweep[0]["cost"])
        best = max(priced, key=lambda v: v["cost"]["saved_usd"])
        return (f"the largest saving, {doc['meta']['sweep']}={best['value']}: "
                + output_change(best["cost"], "the caps"))
    cost = doc.get("cost")
    if cost is None:
        return "dollars: not priced: this result carries no tool-output dollars (written by an older toolaudit)"
    return output_change(cost, "these caps") if cost["saved_usd"] is not None else no_price(cost)


def no_price(cost: dict) -> str:
    """Why a change's tool outputs have no dollars: nothing sized, or the models without a price."""
    if "priced_calls" in cost and not cost["priced_calls"] and not cost["unpriced_calls"]:  # scan's has no counts
        return "dollars: not priced: no call was sized, so there is nothing to price"
    models = ", ".join(cost.get("unknown_models") or []) or "the recorded models"
    return f"dollars unknown: no price for {models} (--model NAME names a model the transcripts do not)"


def output_change(cost: dict, what: str) -> str:
    """Tool outputs' dollars before → after a change (estimated), and the calls without a price."""
    saved = cost["saved_usd"]
    says = f"cost {dollars(-saved)} more" if saved < 0 else f"save {dollars(saved)}" if saved else "save nothing"
    line = (f"tool outputs cost ≈ {dollars(cost['before_usd'])} → {dollars(cost['after_usd'])}: {what} {says} "
            f"(estimated, {cost['prices']}, over {cost['priced_calls']:,} priced calls")
    unpriced = cost["unpriced_calls"]
    return line + (f"; {unpriced:,} calls without a price)" if unpriced else ")")


def replay_money(doc: dict) -> str:
    """The variant's tool-output dollars against the calls' before (the identity replay where checked)."""
    cost = doc.get("cost")
    if cost is None:
        return "dollars: not priced: this result carries no tool-output dollars (written by an older toolaudit)"
    return output_change(cost, "the new tools") if cost["saved_usd"] is not None else no_price(cost)


def compare_money(doc: dict) -> str:
    """Each side's tool-output dollars, in all and per run (median), A → B; or why a side has none."""
    cost = doc.get("cost")
    if cost is None:
        return "dollars: not priced: this result carries no tool-output dollars (written by an older toolaudit)"
    if cost["why_not"]:
        return f"dollars: not priced: {cost['why_not']}"
    run = cost["per_run"]
    line = (f"tool outputs cost ≈ {dollars(run['a']['median'])} → {dollars(run['b']['median'])} per run (median, "
            f"{signed(run['change'])}); {dollars(cost['a_usd'])} over A's runs, {dollars(cost['b_usd'])} over B's "
            f"(estimated, {cost['prices']})")
    unpriced = cost["a_unpriced_calls"] + cost["b_unpriced_calls"]
    return line + (f"; {unpriced:,} calls without a price" if unpriced else "")


def ci_money(doc: dict) -> str:
    """The gated run's tool-output dollars against the baseline's."""
    from .gate_view import cost_text

    cost = doc.get("cost")
    return cost_text(cost) if cost is not None else "dollars: not priced: this ci result carries no dollars"


def simulate_lead(doc: dict) -> list[str]:
    """A sweep's range: what its values save, and the calls they put at risk."""
    sweep, name = doc.get("sweep") or [], doc["meta"].get("sweep")
    if not sweep:
        return []
    if "net_tokens_saved" in sweep[0]:
        net = [v["net_tokens_saved"] for v in sweep]
        return [f"sweep of {name} over {len(sweep)} values: net {min(net):,} to {max(net):,} input tokens saved"]
    saved = [v["saved_pct"] for v in sweep]
    risk = [v["later_used"] + v["errors_cut"] for v in sweep]
    return [f"sweep of {name} over {len(sweep)} values: {min(saved):.1f}% to {max(saved):.1f}% of tool-output tokens "
            f"saved; {min(risk):,} to {max(risk):,} cut calls hid something used later or a failure signal"]


def compare_lead(doc: dict) -> list[str]:
    """The median output tokens per run, A against B (and billed input where both sides record it)."""
    lines = []
    for metric, what in (("tokens", "output tokens"), ("billed_input", "billed input tokens")):
        m = doc["overall"]["metrics"].get(metric) or {}
        if m.get("a") and m.get("b"):
            pct = "" if m["pct_change"] is None else f" ({m['pct_change']:+.1f}%)"
            lines.append(f"median {what} per run: A {m['a']['median']:,} → B {m['b']['median']:,}{pct} "
                         f"over {m['a']['n']:,} and {m['b']['n']:,} runs")
    return lines


def _unpriced(what: str) -> Callable[[dict], str]:
    return lambda doc: f"dollars: not priced: {what}"


LEADS: dict[str, Callable[[dict], list[str]]] = {"scan": scan_lead, "simulate": simulate_lead,
                                                  "compare": compare_lead}
MONEY: dict[str, Callable[[dict], str]] = {
    "scan": scan_money, "simulate": simulate_money, "replay": replay_money, "compare": compare_money,
    "ci": ci_money, "advise": _unpriced("no recommendation within the risk budget, so nothing to price"),
}


def verdict(kind: str, headline: tuple[str, list[str]] | None, doc: dict) -> tuple[str, list[str]]:
    """The status and lines the page leads with: the headline (or the lead the document gives), and the dollars
    unless a line already states them."""
    status, lines = headline if headline and headline[1] else ("info", [])
    lines = list(lines) or LEADS.get(kind, lambda d: [])(doc)
    money = MONEY.get(kind)
    if money is not None and not any("$" in line or any(w in line for w in NO_PRICE) for line in lines):
        line = money(doc)
        # a priced line is the verdict itself: first; a missing price is said after what was measured
        lines = [line, *lines] if "$" in line else [*lines, line]
    return status, lines
