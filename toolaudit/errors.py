"""Errors the core raises and the exit codes the CLI maps them to."""

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_GATE = 3


class ToolauditError(Exception):
    """An error the CLI turns into one `error: …` line and an exit code."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str, slug: str = "error"):
        super().__init__(message)
        self.message = message
        self.slug = slug


class UsageError(ToolauditError):
    """The user's words are off: a bad option value, a missing path."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """`[tool.toolaudit]` holds a key or value we do not know."""


class StrictError(ToolauditError):
    """`--strict` met a skipped line."""
