"""Mask secrets (keys, tokens, passwords, private keys) before any text is shown.

The maintained detector, detect-secrets, finds most kinds (its plugins' `analyze_string`:
pure regexes, offline, no files, no verification). Our own patterns add only what it misses:
- private-key blocks (PEM, OpenSSH, PGP) from BEGIN to END, found over the *whole* text, so a
  window, a line or an item cut out of a block is still masked (`spans`, `excerpt`);
- credentials in URLs, `Bearer`/`Basic` headers, vendor prefixes it lacks (Anthropic,
  current OpenAI, Google, fine-grained GitHub…), and the forms in secrets.forms (passwords
  given to curl, mysql, sshpass, sudo…, netrc, cookies, webhooks, PuTTY keys, more vendors,
  unlabelled random tokens);
- any assignment to a name containing PASS, SECRET, TOKEN or KEY (`DB_PASS=x`,
  `export API_KEY="x"`, `"password": "x"`, JSON-escaped `\\"password\\":\\"x\\"`,
  `AccountKey=x;`), and `--password x`-style flags. Booleans and null are left alone, and
  digits when the name is a plural (`max_tokens: 4096` is a count), and code (`key=lambda`,
  `= useState(false)`, `= self.token`).
Checksums and paths are not secrets: what detect-secrets' entropy plugins find unlabelled is
kept when it has a digest's shape (`sha512-…` integrity, `sha256:…`, go.sum `h1:…`, a commit's
hex) or a path's (secret_forms.plain).
A value found is masked to the end of its run of token characters, so a key glued to
following letters goes whole. Detection runs only on the short window a caller shows (plus
the rest of the line around it), after a cheap literal prefilter; blocks are found by a
literal search over the whole text.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache, lru_cache

from . import forms as secret_forms

MASK = "[REDACTED]"

# a private-key block, to its END line or, cut short, to the end of the text
_BEGIN = re.compile(r"-{4,5} ?BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?(?: ?-{4,5})")
_BLOCK_HINT = "PRIVATE KEY"

# the value is group 1 (URL credentials, auth headers) or the whole match (vendor prefixes)
_CONTEXT = [
    re.compile(r"://([^\s/@\"'\\<>]+)@"),  # user:password@ in any URL
    re.compile(r"(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/=\-]{12,})"),
]
_VENDOR = re.compile(
    r"sk-ant-[A-Za-z0-9_\-]{16,}"
    r"|(?<![A-Za-z0-9])(?:sk|pk|rk)-(?:proj-|svcacct-|admin-|live-|test-)?[A-Za-z0-9_\-]{20,}"
    r"|(?:sk|pk|rk|whsec)_(?:live|test)_[A-Za-z0-9]{10,}"
    r"|(?:npm_|glpat-|dop_v1_|xapp-|shpat_|shpss_)[A-Za-z0-9_\-]{16,}"
    r"|(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{20,}"
    r"|xox[abeoprs]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_\-]{35}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]+"
)
_SECRET_WORDS = r"pass|secret|token|key|pwd"
# name (maybe quoted, maybe JSON-escaped), an assignment sign, then the value: quoted or bare
_ASSIGN = re.compile(
    rf"""(?ix)
    (?P<name>(?:{_SECRET_WORDS})[A-Za-z0-9_.-]*)  # from the word on: what comes before it does not matter
    (?:\\*["'])?\]?\s*(?:=>|:=|=|:)\s*
    (?:(?P<quote>\\*["'])(?P<quoted>[^"'\\\n]+)|(?P<bare>[^\s"'\\,;&|)}}\]\[{{(<>→]+))
    """
)
# `--password-stdin` and `--password-file` take no secret: what follows is the next argument, a path
_FLAG = re.compile(rf"(?i)(?<![\w-])--?[\w-]*(?:{_SECRET_WORDS})[\w-]*(?<!-stdin)(?<!-file)"
                   r"[ =]([^\s\"'\\-][^\s\"'\\]*)")
_NEXT_ASSIGNMENT = re.compile(r"\s+(?=[A-Za-z_][\w.-]*=)")
# booleans and null, and the words of code where a value would be (`key=lambda x: x[1]`)
_HARMLESS = frozenset({"true", "false", "null", "none", "nil", "undefined", "lambda", "function", "new", "await",
                       "async", "this", "self", "typeof", "not"})
# code or a placeholder, not a value: a call or an index (`useState(false)`, `os.environ[`), an attribute
# of an object that holds settings (`self.token`), a variable (`$PASS`, `${PASS}`, `{{ db_password }}`)
_CODE = re.compile(r"[A-Za-z_][\w.]*[(\[].*|(?:self|this|cls|os|process|config|settings|env|options|opts|args|"
                   r"props|state|ctx|request|req|params|secrets|import)\.[\w.]+")
_PLACEHOLDER = re.compile(r"\$\{?\w*\}?|\{\{.*\}\}")  # quoted too: `"{{ db_password }}"`
_COUNT = re.compile(r"\d+")

# the cheap prefilter: words that name a secret, and runs long enough to be a token (with a
# digit: identifiers such as `test_convert_eur_total` are not);
# KeywordDetector (the slowest plugin) only sees lines with one of its own words
_HINTS = ("key", "pass", "pwd", "secret", "token", "auth", "bearer", "basic", "://", "contras", "cred")
_KEYWORD_HINTS = ("key", "pass", "pwd", "secret", "contras")
_LONG = re.compile(r"[A-Za-z0-9_\-]{16,}")
# a value is masked on to the end of its run of token characters (a key glued to letters)
_TAIL = re.compile(r"[A-Za-z0-9_\-+/=]*")
_REACH = re.compile(r"[A-Za-z0-9_\-+/=.]*")
# artifactory's matches carry the delimiters around the value; keyword's, an escaping backslash
_PADDING = " \t\r\n\"'=:\\"
_ESCAPED = re.compile(r"\\+([\"'])|\\+n|\\+t")
# what joins a path's folders, its extension, and an MCP name's parts
_SEPARATORS = re.compile(r"__+|/|\\|\.(?=[A-Za-z0-9]{1,8}(?![A-Za-z0-9_\-]))")
_LOOKBEHIND = 1024  # detection sees the line before a window, up to this many chars
_LOOKAHEAD = 4096  # …and the token running past its end


@cache
def _plugins() -> tuple[tuple, tuple, tuple]:
    """detect-secrets' plugins, imported once: (by keyword, by token shape, by entropy)."""
    from detect_secrets.plugins import (artifactory, aws, azure_storage_key, basic_auth, cloudant, discord,
                                        github_token, gitlab_token, high_entropy_strings, ibm_cloud_iam,
                                        ibm_cos_hmac, jwt, keyword, mailchimp, npm, openai, private_key,
                                        pypi_token, sendgrid, slack, softlayer, square_oauth, stripe,
                                        telegram_token, twilio)

    # the keyword plugins need a secret-naming word, so the prefilter can skip them; IP
    # addresses (ip_public) are not secrets
    worded = (keyword.KeywordDetector(), cloudant.CloudantDetector(), ibm_cloud_iam.IbmCloudIamDetector(),
              ibm_cos_hmac.IbmCosHmacDetector(), softlayer.SoftlayerDetector(), basic_auth.BasicAuthDetector(),
              npm.NpmDetector())
    shaped = (aws.AWSKeyDetector(), azure_storage_key.AzureStorageKeyDetector(), artifactory.ArtifactoryDetector(),
              discord.DiscordBotTokenDetector(), github_token.GitHubTokenDetector(),
              gitlab_token.GitLabTokenDetector(), jwt.JwtTokenDetector(), mailchimp.MailchimpDetector(),
              openai.OpenAIDetector(), private_key.PrivateKeyDetector(), pypi_token.PypiTokenDetector(),
              sendgrid.SendGridDetector(), slack.SlackDetector(), square_oauth.SquareOAuthDetector(),
              stripe.StripeDetector(), telegram_token.TelegramBotTokenDetector(), twilio.TwilioKeyDetector())
    entropy = (high_entropy_strings.Base64HighEntropyString(), high_entropy_strings.HexHighEntropyString())
    return worded, shaped, entropy


@cache
def _keyword_regexes() -> tuple:
    """KeywordDetector's regex sets: quotes required (code), and bare values (config, env)."""
    from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP

    return QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP, CONFIG_DENYLIST_REGEX_TO_GROUP


def _not_random(value: str) -> bool:
    """detect-secrets' own filters for strings that only look random (UUIDs, `ABCDEF…` runs)."""
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string

    return is_potential_uuid(value) or is_sequential_string(value)


def _token_like(text: str) -> bool:
    """A run of 16+ token characters with a digit in it: what every keyed token looks like."""
    return any(any(c.isdigit() for c in run) for run in _LONG.findall(text))


def _values(text: str, worded: bool, shaped: bool | None = None) -> set[str]:
    """The secret values our patterns and detect-secrets' plugins find in `text` (`shaped`: _token_like(text), if known)."""
    by_word, by_shape, by_entropy = _plugins()
    found = {m.group(1) for pattern in _CONTEXT for m in pattern.finditer(text)}
    found.update(_VENDOR.findall(text))
    if worded:
        keyword, *others = by_word
        for line in text.splitlines():
            lower = line.lower()
            if not any(hint in lower for hint in _HINTS):
                continue
            for plugin in others:
                found.update(plugin.analyze_string(line))
            if any(hint in lower for hint in _KEYWORD_HINTS):
                for regexes in _keyword_regexes():
                    # a bare value runs to the end of the line for detect-secrets (config files);
                    # several assignments on a line (`env`, `A=x B=y cmd`) are several values
                    for value in keyword.analyze_string(line, denylist_regex_to_group=regexes):
                        value = _NEXT_ASSIGNMENT.split(value, 1)[0]
                        if not _CODE.fullmatch(value) and not _PLACEHOLDER.fullmatch(value):
                            found.add(value)
    if _token_like(text) if shaped is None else shaped:
        for plugin in by_shape:
            found.update(plugin.analyze_string(text))
        for plugin in by_entropy:
            for value in plugin.analyze_string(text):
                # entropy is at most log2(distinct characters): most strings fail that cheap test
                if (len(set(value)) > 2 ** plugin.entropy_limit and not secret_forms.plain(value.strip(_PADDING))
                        and plugin.calculate_shannon_entropy(value) > plugin.entropy_limit and not _not_random(value)):
                    found.add(value)
    found.update(secret_forms.values(text, text.lower()))
    if "/" in text or "__" in text or "\\" in text:
        # a key as a path's part (`…/missing/sq0atp-….txt`) or an MCP name's (`mcp__KEY__run`): the prefix
        # rules read each part as a line of its own, where the key has its boundaries (offsets hold); not
        # the unlabelled-token rules (a base64 digest's parts would each look like one)
        probe = _SEPARATORS.sub(lambda m: "\n" * len(m.group()), text)
        found.update(_VENDOR.findall(probe))
        found.update(secret_forms.values(probe, probe.lower(), unlabelled=False))
    return {value.strip(_PADDING) for value in found}


def _assigned(text: str) -> list[tuple[int, int]]:
    """Spans of values assigned to a secret-sounding name, and of secret flags' values."""
    out = []
    for m in _ASSIGN.finditer(text):
        group = "quoted" if m.group("quoted") is not None else "bare"
        value = m.group(group)
        if value.lower() in _HARMLESS or (_COUNT.fullmatch(value) and m.group("name").lower().endswith("s")):
            continue
        if _PLACEHOLDER.fullmatch(value) or (group == "bare" and _CODE.fullmatch(value + text[m.end():m.end() + 1])):
            continue
        out.append(m.span(group))
    out += [m.span(1) for m in _FLAG.finditer(text)]
    return out


def _line_spans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Secret spans found by the line detectors in text[lo:hi], in `text`'s offsets."""
    window = text[lo:hi]
    lower = window.lower()
    worded = any(hint in lower for hint in _HINTS)
    shaped = _token_like(window) or any(hint in window for hint in secret_forms.PLUGIN_HINTS)
    if not worded and not shaped and not secret_forms.hinted(window, lower):
        return []
    spans = [(lo + a, lo + b) for a, b in _assigned(window)] if worded else []
    values = _values(window, worded, shaped)
    if "\\" in window:  # JSON-escaped text (`\\"`, `\\n`): detect on an unescaped copy too (lines kept)
        values |= _values(_ESCAPED.sub(_unescape, window), worded)
    for value in values:
        if len(value) < 4:  # too short to look for elsewhere; assignments are masked in place
            continue
        start = window.find(value)
        while start >= 0:
            spans.append((lo + start, lo + start + len(value)))
            start = window.find(value, start + len(value))
    return spans


def _unescape(m: re.Match) -> str:
    """A JSON escape as the character it stands for (a tab as a space)."""
    return m.group(1) or ("\n" if m.group(0).endswith("n") else " ")


def _block_spans(text: str, hi: int) -> list[tuple[int, int]]:
    """Private-key blocks that begin before `hi`: BEGIN line to END line (PuTTY: to its MAC), or to the end of text."""
    out = secret_forms.block_spans(text, hi)
    if text.find(_BLOCK_HINT, 0, hi + len(_BLOCK_HINT)) < 0:
        return out
    for m in _BEGIN.finditer(text, 0, hi):
        end_marker = f"END {m.group(1)}PRIVATE KEY{m.group(2) or ''}"
        end = text.find(end_marker, m.end())
        end = len(text) if end < 0 else end + len(end_marker)
        out.append((m.start(), end))
    return out


def spans(text: str, start: int = 0, stop: int | None = None) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) spans of the secrets that show in text[start:stop].

    The line detectors look a little around the window (the line's start, the token that
    runs past its end), so a value cut by the window's edge is still recognised.
    """
    stop = len(text) if stop is None else min(stop, len(text))
    lo = max(text.rfind("\n", max(0, start - _LOOKBEHIND), start) + 1, start - _LOOKBEHIND, 0)
    # the token running past the window (dotted: a JWT), and its closing quote or `@`
    hi = min(len(text), _REACH.match(text, stop, min(len(text), stop + _LOOKAHEAD)).end() + 1)
    found = []
    for a, b in _line_spans(text, lo, hi) + _block_spans(text, hi):
        b = _TAIL.match(text, b, min(len(text), b + _LOOKAHEAD)).end()
        if b > start and a < stop:
            found.append((a, b))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(found):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def excerpt(text: str, start: int = 0, stop: int | None = None) -> str:
    """text[start:stop] with each secret that shows in it replaced by [REDACTED].

    Secrets are found in the whole text's terms: a key block that began before `start` is
    still masked.
    """
    stop = len(text) if stop is None else min(stop, len(text))
    out, pos = [], start
    for a, b in spans(text, start, stop):
        if a > pos:
            out.append(text[pos:a])
        out.append(MASK)
        pos = max(pos, b)
    if pos < stop:
        out.append(text[pos:stop])
    return "".join(out)


def redact(text: str) -> str:
    """`text` with secrets replaced by [REDACTED]."""
    return excerpt(text)


def preview(text: str, width: int, start: int = 0, stop: int | None = None) -> str:
    """A one-line, redacted preview of at most `width` characters of text[start:stop]."""
    stop = len(text) if stop is None else stop
    flat = " ".join(excerpt(text, start, min(stop, start + width * 4)).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def preview_reach(width: int) -> int:
    """How much of a text `preview(text, width)` reads: its first preview_reach(width) chars give the same
    preview (the window of 4 × width, the token running past it, then the tail of a secret in that token;
    a key block's END line further on only moves an end that is past the window either way)."""
    return 4 * width + 2 * _LOOKAHEAD + 64


def in_secret(text: str, part: str, tries: int = 8) -> bool:
    """True when `part` is a secret or lies in one of `text` (checked where it first occurs).

    For the items --explain shows, cut out of a long text: a line of a key block, a JWT's
    middle, a password's value are each harmless-looking alone.
    """
    if redact(part) != part:
        return True
    at = text.find(part)
    for _ in range(tries):
        if at < 0:
            return False
        if spans(text, at, at + len(part)):
            return True
        at = text.find(part, at + len(part))
    return False  # common enough that its first places decide


_JOINS = re.compile(r"__+")
_PATH_JOINS = re.compile(r"__+|/|\\|\.(?=[A-Za-z0-9]{1,8}$)")  # a path's folders, and its extension


@lru_cache(maxsize=8192)
def name(text: str, path: bool = False) -> str:
    """A tool, session, model, agent or file name with the secrets in it replaced by [REDACTED] (`named`).

    Names repeat (cached), and are ids: detect-secrets' entropy plugins, which would take a random session
    id for a key, are left out; prefixes, gitleaks' rules, credentials in URLs and assignments are not.
    """
    lower = text.lower()
    worded = any(hint in lower for hint in _HINTS)
    if not (worded or _token_like(text) or secret_forms.hinted(text, lower) or _BLOCK_HINT in text):
        return text
    # MCP names join their parts with `__` (`mcp__server__tool`), a `path` its folders with `/`: each part
    # is read as a line of its own, so a key between them has its boundaries (the same length: offsets hold)
    probe = (_PATH_JOINS if path else _JOINS).sub(lambda m: "\n" * len(m.group()), text)
    found = {m.group(1) for pattern in _CONTEXT for m in pattern.finditer(probe)}
    found.update(_VENDOR.findall(probe))
    found.update(secret_forms.values(probe, probe.lower()))
    spans = (_assigned(text) if worded else []) + _block_spans(text, len(text))
    for value in found:
        value = value.strip(_PADDING)
        start = text.find(value) if len(value) >= 4 else -1
        while start >= 0:
            spans.append((start, start + len(value)))
            start = text.find(value, start + len(value))
    if not spans:
        return text
    out, pos = [], 0
    for a, b in sorted(spans):
        b = _TAIL.match(text, b).end()
        if b <= pos:
            continue
        out += [text[pos:max(a, pos)], MASK]
        pos = b
    return "".join(out) + text[pos:]


# `source` is the file's name: a report shows it (--by file, --top, file:line), the cache keeps it
_NAME_FIELDS = ("tool", "session", "model", "agent", "source")


def named(record):
    """`record` (a collector's) with the secrets in its names masked (`name`): its tool, session, model,
    agent and file (`source`), and a menu's tool names. Every job reads records through Collector.records,
    which calls this: no report, answer or cache row sees a secret a name held."""
    changed = {}
    for field in _NAME_FIELDS:
        value = getattr(record, field, None)
        if isinstance(value, str) and value:
            masked = name(value, path=field == "source")
            if masked is not value and masked != value:
                changed[field] = masked
    tools = getattr(record, "tools", None)
    if isinstance(tools, tuple) and tools and isinstance(tools[0], tuple):
        masked_tools = tuple((name(t[0]), *t[1:]) if isinstance(t[0], str) else t for t in tools)
        if masked_tools != tools:
            changed["tools"] = masked_tools
    return replace(record, **changed) if changed else record
