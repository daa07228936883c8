"""toolaudit as an MCP server (official SDK, stdio): an agent asks mid-session what filled its context,
what a scan of its transcripts says, and what a cap would save.

Each tool calls the same Python API as the CLI (scan.context_now, scan, simulate, advise) and answers one
compact JSON text within a token budget (server_answers, server_fit); without a path it reads the current
session (server_session). It only reads: paths must lie inside the folders given when the server started
(symbolic links are resolved first, and a folder holding a link to anything outside them is refused), and
no tool output or argument text is returned unless the server was started with show_content.
"""

# no `from __future__ import annotations`: the tools' annotations name local aliases, which the SDK
# reads from the functions themselves
import json
import os
from pathlib import Path

INSTRUCTIONS = ("toolaudit measures which tool outputs fill an agent's context, from the transcripts agents "
                "write. Without a path, a tool reads the current session; paths must lie inside the folders "
                "this server was started with. Answers are compact JSON of at most max_tokens (1,500).")


def _refused(message: str) -> Exception:
    """A request the server will not run (a path outside its folders, content it may not show): the
    SDK's ToolError, whose text reaches the client (any other exception's text stays on the server)."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


def _answering(work):
    """`work()`, with toolaudit's own one-line errors (a bad option, an unreadable file) told to the client."""
    from .errors import ToolauditError

    try:
        return work()
    except ToolauditError as exc:
        raise _refused(str(exc)) from None


class Confined:
    """The folders a server may read, and the check that a path lies inside one."""

    def __init__(self, roots: list[Path]):
        self.roots = [Path(r).expanduser().resolve() for r in roots]

    def inside(self, resolved: Path) -> bool:
        """True when the resolved path `resolved` is a root or lies under one."""
        return any(resolved == root or resolved.is_relative_to(root) for root in self.roots)

    def path(self, given: str) -> Path:
        """`given` resolved (links followed), refused when it lies outside every root, or when it is a folder
        that holds a link to a file or folder outside them (a scan of the folder would read through it)."""
        resolved = Path(given).expanduser().resolve()
        if not self.inside(resolved):
            raise _refused(f"{given} is outside the folders this server reads: "
                           f"{', '.join(str(r) for r in self.roots)}")
        if not resolved.exists():
            raise _refused(f"{given}: no such file or folder")
        if resolved.is_dir():
            for link, target in _links(resolved):
                if not self.inside(target):
                    raise _refused(f"{link} links to {target}, outside the folders this server reads")
        return resolved


def _links(folder: Path):
    """(link, its target resolved) for every symbolic link under `folder` (links to folders not walked; the
    walk's entries say which are links without a stat each)."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink():
            yield Path(entry.path), Path(os.path.realpath(entry.path))
        elif entry.is_dir(follow_symlinks=False):
            yield from _links(Path(entry.path))


def build(roots: list[Path], show_content: bool = False, env: dict[str, str] | None = None):
    """The MCPServer with toolaudit's tools, confined to `roots`; `env` stands for the environment when the
    current session is looked for (tests)."""
    from typing import Annotated

    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations
    from pydantic import Field

    from . import __version__
    from . import advise as advise_job
    from . import scan as scan_job
    from . import simulate as simulate_job
    from . import server_answers as answers
    from .server_fit import DEFAULT_MAX_TOKENS, DEFAULT_ROWS, MIN_MAX_TOKENS

    confined = Confined(roots)
    server = MCPServer("toolaudit", version=__version__, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
    tool = server.tool(annotations=read_only, structured_output=False)  # one compact text, not two copies

    Path_ = Annotated[str | None, Field(description="A transcript file or a folder of them, inside the server's "
                                                    "folders. Default: the current session (the newest transcript "
                                                    "of the working folder's project; the answer's `source` says "
                                                    "which).")]
    Budget = Annotated[int, Field(ge=MIN_MAX_TOKENS, description=f"The answer's size limit in o200k_base tokens "
                                                                 f"(default {DEFAULT_MAX_TOKENS}); past it the "
                                                                 "lowest rows are left out and `truncated` says "
                                                                 "how many.")]
    Rows = Annotated[int, Field(ge=0, le=1000, description="How many rows to list, largest first (the others "
                                                           "are summed in `*_rest`).")]

    def sources(path: str | None, single: bool = False) -> tuple[list[Path], dict[str, str]]:
        """The paths a call reads, and the `source` its answer names."""
        from .secrets.redact import name  # a secret in a file or folder name is masked, as in every answer

        if path:
            return [confined.path(path)], {"path": name(path, path=True)}
        found, looked = answers.current_session(confined, env)
        if found is None:
            raise _refused(f"no path given and {name(looked, path=True)}: pass `path` (a transcript or a folder "
                           f"inside {', '.join(str(r) for r in confined.roots)})")
        paths = [found.path] if single else [confined.path(str(p)) for p in found.paths()]
        return paths, {"path": name(str(found.path), path=True), "agent": found.agent,
                       "chosen": name(found.how, path=True)}

    @tool
    def context(transcript: Path_ = None, rows: Rows = DEFAULT_ROWS,
                max_tokens: Budget = DEFAULT_MAX_TOKENS) -> str:
        """What fills a session's context now: the tokens of its tool outputs since the last compaction, per
        tool, their share of the last request, and the tokens re-sent so far (one transcript file; default:
        the current session). Compact JSON of at most `max_tokens` tokens (default 1500)."""
        def work():
            paths, source = sources(transcript, single=True)
            return answers.context(scan_job.context_now(paths[0]), source, rows, max_tokens)
        return _answering(work)

    @tool
    def scan(path: Path_ = None, by: str = "tool", top: int = 0, rows: Rows = DEFAULT_ROWS,
             max_tokens: Budget = DEFAULT_MAX_TOKENS) -> str:
        """`toolaudit scan PATH --by BY`: every tool call's exact tokens, grouped by tool, session, file,
        agent, model, family, day, week or month (default: the current session, by tool): totals, the largest
        `rows` groups and the rest summed. `top` lists the largest calls (their argument previews are content:
        only on a server started with --show-content). Compact JSON of at most `max_tokens` tokens (default
        1500)."""
        if top and not show_content:
            raise _refused("top calls carry argument previews: start the server with --show-content to see them")

        def work():
            paths, source = sources(path)
            result = scan_job(paths, by=by, top=top, show_content=show_content)
            return answers.scan(json.loads(result.to_json()), source, by, rows, max_tokens)
        return _answering(work)

    @tool
    def simulate(path: Path_ = None, preset: str | None = None,
                 context: Annotated[str | None, Field(description=(
                     "A context policy, as `toolaudit simulate --context`: mask:keep=N, clear:trigger=T,keep=K, "
                     "compact:at=T, an agent's default (claude-code, codex, gemini-cli, anthropic-clear, "
                     "anthropic-compact) or none; priced with the prompt cache."))] = None,
                 model: Annotated[str | None, Field(description="With `context`: price requests whose "
                                                                "transcript names no model as this one.")] = None,
                 max_chars: int | None = None, max_lines: int | None = None, max_matches: int | None = None,
                 preview_chars: int | None = None, tools: list[str] | None = None, rows: Rows = DEFAULT_ROWS,
                 max_tokens: Budget = DEFAULT_MAX_TOKENS) -> str:
        """`toolaudit simulate`: what a cap or a context policy would save, cost and hide, on the transcripts
        under PATH (default: the current session); an agent's real caps by `preset` (claude-code, codex,
        gemini-cli, ...: `toolaudit list presets`), caps of your own (max_chars, max_lines, max_matches,
        preview_chars) for `tools` (globs) or all, and/or a `context` policy (mask:keep=10, claude-code, ...).
        The verdict first, then the tools it saves most on. Compact JSON of at most `max_tokens` tokens
        (default 1500)."""
        caps = {k: v for k, v in (("max_chars", max_chars), ("max_lines", max_lines), ("max_matches", max_matches),
                                  ("preview_chars", preview_chars)) if v is not None}

        if not (preset or caps or context):  # the CLI's own message names its flags, not these arguments
            raise _refused("no policy given: pass preset (claude-code, codex, gemini-cli, ...), caps (max_chars, "
                           "max_lines, max_matches, preview_chars) or context (mask:keep=10, claude-code, ...)")

        def work():
            paths, source = sources(path)
            result = simulate_job(paths, preset=preset, tools=tuple(tools or ()), context=context, model=model,
                                  **caps)
            return answers.simulate(result, source, rows, max_tokens)
        return _answering(work)

    @tool
    def advise(path: Path_ = None, max_later_used: float = 0.01, max_refetch: float = 0.01,
               rows: Annotated[int, Field(ge=0, le=1000, description="How many recommendations to list, best "
                                                                     "first (the others are summed in "
                                                                     "`recommendations_rest`).")] = 5,
               max_tokens: Budget = DEFAULT_MAX_TOKENS) -> str:
        """`toolaudit advise`: the few changes worth making to the agents whose transcripts are under PATH
        (default: the current session): caps per tool, a context policy, MCP outputs, ranked by net tokens
        saved within a risk budget (shares of calls), each with the agent's own setting. Compact JSON of at
        most `max_tokens` tokens (default 1500)."""
        def work():
            paths, source = sources(path)
            result = advise_job(paths, max_later_used=max_later_used, max_refetch=max_refetch)
            return answers.advise(json.loads(result.to_json()), source, rows, max_tokens)
        return _answering(work)

    return server


def serve(roots: list[Path], show_content: bool = False) -> None:
    """Serve over stdio until the client closes it."""
    build(roots, show_content).run("stdio")
