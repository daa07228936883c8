"""The bill: provider-reported usage per request, and dollars from an offline price table.

Prices come from genai-prices' bundled snapshot (it matches LiteLLM's and never fetches
unless asked); its version is stated in every result. A request is priced as billed
(tiers included). A tool output is priced as: its first appearance at the model's
cache-write price (its input price where the model has none), plus each re-send
(residency − 1 later requests) at the cache-read price (input price where none) — at
the base tier, and on the tokens of the scan's tokenizer, so labelled estimated.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Callable

from ..model import Measurement, Usage

MTOK = Decimal(1_000_000)


def prices_version() -> str:
    """The price table every result names."""
    from importlib.metadata import version  # 20 ms of imports: only when prices are asked for

    return f"genai-prices {version('genai-prices')}"


@lru_cache(maxsize=512)
def _model_price(model: str):
    import warnings

    from genai_prices import Usage as PriceUsage, calc_price

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return calc_price(PriceUsage(input_tokens=1, output_tokens=1), model).model_price
        except LookupError:
            # routers name models `provider/model` (OpenRouter, litellm): try the model alone
            return _model_price(model.rsplit("/", 1)[1]) if "/" in model else None


def _base(price) -> Decimal | None:
    if price is None:
        return None
    return Decimal(price.base) if hasattr(price, "base") else Decimal(price)


def token_prices(model: str | None) -> tuple[Decimal, Decimal] | None:
    """(first-appearance, re-send) price per token of `model`, or None when the table lacks it."""
    price = _model_price(model) if model else None
    if price is None:
        return None
    first = _base(price.cache_write_mtok) or _base(price.input_mtok)
    again = _base(price.cache_read_mtok) or _base(price.input_mtok)
    if first is None or again is None:
        return None
    return first / MTOK, again / MTOK


def charges_cache_writes(model: str) -> bool:
    """Whether the price table has a cache-write price for `model` (Anthropic's; OpenAI and Gemini charge none)."""
    price = _model_price(model)
    return price is not None and price.cache_write_mtok is not None


def request_cost(usage: Usage, model: str | None) -> Decimal | None:
    """What one request was billed, tiers included; None for a model the table lacks."""
    from genai_prices import Usage as PriceUsage

    price = _model_price(model) if model else None
    if price is None:
        return None
    # 1-hour cache writes cost twice the input price (5-minute ones 1.25x, the table's cache-write price): priced as
    # input here, then the second input price added
    hour = min(usage.cache_write_1h, usage.cache_write)  # a part never over its whole (negative writes are refused)
    billed = PriceUsage(input_tokens=usage.input_total, cache_read_tokens=usage.cache_read,
                        cache_write_tokens=usage.cache_write - hour, output_tokens=usage.output)
    cost = Decimal(price.calc_price(billed)["total_price"])
    if hour:
        cost += hour * (_base(price.input_mtok) or Decimal(0)) / MTOK
    return cost


@dataclass
class Billing:
    """Usage totals and, with prices, dollars: in total and per group (session, model, agent)."""

    requests: int = 0
    input_uncached: int = 0
    cache_write: int = 0
    cache_read: int = 0
    output: int = 0
    cost: Decimal | None = None  # billed dollars; None without --cost
    unpriced_requests: int = 0
    cache_write_1h: int = 0  # of cache_write: 1-hour cache writes (priced at twice the input price)

    @property
    def input_total(self) -> int:
        return self.input_uncached + self.cache_write + self.cache_read

    def add(self, usage: Usage, cost: Decimal | None, priced: bool) -> None:
        self.requests += 1
        self.input_uncached += usage.input_uncached
        self.cache_write += usage.cache_write
        self.cache_write_1h += usage.cache_write_1h
        self.cache_read += usage.cache_read
        self.output += usage.output
        if priced:
            if cost is None:
                self.unpriced_requests += 1
            else:
                self.cost = (self.cost or Decimal(0)) + cost

    def as_dict(self) -> dict:
        """The JSON form: token counts, and dollars when priced."""
        doc = {"requests": self.requests, "input_uncached": self.input_uncached, "cache_write": self.cache_write,
               "cache_read": self.cache_read, "output": self.output, "input_total": self.input_total}
        if self.cache_write_1h:
            doc["cache_write_1h"] = self.cache_write_1h
        if self.cost is not None or self.unpriced_requests:
            doc["cost_usd"] = usd(self.cost)  # null when nothing could be priced: never a false $0
            doc["unpriced_requests"] = self.unpriced_requests
        return doc


@dataclass
class ToolCost:
    """Dollars one tool's outputs cost: first appearance, and re-sent with later requests."""

    first: Decimal = Decimal(0)
    resent: Decimal = Decimal(0)
    unpriced_calls: int = 0
    priced_calls: int = 0  # so that a tool with no priced call shows n/a, not $0.00

    def as_dict(self, tool: str) -> dict:
        priced = self.priced_calls > 0  # a tool none of whose calls had a price costs null, not $0
        return {"tool": tool, "first_usd": usd(self.first if priced else None),
                "resent_usd": usd(self.resent if priced else None),
                "total_usd": usd(self.first + self.resent if priced else None), "unpriced_calls": self.unpriced_calls}


def usd(value: Decimal | None) -> float | None:
    """Dollars as JSON: rounded to 8 places; None (null) for what had no price."""
    return None if value is None else float(round(value, 8))


@dataclass
class Bill:
    """Everything billing adds to a scan result.

    `carried` is tokens × residency of the calls whose context (session, agent) has usage
    records, `carried_calls` how many calls that is: the share of billed input compares
    like with like, and calls from contexts without usage are left out of it.
    """

    total: Billing = field(default_factory=Billing)
    carried: int = 0
    carried_calls: int = 0
    calls_without_usage: int = 0
    groups: dict[str, Billing] = field(default_factory=dict)
    tools: dict[str, ToolCost] = field(default_factory=dict)
    group_tools: dict[str, ToolCost] = field(default_factory=dict)  # the calls' estimated dollars per --by group
    unknown_models: set[str] = field(default_factory=set)
    priced: bool = False


class BillTally:
    """The bill built as requests and calls come: Billing sums per group, and per context and per
    (model, tool) the sums the calls add, so no usage record or call is kept.

    Prices are exact decimals, so a (model, tool)'s tokens summed then priced cost what pricing
    each call and summing does."""

    def __init__(self, *, by: str, priced: bool, model: str | None, period: Callable[[Usage], str] | None = None):
        self.priced, self.model, self.period = priced, model, period
        self.out = Bill(priced=priced)
        self.group_of = period or {"session": lambda u: u.session, "model": lambda u: u.model or model or "(unknown)",
                                   "agent": lambda u: u.agent}.get(by)
        self.groups: dict[str, Billing] = defaultdict(Billing)
        self.billed: set[tuple] = set()  # (session, agent) with usage records
        self.contexts: dict[tuple, list[int]] = {}  # (session, agent) -> [calls, with residency, tokens × residency]
        self.tools: dict[tuple, list[int]] = {}  # (model, tool) -> [calls, tokens, tokens × re-sends]
        self.by_group: dict[tuple, list[int]] = {}  # (model, --by group) -> the same sums

    def add_usage(self, u: Usage) -> None:
        """One request: priced as billed (its tiers), added to the total and its group."""
        name = u.model or self.model
        cost = request_cost(u, name) if self.priced else None
        if self.priced and cost is None:
            self.out.unknown_models.add(name or "(no model named)")
        self.out.total.add(u, cost, self.priced)
        if self.group_of is not None:
            self.groups[self.group_of(u)].add(u, cost, self.priced)
        self.billed.add((u.session, u.agent))

    def add_call(self, row: Measurement, group: str | None = None) -> None:
        """One call that returned an output (`group`: its --by group, for the cost column of any grouping)."""
        cell = self.contexts.setdefault((row.session, row.agent), [0, 0, 0])
        cell[0] += 1
        if row.residency is not None:
            cell[1] += 1
            cell[2] += row.tokens * row.residency
        add_output(self.tools, (row.model, row.tool), row.tokens, row.residency)
        if group is not None:
            add_output(self.by_group, (row.model, group), row.tokens, row.residency)

    def finish(self) -> Bill:
        """The Bill of everything added."""
        out = self.out
        out.groups = dict(sorted(self.groups.items(), key=(lambda kv: (kv[0].startswith("("), kv[0])) if self.period
                                 else (lambda kv: -kv[1].input_total)))
        for context, (calls, known, carried) in self.contexts.items():
            if context in self.billed:
                out.carried += carried
                out.carried_calls += known
                out.calls_without_usage += calls - known
            else:
                out.calls_without_usage += calls
        if self.priced:
            self._price(self.tools, out.tools, out)
            self._price(self.by_group, out.group_tools, out)
        return out

    def _price(self, sums: dict[tuple, list[int]], into: dict[str, ToolCost], out: Bill) -> None:
        """Dollars of each (model, key)'s calls summed per key."""
        into.update(price_outputs(sums, self.model, out.unknown_models))


def add_output(sums: dict[tuple, list[int]], key: tuple, tokens: int, residency: int | None, calls: int = 1) -> None:
    """One call's output added to `sums[(model, key)]`: [calls, tokens, tokens × re-sends]; a re-send is each later
    request that carried it (residency − 1; unknown residency: none)."""
    cell = sums.setdefault(key, [0, 0, 0])
    cell[0] += calls
    cell[1] += tokens
    cell[2] += tokens * max((residency or 1) - 1, 0)


def price_outputs(sums: dict[tuple, list[int]], fallback: str | None, unknown: set[str]) -> dict:
    """Each key's ToolCost from `sums[(model, key)]` (add_output): tokens at the model's first-appearance price,
    re-sends at its re-send price (`fallback` names the model a call lacks); unpriced models go in `unknown`.

    The one way tool-output tokens are priced: scan's tool costs, simulate's caps, replay's variant, compare's sides.
    """
    into: dict = {}
    for (model, key), (calls, tokens, resent) in sums.items():
        name = model or fallback
        prices = token_prices(name)
        cost = into.setdefault(key, ToolCost())
        if prices is None:
            cost.unpriced_calls += calls
            unknown.add(name or "(no model named)")
            continue
        first, again = prices
        cost.priced_calls += calls
        cost.first += tokens * first
        cost.resent += resent * again
    return into


@dataclass(frozen=True)
class OutputDollars:
    """What tool outputs cost before and after a change (caps, a replayed variant; A and B of a comparison), estimated
    as scan prices them: None where no call had a price."""

    prices: str  # the price table (prices_version)
    before: Decimal | None
    after: Decimal | None
    priced_calls: int
    unpriced_calls: int
    unknown_models: tuple[str, ...] = ()

    @property
    def saved(self) -> Decimal | None:
        """before − after (negative: the change costs more)."""
        return None if self.before is None or self.after is None else self.before - self.after

    def as_dict(self) -> dict:
        """The JSON form (`cost` of simulate and replay; each side's of compare)."""
        return {"prices": self.prices, "currency": "USD", "estimated": True, "before_usd": usd(self.before),
                "after_usd": usd(self.after), "saved_usd": usd(self.saved), "priced_calls": self.priced_calls,
                "unpriced_calls": self.unpriced_calls, "unknown_models": list(self.unknown_models)}


class OutputTally:
    """Tool outputs before and after a change, summed per model as calls come, priced once by `finish`."""

    def __init__(self, model: str | None = None):
        self.model = model  # prices calls whose transcript names no model
        self.before: dict[tuple, list[int]] = {}
        self.after: dict[tuple, list[int]] = {}

    def add(self, model: str | None, before: int, after: int, residency: int | None) -> None:
        """One call: its output's tokens before and after the change, and how many requests carried it."""
        add_output(self.before, (model, None), before, residency)
        add_output(self.after, (model, None), after, residency)

    def finish(self) -> OutputDollars:
        """The dollars of everything added."""
        unknown: set[str] = set()
        before = price_outputs(self.before, self.model, unknown).get(None, ToolCost())
        after = price_outputs(self.after, self.model, set()).get(None, ToolCost())
        priced = before.priced_calls > 0
        return OutputDollars(prices_version(), before.first + before.resent if priced else None,
                             after.first + after.resent if priced else None, before.priced_calls,
                             before.unpriced_calls, tuple(sorted(unknown)))
