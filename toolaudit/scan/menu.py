"""The tool menu: the definitions model requests carried, where transcripts record them, and the
definitions results loaded (ToolSearch's tool_reference blocks)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import MenuMeasurement


@dataclass(frozen=True)
class Definition:
    """One tool's definition over the scan: its tokens, the requests that carried it, their product.

    A tool whose definition changed between menus has `versions` > 1: `tokens` is the version most
    requests carried, and `carried_tokens` adds each version's tokens × its requests.
    """

    tool: str
    tokens: int
    requests: int
    carried_tokens: int
    versions: int = 1


@dataclass(frozen=True)
class Menu:
    """The tool definitions model requests carried: each definition, and the menu in all."""

    definitions: tuple[Definition, ...]
    menus: int  # distinct menus
    sessions: int  # sessions that sent one
    requests: int  # requests that carried a menu
    carried_tokens: int  # definition tokens × the requests that carried them
    top: int = 0  # how many definitions the text reports list (scan --top)

    @property
    def tokens_per_request(self) -> int:
        """The menu's tokens on one request (their mean, when menus differ)."""
        return round(self.carried_tokens / self.requests) if self.requests else 0


@dataclass(frozen=True)
class ToolReferences:
    """Tool definitions that results loaded into the context (Claude Code ToolSearch's `tool_reference`
    blocks). The model sees the definitions, not the reference: where a recorded menu holds a loaded
    tool's definition its tokens are known, otherwise its size is unknown (Claude Code's transcripts
    do not record definitions)."""

    calls: int  # results that loaded definitions
    tools: tuple[tuple[str, int], ...]  # (tool, times loaded), most loaded first
    known_tokens: int  # the loaded definitions' tokens, where a menu recorded them (per load)
    unknown: int  # loads whose definition no transcript recorded

    @property
    def loads(self) -> int:
        """References in all."""
        return sum(n for _, n in self.tools)


def references(calls: int, loaded: dict[str, int], menu: Menu | None) -> ToolReferences | None:
    """The ToolReferences of a scan, sized from `menu`'s definitions where it has them; None without any."""
    if not calls:
        return None
    sizes = {d.tool: d.tokens for d in menu.definitions} if menu is not None else {}
    known = sum(sizes[name] * n for name, n in loaded.items() if name in sizes)
    unknown = sum(n for name, n in loaded.items() if name not in sizes)
    return ToolReferences(calls, tuple(sorted(loaded.items(), key=lambda kv: (-kv[1], kv[0]))), known, unknown)


def _where(menu: MenuMeasurement) -> str:
    """Where a menu's session id is unique: its file, or (global ids) its format."""
    return menu.collector if menu.global_id else menu.source


def keep_menu(kept: dict[tuple, MenuMeasurement], menu: MenuMeasurement) -> None:
    """Keep a session's menu once in `kept`: a copy in another file (same session, same definitions) keeps the
    larger request count. Session ids count across files only where they are unique there."""
    key = (_where(menu), menu.session, menu.agent, menu.key)
    found = kept.get(key)
    if found is None or menu.requests > found.requests:
        kept[key] = menu


def menu_summary(menus: list[MenuMeasurement], top: int = 0) -> Menu | None:
    """The definitions of every kept menu added up per tool name, largest cost first; None without menus."""
    if not menus:
        return None
    per: dict[str, dict[str, list[int]]] = {}
    for menu in menus:
        for name, key, tokens in menu.tools:
            per.setdefault(name, {}).setdefault(key, [tokens, 0])[1] += menu.requests
    definitions = []
    for name, versions in per.items():
        tokens = max(versions.values(), key=lambda v: (v[1], v[0]))[0]
        definitions.append(Definition(name, tokens, sum(r for _, r in versions.values()),
                                      sum(t * r for t, r in versions.values()), len(versions)))
    definitions.sort(key=lambda d: (-d.carried_tokens, d.tool))
    return Menu(tuple(definitions), menus=len({m.key for m in menus}),
                sessions=len({(_where(m), m.session, m.agent) for m in menus}),
                requests=sum(m.requests for m in menus),
                carried_tokens=sum(d.carried_tokens for d in definitions), top=top)
