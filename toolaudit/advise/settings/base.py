"""What an agent lets its user set: one module per agent names its settings, each with the source that
backs it, and maps a recommendation onto them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    """One real setting of an agent: where it is set, since which version, and the source that says so."""

    agent: str
    name: str
    where: str  # how a user sets it: an environment variable, a settings.json key, a config.toml key
    unit: str
    default: str
    since: str
    source: str  # a file of the agent's code at a version (or its package), or its documentation page
    controls: str


@dataclass(frozen=True)
class Setting:
    """A recommendation as one setting of one agent: the value to give it."""

    agent: str
    name: str
    value: str
    source: str
    where: str = ""
    note: str = ""

    @classmethod
    def of(cls, known: Known, value: str, note: str = "") -> "Setting":
        """The setting `known` set to `value`."""
        return cls(known.agent, known.name, value, known.source, known.where, note)

    def as_dict(self) -> dict:
        """The JSON form."""
        return {"agent": self.agent, "name": self.name, "value": self.value, "source": self.source,
                "where": self.where, "note": self.note}
