"""A job's package is also its entry point: `toolaudit.scan(paths, **options)` calls scan.job.scan.

The package stays what it is (`toolaudit.scan.summary` is its module) and becomes callable, as the
language allows by setting a module's class (a ModuleType subclass); the job module is imported on
the first call, so importing toolaudit stays light.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module


class JobPackage(types.ModuleType):
    """A package whose call is its job's entry point, and whose `exports` come from its `job` module."""

    def _job(self):
        return import_module(f"{self.__name__}.job")

    def __call__(self, *args, **kwargs):
        return getattr(self._job(), self._entry)(*args, **kwargs)

    def __getattr__(self, name: str):
        if name in self.__dict__.get("_exports", ()):
            return getattr(self._job(), name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


def entry_point(package: str, function: str, exports: tuple[str, ...] = ()) -> None:
    """Make `package` callable as `package.job.<function>`, with `exports` read from its job module."""
    module = sys.modules[package]
    module._entry = function
    module._exports = (function, *exports)
    module.__class__ = JobPackage
