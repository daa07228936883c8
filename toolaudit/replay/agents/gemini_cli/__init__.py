"""Gemini CLI's read-only tools, emulated as each release printed them [src google-gemini/gemini-cli].

Measured is what the collector measures: the functionResponse's `output`, an error as the JSON of
`{"error": message}`, sibling text and images, built here as the recorded parts and measured by the
collector's own functions. Formats by release (`Call.version`; None: the newest known, 0.56, which the
published 0.61 still matches):
- read_file: `absolute_path`, absolute only, before 0.14 (f05d937f39); `offset`/`limit` and the notice
  "use offset: N" before 0.31, `start_line`/`end_line` from 0.31 (547f5d45f5); CRLF kept before 0.34
  (f88488d1f9); 2000 lines, lines cut at 2000 UTF-16 units with "... [truncated]"; from 0.12 a
  .gitignore'd or .geminiignore'd file is an error (before: .geminiignore only);
- read_many_files: `--- {abs path} ---\n\n{content}\n\n` per file (sorted), `\n--- End of content ---`;
  `paths` before 0.14; before 0.22 a list answer was "Tool execution succeeded." and sibling parts (d236df5b21);
- glob: files modified in the last 24 h first (newest first), the rest by path (ICU order); symlinked files
  drop out from 0.51 (b5fc06ee33);
- list_directory: dirs first, then ICU name order; `name (N bytes)` from 0.31 (ce84b3cb5f); `(N ignored)`
  from 0.12 (92d412e542), `path` before 0.14;
- search_file_content / grep_search (ripgrep, the default from 0.8): `L12: text` trimmed before 0.29,
  context lines `L12- text` from 0.29, 100 matches from 0.28 (20,000 before), names_only 0.30, auto-context
  for 1-3 matches from 0.31 (5d98ed5820), lines cut at 2000 characters from 0.34 (c5112cde46).
Not emulated: JIT GEMINI.md context appended to outputs (depends on what the session had loaded), several
workspace folders, audio/video files, JS-only regex errors. ripgrep runs with `--sort path`: Gemini's
4-thread walk has no stable file order. Glob's 24-hour cut uses `now` (param) against the replay folder's
mtimes.
"""

from . import listing, read, search  # noqa: F401  (each registers its emulations)
