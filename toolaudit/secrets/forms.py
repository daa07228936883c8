"""Secret forms detect-secrets 1.5 has no plugin for, found by gitleaks' rules (secrets.rules) and our own
(used by redact.py).

- vendor tokens by prefix: Mailgun `key-`, Databricks `dapi`, Hugging Face `hf_` (letters
  only too), Vault `hvs.`, Doppler `dp.st.`, `AGE-SECRET-KEY-1`, Google `GOCSPX-`, Stripe
  `whsec_`, and those gitleaks finds only beside the vendor's name (Supabase `sbp_`, New Relic
  `NRAK-`, Netlify `nfp_`, Dropbox `sl.`, Airtable `pat…`, Mapbox `sk.eyJ`); webhook URLs (Discord,
  Teams, Slack workflows; Slack's /services/ is detect-secrets' SlackDetector, which redact runs when PLUGIN_HINTS show) and SAS `sig=`;
- passwords by the command that takes them: `curl -u user:pass`, `-pPASS` / `-p PASS` after
  mysql, sshpass, `docker login`, htpasswd -b's last argument, netrc `password X`,
  `echo PASS | sudo -S` (or `--password-stdin`), `Authorization:` values, cookies (every value
  of a Cookie header, the first of a Set-Cookie, session cookies anywhere);
- PuTTY private keys, `Private-Lines:` to the `Private-MAC:` value, over the whole text like
  PEM blocks (`block_spans`);
- unlabelled random tokens: one alone on its line (32+ chars), or a 40-char AWS secret
  access key between separators; both pass entropy and character-class tests, and hex never
  does (alone, hex is a commit or a digest).
Every rule names literals one of its matches contains: a text with none of them costs a few
`in` checks and no regex (`hinted`, `values`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from . import rules as secret_rules

_TOKEN = r"[^\s'\"\\]+"  # a shell word, stopping at quotes and JSON escapes
_QUOTED = r"(?P<q>['\"]?)(?P<v>[^\s'\"\\-][^\s'\"\\]*)(?P=q)"  # not a flag: `mysql -p -h db` prompts
# what may come before a line of a file in an output: Read's `     4→` or `4<tab>`, grep's `4:` or `path:4:`
_GUTTER = r"(?:[ \t]*\d+(?:→|\t|:)|[^\s:]+:\d+[:-])?"
_SUDO_S = r"sudo\b[^\n|;&]*?[ \t](?:-[A-Za-z]*S\b|--stdin)"  # sudo reading the password from stdin


def _cookies(m: re.Match) -> Iterator[str]:
    """The values of a Cookie header's pairs; of a Set-Cookie, its first pair only (then attributes)."""
    pairs = [pair.partition("=") for pair in m.group("v").split(";")]
    for name, eq, value in pairs[:1] if "set" in m.re.groupindex and m.group("set") else pairs:
        if eq and name.strip():
            yield value.strip()


def _htpasswd(m: re.Match) -> Iterator[str]:
    """htpasswd -b takes the password as its last argument: FILE USER PASS, or USER PASS with -n."""
    flags, words = m.group("flags"), m.group("words").split()
    wanted = 2 if "n" in flags else 3
    if "b" in flags and len(words) >= wanted:
        yield words[wanted - 1]


def _session(m: re.Match) -> Iterator[str]:
    """A session cookie's value, when it looks generated (`session=session` is code)."""
    value = m.group("v")
    if len(value) >= 8 and (any(c.isdigit() for c in value) or len(value) >= 20):
        yield value


@dataclass(frozen=True)
class _Rule:
    """A regex, run only on a text holding one of its hints (lowercased first when `fold`); the secret is
    its group `v` (or `w`), or what `pick` makes of the match."""

    hints: tuple[str, ...]
    pattern: re.Pattern
    pick: Callable[[re.Match], Iterator[str]] | None = None
    fold: bool = False

    def found(self, text: str, lower: str) -> Iterator[str]:
        if not any(hint in (lower if self.fold else text) for hint in self.hints):
            return
        for m in self.pattern.finditer(text):
            if self.pick is not None:
                yield from self.pick(m)
            else:
                yield m.group("v") or (m.group("w") if "w" in self.pattern.groupindex else "")


# patterns start with their literal where they can (the regex engine then skips to it): a boundary
# before a token is a lookbehind placed after the literal
_RULES = [
    # vendor tokens: the whole match is the secret
    _Rule(("key-",), re.compile(r"(?P<v>key-(?<![A-Za-z0-9]key-)[0-9a-f]{32})(?![0-9A-Za-z])")),
    _Rule(("dapi",), re.compile(r"(?P<v>dapi(?<![A-Za-z0-9]dapi)[0-9a-f]{32})")),
    _Rule(("hf_",), re.compile(r"(?P<v>hf_(?<![A-Za-z0-9]hf_)[A-Za-z0-9]{30,})")),
    _Rule(("hvs.", "hvb.", "hvr."), re.compile(r"(?P<v>hv[sbr]\.(?<![A-Za-z0-9]hv.\.)[A-Za-z0-9_\-]{20,})")),
    _Rule(("dp.",), re.compile(
        r"(?P<v>dp\.(?<![A-Za-z0-9]dp\.)(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_\-.]{19,}[A-Za-z0-9])")),
    _Rule(("AGE-SECRET-KEY-1",), re.compile(r"(?P<v>AGE-SECRET-KEY-1[0-9A-Z]{40,})")),
    _Rule(("GOCSPX-",), re.compile(r"(?P<v>GOCSPX-[A-Za-z0-9_\-]{20,})")),
    _Rule(("whsec_",), re.compile(r"(?P<v>whsec_[A-Za-z0-9+/=]{20,})")),
    # gitleaks finds these only beside the vendor's name: their prefix alone says enough
    _Rule(("sbp_", "sb_secret_"), re.compile(r"(?P<v>(?:sbp_|sb_secret_)(?<![A-Za-z0-9]sbp_)(?<![A-Za-z0-9]sb_secret_)"
                                             r"[A-Za-z0-9_\-]{30,})")),  # Supabase
    _Rule(("NRAK-",), re.compile(r"(?P<v>NRAK-[A-Z0-9]{27})(?![A-Za-z0-9])")),  # New Relic user key
    _Rule(("nfp_",), re.compile(r"(?P<v>nfp_(?<![A-Za-z0-9]nfp_)[A-Za-z0-9]{36,})")),  # Netlify
    _Rule(("sl.",), re.compile(r"(?P<v>sl\.(?<![A-Za-z0-9.]sl\.)(?:u\.)?[A-Za-z0-9_\-=]{120,})")),  # Dropbox
    _Rule(("pat",), re.compile(r"(?P<v>pat(?<![A-Za-z0-9]pat)[A-Za-z0-9]{14}\.[0-9a-f]{64})")),  # Airtable
    _Rule(("sk.eyJ",), re.compile(r"(?P<v>sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,})")),  # Mapbox secret
    # detect-secrets' shapes of these too, for names (redact.name runs no detect-secrets: its import is 0.5 s)
    _Rule(("AKIA", "ASIA", "ABIA", "ACCA"), re.compile(r"(?P<v>(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})")),
    _Rule(("-us",), re.compile(r"(?P<v>(?<![0-9a-f])[0-9a-f]{32}-us[0-9]{1,2})(?![0-9])")),  # Mailchimp
    _Rule(("sq0csp-",), re.compile(r"(?P<v>sq0csp-[0-9A-Za-z_\-]{43})")),  # Square OAuth secret
    _Rule(("bot", "telegram"), re.compile(r"(?P<v>(?<![0-9])[0-9]{8,10}:[0-9A-Za-z_\-]{35})(?![0-9A-Za-z_\-])")),
    # webhook URLs: what follows the fixed path is the credential
    _Rule(("/api/webhooks/",), re.compile(r"discord(?:app)?\.com/api/webhooks/\d+/(?P<v>[A-Za-z0-9_\-]{20,})")),
    _Rule(("webhook.office.com", "outlook.office"), re.compile(
        r"(?:webhook\.office\.com|outlook\.office(?:365)?\.com)/webhook(?:b2)?/(?P<v>[^\s\"'<>\\)]+)")),
    _Rule(("hooks.slack.com",), re.compile(r"hooks\.slack\.com/(?:workflows|triggers)/(?P<v>[^\s\"'<>\\)]+)")),
    _Rule(("sig=",), re.compile(r"sig=(?<=[?&]sig=)(?P<v>[A-Za-z0-9%_\-+/=]{16,})")),  # Azure SAS, Logic Apps
    # an IAM credentials line: the access key ID, then its secret (whatever its entropy: AWS's own example)
    _Rule(("AKIA", "ASIA"), re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}[^\n]{0,40}?(?<![A-Za-z0-9+/=_\-])"
                                       r"(?P<v>[A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=_\-])")),
    # passwords by the command or the file line that takes them
    _Rule(("curl",), re.compile(
        rf"curl\b[^\n|;&]*?\s(?:-u[ \t]*|--user[ \t=]+)(?P<q>['\"]?)[^\s:'\"\\]*:(?P<v>{_TOKEN})(?P=q)")),
    _Rule(("mysql", "mariadb", "sshpass", "login"), re.compile(
        r"(?:(?:mysql|mariadb)[\w-]*|sshpass|(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry)"
        rf"[ \t]+login)\b[^\n|;&]*?[ \t]-p[ \t]*{_QUOTED}")),
    _Rule(("htpasswd",), re.compile(
        r"htpasswd(?P<flags>(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d+)?)+)(?P<words>(?:[ \t]+[^\s|;&]+){2,3})"), _htpasswd),
    _Rule(("password",), re.compile(rf"(?m)^{_GUTTER}[ \t]*password[ \t]+(?P<v>[^\s'\"\\]+)[ \t]*\r?$")),  # netrc
    _Rule((" password ", "\tpassword "), re.compile(  # netrc on one line
        r"(?:(?:machine[ \t]+\S+|default)[ \t]+(?:login[ \t]+\S+[ \t]+)?|login[ \t]+\S+[ \t]+)"
        r"password[ \t]+(?P<v>[^\s'\"\\]+)")),
    _Rule(("sudo", "password-stdin"), re.compile(
        r"(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?(?:(?P<q>['\"])(?P<v>[^'\"\n]+)(?P=q)|(?P<w>[^\s|;&'\"\\]+))"
        rf"[ \t]*\|[ \t]*(?:{_SUDO_S}|[^\n|;&]*--password-stdin)")),
    _Rule(("<<<",), re.compile(rf"{_SUDO_S}[^\n]*?<<<[ \t]*{_QUOTED}")),
    _Rule(("authorization",), re.compile(
        r"(?i)authorization\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?:[A-Za-z-]+[ \t]+)?(?P<v>[A-Za-z0-9._~+/=\-]{16,})"),
        fold=True),
    # cookies: a Cookie header's values, a Set-Cookie's first, curl's -b, and session cookies anywhere
    _Rule(("cookie",), re.compile(r"(?i)(?P<set>set-)?cookie\\*[\"']?[ \t]*:[ \t]*\\*[\"']?(?P<v>[^\n\"'\\]+)"),
          _cookies, fold=True),
    _Rule((" -b ", "--cookie"), re.compile(r"curl\b[^\n|;&]*?[ \t](?:-b|--cookie)[ \t]+\\*[\"']?(?P<v>[^\n\"'\\]+)"),
          _cookies),
    _Rule(("sessid=", "sessionid=", "session_id=", "session-id=", "session=", "sid=", "remember_"), re.compile(
        r"(?i)(?:sess(?:ion)?[_.\-]?id|_session|(?<![\w.\-])session|(?<![\w\-])sid|(?<![\w.\-])remember_[\w\-]+)="
        r"(?P<v>[^\s;,\"'&\\]+)"), _session, fold=True),
]

# redact runs detect-secrets' shape plugins (SlackDetector) on a text holding one of these
PLUGIN_HINTS = ("hooks.slack.com",)

# unlabelled tokens: a run long enough to be one, alone on its line or 40 chars between separators
_RUN = re.compile(r"[A-Za-z0-9+/_\-]{32}")
_ALONE = re.compile(rf"(?m)^{_GUTTER}[ \t]*(?P<v>[A-Za-z0-9+/_\-]{{32,512}}={{0,2}})[ \t]*\r?$")
_B64_RUN = re.compile(r"[A-Za-z0-9+/=_\-]{40,}")
_AWS_SECRET = re.compile(r"[A-Za-z0-9+/]{40}")  # a whole run of the above, 40 chars of [A-Za-z0-9+/]
_HEX = re.compile(r"[0-9a-fA-F]+")
_NAMED_ID = re.compile(r"[a-z]{3,}[_-]")  # chatcmpl-…, toolu_…, gen-…: an identifier that names its kind

# a digest, not a secret, when nothing names it one: SRI and lockfile prefixes, hex of a hash's length
_DIGEST = re.compile(r"(?:sha(?:1|224|256|384|512)|md5|h1)[-:][A-Za-z0-9+/=_\-]+"
                     r"|[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{56}"
                     r"|[0-9a-fA-F]{64}|[0-9a-fA-F]{96}|[0-9a-fA-F]{128}")


def plain(value: str) -> bool:
    """True for what only looks random: a checksum (`sha512-…`, `sha256:…`, go.sum's `h1:…`, hex as long as
    a hash), or a path (`/` first, words between `/`, or base64's two alphabets mixed: `Qwen/Qwen3-Coder`)."""
    if _DIGEST.fullmatch(value) or value.startswith("/"):
        return True
    mixed = ("/" in value or "+" in value) and ("_" in value or "-" in value)
    return mixed or sum(len(part) >= 3 and part.isalpha() for part in value.split("/")) >= 2


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values())


def _random(value: str, limit: float) -> bool:
    """Mixed case and digits, entropy past `limit` (past it by more with under two digits), not hex, not a
    path, not an identifier that names its kind."""
    if plain(value) or _NAMED_ID.match(value):
        return False
    digits = sum(c.isdigit() for c in value)
    if not digits or value.islower() or value.isupper() or _HEX.fullmatch(value):
        return False
    return _entropy(value) >= (limit if digits >= 2 else limit + 0.4)


def hinted(text: str, lower: str) -> bool:
    """True when some rule could match: one of its literals is in `text` (or a token-long run)."""
    return (secret_rules.hinted(lower) or any(any(hint in (lower if rule.fold else text) for hint in rule.hints) for rule in _RULES)
            or any(hint in text for hint in PLUGIN_HINTS) or _RUN.search(text) is not None)


def values(text: str, lower: str, unlabelled: bool = True) -> set[str]:
    """The secret values our rules find in `text` (`lower`: text.lower()); `unlabelled`: random tokens too."""
    found = {value for rule in _RULES for value in rule.found(text, lower)}
    found |= secret_rules.values(text, lower)
    if unlabelled and _RUN.search(text):
        found.update(m.group("v") for m in _ALONE.finditer(text) if _random(m.group("v").rstrip("="), 4.0))
        found.update(run for run in _B64_RUN.findall(text) if _AWS_SECRET.fullmatch(run) and _random(run, 4.3))
    # a reference to a variable is not the secret: `-p"$PASS"`, `echo $SUDO_PASS | sudo -S`
    return {value for value in found if value and not value.startswith("$")}


_PUTTY = "Private-Lines:"
_MAC = re.compile(r"Private-MAC:[ \t]*[0-9a-fA-F]*")


def block_spans(text: str, hi: int) -> list[tuple[int, int]]:
    """PuTTY private keys that begin before `hi`: `Private-Lines:` to the MAC's end, or to the end of text."""
    out = []
    at = text.find(_PUTTY, 0, hi + len(_PUTTY))
    while 0 <= at < hi:
        mac = _MAC.search(text, at)
        end = len(text) if mac is None else mac.end()
        out.append((at, end))
        at = text.find(_PUTTY, end, hi + len(_PUTTY))
    return out
