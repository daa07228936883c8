"""Time as people ask for it: `--since 7d`, `yesterday`, ISO dates, and calendar periods (day, week, month).

Everything calendar-like is read in one time zone: the machine's local zone, or a
named one (`--tz Europe/Paris`, through zoneinfo). An ISO time with an offset or `Z`
keeps its own; a date or a time without one is in that zone. Relative forms count back
from now: `24h`, `7d`, `2w`; `today` and `yesterday` start at that day's local midnight.
Weeks are ISO weeks (Monday to Sunday), named `2026-W09`; months `2026-03`; days `2026-03-01`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo

from ..errors import UsageError

PERIODS = ("day", "week", "month")
_AGO = re.compile(r"(\d+)\s*([hdw])")
_UNIT = {"h": "hours", "d": "days", "w": "weeks"}
WHEN_HELP = "7d, 24h, 2w, today, yesterday, or an ISO date/time"


def when_of(ts: str | None) -> datetime | None:
    """An ISO-8601 timestamp as an aware datetime (UTC when it names no zone), or None."""
    if not ts:
        return None
    try:
        when = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def zone(name: str | None) -> tzinfo | None:
    """The zone named `name` (IANA, e.g. `Europe/Paris`, `UTC`), or None for the machine's local zone."""
    if not name:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f"--tz {name!r}: unknown time zone (an IANA name such as UTC or Europe/Paris)",
                         slug="bad-tz") from None


def _local(naive: datetime, tz: tzinfo | None) -> datetime:
    # a naive datetime's astimezone() reads it as the machine's local time (daylight saving included)
    return naive.replace(tzinfo=tz) if tz is not None else naive.astimezone()


def parse_when(text: str, tz: tzinfo | None = None, now: datetime | None = None) -> datetime:
    """An aware datetime for a --since/--until value (module docstring); UsageError when it is none of them."""
    word = text.strip().lower()
    now = now or datetime.now(timezone.utc)
    if word in ("today", "yesterday"):
        today = now.astimezone(tz).date() if tz is not None else now.astimezone().date()
        day = today - timedelta(days=1 if word == "yesterday" else 0)
        return _local(datetime(day.year, day.month, day.day), tz)
    ago = _AGO.fullmatch(word)
    if ago:
        return now - timedelta(**{_UNIT[ago.group(2)]: int(ago.group(1))})
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{text!r} is not a time: use {WHEN_HELP}", slug="bad-date") from None
    return when if when.tzinfo else _local(when, tz)


def period_of(ts: str | None, unit: str, tz: tzinfo | None = None) -> str | None:
    """The day (`2026-03-01`), ISO week (`2026-W09`) or month (`2026-03`) of a timestamp in `tz`; None when undated."""
    when = when_of(ts)
    if when is None:
        return None
    try:
        local = when.astimezone(tz)
    except (OverflowError, ValueError):  # a year at the edge of the calendar
        return None
    if unit == "week":
        year, week, _ = local.isocalendar()
        return f"{year}-W{week:02d}"
    # formatted by hand: strftime was most of the time of this call, made once per call of a scan,
    # and pads a year below 1000 differently on other platforms (Go's zero time is year 1)
    month = f"{local.year}-{local.month:02d}"
    return month if unit == "month" else f"{month}-{local.day:02d}"
