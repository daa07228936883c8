"""advise's entry point: one simulation pass that sweeps caps per tool and context policies together, then
the recommendations ranked by net saving under a risk budget (rank.py), each with its agent's setting."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..options import SILENT, Hooks, InputOptions, build, split_options
from ..storage import input_path

CAPS = (2_000, 5_000, 10_000, 20_000, 40_000)  # chars: the cap sweep
MASKS = (3, 5, 10, 20)  # turns kept by masking
CLEARS = ((100_000, 3, 0), (100_000, 3, 20_000), (50_000, 3, 20_000))  # (trigger, keep, clear_at_least)
COMPACTS = (100_000, 140_000, 160_000)  # input tokens at which to compact


@dataclass(frozen=True)
class AdviseOptions:
    """The flags of `toolaudit advise`."""

    read: InputOptions = field(default_factory=InputOptions)
    max_later_used: float = 0.01  # a cap may hide something used later in at most this share of a tool's calls
    max_refetch: float = 0.01  # a context policy may remove an output used later for at most this share of calls
    caps: tuple[int, ...] = CAPS
    masks: tuple[int, ...] = MASKS
    clears: tuple[tuple[int, int, int], ...] = CLEARS
    compacts: tuple[int, ...] = COMPACTS
    top: int = 10  # recommendations shown at most
    min_net_tokens: int = 1_000  # the floor: a recommendation that saves fewer tokens net is left out
    min_calls: int = 5  # a tool needs this many calls for a cap recommendation (fewer: no evidence of a knee)
    model: str | None = None  # prices requests whose transcript names no model

    @classmethod
    def of(cls, **given: Any) -> "AdviseOptions":
        """The options of API keywords: InputOptions' fields and advise's own, flat."""
        read, rest = split_options(InputOptions, given)
        return build(cls, {**rest, "read": InputOptions(**read)}, "advise")


def advise(paths: Iterable[Path | str] = (), options: AdviseOptions | None = None, *, hooks: Hooks = SILENT,
           **given: Any):
    """The changes worth making to the agents whose sessions are under `paths`, ranked (rank.AdviceResult)."""
    from ..pipeline import FileOptions, check_format, gather, meta_for, simulate_file, tokenizer_of
    from ..simulate.context import Clear, Mask, agent_compaction
    from ..simulate.context.run import ContextRun, Pricer
    from ..scan.menu import menu_summary
    from ..simulate.policymap import PolicyMap, maps_from_spec, spec_of
    from ..simulate.summary import SimCollected
    from .acting import SettingMap
    from .rank import rank

    options = options or AdviseOptions.of(**given)
    paths = [input_path(p) for p in paths]
    read = options.read
    check_format(read)
    tok = tokenizer_of(read)
    # simulate's own sweep of a head-and-tail cap on every tool (for agents whose settings toolaudit does not
    # know: a policy file), each agent's settings as it applies them, then no cap at all (the context policies')
    sweep, _ = maps_from_spec(spec_of({}, None, (), None), f"max_chars={','.join(map(str, options.caps))}")
    maps = [*sweep, *(SettingMap(c) for c in options.caps), PolicyMap()]
    candidates = ([Mask(keep=n) for n in options.masks]
                  + [Clear(trigger=t, keep=k, clear_at_least=c) for t, k, c in options.clears]
                  + [agent_compaction(agent, a) for agent in (None, "claude-code", "codex") for a in options.compacts])
    sink = SimCollected([m.label for m in maps], [tuple(m.describe()) for m in maps])
    bare = len(maps) - 1
    pricer = Pricer(options.model)  # one for all: each distinct split is priced once
    sink.context = [(bare, ContextRun(p, tok.count, pricer=pricer, by_group=True)) for p in [None, *candidates]]
    gather(paths, read, FileOptions.of(read), sink, hooks=hooks, worker=simulate_file, extra=(maps, False, True, True))
    return rank(sink, options, meta_for(read, paths, tok=tok), menu_summary(list(sink.menus.values())))
