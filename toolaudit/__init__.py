"""toolaudit: measure which tool outputs fill an LLM agent's context, offline."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("agent-toolaudit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
