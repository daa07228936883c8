"""Frames for notebooks: every moment and day comes back as a datetime dtype, never as text (issue 31.7)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import toolaudit

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = [str(ROOT / "sample_logs")]
ISO = re.compile(r"^\d{4}-\d\d-\d\d([T ]\d\d:\d\d)?")


def _results():
    yield "scan", toolaudit.scan(SAMPLES, calls=True, by="session")
    yield "simulate", toolaudit.simulate(SAMPLES, context="mask:keep=3", per_request=True, explain=3)
    yield "advise", toolaudit.advise(SAMPLES)
    yield "calibrate", toolaudit.calibrate([str(ROOT / "sample_logs" / "claude-code")])


@pytest.fixture(scope="module")
def frames():
    out = {}
    for kind, result in _results():
        for name in result.frames:
            out[f"{kind}.{name}"] = result.to_pandas(name)
    return out


def test_no_frame_holds_dates_as_text(frames):
    for where, frame in frames.items():
        for column in frame.columns:
            if pd.api.types.is_datetime64_any_dtype(frame[column]):
                continue
            values = [v for v in frame[column].tolist() if isinstance(v, str)]
            assert not (values and all(ISO.match(v) for v in values)), f"{where}.{column} holds dates as text"


def test_moments_are_utc_and_days_are_dates(frames):
    calls, days = frames["scan.calls"], frames["scan.days"]
    assert str(calls["ts"].dtype).startswith("datetime64") and str(calls["ts"].dt.tz) == "UTC"
    assert calls["ts"].notna().sum() > 10  # the samples' timestamps were read, not turned into NaT
    assert str(days["day"].dtype).startswith("datetime64") and days["day"].dt.tz is None
    assert days["day"].notna().all()
    assert (days["day"] == days["day"].dt.normalize()).all()  # a day, no time of day
    assert calls["ts"].dropna().sort_values().is_monotonic_increasing


def test_advice_frame_says_what_to_set_where_and_what_it_is_worth():
    frame = toolaudit.advise(SAMPLES).to_pandas()
    for column in ("agent", "setting", "value", "where", "saved_usd", "evidence_sessions", "evidence_events"):
        assert column in frame.columns, column
    corpus = ROOT.parent / "shared" / "corpus" / "claude-code"
    if corpus.is_dir():  # the real sessions hold a recommendation with a setting and a price
        rows = toolaudit.advise([str(corpus)]).to_pandas()
        named = rows[rows["setting"].notna()]
        assert len(named) and named["value"].notna().all() and named["where"].notna().all()
        assert rows["saved_usd"].notna().any()
