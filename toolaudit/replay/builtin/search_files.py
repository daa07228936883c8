"""builtin:search_files: grep's search with each match's content previewed, as `simulate --preview-chars` does.

Spec parameters: `builtin:search_files?preview_chars=100&include_content=false&max_matches=100&max_bytes=10000`
(the defaults). Each match's content is cut to its first `preview_chars` characters +
"..." (SearchPreview: a 500-char line becomes 103 chars); `include_content=true` keeps
it whole. Then at most `max_matches` results and `max_bytes` bytes, notice included
(MatchLimit), as builtin:grep.

Arguments: builtin:grep's, canonical and aliases alike (Cline's `regex` and
`file_pattern`, hermes-agent's `file_glob` included); see `grep.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...simulate.policies import Chain, SearchPreview
from ..base import Outcome, Sandbox
from .common import search_caps
from .grep import search
from .ripgrep import scope

NEEDS_RG = True
SUMMARY = "grep with each match's content cut to preview_chars + '...' (100; include_content=true keeps it)"


@dataclass(frozen=True)
class Params:
    """builtin:search_files's spec parameters."""

    preview_chars: int = 100  # characters of each match's content kept (0: `path:line` only)
    include_content: bool = False  # keep each match's content whole
    max_matches: int | None = 100
    max_bytes: int | None = 10_000
    hidden: bool = False  # search hidden files too (rg --hidden); .git never
    no_ignore: bool = False  # search .gitignore'd files too (rg --no-ignore)

    def __post_init__(self) -> None:
        self.chain()

    def chain(self) -> Chain:
        """simulate's per-match preview (SearchPreview), then its match and byte limit (MatchLimit)."""
        preview = SearchPreview(preview_chars=self.preview_chars, include_content=self.include_content)
        return search_caps(self.max_matches, self.max_bytes, preview)


def call(params: Params, args: Mapping[str, Any], workspace: Path, sandbox: Sandbox) -> Outcome:
    """Search as the recorded call asks; each match previewed, results capped."""
    return search(args, workspace, sandbox, params.chain(), scope(params))
