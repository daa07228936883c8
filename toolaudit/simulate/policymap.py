"""Which tool gets which policy: a preset, a policy file, and flags, layered.

Layers, weakest first: `--preset` < the policy file (or `[tool.toolaudit.simulate.policies]`)
< flags. A stronger layer's policy replaces a weaker one's of the same family (flags
win); other families stay. Flags apply to every tool unless `--tool GLOB` restricts
them (`--tool @shell` takes a tool family: scan.families; so does a policy-file table `["@shell"]`). In a policy file, each table is a tool-name glob (`Grep`, `mcp__*`, `Bash`);
the first glob that matches a tool wins, and `default` applies to the rest. Globs
match case-insensitively.

Parameters (flags, file keys): preview_chars, include_content (search preview);
max_matches with max_bytes (match and byte limit); max_chars or max_bytes, max_lines,
head_lines, tail_lines, head_ratio (head/tail cap); no_body, body_chars, body_fields
(JSON fields). `max_bytes` goes to the match limit when `max_matches` is set, else to
the head/tail cap.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..model import OutputCap
from ..registry import did_you_mean
from ..scan.families import DEFAULT as DEFAULT_FAMILIES, Families, families_from
from .policies import Chain, HeadTail, JsonFields, MatchLimit, Policy, SearchPreview
from .policies.codex import CodexWrapped
from .presets import Preset, Versioned

PARAMS: dict[str, type] = {
    "preview_chars": int, "include_content": bool,
    "max_matches": int, "max_bytes": int,
    "max_chars": int, "max_lines": int, "head_lines": int, "tail_lines": int, "head_ratio": float,
    "no_body": bool, "body_chars": int, "body_fields": str,
}
_CAP = ("max_chars", "max_lines", "head_lines", "tail_lines")


def _check(params: dict[str, Any], where: str) -> dict[str, Any]:
    """Known keys with values of the right type, or a UsageError naming the key."""
    out = {}
    for key, value in params.items():
        name = key.replace("-", "_")
        if name not in PARAMS:
            raise UsageError(f"{where}: unknown policy key {key!r}{did_you_mean(name, PARAMS)}", slug="policy-key")
        kind = PARAMS[name]
        if name == "body_fields" and isinstance(value, (list, tuple)):
            value = ",".join(map(str, value))
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise UsageError(f"{where}: {key} takes a {kind.__name__}, not {value!r}", slug="policy-value")
        if kind in (int, float) and value < 0:
            raise UsageError(f"{where}: {key} must not be negative", slug="policy-value")
        out[name] = value
    return out


def chain_from(params: dict[str, Any], where: str = "flags") -> Chain:
    """The policies a set of parameters asks for, in the documented order (empty: none)."""
    p = {k: v for k, v in _check(params, where).items() if v is not None and v is not False}
    items = []
    if "no_body" in p or "body_chars" in p:
        fields = tuple(f.strip() for f in p.get("body_fields", "body,content,description,result").split(",") if f.strip())
        items.append(JsonFields(no_body=p.get("no_body", False), body_chars=p.get("body_chars"), fields=fields))
    if "preview_chars" in p or "include_content" in p:
        items.append(SearchPreview(preview_chars=p.get("preview_chars", 100), include_content=p.get("include_content", False)))
    if "max_matches" in p:
        items.append(MatchLimit(max_matches=p["max_matches"], max_bytes=p.get("max_bytes")))
    cap = {k: p[k] for k in _CAP if k in p}
    if "max_bytes" in p and "max_matches" not in p:
        cap["max_bytes"] = p["max_bytes"]
    if cap:
        items.append(HeadTail(head_ratio=p.get("head_ratio", 0.4), **cap))
    elif "head_ratio" in p:
        raise UsageError(f"{where}: head_ratio needs max_chars, max_bytes or max_lines", slug="policy-value")
    if "head_ratio" in p and not 0 <= p["head_ratio"] <= 1:
        raise UsageError(f"{where}: head_ratio is a fraction from 0 to 1", slug="policy-value")
    return Chain.of(*items)


def load_rules(table: dict[str, Any], where: str) -> tuple[tuple[str, Chain], ...]:
    """(glob, Chain) rules from a policy table; `default` goes last as `*`."""
    rules, default = [], None
    for glob, params in table.items():
        if not isinstance(params, dict):
            raise UsageError(f"{where}: [{glob}] must be a table of policy keys", slug="policy-file")
        chain = chain_from(params, f"{where} [{glob}]")
        if glob == "default":
            default = chain
        else:
            rules.append((glob.lower(), chain))
    if default is not None:
        rules.append(("*", default))
    return tuple(rules)


def read_policy_file(path: Path) -> dict[str, Any]:
    """The table of a TOML policy file (checked with `load_rules` when the maps are built)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read policy file {path}: {exc}", slug="policy-file") from None


@dataclass(frozen=True)
class PolicyMap:
    """The layered policies: a tool's chain is preset, overridden by file rules, then by flags."""

    preset: Preset | Versioned | None = None
    rules: tuple[tuple[str, Chain], ...] = ()
    flags: Chain = Chain()
    tools: tuple[str, ...] = ()  # --tool globs (or @FAMILY) the flags are limited to; empty: every tool
    label: str = ""
    families: Families = DEFAULT_FAMILIES  # what @FAMILY selects (scan.families)
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def follows_session(self) -> bool:
        """True when the preset takes each session's recorded cap (codex)."""
        return self.preset is not None and self.preset.follows_cap

    def policy_for(self, tool: str, model: str | None = None, recorded: OutputCap | None = None,
                   version: str | None = None, collector: str | None = None) -> Policy | None:
        """The policy for `tool`, or None when nothing applies (the output is left whole).

        `model` and `recorded` (the session's own cap) matter only when the preset follows the
        session; `version` (the session's recorded one) and `collector` (whose recording it is)
        only when the preset is versioned (presets.Versioned). A Codex 0.5x JSON-wrapped output
        is cut inside its wrapper (CodexWrapped).
        """
        preset = self._range(version, collector)
        follows = preset is not None and preset.follows_cap
        key = (tool, preset and preset.key, *((model, recorded) if follows else ()))
        if key not in self._cache:
            cap = preset.cap_for(recorded, model) if follows else None
            chain = self._compose(tool, preset, cap)
            self._cache[key] = CodexWrapped(chain) if chain is not None else None
        return self._cache[key]

    def _range(self, version: str | None, collector: str | None) -> Preset | None:
        """The preset's range for a session of `version` recorded by `collector` (asked once per pair)."""
        key = ("@range", version, collector)
        if key not in self._cache:
            self._cache[key] = self.preset.at(version, collector) if self.preset else None
        return self._cache[key]

    def _compose(self, tool: str, preset: Preset | None = None, cap: Policy | None = None) -> Chain | None:
        chain = preset.chain_for(tool, cap) if preset else Chain()
        rule = next((c for glob, c in self.rules if self.takes(glob, tool)), None)
        if rule is not None:
            chain = chain.override(*rule.policies)
        if self.flags.policies and (not self.tools or any(self.takes(g, tool) for g in self.tools)):
            chain = chain.override(*self.flags.policies)
        return chain if chain.policies else None

    def takes(self, pattern: str, tool: str) -> bool:
        """Whether a tool glob (any case) or `@FAMILY` selects `tool`."""
        if pattern.startswith("@"):
            return self.families.selects(pattern, tool)
        return fnmatchcase(tool.lower(), pattern.lower())

    def describe(self) -> list[str]:
        """What applies where, one line per layer."""
        lines = []
        if self.preset:
            lines.append(f"preset {self.preset.key}: {self.preset.description}")
        lines += [f"{glob}: {chain.describe()}" for glob, chain in self.rules]
        if self.flags.policies:
            lines.append(f"{', '.join(self.tools) or '*'}: {self.flags.describe()}")
        return lines or ["no policy: outputs unchanged"]


def parse_sweep(spec: str) -> tuple[str, list]:
    """`max_chars=2000,5000` or `preview_chars=0:500:50` (start:stop:step, stop included; start:stop steps by 1)."""
    name, sep, values = spec.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not values.strip():
        raise UsageError(f"--sweep takes PARAM=V1,V2,... or PARAM=START:STOP:STEP, not {spec!r}", slug="sweep")
    kind = PARAMS.get(name)
    if kind not in (int, float):
        raise UsageError(f"--sweep: {name!r} is not a numeric policy parameter"
                         f"{did_you_mean(name, [k for k, t in PARAMS.items() if t in (int, float)])}", slug="sweep")
    try:
        if ":" in values:
            parts = values.split(":")
            start, stop, step = (kind(v) for v in (parts if len(parts) != 2 else [*parts, 1]))
            if step <= 0:
                raise ValueError
            out, value = [], start
            while value <= stop + (1e-9 if kind is float else 0):
                out.append(round(value, 6) if kind is float else value)
                value += step
        else:
            out = [kind(v) for v in values.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"--sweep: cannot read the values of {spec!r}", slug="sweep") from None
    if not out or len(out) > 200:
        raise UsageError(f"--sweep: {len(out)} values; give 1 to 200", slug="sweep")
    return name, out


def spec_of(flags: dict[str, Any], preset: str | None, tools: tuple[str, ...], rules: dict | None,
            where: str = "policy file", families: dict | None = None) -> dict[str, Any]:
    """Everything that decides the policies, as plain data: stored in simulate's JSON so a
    CI gate can run the same simulation again from a baseline. `families` is the
    `[tool.toolaudit.families]` table that @FAMILY selectors read (kept only when given)."""
    spec = {"preset": preset, "flags": {k: v for k, v in flags.items() if v is not None and v is not False},
            "tools": list(tools), "rules": rules or {}, "rules_from": where if rules else None}
    return {**spec, "families": families} if families else spec


def maps_from_spec(spec: dict[str, Any], sweep: str | None = None, *, bare: bool = False
                   ) -> tuple[list[PolicyMap], str | None]:
    """One PolicyMap, or one per swept value, and the swept parameter's name (`bare`: a map without any size
    policy is allowed, for a context policy alone)."""
    from .presets import get_preset

    chosen = get_preset(spec["preset"]) if spec.get("preset") else None
    rules = load_rules(spec.get("rules") or {}, spec.get("rules_from") or "policy file")
    flags, tools = dict(spec.get("flags") or {}), tuple(spec.get("tools") or ())
    families = families_from(spec.get("families"), "families of the simulation")
    for pattern in [*tools, *(glob for glob, _ in rules)]:
        if pattern.startswith("@"):
            families.selects(pattern, "")  # an unknown family fails here, before any file is read
    if not sweep:
        flag_chain = chain_from(flags)
        if not (chosen or rules or flag_chain.policies or bare):
            raise UsageError("no policy given: use flags such as --preview-chars 100 or --max-chars 5000, "
                             "--preset NAME, or --policy-file FILE (see `toolaudit list policies`)", slug="no-policy")
        return [PolicyMap(chosen, rules, flag_chain, tools, families=families)], None
    name, values = parse_sweep(sweep)
    if name in flags:
        raise UsageError(f"--sweep {name}=… and --{name.replace('_', '-')} both set it: give one", slug="sweep")
    maps = [PolicyMap(chosen, rules, chain_from({**flags, name: value}, f"--sweep {name}={value}"), tools,
                      label=str(value), families=families) for value in values]
    return maps, name
