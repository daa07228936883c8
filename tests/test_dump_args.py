"""dump_args writes arguments exactly as the standard library's compact JSON does, whichever encoder ran."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.collectors.base import dump_args


def _plain(args) -> str:
    """The reference: what dump_args wrote before orjson took the common case."""
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


_LEAVES = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(st.characters(codec=None, exclude_categories=())))
_VALUES = st.recursive(_LEAVES, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(args=st.dictionaries(st.text(max_size=10), _VALUES, max_size=5) | st.lists(_VALUES, max_size=4))
def test_the_same_text_as_the_standard_library(args):
    assert dump_args(args) == _plain(args)


def test_the_cases_where_the_encoders_part():
    cases = [{"x": 1e-07}, {"x": 1.5e-5}, {"x": math.nan}, {"x": -math.inf}, {"x": 2**64},
             {"s": "lone \ud800"}, {"x": None}, {"x": 1e16}, {"x": 0.1, "y": [True, -0.0]},
             {"ctl": "".join(map(chr, range(0x20))) + "\u2028\x7f é 😀"}, 1e-07, 2.5e-05, math.nan, 7, True]
    for args in cases:
        assert dump_args(args) == _plain(args), args
    assert dump_args(None) == "" and dump_args("raw text") == "raw text"
