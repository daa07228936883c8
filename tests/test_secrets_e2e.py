"""No planted secret is ever shown: every command and report format runs on a corpus of
transcripts (Claude Code, Codex, toolaudit-jsonl) full of fake secrets, in arguments and
in outputs, and none of the secret values may appear in what is printed or written.

To cover a new command or report format, add one line to COMMANDS. To cover a new kind of
secret, add one Planted to PLANTED. Values are made up at run time (`fake`), so no
secret-looking literal sits in this file. Replay reads them back too: the Claude Code
transcript also Reads and Greps files of a workspace that holds every planted text.
"""

from __future__ import annotations

import base64
import hashlib
import html
import importlib.util
import json
import os
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import CORPUS, SAMPLES
pytestmark = pytest.mark.slow  # make test-all only: every command and format over the planted-secret corpus

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
FRAGMENT = 16  # a leak is any run of this many characters of a value (or the whole of a shorter one)


def fake(kind: str, n: int, alphabet: str = ALNUM) -> str:
    """`n` characters drawn from `alphabet`, the same on every run, different for each `kind`."""
    out: list[str] = []
    counter = 0
    while len(out) < n:
        digest = hashlib.sha256(f"{kind}:{counter}".encode()).digest()
        out += [alphabet[b % len(alphabet)] for b in digest]
        counter += 1
    return "".join(out[:n])


def _b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


@dataclass(frozen=True)
class Planted:
    """One kind of secret: the text put in transcripts, and the values that must never show."""

    kind: str
    text: str
    values: tuple[str, ...]


def _block(kind: str, begin: str, end: str, lines: int, width: int = 64, first: str = "",
           armour: str = "") -> Planted:
    body = [fake(f"{kind}{i}", width, B64) for i in range(lines)] + [fake(f"{kind}-last", 28, B64) + "=="]
    text = "\n".join([f"-----BEGIN {begin}-----", *([armour] if armour else []), *([first] if first else []),
                      *body, f"-----END {end}-----"])
    return Planted(kind, text, tuple(body))


def _putty(kind: str) -> Planted:
    """A PuTTY key file: public lines are public; the private lines and the MAC are the secret."""
    private = [fake(f"{kind}-priv{i}", 64, B64) for i in range(2)] + [fake(f"{kind}-priv-last", 20, B64) + "=="]
    mac = fake(f"{kind}-mac", 64, HEX)
    text = "\n".join(["PuTTY-User-Key-File-3: ssh-rsa", "Encryption: none", "Comment: deploy@ci", "Public-Lines: 2",
                      "AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + fake(f"{kind}-pub", 34, B64), fake(f"{kind}-pub2", 40, B64),
                      f"Private-Lines: {len(private)}", *private, f"Private-MAC: {mac}"])
    return Planted(kind, text, (*private, mac))


def _vendors() -> list[Planted]:
    """Tokens known by their prefix or shape (detect-secrets' plugins, redact's _VENDOR, secret_forms)."""
    aws = "AKIA" + fake("aws", 16, UPPER)
    ghp = "ghp_" + fake("ghp", 36)
    openai = "sk-proj-" + fake("openai", 48, URLSAFE)
    anthropic = "sk-ant-api03-" + fake("anthropic", 93, URLSAFE) + "AA"
    slack = f"xoxb-{fake('slack1', 12, string.digits)}-{fake('slack2', 13, string.digits)}-{fake('slack3', 24)}"
    stripe = "sk_live_" + fake("stripe", 24)
    google = "AIza" + fake("google", 35, URLSAFE)
    payload = _b64url({"sub": "user-" + fake("jwt-sub", 12), "iat": 1760000000, "role": "admin"})
    signature = fake("jwt-sig", 43, URLSAFE)
    jwt = f"{_b64url({'alg': 'HS256', 'typ': 'JWT'})}.{payload}.{signature}"
    glued = "AKIA" + fake("aws-glued", 16, UPPER)
    tokens = {  # kind: (the token, the text around it, with {} where it goes)
        "gitlab-pat": ("glpat-" + fake("glpat", 20, URLSAFE), "mirroring with {} tonight"),
        "npm-token": ("npm_" + fake("npm", 36), "//registry.npmjs.org/:_authToken={}"),
        "pypi-token": ("pypi-AgEIcHlwaS5vcmc" + fake("pypi", 120, URLSAFE), "twine upload -u __token__ -p {} dist/*"),
        "sendgrid-key": (f"SG.{fake('sg1', 22, URLSAFE)}.{fake('sg2', 43, URLSAFE)}", 'SendGridAPIClient("{}")'),
        "twilio-key": ("SK" + fake("twilio", 32, HEX), "client = Client({}, secret)"),
        "telegram-bot": (f"{fake('tg1', 10, string.digits)}:{fake('tg2', 35, URLSAFE)}",
                         "https://api.telegram.org/bot{}/sendMessage"),
        "square-secret": ("sq0csp-" + fake("square", 43, URLSAFE), "square app secret {} rotated"),
        "mailchimp-key": (fake("mailchimp", 32, HEX) + "-us14", "mailchimp client set to {}"),
        "shopify-token": ("shpat_" + fake("shopify", 32, HEX), "X-Shopify-Access: {}"),
        "digitalocean-token": ("dop_v1_" + fake("do", 64, HEX), "doctl auth init -t {}"),
        "github-fine-grained": (f"github_pat_{fake('gpat1', 22)}_{fake('gpat2', 59)}", "gh repo list with {}"),
        "github-oauth": ("gho_" + fake("gho", 36), "oauth app answered {}"),
        "github-app-url": ("ghs_" + fake("ghs", 36), "git clone https://x-access-token:{}@github.com/acme/app.git"),
        "anthropic-admin": ("sk-ant-admin01-" + fake("ant-admin", 93, URLSAFE) + "AA", "admin key {} listed"),
        "google-oauth-secret": ("GOCSPX-" + fake("gocspx", 28, URLSAFE), "client secret in console: {}"),
        "stripe-webhook": ("whsec_" + fake("whsec", 32), "stripe listen printed {}"),
        "mailgun-key": ("key-" + fake("mailgun", 32, HEX), 'requests.post(url, auth=("api", "{}"), data=message)'),
        "databricks-token": ("dapi" + fake("databricks", 32, HEX), "Using {} for the prod workspace"),
        "hf-letters": ("hf_" + fake("hf", 34, string.ascii_letters), "logged in to the hub with {}"),
        "vault-token": ("hvs." + fake("vault", 91, URLSAFE), "vault login {}"),
        "doppler-token": ("dp.st.prd." + fake("doppler", 40), "doppler run --config prd -- ./deploy.sh # {}"),
        # kinds that only gitleaks' rules (secrets.rules) or a prefix rule of secret_forms know
        "pypi-token-short": ("pypi-AgEIcHlwaS5vcmc" + fake("pypi-short", 60, URLSAFE), "twine upload dist/* -p {}"),
        "square-access-token": ("sq0atp-" + fake("sq0atp", 22, URLSAFE), "square sandbox answered for {}"),
        "dropbox-short-lived": ("sl." + fake("dropbox", 138, URLSAFE), "curl -X POST https://api.dropboxapi.com/2/files "
                                "-H 'Dropbox-API-Arg: {{}}' -d {}"),
        "atlassian-api-token": ("ATATT3" + fake("atlassian", 186, URLSAFE), "acli jira auth login --site acme {}"),
        "new-relic-user-key": ("NRAK-" + fake("newrelic", 27, UPPER), "newrelic profile add --region us {}"),
        "pulumi-token": ("pul-" + fake("pulumi", 40, HEX), "pulumi login with {} done"),
        "terraform-cloud-token": (f"{fake('tfc-id', 14, HEX)}.atlasv1.{fake('tfc', 67, URLSAFE)}",
                                  "credentials app.terraform.io {}"),
        "supabase-token": ("sbp_" + fake("supabase", 40, HEX), "supabase link --project-ref abc {}"),
        "netlify-token": ("nfp_" + fake("netlify", 36), "netlify deploy --prod {}"),
        "linear-api-key": ("lin_api_" + fake("linear", 40), "linear issue list via {}"),
        "notion-token": (f"ntn_{fake('notion-n', 11, string.digits)}{fake('notion', 35)}", "notion search with {}"),
        "airtable-pat": (f"pat{fake('airtable-id', 14)}.{fake('airtable', 64, HEX)}", "base app123 read with {}"),
        "mapbox-secret": (f"sk.{_b64url({'u': 'acme-' + fake('mapbox-u', 8), 'a': fake('mapbox-a', 25)})}."
                          f"{fake('mapbox', 22, URLSAFE)}", "mapbox upload acme.tiles data.mbtiles {}"),
        "huggingface-org-token": ("api_org_" + fake("hf-org", 34, string.ascii_letters), "hub org access via {}"),
        "perplexity-key": ("pplx-" + fake("pplx", 48), "sonar answered for {}"),
        "grafana-service-account": (f"glsa_{fake('glsa', 32)}_{fake('glsa-crc', 8, HEX)}", "grafana dashboards via {}"),
        "sentry-user-token": ("sntryu_" + fake("sntryu", 64, HEX), "sentry-cli releases list {}"),
        "postman-api-key": (f"PMAK-{fake('pmak1', 24, HEX)}-{fake('pmak2', 34, HEX)}", "newman run collection {}"),
        "shippo-live-token": ("shippo_live_" + fake("shippo", 40, HEX), "rates fetched with {}"),
        "flyio-token": ("fo1_" + fake("flyio", 43, URLSAFE), "fly deploy -a shop {}"),
        "rubygems-key": ("rubygems_" + fake("rubygems", 48, HEX), "gem push shop-1.0.gem {}"),
        "clojars-token": ("CLOJARS_" + fake("clojars", 60, string.ascii_lowercase + string.digits),
                          "lein deploy clojars {}"),
        "easypost-key": ("EZAK" + fake("easypost", 54), "shipment bought through {}"),
        "prefect-key": ("pnu_" + fake("prefect", 36), "prefect cloud login -k {}"),
        "readme-key": ("rdme_" + fake("readme", 70, string.ascii_lowercase + string.digits), "rdme openapi {}"),
        "dynatrace-token": (f"dt0c01.{fake('dt1', 24, UPPER)}.{fake('dt2', 64, UPPER)}", "monaco deploy {}"),
        "gitlab-runner-token": ("glrt-" + fake("glrt", 20, URLSAFE), "gitlab-runner register {}"),
        "openai-admin-key": ("sk-admin-" + fake("openai-admin", 58, URLSAFE), "usage export with {}"),
    }
    return [
        Planted("aws-access-key", f"aws configure set aws_access_key_id {aws}", (aws,)),
        Planted("github-pat", f"gh auth login --with-token <<< {ghp}", (ghp,)),
        Planted("openai-key", f"Using OpenAI project key {openai} for the batch", (openai,)),
        Planted("anthropic-key", f"x-api-key: {anthropic}", (anthropic,)),
        Planted("slack-token", f"SLACK_BOT={slack} ./notify.sh", (slack,)),
        Planted("stripe-key", f"charged the card with {stripe} in live mode", (stripe,)),
        Planted("google-api-key", f"https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={google}",
                (google,)),
        Planted("jwt", f"set-cookie: sid={jwt}; Path=/; HttpOnly", (jwt, payload, signature)),
        Planted("aws-key-glued", f"the log line said {glued}exampleSuffix and stopped", (glued,)),
        *(Planted(kind, around.format(token), (token,)) for kind, (token, around) in tokens.items()),
    ]


def _blocks() -> list[Planted]:
    """Private keys over several lines: PEM, OpenSSH, PGP, PuTTY, age."""
    age = "AGE-SECRET-KEY-1" + fake("age", 58, BECH32.upper())
    return [
        _block("pem-rsa", "RSA PRIVATE KEY", "RSA PRIVATE KEY", 6),
        _block("pem-ec", "EC PRIVATE KEY", "EC PRIVATE KEY", 2),
        _block("pkcs8", "PRIVATE KEY", "PRIVATE KEY", 5),
        _block("pkcs8-encrypted", "ENCRYPTED PRIVATE KEY", "ENCRYPTED PRIVATE KEY", 5),
        _block("openssh", "OPENSSH PRIVATE KEY", "OPENSSH PRIVATE KEY", 4, width=70,
               first="b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"),
        _block("pgp", "PGP PRIVATE KEY BLOCK", "PGP PRIVATE KEY BLOCK", 5, armour="Version: GnuPG v2\n"),
        _putty("putty"),
        Planted("age-key", f"# created: 2026-03-01T10:00:00Z\n# public key: age1{fake('age-pub', 58, BECH32)}\n{age}",
                (age,)),
    ]


def _credentials() -> list[Planted]:
    """Passwords and keys: assigned to a secret name, in URLs, headers, cookies and CSV lines, given to the
    command that takes them, or alone."""
    pw = {name: f"{name[:2].title()}{len(name) % 10}" + fake(f"pw-{name}", 13) for name in (
        "db", "url", "escaped", "json", "curl", "mysql", "mysqldump", "sshpass", "docker", "htpasswd", "netrc1",
        "netrc2", "sudo", "stdin", "redis", "mongo", "yaml", "pg", "jdbc", "basic", "sudo-heredoc")}
    basic = base64.b64encode(f"deploy:{pw['basic']}".encode()).decode()
    azure = fake("azure", 86, B64) + "=="
    aws_secret, iam_secret, alone_secret = (fake(f"aws-secret{i}", 40, B64) for i in ("", "-iam", "-alone"))
    iam_id = "AKIA" + fake("aws-iam", 16, UPPER)
    sig = fake("sas-sig", 43, B64).replace("+", "%2B").replace("/", "%2F") + "%3D"
    teams, discord, hook = fake("teams", 32, HEX), fake("discord", 68, URLSAFE), fake("slack-hook", 24)
    cookies = {"session": fake("sessionid", 32, string.ascii_lowercase + string.digits), "csrf": fake("csrf", 32),
               "jsession": fake("jsession", 32, HEX.upper()), "php": fake("phpsess", 26, string.ascii_lowercase)}
    lone = fake("lone-token", 40)
    values = {
        "hex": fake("hex-token", 64, HEX), "api": fake("api-key", 32), "bearer": fake("bearer", 40, ALNUM + "._-"),
        "auth": fake("auth-token", 40), "client": fake("client-secret", 32, URLSAFE), "x-api": fake("x-api", 32),
        "django": "django-insecure-" + fake("django", 50, ALNUM + "!@#%^&*(-_=+)"), "sentry": fake("sentry", 32, HEX),
    }
    plain = [  # kind, text, the values in it
        ("aws-secret-key", f"AWS_SECRET_ACCESS_KEY={aws_secret}", aws_secret),
        ("aws-iam-csv", f"User name,Access key ID,Secret access key\ndeploy-bot,{iam_id},{iam_secret}",
         iam_id, iam_secret),
        ("aws-secret-alone", f"rotated: {alone_secret} (keep it safe)", alone_secret),
        ("azure-account-key", (f"DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={azure};"
                               "EndpointSuffix=core.windows.net"), azure),
        ("azure-sas", f"https://acme.blob.core.windows.net/backups/db.bak?sv=2022-11-02&sp=r&sig={sig}", sig),
        ("db-pass", f"DB_PASS={pw['db']} psql -h db.internal -U app shop", pw["db"]),
        ("url-password", f"DATABASE_URL=postgres://app:{pw['url']}@db.internal:5432/shop", pw["url"]),
        ("json-escaped-password", '{\\"user\\":\\"app\\",\\"password\\":\\"' + pw["escaped"] + '\\"}', pw["escaped"]),
        ("json-password", f'{{"user": "app", "password": "{pw["json"]}"}}', pw["json"]),
        ("bearer-token", f"curl -H 'Authorization: Bearer {values['bearer']}' https://api.example.com/v1/orders",
         values["bearer"]),
        ("authorization-token", f'curl -H "Authorization: token {values["auth"]}" https://git.example.com/api/v3/user',
         values["auth"]),
        ("basic-auth", f"Authorization: Basic {basic}", basic),
        ("x-api-key", f'curl -H "X-Api-Key: {values["x-api"]}" https://api.example.com/v2/items', values["x-api"]),
        ("secret-token-hex", f"export SECRET_TOKEN={values['hex']}", values["hex"]),
        ("export-api-key", f'export API_KEY="{values["api"]}"', values["api"]),
        ("client-secret-json", f'{{"client_id": "web-app", "client_secret": "{values["client"]}"}}', values["client"]),
        ("django-secret", f"SECRET_KEY = '{values['django']}'", values["django"]),
        ("curl-user", f"curl -fsS -u deploy:{pw['curl']} https://ci.example.com/api/json", pw["curl"]),
        ("mysql-glued", f"mysql -h db.internal -u root -p{pw['mysql']} shop -e 'select 1'", pw["mysql"]),
        ("mysql-spaced", f"mysqldump -u root -p {pw['mysqldump']} --single-transaction shop", pw["mysqldump"]),
        ("sshpass", f"sshpass -p '{pw['sshpass']}' ssh deploy@10.0.0.5 uptime", pw["sshpass"]),
        ("docker-login", f"docker login -u ci-bot -p {pw['docker']} registry.example.com", pw["docker"]),
        ("htpasswd", f"htpasswd -b -c /etc/nginx/.htpasswd admin {pw['htpasswd']}", pw["htpasswd"]),
        ("netrc-line", f"machine api.example.com login deploy password {pw['netrc1']}", pw["netrc1"]),
        ("netrc-lines", f"machine git.example.com\n  login deploy\n  password {pw['netrc2']}", pw["netrc2"]),
        ("sudo-stdin", f"echo '{pw['sudo']}' | sudo -S systemctl restart nginx", pw["sudo"]),
        ("sudo-herestring", f"sudo -S -k whoami <<< {pw['sudo-heredoc']}", pw["sudo-heredoc"]),
        ("password-stdin", f"echo {pw['stdin']} | docker login ghcr.io -u ci-bot --password-stdin", pw["stdin"]),
        ("redis-url", f"redis-cli -u redis://:{pw['redis']}@cache.internal:6379/0 ping", pw["redis"]),
        ("mongodb-url", f"mongosh 'mongodb+srv://app:{pw['mongo']}@cluster0.example.mongodb.net/shop'", pw["mongo"]),
        ("yaml-password", f"database:\n  user: app\n  password: {pw['yaml']}\n  host: db.internal", pw["yaml"]),
        ("pgpassword", f"PGPASSWORD={pw['pg']} psql -h db.internal -U app", pw["pg"]),
        ("jdbc-url", f"jdbc:postgresql://db.internal:5432/shop?user=app&password={pw['jdbc']}", pw["jdbc"]),
        ("sentry-dsn", f"SENTRY_DSN=https://{values['sentry']}@o450.ingest.sentry.io/4505", values["sentry"]),
        ("discord-webhook", f"https://discord.com/api/webhooks/{fake('discord-id', 18, string.digits)}/{discord}",
         discord),
        ("teams-webhook", (f"https://acme.webhook.office.com/webhookb2/{_uuid('t1')}@{_uuid('t2')}/IncomingWebhook/"
                           f"{teams}/{_uuid('t3')}"), teams),
        ("slack-webhook", (f"https://hooks.slack.com/services/T{fake('slack-t', 8, UPPER)}/"
                           f"B{fake('slack-b', 10, UPPER)}/{hook}"), hook),
        ("cookie-header", (f"curl -H 'Cookie: sessionid={cookies['session']}; csrftoken={cookies['csrf']}' "
                           "https://app.example.com/admin/"), cookies["session"], cookies["csrf"]),
        ("session-cookie", f"Set-Cookie: JSESSIONID={cookies['jsession']}; Path=/; Secure; HttpOnly",
         cookies["jsession"]),
        ("curl-cookie", f"curl -b 'PHPSESSID={cookies['php']}' https://shop.example.com/cart", cookies["php"]),
        ("lone-token", lone, lone),
    ]
    return [Planted(kind, text, tuple(secrets)) for kind, text, *secrets in plain]


def _uuid(kind: str) -> str:
    h = fake(kind, 32, HEX)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _planted() -> list[Planted]:
    return [*_vendors(), *_blocks(), *_credentials()]


PLANTED = _planted()
SELF_NAMED = frozenset(p.kind for p in _vendors())  # a value whose shape names its kind, alone
# prose with no evidence items (no paths, numbers or code-like names), to make outputs long
# enough for every preset's cap (Claude Code cuts Bash at 30,000 chars)
FILLER = "\n".join(["the service answered the health check and nothing else happened here"] * 230)


def outputs(p: Planted) -> list[str]:
    """Two outputs per secret: short with it on line 2 (a head cut hides it; a PEM body starts
    a removed part under --head-lines 2), and long with it in the middle (middle cuts)."""
    return [f"ok\n{p.text}\ndone", f"{FILLER}\n{p.text}\n{FILLER}"]


def workspace_file(p: Planted) -> str:
    """Where the workspace holds a planted text, for the Read and Grep calls replay answers anew."""
    return f"secrets/{p.kind}.txt"


def _claude(path: Path) -> None:
    lines, n = [], 0
    for p in PLANTED:
        file = workspace_file(p)
        short, long = outputs(p)
        numbered = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(short.splitlines(), 1))
        grepped = "\n".join(f"{file}:{i}:{line}" for i, line in enumerate(short.splitlines(), 1))
        calls = [("Bash", {"command": p.text}, short), ("Bash", {"command": "tail -n 400 logs/app.log"}, long),
                 ("Read", {"file_path": f"/srv/app/{file}"}, numbered),
                 ("Grep", {"pattern": ".", "path": f"/srv/app/{file}", "output_mode": "content", "-n": True}, grepped),
                 # a path the workspace lacks: replay's failure reason names it (redacted)
                 ("Read", {"file_path": f"/srv/app/missing/{missing_path(p)}"}, "File does not exist.")]
        for tool, args, output in calls:
            n += 1
            base = {"sessionId": "s-claude", "cwd": "/srv/app", "version": "2.1.38",
                    "timestamp": f"2026-03-01T{10 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"}
            lines.append({**base, "type": "assistant", "uuid": f"a{n}", "requestId": f"req{n}", "message": {
                "id": f"msg{n}", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": args}]}})
            lines.append({**base, "type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output}]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _codex(path: Path) -> None:
    lines = [{"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
              "payload": {"id": "019c0000-0000-7000-8000-00000000c0de", "cwd": "/srv/app", "originator": "codex_cli_rs",
                          "cli_version": "0.94.0", "source": "cli", "model_provider": "openai"}},
             {"timestamp": "2026-03-01T10:00:00.100Z", "type": "turn_context",
              "payload": {"cwd": "/srv/app", "model": "gpt-5.2-codex"}}]
    n = 0
    for p in PLANTED:
        for output, command in zip(outputs(p), (p.text, "tail -n 400 logs/app.log")):
            n += 1
            ts = f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}.500Z"
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call", "name": "exec_command", "call_id": f"call_{n}",
                "arguments": json.dumps({"cmd": command, "workdir": "/srv/app"})}})
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": f"call_{n}", "output": output}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _toolaudit(path: Path) -> None:
    lines, n = [], 0
    for p in PLANTED:
        for output, args in zip(outputs(p), ({"script": p.text}, p.text)):
            n += 1
            lines.append({"tool": "shell", "session": "s-own", "call_id": f"c{n}", "request": n,
                          "args": args, "output": output})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def name_file(p: Planted, i: int) -> str:
    """The file of a kind's names transcript: named after its text where a file name can hold it (no `/`,
    one line), else after its value alone when that names its kind (a password alone is no secret to see)."""
    for text in (p.text, p.values[0] if p.values[0] != p.text and p.kind in SELF_NAMED else ""):
        if text and "/" not in text and "\n" not in text and len(text.encode()) <= 200:
            return f"{text}.jsonl"
    return f"kind-{i:03d}.jsonl"


def missing_path(p: Planted) -> str:
    """A file name holding the kind's secret, as name_file chooses it; not a random token alone, which in a
    path is not told from a digest's base64 parts (redact reads paths' parts by prefix rules only)."""
    if p.text == p.values[0] and p.kind not in SELF_NAMED:
        return f"kind-{PLANTED.index(p):03d}.txt"
    return name_file(p, PLANTED.index(p))[:-len(".jsonl")] + ".txt"


def _names(folder: Path) -> None:
    """One toolaudit-jsonl transcript per kind, whose tool, session and model names hold the secret (an MCP
    tool's name too, between `__`), and whose file name holds it where it can."""
    folder.mkdir(parents=True)
    for i, p in enumerate(PLANTED):
        lines = [{"tool": tool, "session": f"s-{p.text}", "model": f"m-{p.text}", "call_id": f"n{i}-{j}",
                  "request": j, "args": {"script": "ls -la"}, "output": FILLER[:2000 * (j + 1)]}
                 for j, tool in enumerate((p.text, f"mcp__{p.text}__run"))]
        (folder / name_file(p, i)).write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """corpus/{claude,codex,own}/: one transcript per format, every secret in args and outputs;
    corpus/names/: every secret in tool, session, model and file names."""
    root = tmp_path_factory.mktemp("secrets") / "corpus"
    for name, write, file in (("claude", _claude, "5f1c2a9e-0000-4000-8000-000000000001.jsonl"),
                              ("codex", _codex, "rollout-2026-03-01T10-00-00-019c0000-0000-7000-8000-00000000c0de.jsonl"),
                              ("own", _toolaudit, "calls.jsonl")):
        (root / name).mkdir(parents=True)
        write(root / name / file)
    _names(root / "names")
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """The folder replay runs in: one file per planted kind (a line more than recorded, so outputs change)."""
    root = tmp_path_factory.mktemp("secrets") / "workspace"
    for p in PLANTED:
        (root / workspace_file(p)).parent.mkdir(parents=True, exist_ok=True)
        (root / workspace_file(p)).write_text(outputs(p)[0] + "\nsee also the runbook\n")
    return root


# ------------------------------------------------------------------ what runs

@dataclass(frozen=True)
class Run:
    """One command line; `{corpus}`, `{workspace}`, `{out}` and `{baseline}` are filled in. `setup`
    makes any file the command needs first (a baseline), in `out`."""

    name: str
    argv: tuple[str, ...]
    codes: tuple[int, ...] = (0,)
    setup: tuple[str, ...] = ()
    shows: tuple[str, ...] = ()  # printed only when the secret-bearing text was really shown (redacted)
    writes: tuple[str, ...] = ()  # files it must have written (else their check proves nothing)


REDACTED = "[REDACTED]"
SUMMARY = "step-summary.md"  # $GITHUB_STEP_SUMMARY
SCAN = ("scan", "{corpus}", "-j", "1")
SIM = ("simulate", "{corpus}", "-j", "1", "--explain", "500")
REPLAY = ("replay", "{corpus}", "--workspace", "{out}", "--tool", "*=cmd:cat", "--explain", "500")
# builtins answer the Read and Grep calls from {workspace}; drifted calls (the files differ from the
# recording) are kept so that --diff has every change to show
BUILTIN = ("replay", "{corpus}", "--workspace", "{workspace}", "--tool", "Read=builtin:read_file",
           "--tool", "Grep=builtin:grep", "--keep-drifted")
FORMATS = ("table", "json", "csv", "markdown", *(("html",) if importlib.util.find_spec("altair") else ()))
DIFFED = (REDACTED, "(variant)")  # a unified diff was shown (`+++ Read (variant)`), and something masked
COMMANDS = [
    Run("scan-table", SCAN),
    *(Run(f"scan-{fmt}", (*SCAN, "-f", fmt)) for fmt in ("json", "csv", "markdown")),
    Run("scan-json-file", (*SCAN, "-f", "json", "-o", "{out}/scan.json"), writes=("scan.json",)),
    Run("scan-by-session", (*SCAN, "--by", "session", "-f", "markdown")),
    *(Run(f"scan-top-{fmt}", (*SCAN, "--top", "200", "-f", fmt), shows=(REDACTED,))
      for fmt in ("table", "json", "markdown", "html")),
    Run("scan-top-csv", (*SCAN, "--top", "200", "-f", "csv")),  # CSV holds the groups only
    *(Run(f"scan-show-content-{fmt}", (*SCAN, "--top", "200", "--show-content", "-f", fmt), shows=(REDACTED,))
      for fmt in ("table", "json", "markdown", "html")),
    Run("scan-html-file", (*SCAN, "--top", "200", "-f", "html", "-o", "{out}/scan.html"), writes=("scan.html",)),
    Run("scan-records-csv", (*SCAN, "--records", "{out}/calls.csv"), writes=("calls.csv",)),
    Run("scan-records-parquet", (*SCAN, "--records", "{out}/calls.parquet"), writes=("calls.parquet",)),
    *(Run(f"simulate-{cap}-{fmt}", (*SIM, *flags, "-f", fmt), shows=(REDACTED,))
      for cap, flags in (("head1", ("--head-lines", "1")), ("head2", ("--head-lines", "2")),
                         ("max-lines", ("--max-lines", "6")), ("max-chars", ("--max-chars", "300")))
      for fmt in ("table", "json", "markdown", "html")),
    Run("simulate-explain-csv", (*SIM, "--max-lines", "6", "-f", "csv")),  # CSV holds the groups only
    *(Run(f"simulate-preset-{preset}-{fmt}", (*SIM, "--preset", preset, "-f", fmt))
      for preset in ("codex", "claude-code", "mini-swe-agent") for fmt in ("table", "json")),
    Run("simulate-sweep", ("simulate", "{corpus}", "-j", "1", "--sweep", "max-lines=2,6,40", "-f", "json")),
    *(Run(f"ci-{fmt}", ("ci", "{corpus}", "--baseline", "{baseline}", "-j", "1", "-f", fmt), codes=(0, 3),
          setup=("scan", "{corpus}/claude", "-j", "1", "-f", "json", "-o", "{baseline}"), writes=(SUMMARY,))
      for fmt in ("table", "markdown", "json", "junit")),
    Run("ci-simulate-baseline", ("ci", "{corpus}", "--baseline", "{baseline}", "-j", "1", "-f", "markdown"),
        codes=(0, 3), setup=("simulate", "{corpus}/own", "-j", "1", "--max-lines", "6", "-f", "json",
                             "-o", "{baseline}"), writes=(SUMMARY,)),
    Run("ci-update-baseline", ("ci", "{corpus}", "--baseline", "{baseline}", "-j", "1", "--update-baseline"),
        writes=("baseline.json",)),
    *(Run(f"compare-{fmt}", ("compare", "{corpus}/claude", "{corpus}/codex", "-j", "1", "-f", fmt))
      for fmt in ("table", "json", "csv", "markdown", "html")),
    Run("compare-records", ("compare", "{out}/a.csv", "{corpus}/own", "-j", "1", "-f", "json"),
        setup=("scan", "{corpus}/claude", "-j", "1", "--records", "{out}/a.csv")),
    # replay: `cat` answers every call with its recorded arguments, so the new outputs hold the
    # planted values too; --explain previews both outputs (redacted)
    *(Run(f"replay-{fmt}", (*REPLAY, "-f", fmt), shows=(REDACTED,) if fmt != "csv" else ()) for fmt in FORMATS),
    Run("replay-json-file", (*REPLAY, "-f", "json", "-o", "{out}/replay.json"), writes=("replay.json",)),
    Run("ci-replay-baseline", ("ci", "{corpus}", "--baseline", "{baseline}", "--workspace", "{out}", "--tool",
                               "*=cmd:cat", "-f", "markdown"), codes=(0, 3),
        setup=(*REPLAY[:-2], "-f", "json", "-o", "{baseline}"), writes=(SUMMARY,)),
    # replay through builtins: the secrets come back in the new outputs, shown by --explain and --diff
    *(Run(f"replay-builtin-explain-{fmt}", (*BUILTIN, "--explain", "500", "-f", fmt),
          shows=(REDACTED,) if fmt != "csv" else ()) for fmt in FORMATS),
    *(Run(f"replay-builtin-diff-{fmt}", (*BUILTIN, "--diff", "5", "-f", fmt), shows=DIFFED if fmt != "csv" else ())
      for fmt in FORMATS),
    Run("replay-builtin-diff-all", (*BUILTIN, "--diff", "1000", "-f", "json"), shows=DIFFED),
    Run("replay-builtin-diff-recorded", (*BUILTIN, "--diff", "1000", "--before", "recorded", "-f", "markdown"),
        shows=DIFFED),
    # not here: replay --calls-out, a transcript written on request (outputs verbatim, as recorded,
    # so that scan counts them exactly); docs/replay.md says so
]


def _texts(path: Path) -> list[str]:
    """What a written file says, as text a reader (or a grep) would see."""
    if path.suffix == ".parquet":
        import pandas as pd

        return [pd.read_parquet(path).to_csv(index=False), path.read_bytes().decode("latin-1")]
    return [path.read_text(encoding="utf-8", errors="replace")]


# the scan cache keys each file by its path (scan.cache): the one place a file name is kept as it is
CACHE_KEYS = {("files", "path"), ("parts", "path")}


def _unpacked(data: bytes) -> str:
    """A cache entry as text: zstd or zlib data decompressed first."""
    import zlib

    if data[:4] == b"\x28\xb5\x2f\xfd":
        import zstandard

        data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    elif data[:1] == b"\x78":
        try:
            data = zlib.decompress(data)
        except zlib.error:
            pass
    return data.decode("utf-8", errors="replace") + "\n" + data.decode("latin-1")


def cache_texts(folder: Path, keys: bool = False) -> dict[str, str]:
    """What the scan cache in `folder` holds, as text: every column of every SQLite table (entries
    unpacked), and any other file; the path keys (CACHE_KEYS) only with `keys`."""
    import sqlite3

    texts: dict[str, str] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.read_bytes()[:16] != b"SQLite format 3\x00":
            texts[f"cache:{path.name}"] = _unpacked(path.read_bytes())
            continue
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                cursor = db.execute(f'SELECT * FROM "{table}"')
                columns = [c[0] for c in cursor.description]
                for n, row in enumerate(cursor.fetchall()):
                    for column, value in zip(columns, row):
                        if (table, column) in CACHE_KEYS and not keys:
                            continue
                        text = _unpacked(value) if isinstance(value, bytes) else str(value)
                        texts[f"cache:{table}.{column}#{n}"] = text
        finally:
            db.close()
    return texts


def _views(text: str) -> list[str]:
    """The text, and as Markdown/HTML/JSON escapes would hide it (`\\_`, `&amp;`, `\\/`)."""
    return [text, text.replace("\\", ""), html.unescape(text)]


def leaks(texts: dict[str, str]) -> list[str]:
    """`where: kind` for every planted value (or a FRAGMENT-long run of one) found in `texts`."""
    found = []
    for where, text in texts.items():
        views = _views(text)
        for p in PLANTED:
            for value in p.values:
                pieces = {value[i:i + FRAGMENT] for i in range(max(1, len(value) - FRAGMENT + 1))}
                if any(piece in view for piece in pieces for view in views):
                    found.append(f"{where}: {p.kind}")
                    break
    return found


def test_the_corpus_plants_enough_kinds(corpus, workspace):
    assert len({p.kind for p in PLANTED}) == len(PLANTED) >= 90
    assert len(leaks({"workspace": "\n".join(path.read_text() for path in workspace.rglob("*.txt"))})) == len(PLANTED)
    texts = {path.name: path.read_text() for folder in ("claude", "codex", "own")
             for path in (corpus / folder).glob("*.jsonl")}
    assert len(texts) == 3
    # the planted values are really there, in every transcript (else the leak check proves nothing)
    for name, text in texts.items():
        assert len(leaks({name: text})) == len(PLANTED), name
    names = sorted((corpus / "names").glob("*.jsonl"))
    assert len(names) == len(PLANTED) and len(leaks({"names": "\n".join(p.read_text() for p in names)})) == len(PLANTED)
    assert sum(not p.name.startswith("kind-") for p in names) >= 60  # most kinds fit a file name


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_no_planted_secret_is_printed_or_written(command: Run, corpus, workspace, run, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    summary = tmp_path / SUMMARY
    fill: Callable[[tuple[str, ...]], list[str]] = lambda argv: [
        a.format(corpus=corpus, workspace=workspace, out=out, baseline=out / "baseline.json") for a in argv]
    env = {"GITHUB_STEP_SUMMARY": str(summary), "COLUMNS": "400", "NO_COLOR": "1"}
    if command.setup:
        made = run(*fill(command.setup), "-q", env=env)
        assert made.exit_code == 0, made.output
    result = run(*fill(command.argv), env=env)
    assert result.exit_code in command.codes, result.output
    assert result.stdout.strip() or list(out.iterdir()), "the command printed and wrote nothing"
    texts = {"stdout": result.stdout, "stderr": result.stderr}
    for path in [*out.iterdir(), summary]:
        if path.exists():
            for i, text in enumerate(_texts(path)):
                texts[f"{path.name}#{i}"] = text
    cached = cache_texts(Path(os.environ["TOOLAUDIT_CACHE_DIR"]))
    assert leaks(texts) == [] and leaks(cached) == []
    shown = _views("".join(texts.values()))  # Markdown escapes the brackets
    assert all(any(marker in view for view in shown) for marker in command.shows), command.shows
    assert all(f"{name}#0" in texts for name in command.writes), sorted(texts)



@pytest.mark.parametrize("where", ["planted", "sample_logs", "shared"])
def test_top_previews_made_late_are_the_ones_every_worker_made(where, corpus, run, tmp_path):
    """`scan --top` alone previews only the rows it shows, from the heads workers send (FileResult.heads);
    with --records every worker previews every call. The shown rows are the same, secrets masked alike."""
    path = {"planted": corpus, "sample_logs": SAMPLES, "shared": CORPUS}[where]
    if not path.is_dir():
        pytest.skip(f"{path} is absent (../shared/corpus: the real transcripts)")
    args = ("scan", path, "--top", "60", "--show-content", "-f", "json", "-q")
    late = run(*args, "-j", "2")
    eager = run(*args, "-j", "1", "--records", tmp_path / "rows.csv")
    assert late.exit_code == 0 and eager.exit_code == 0, late.output + eager.output
    top, also = json.loads(late.stdout)["top"], json.loads(eager.stdout)["top"]
    assert len(top) == 60 and top == also
    assert sum(bool(row["args_preview"]) for row in top) > 30 and all("output_preview" in row for row in top)
    if where == "planted":
        assert leaks({"late": late.stdout}) == [] and "[REDACTED]" in late.stdout


def test_the_scan_cache_keeps_no_secret_of_a_name(corpus, run):
    """Served from the cache, a scan shows masked names; the cache holds them masked (file names apart: CACHE_KEYS)."""
    first = run("scan", corpus, "-j", "1", "--by", "session", "-f", "json")
    again = run("scan", corpus, "-j", "1", "--by", "session", "-f", "json")
    assert first.exit_code == 0 and again.exit_code == 0, first.output + again.output
    assert json.loads(first.stdout)["groups"] == json.loads(again.stdout)["groups"]
    cached = cache_texts(Path(os.environ["TOOLAUDIT_CACHE_DIR"]))
    assert cached and sum(len(t) for t in cached.values()) > 10_000  # the cache holds the corpus's rows
    assert leaks(cached) == [] and leaks({"again": again.stdout}) == []
    assert REDACTED in "".join(cached.values())  # the names are there, masked


def test_the_scan_cache_keys_hold_no_file_name_secret(corpus, run):
    result = run("scan", corpus, "-j", "1", "-f", "json")
    assert result.exit_code == 0, result.output
    assert leaks(cache_texts(Path(os.environ["TOOLAUDIT_CACHE_DIR"]), keys=True)) == []


def test_mcp_answers_show_no_secret(corpus):
    """The MCP server's tools (context, scan with --show-content previews, simulate, advise) answer masked."""
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    import asyncio

    from toolaudit.server import build

    server = build([corpus], show_content=True)
    calls = [("scan", {"path": str(corpus), "top": 200}), ("scan", {"path": str(corpus), "by": "session"}),
             ("scan", {"path": str(corpus), "by": "file"}), ("scan", {"path": str(corpus), "by": "model"}),
             ("simulate", {"path": str(corpus), "max_lines": 6}), ("advise", {"path": str(corpus)}),
             ("context", {"transcript": str(corpus / "claude" / "5f1c2a9e-0000-4000-8000-000000000001.jsonl")}),
             *(("context", {"transcript": str(path)}) for path in sorted((corpus / "names").glob("*.jsonl"))[:40])]
    answers = {}
    for i, (tool, args) in enumerate(calls):
        result = asyncio.run(server.call_tool(tool, args))
        text = "".join(getattr(item, "text", "") for item in result.content)
        assert not result.is_error, (tool, text[:300])
        answers[f"{tool}#{i}"] = text
    assert leaks(answers) == []
    assert REDACTED in answers["scan#0"] and REDACTED in answers["scan#1"]