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


def check_strict(result) -> None:
    """Under --strict: raise StrictError for a file's first non-benign skipped line, or an unreadable
    or unrecognised file (`result` has `source`, `skipped` and `error`, as every per-file result does)."""
    bad = next((s for s in result.skipped if not s.benign), None)
    if bad is not None:
        raise StrictError(f"{bad} (--strict)", slug="strict")
    if result.error is not None:
        raise StrictError(f"{result.source}: {result.error} (--strict)", slug="strict")
