"""toolaudit: measure which tool outputs fill an LLM agent's context, offline.

The Python API is the commands' own entry points (docs/python.md):

    import toolaudit
    result = toolaudit.scan(["~/.claude/projects"], by="family", top=10)
    result.to_pandas()            # one row per tool; .to_pandas("calls") with calls=True
    toolaudit.simulate(paths, preset="codex").to_json()

`scan`, `simulate`, `replay`, `compare`, `gate` and `calibrate` are the job packages, each callable.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("agent-toolaudit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

from . import calibrate, compare, gate, replay, scan, simulate  # noqa: E402  (each is callable: jobs.py)
from .options import InputOptions  # noqa: E402

__all__ = ["scan", "simulate", "replay", "compare", "gate", "calibrate", "InputOptions", "__version__"]
