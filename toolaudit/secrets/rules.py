"""gitleaks' rules, kept as data (gitleaks_rules.py), run by Python's `re` (used by forms, then redact).

gitleaks is the maintained, widely used rule set for vendor tokens (over 200 kinds: Atlassian,
Pulumi, Linear, Notion, Terraform Cloud, PyPI…); its rules are Go RE2 regexes, each with the
lowercase keywords one of its matches contains. Here a rule runs only on a text holding one of
its keywords (one regex first says whether a text holds any), its secret must pass the rule's
entropy floor and allowlist, as in gitleaks. Left out: `generic-api-key` (any word near "key":
redact's own assignment rules decide those), rules that judge a file by its path (a transcript is
no file of the repository), and `curl-auth-user` (forms reads curl's -u).

The Go syntax differs from Python's in a few ways, changed at compile time (`python_regex`), where a
leading `[\\w.-]{0,50}?` is dropped too (it widens a match leftwards only, at a cost): an
inline flag in mid-pattern (`\\b(?i)...`) applies to the rest of its group, `\\z` is `\\Z`, and `[`
inside a character class is escaped, POSIX classes (`[[:alnum:]]`) are spelled out. To take a newer gitleaks config:
`python -m toolaudit.secrets.rules gitleaks.toml 'gitleaks VERSION' > toolaudit/secrets/gitleaks_rules.py`.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache

SKIPPED = frozenset({"generic-api-key", "curl-auth-user"})
_FLAGS = re.compile(r"\(\?([imsU-]+)\)")
# what many rules start with: up to 50 name characters before the vendor's name, lazily; it only widens
# the match leftwards (the secret is a group after it), and tried at every position it costs ms a text
_LEAD = re.compile(r"^((?:\(\?i\)|\(\?i:)*)\[\\w\.-\]\{0,50\}\?")
_POSIX = {"[:alnum:]": "A-Za-z0-9", "[:alpha:]": "A-Za-z", "[:digit:]": "0-9", "[:lower:]": "a-z",
          "[:upper:]": "A-Z", "[:xdigit:]": "0-9A-Fa-f", "[:space:]": "\\s", "[:word:]": "\\w", "[:punct:]": "!-/:-@\\[-`{-~"}


def python_regex(go: str) -> str:
    """A Go RE2 pattern as Python `re` reads it alike (mid-pattern flags scoped to their group, `\\z`)."""
    while _LEAD.match(go):
        go = _LEAD.sub(lambda m: m.group(1), go, count=1)
    out: list[str] = []
    closes: list[int] = [0]  # per open group: how many scoped-flag groups to close with it
    i, in_class = 0, False
    while i < len(go):
        c = go[i]
        if c == "\\":
            pair = go[i:i + 2]
            out.append("\\Z" if pair == "\\z" else pair)
            i += 2
            continue
        if in_class and go[i:i + 2] == "[:":
            name = go[i:go.find(":]", i) + 2]
            out.append(_POSIX[name])  # a class name gitleaks uses that Python lacks (KeyError: a new one)
            i += len(name)
            continue
        if in_class:
            if c == "]" and not (go[i - 1] == "[" or go[i - 2:i] == "[^"):
                in_class = False
            out.append("\\[" if c == "[" else c)
        elif c == "[":
            in_class = True
            out.append(c)
        elif c == "(":
            flags = _FLAGS.match(go, i)
            if flags and (i > 0):
                out.append(f"(?{flags.group(1)}:")
                closes[-1] += 1
                i = flags.end()
                continue
            out.append(c)
            closes.append(0)
        elif c == ")":
            out.append(")" * closes.pop() + ")")
        else:
            out.append(c)
        i += 1
    return "".join(out) + ")" * closes[0]


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values()) if n else 0.0


@dataclass(frozen=True)
class Rule:
    """One gitleaks rule: its pattern (Go syntax, compiled on first use), the keywords a match contains, its
    secret group and floors."""

    id: str
    regex: str
    keywords: tuple[str, ...]
    entropy: float
    group: int
    allow: tuple[str, ...]
    stopwords: tuple[str, ...]

    def found(self, text: str) -> list[str]:
        """The secrets this rule finds in `text` that pass its entropy floor and allowlist."""
        out = []
        for m in _compiled(self.regex).finditer(text):
            if self.group:
                value = m.group(self.group) or ""
            else:  # gitleaks: the first group that matched, else the whole match
                value = next((g for g in m.groups() if g), m.group(0))
            if not value or (self.entropy and _entropy(value) < self.entropy):
                continue
            lower = value.lower()
            if any(_compiled(a).search(value) for a in self.allow) or any(w in lower for w in self.stopwords):
                continue
            out.append(value)
        return out


@cache
def _compiled(go: str) -> re.Pattern:
    """A rule's pattern, compiled when a text first holds one of its keywords (all 200 cost 130 ms)."""
    return re.compile(python_regex(go))


@cache
def rules() -> tuple[tuple[Rule, ...], re.Pattern, dict[str, tuple[Rule, ...]]]:
    """The rules, one regex finding whether a lowercased text holds any keyword, and keyword -> its rules."""
    from .gitleaks_rules import ALLOW, RULES

    made = [Rule(rule_id, regex, keywords, entropy, group, ALLOW + allowed, stopwords)
            for rule_id, regex, keywords, entropy, group, allowed, stopwords in RULES if rule_id not in SKIPPED]
    by_keyword: dict[str, list[Rule]] = {}
    for rule in made:
        for keyword in rule.keywords:
            by_keyword.setdefault(keyword, []).append(rule)
    finder = re.compile("|".join(re.escape(w) for w in sorted(by_keyword, key=len, reverse=True)))
    return tuple(made), finder, {k: tuple(v) for k, v in by_keyword.items()}


def hinted(lower: str) -> bool:
    """True when some rule's keyword is in `lower` (a lowercased text)."""
    return rules()[1].search(lower) is not None


def values(text: str, lower: str) -> set[str]:
    """The secrets gitleaks' rules find in `text` (`lower`: text.lower())."""
    _, finder, by_keyword = rules()
    if finder.search(lower) is None:
        return set()
    chosen = {rule for word, found in by_keyword.items() if word in lower for rule in found}
    return {value for rule in chosen for value in rule.found(text)}


def _write(path: str, source: str) -> None:
    """Print gitleaks_rules.py from a gitleaks config (TOML)."""
    import tomllib

    with open(path, "rb") as f:
        config = tomllib.load(f)
    print('"""gitleaks\' default rules as data, written by `python -m toolaudit.secrets.rules gitleaks.toml`.')
    print("\nDo not edit by hand. Source: config/gitleaks.toml of github.com/gitleaks/gitleaks (MIT licence, below).")
    print("Each rule: (id, regex in Go RE2 syntax, keywords, entropy floor, secret group, allowlist regexes, stopwords).")
    print('\n' + LICENCE + '"""\n')
    print(f"SOURCE = {source!r}")
    allow = [a for a in config.get("allowlist", {}).get("regexes", [])]
    print(f"ALLOW = {tuple(allow)!r}")
    print("RULES = (")
    for rule in config["rules"]:
        if "regex" not in rule or "path" in rule:
            continue
        allowed = tuple(r for a in rule.get("allowlists", []) if not a.get("paths") and
                        a.get("regexTarget", "secret") in ("secret", "match") for r in a.get("regexes", []))
        stop = tuple(w for a in rule.get("allowlists", []) for w in a.get("stopwords", []))
        print(f"    ({rule['id']!r}, {rule['regex']!r}, {tuple(rule.get('keywords', ()))!r}, "
              f"{float(rule.get('entropy', 0))!r}, {int(rule.get('secretGroup', 0))!r}, {allowed!r}, {stop!r}),")
    print(")")


LICENCE = """MIT License

Copyright (c) 2019 Zachary Rice

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

if __name__ == "__main__":
    _write(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "gitleaks config/gitleaks.toml")
