"""`toolaudit list`: the input formats, policies and report formats toolaudit knows."""

from __future__ import annotations

import click

from ..collectors import collectors
from ..reports import reporters
from . import cli


@cli.group(name="list")
def list_() -> None:
    """List what toolaudit knows: input formats, policies and presets, report formats."""


@list_.command(name="collectors")
def list_collectors() -> None:
    """The input formats (use a KEY with --from), in detection order."""
    for key, cls in collectors.all().items():
        click.echo(f"{key:20} {cls.description}")


@list_.command(name="reports")
def list_reports() -> None:
    """The report formats (use a KEY with -f/--format)."""
    for key, cls in reporters.all().items():
        click.echo(f"{key:20} {cls.description}")


@list_.command(name="replay")
def list_replay() -> None:
    """replay's implementation kinds (--tool GLOB=KIND:SPEC), the builtin tools and the agents' emulated tools,
    with their parameters and the versions each emulation reproduces."""
    from dataclasses import fields

    from ..replay.base import implementations
    from ..replay.runner import load_kinds

    missing = load_kinds()
    for key, cls in implementations.all().items():
        click.echo(f"{key:10} {cls.summary}")
    for key, reason in missing.items():
        click.echo(f"{key:10} (not available: {reason})")
    from ..replay.builtin import BUILTINS

    click.echo("\nBuiltins (builtin:NAME?param=value&...):")
    for name, module in BUILTINS.items():
        params = ", ".join(f"{f.name}={f.default}" for f in fields(module.Params))
        click.echo(f"  {name:13} {params}")
    from ..replay.agents import all_emulations

    click.echo("\nAgent emulations (agent:AGENT/TOOL?param=value&...; --identity maps each recorded call to its own):")
    for (agent, tool), cls in all_emulations().items():
        click.echo(f"  {agent + '/' + tool:30} {cls.versions}")
        if cls.params:
            click.echo(f"  {'':30} params: {', '.join(cls.params)}")


@list_.command(name="policies")
def list_policies() -> None:
    """The cap policy families (simulate's flags) and the agent presets (--preset NAME)."""
    from ..simulate.policies import policies
    from ..simulate.presets import PRESETS

    click.echo("Policy families, applied in this order:")
    for key, cls in sorted(policies.all().items(), key=lambda kv: kv[1].order):
        click.echo(f"  {key:16} {cls.summary}")
    click.echo("\nPresets (--preset NAME): the caps agents ship, with their own markers")
    for key, preset in PRESETS.items():
        click.echo(f"  {key:20} {preset.description}")
