"""`toolaudit cache`: where the scan cache is, what it holds, and clearing it."""

from __future__ import annotations

import json

import click

from . import cli


@cli.group(name="cache")
def cache() -> None:
    """The scan cache: each file's numbers (never its text), so that a re-scan reads only what changed.

    It lives in the user cache folder (TOOLAUDIT_CACHE_DIR overrides it), a folder only you can open (0700,
    its files 0600); a cache folder or file another user owns, or others can write, is never used.
    `scan --no-cache` bypasses it; `ci` uses it only with `--cache`.
    """


@cache.command(name="info")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of lines.")
def cache_info(as_json: bool) -> None:
    """Where the cache is, its size on disk, how many files it holds per set of options, and the scans'
    summaries and files' folds kept beside them (an unchanged corpus, or one where a file grew, is answered
    without refolding every row)."""
    from ..scan.cache import info, key_parts

    found = info()
    if as_json:
        click.echo(json.dumps(found.__dict__))
        return
    if not found.exists:
        click.echo(f"no scan cache yet at {found.path}")
        return
    if found.refused:
        click.echo(f"{found.path}: not used by scans: {found.refused}")
        return
    click.echo(f"{found.path}: {found.bytes:,} bytes, {found.files:,} files")
    click.echo(f"  kept beside them: whole-scan summaries {found.summaries:,}, file folds {found.parts:,}")
    current = key_parts(found.current).code
    for key, files in found.keys:
        k = key_parts(key)
        extra = "".join(f" · {label} {value}" for label, value in (("calibration", k.calibration), ("--from", k.forced))
                        if value)
        stale = "" if k.code == current else " (an older toolaudit: unused)"
        click.echo(f"  {files:>7,} files · {k.tokenizer} · engine {k.engine}{extra}{stale}")


@cache.command(name="clear")
def cache_clear() -> None:
    """Remove the cache (the next scan reads every file and builds it again)."""
    from ..scan.cache import cache_dir, clear

    freed = clear(note=lambda line: click.echo(f"warning: {line}", err=True))
    click.echo(f"removed the scan cache in {cache_dir()} ({freed:,} bytes)")
