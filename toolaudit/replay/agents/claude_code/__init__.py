"""Claude Code's own read-only tools, Read, Grep, Glob and Bash, answered as Claude Code 2.0.64 to 2.1.332 printed them.

The truth is the tools' code in the npm package's `cli.js` (read for 2.0.64, 2.0.74, 2.0.76, 2.1.1 to 2.1.3,
2.1.5 to 2.1.7, 2.1.12, 2.1.14, 2.1.17, 2.1.19 to 2.1.22, 2.1.25, 2.1.29 to 2.1.31, 2.1.34, 2.1.37 to 2.1.42;
the quoted strings below are searchable there), checked against the tool results of 550 recorded sessions
(2.0.64 to 2.1.42). Each version gate is the first version with the behaviour, the one before it read too. The
gates after 2.1.42 (versions.py) come from a bisection of the published packages (`cli.js`, then the linux-x64
binary's embedded JavaScript): `N\t` line prefixes, the reminder's model list, Grep's default head_limit and
pagination, the unchanged-re-read stubs, Glob's counted truncation note, Windows paths.

- Read: `%6d→line` numbering from the requested offset, a malware `<system-reminder>` appended (since
  2.1.39 not for claude-opus-4-6), the empty / short-file warnings, the size and token errors, EISDIR.
- Grep: ripgrep with Claude Code's own flags (`--hidden`, VCS folders excluded, `--max-columns 500`),
  files sorted newest first with an ICU tie-break, paths made relative to the working folder the way
  Node's `path.relative` does it (only the text before the first `:` of a content line), pagination notes.
- Glob: `rg --files --sort=modified` (oldest first), absolute paths, 100 results and a truncation note.
- Bash: the recorded command run by the read-only interpreter (`shell_readonly`, never a shell), its stdout
  and stderr joined, trimmed and cut as the version did, failures as `Exit code N` tool errors (see `bash`).
- Outputs over a tool's size limit become the `<persisted-output>` preview (2.1.2 on); before that a
  Grep output over 20,000 characters was cut with `... [N lines truncated] ...`.

Paths are printed under `Call.cwd` and read under `Call.root`; lengths are counted as JavaScript does
(UTF-16 code units). What is not emulated (images, PDFs, notebooks, `~` paths, API token counts) is
said in the outcome: refused, or an estimate where the text cannot be known.
"""

from . import bash, glob, grep, read  # noqa: F401  (each registers its emulation)
