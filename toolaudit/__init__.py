"""toolaudit: measure which tool outputs fill an LLM agent's context, offline.

The Python API is the commands' own entry points (docs/python.md):

    import toolaudit
    result = toolaudit.scan(["~/.claude/projects"], by="family", top=10)
    result.to_pandas()            # one row per tool; .to_pandas("calls") with calls=True
    toolaudit.simulate(paths, preset="codex").to_json()

`scan`, `simulate`, `replay`, `compare`, `gate`, `calibrate` and `advise` are the job packages, each callable.
"""

# the one place the version is written (pyproject.toml reads it): asking importlib.metadata instead
# cost every command, the statusline included, 20-30 ms at start-up
__version__ = "0.1.0"

from . import advise, calibrate, compare, gate, replay, scan, simulate  # noqa: E402  (each is callable: jobs.py)


def __getattr__(name: str):
    """`toolaudit.InputOptions`, imported when first asked for: `toolaudit statusline` asks its resident
    server before it needs any of it (toolaudit.entry)."""
    if name == "InputOptions":
        from .options import InputOptions

        return InputOptions
    raise AttributeError(f"module 'toolaudit' has no attribute {name!r}")

__all__ = ["scan", "simulate", "replay", "compare", "gate", "calibrate", "advise", "InputOptions", "__version__"]
