"""Name -> class registries with a register decorator and "did you mean"."""

from __future__ import annotations

import os
import sys
from functools import cache
from importlib import import_module
from typing import Callable, Generic, TypeVar

from .errors import UsageError

T = TypeVar("T")


def did_you_mean(name: str, choices) -> str:
    """A ` (did you mean 'x'?)` suffix when a close choice exists, else ``."""
    import difflib  # only for a mistake: its regexes cost every start-up 5 ms

    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


@cache
def installed_entry_points():
    """Every installed entry point, read once (each read walks all installed packages)."""
    from importlib.metadata import entry_points  # 20 ms of imports: only when a registry is first used

    return entry_points()


@cache
def _declared(group: str) -> bool:
    """False only when no installed package can declare `group`: every path entry is a folder whose
    `*.dist-info`, `*.egg-info`, `*.egg/EGG-INFO` or `EGG-INFO` entry_points.txt files never name it (2 ms
    where the full read takes 30)."""
    header = f"[{group}]".encode()
    for entry in sys.path:
        folder = entry or "."
        if os.path.isfile(folder):  # a zip on the path: only importlib.metadata reads it
            return True
        try:  # a package's metadata folder, or an egg's (an egg folder holds it as EGG-INFO)
            listing = [os.path.join(item.path, "EGG-INFO") if item.name.endswith(".egg") else item.path
                       for item in os.scandir(folder) if item.name.endswith((".dist-info", ".egg-info", ".egg"))
                       or item.name == "EGG-INFO"]
        except OSError:
            continue
        for meta in listing:
            try:
                with open(os.path.join(meta, "entry_points.txt"), "rb") as handle:
                    if header in handle.read():
                        return True
            except OSError:
                continue
    return False


def entry_points_of(group: str):
    """The installed entry points of `group`, without the full read when no package declares it."""
    return installed_entry_points().select(group=group) if _declared(group) else ()


class Registry(Generic[T]):
    """Built-ins register through the same door as plugins (an entry-point group)."""

    def __init__(self, kind: str, group: str, plural: str | None = None):
        self.kind = kind
        self.plural = plural or f"{kind}s"
        self.group = group
        self._items: dict[str, T] = {}
        self._plugins_loaded = False
        # (a loader that imports the built-in modules, their module names in order): the built-ins come
        # first, in that order, whichever of them some code imported first
        self.builtins: tuple[Callable[[], None], tuple[str, ...]] | None = None

    def register(self, item: T) -> T:
        """Decorator: add a class under its `key` attribute."""
        self._items[item.key] = item
        return item

    def _load_plugins(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        if self.builtins is not None:
            load, order = self.builtins
            load()
            rank = {module: i for i, module in enumerate(order)}
            self._items = dict(sorted(self._items.items(),
                                      key=lambda kv: rank.get(getattr(kv[1], "__module__", ""), len(rank))))
        for ep in entry_points_of(self.group):
            self.register(ep.load())

    def builtin(self, key: str) -> T:
        """The built-in item `key`, importing only its own module when the built-ins are loaded lazily (a
        module is named after its key: `claude-code` in `claude_code`); any other key as `get` finds it."""
        if self.builtins is not None and not self._plugins_loaded and key not in self._items:
            module = key.replace("-", "_")
            if any(name.rsplit(".", 1)[-1] == module for name in self.builtins[1]):
                import_module(f"{self.builtins[1][0].rsplit('.', 1)[0]}.{module}")
        return self._items[key] if key in self._items else self.get(key)

    def all(self) -> dict[str, T]:
        """Every registered item by key, in registration order."""
        self._load_plugins()
        return dict(self._items)

    def get(self, key: str) -> T:
        """The item named `key`, or a UsageError naming the closest key."""
        items = self.all()
        if key not in items:
            raise UsageError(
                f"unknown {self.kind} {key!r}{did_you_mean(key, items)}; "
                f"see `toolaudit list {self.plural}`",
                slug=f"unknown-{self.kind}",
            )
        return items[key]
