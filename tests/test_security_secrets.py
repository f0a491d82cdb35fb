"""SL803 secret-in-package: credentials in any text file of the package, never shown.

The hostile set runs end to end in a separate process (tests/test_hostile.py's harness:
time, memory and file-access audit); the detectors' own cases and every output format's
masking run in process. The credentials here are made at run time from a seeded random
source, so that this file holds no string a secret scanner would take for one.
"""

from __future__ import annotations

import json
import random
import string
import uuid
import zlib

import pytest
from conftest import LINEAR_AT_4X, growth, run_cli
from test_hostile import MiB, check_json, skill, sparse, tree  # noqa: F401  (tree: a fixture)

from skilllint.skill.security.secrets import find_secrets

_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
_RANDOM = random.Random(803)


def _chars(alphabet: str, size: int) -> str:
    return "".join(_RANDOM.choice(alphabet) for _ in range(size))


def github_token(prefix: str = "ghp_") -> str:
    """A token in GitHub's format: 30 random base62 characters and their CRC32 in six."""
    body = _chars(_BASE62, 30)
    number, digits = zlib.crc32(body.encode()), ""
    for _ in range(6):
        number, rest = divmod(number, 62)
        digits = _BASE62[rest] + digits
    return prefix + body + digits


def aws_key_id() -> str:
    return "AK" + "IA" + _chars(string.ascii_uppercase + "234567", 16)


def aws_secret() -> str:
    return _chars(string.ascii_letters + string.digits + "/+", 40)


def slack_token() -> str:
    return "xo" + "xb-" + _chars(string.digits, 11) + "-" + _chars(string.digits, 13) + "-" + _chars(string.ascii_letters + string.digits, 24)


def private_key_block() -> str:
    body = "\n".join(_chars(string.ascii_letters + string.digits + "+/", 64) for _ in range(6))
    return "-----BEGIN " + "RSA PRIVATE KEY-----\n" + body + "\n-----END RSA PRIVATE KEY-----\n"


def kinds(text: str) -> list[tuple[str, int]]:
    return [(secret.kind, secret.line) for secret in find_secrets(text)]


# ------------------------------------------------------------------------------ hostile set, end to end


def test_the_hostile_set(tree):
    root = tree.root
    token, slack, key_id, secret, block = github_token(), slack_token(), aws_key_id(), aws_secret(), private_key_block()
    password = "Zq8#vL2m9Tx" + _chars(string.ascii_letters, 4)

    refs = skill(root, "key-in-references", "Read [setup](references/setup.md) first.")
    (refs / "references").mkdir()
    (refs / "references" / "setup.md").write_text(f"# Setup\n\nRun:\n\n    export GITHUB_TOKEN={token}\n")

    script = skill(root, "key-in-script-comment")
    (script / "scripts").mkdir()
    (script / "scripts" / "notify.sh").write_text(f"#!/bin/sh\n# worked with {slack} on my machine\ncurl -X POST \"$URL\"\n")

    aws = skill(root, "aws-pair")
    (aws / "config.ini").write_text(f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret}\n")

    pem = skill(root, "private-key")
    (pem / "assets").mkdir()
    (pem / "assets" / "deploy.pem").write_text(block)

    url = skill(root, "connection-string")
    (url / "settings.yaml").write_text(f"database:\n  url: postgres://deploy:{password}@db.internal.acme.io:5432/prod\n")

    documented = skill(
        root,
        "documented-examples",
        "Set the keys:\n\n```\nAWS_ACCESS_KEY_ID=AKIA" + "IOSFODNN7EXAMPLE\n"
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY\n```\n",
    )
    (documented / "references").mkdir()
    (documented / "references" / "formats.md").write_text(
        "# Key formats\n\n"
        "| provider | pattern | example |\n|---|---|---|\n"
        "| Google | `AIza[0-9A-Za-z_-]{35}` | `AIza" + "SyA1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q` |\n"
        "| OpenAI | `sk-[A-Za-z0-9]{48}` | `sk-...` |\n"
        "| GitHub | `ghp_[A-Za-z0-9]{36}` | `ghp_" + "x" * 36 + "` |\n"
        "| Slack | webhook | `https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24 + "` |\n"
    )

    placeholders = skill(
        root,
        "placeholders",
        "```bash\nexport OPENAI_API_KEY=your_api_key_here\nexport TOKEN=<token>\nexport API_KEY=xxxxxxxxxxxxxxxxxxxx\n"
        "export GITHUB_TOKEN=${GITHUB_TOKEN}\nexport SECRET=$SECRET_FROM_VAULT\ncurl -H \"Authorization: Bearer sk-...\"\n```\n",
    )
    (placeholders / "template.yaml").write_text("api_key: \"{{api_key}}\"\npassword: \"********\"\nclient_secret: REPLACE_ME_WITH_SECRET\n")

    env_refs = skill(root, "env-references")
    (env_refs / "scripts").mkdir()
    (env_refs / "scripts" / "client.py").write_text(
        "import os, secrets\napi_key = os.environ[\"OPENAI_API_KEY\"]\ntoken = os.getenv(\"GITHUB_TOKEN\")\n"
        "nonce_token = secrets.token_urlsafe(32)\n"
    )
    (env_refs / "scripts" / "client.js").write_text("const apiKey = process.env.OPENAI_API_KEY;\n")
    (env_refs / ".env").write_text("DATABASE_URL=postgres://user:${DB_PASSWORD}@localhost/app\nSTRIPE_KEY=$STRIPE_KEY\n")

    over_cap = skill(root, "over-the-cap")
    sparse(over_cap / "references" / "dump.txt", f"token = {github_token()}\n".encode(), size=2 * MiB)

    binary = skill(root, "binary-files")
    (binary / "assets").mkdir()
    (binary / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + f"key={github_token()}".encode())
    (binary / "assets" / "blob.dat").write_bytes(b"\x00\x01\x02" + f"\nkey={github_token()}\n".encode())

    result = check_json(tree, "--select", "SL803", "--no-cache", ".", label="SL803 hostile set")
    found = sorted((d["path"], d["line"], d["column"], d["message"].split(" (")[0]) for d in result.found("SL803"))
    assert found == [
        ("aws-pair/config.ini", 2, 21, "an AWS access key id"),
        ("connection-string/settings.yaml", 2, 26, "a password in a connection string"),
        ("key-in-references/references/setup.md", 5, 25, "a GitHub token"),
        ("key-in-script-comment/scripts/notify.sh", 2, 15, "a Slack token"),
        ("private-key/assets/deploy.pem", 1, 1, "a private key"),
    ]
    [paired] = [d for d in result.found("SL803") if d["path"] == "aws-pair/config.ini"]
    assert "with its secret access key on line 3" in paired["message"]
    for value in (token, slack, key_id, secret, password, block.split("\n")[1]):
        assert value.encode() not in result.out
        assert value[4:].encode() not in result.out  # not even past the shown prefix
    opened = {path for event, path in result.events if event == "open"}
    assert not any(path.endswith("dump.txt") for path in opened)  # over the read cap: not read
    assert not any(path.endswith("logo.png") for path in opened)  # a binary format: not opened


# ------------------------------------------------------------------------------ every output format


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "sarif", "github"])
def test_no_output_format_shows_the_secret(tmp_path, fmt):
    token = github_token()
    root = skill(tmp_path, "leaky", f"Call the API with `curl -H 'Authorization: token {token}' https://api.github.com/user`.")
    code, out, err = run_cli("check", "--select", "SL803", "--no-cache", "--output-format", fmt, str(root), cwd=tmp_path)
    assert code == 1, err
    assert "SL803" in out
    assert token not in out and token[4:] not in out and token not in err
    if fmt == "full":  # the source line is shown with the token blanked
        assert "token " + "*" * len(token) + "'" in out


def test_the_baseline_records_the_line_without_the_secret(tmp_path):
    token = github_token("ghs_")
    root = skill(tmp_path, "leaky", f"Use `GH_TOKEN={token} gh api /user`.")
    baseline = tmp_path / "baseline.json"
    code, _, err = run_cli("check", "--select", "SL803", "--no-cache", "--write-baseline", str(baseline), str(root), cwd=tmp_path)
    assert code == 0, err
    text = baseline.read_text()
    assert token not in text and token[4:] not in text
    [entry] = json.loads(text)["entries"]
    assert entry["text"] == "Use `GH_TOKEN=" + "*" * len(token) + " gh api /user`."
    code, out, err = run_cli("check", "--select", "SL803", "--no-cache", "--baseline", str(baseline), str(root), cwd=tmp_path)
    assert code == 0 and "SL803" not in out, out + err  # the fingerprint still knows the finding


# ------------------------------------------------------------------------------ the detectors


def test_provider_tokens_are_found():
    assert kinds(f"GITHUB_TOKEN={github_token()}") == [("github", 1)]
    assert kinds(f"token: {github_token('gho_')}") == [("github", 1)]
    assert kinds("pat = github_pat_" + _chars(_BASE62, 22) + "_" + _chars(_BASE62, 59)) == [("github_pat", 1)]
    assert kinds("GITLAB_TOKEN=glpat-" + _chars(_BASE62, 20)) == [("gitlab", 1)]
    assert kinds("x\n" + slack_token()) == [("slack", 2)]
    assert kinds("url = https://hooks.slack.com/services/T" + _chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 8) + "/B"
                 + _chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10) + "/" + _chars(_BASE62, 24)) == [("webhook", 1)]  # fmt: skip
    assert kinds("client = Anthropic(api_key='sk-" + "ant-api03-" + _chars(_BASE62 + "_-", 93) + "AA')") == [("anthropic", 1)]
    assert kinds("OPENAI_API_KEY=sk-" + "proj-" + _chars(_BASE62 + "_-", 120)) == [("openai", 1)]
    assert kinds("openai.api_key = 'sk-" + _chars(_BASE62, 48) + "'") == [("openai", 1)]
    assert kinds("const key = 'AIza" + _chars(_BASE62 + "_-", 35) + "';") == [("google", 1)]
    assert kinds("stripe.api_key = \"sk_" + "live_" + _chars(_BASE62, 24) + "\"") == [("stripe", 1)]
    assert kinds(aws_key_id()) == [("aws", 1)]


def test_a_github_token_whose_checksum_fails_is_made_up():
    real = github_token()
    made_up = real[:-1] + ("A" if real[-1] != "A" else "B")
    assert kinds(real) == [("github", 1)]
    assert kinds(made_up) == []


def test_private_key_blocks_need_key_material():
    assert kinds("key: |\n" + private_key_block()) == [("pem", 2)]
    escaped = private_key_block().replace("\n", "\\n")
    assert kinds('{"private_key": "' + escaped + '"}') == [("pem", 1)]  # a service-account JSON file
    assert kinds("-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----") == []
    assert kinds('private_key = "-----BEGIN RSA PRIVATE KEY-----"') == []
    assert kinds("-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----") == []
    assert kinds("-----BEGIN PUBLIC KEY-----\n" + private_key_block().split("\n", 1)[1]) == []


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://user:pass@localhost/langgraph",
        "postgresql://admin:password123@prod-db:5432/main",
        "amqp://guest:guest@localhost:5672",
        "postgres://postgres:test@db.internal/test",
        "mysql://{{username}}:{{password}}@db.acme.io/app",
        "redis://:${REDIS_PASSWORD}@cache.acme.io:6379",
        "mongodb+srv://app:<password>@cluster0.abcde.mongodb.net",
        "https://user:p@ssw0rd",
        "postgres://deploy:Zq8vL2m9Tx@localhost:5432/app",
        "see https://example.com:8080/path and git@github.com:org/repo",
        "postgres://newuser:newpass@newhost:5432/newdb",  # a default password with a word to it
        "mysql://app:mysecret2@db.acme.io/app",
    ],
)
def test_connection_strings_without_a_real_password(text):
    assert kinds(text) == []


def test_a_connection_string_with_a_password():
    assert kinds("DATABASE_URL=postgres://deploy:Zq8vL2m9Tx@db.internal.acme.io:5432/prod") == [("url", 1)]
    assert kinds("amqps://svc:h7Rk2pQw9z@mq.acme.io/vhost") == [("url", 1)]
    assert kinds("postgres://svc:bluefalcon@db.acme.io/app") == [("url", 1)]  # words, but no default password in them


@pytest.mark.parametrize(
    "text",
    [
        "AWS_ACCESS_KEY_ID=AKIA" + "IOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "AKIA" + "ABCDEFGHIJKLMNOP",
        "AKIA" + "XXXXXXXXXXXXXXXX",
        "API_KEY=your_api_key_here",
        'api_key: "<token>"',
        "OPENAI_API_KEY=sk-...",
        "OPENAI_API_KEY=sk-\u2026",
        "export GITHUB_TOKEN=${GITHUB_TOKEN}",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "password: '{{ db_password }}'",
        'api_key = os.environ["OPENAI_API_KEY"]',
        "const apiKey = process.env.OPENAI_API_KEY",
        "token = secrets.token_urlsafe(32)",
        "token = identity_token.aws.jwt",
        "token = jwt_token_from_step1",
        "tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased-v2')",
        '"plainToken": "qgg8vlvZRS6UYooatFL8Aw"',
        '"nextPageToken": "CAoQAA8fD3kL9mZqR2vT"',
        "PublicKeyToken=b03f5f7f11d50a3a",
        "AIza" + "SyA1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q",
        "ghp_" + "x" * 36,
        "ghp_your_github_token_here_please_set",
        "sk-abc123realkey456",
        "the task-budgets-2026-03-13 header, a disk-usage-monitor-for-servers-with-long-names tool",
        'password = "hunter2"',
        "SECRET_KEY = 'django-insecure-change-me-in-production-k3j4h5'",
        "xo" + "xb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        '"token": "eyJhbGciOiJIUzI1NiJ9..."',
        "max_tokens: 40960000000000000000",
        "sha256: 3f9a0c7e5b1d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a",
    ],
)
def test_examples_placeholders_and_references_are_not_secrets(text):
    assert kinds(text) == []


def test_random_values_under_secret_names():
    value = _chars(_BASE62, 32)
    assert kinds(f'DEPLOY_TOKEN = "{value}"') == [("named", 1)]
    assert kinds(f"client_secret: {value}") == [("named", 1)]
    assert kinds(f'{{"apiKey": "{value}"}}') == [("named", 1)]
    assert kinds(f"db_password={value}") == [("named", 1)]
    assert kinds(f"cache_key = '{value}'") == []  # not a secret's name
    assert kinds(f"token_url = 'https://{value}.example.com'") == []


def test_the_download_token_of_a_linked_file_is_part_of_its_address():
    """A storage service (Firebase, GitBook) hands out a file's link with a download token in its
    query: it opens that one file, and a page that shows the file publishes it by design. A key in
    the query of an API call, or a token under a name that says it is an account's, is a credential."""
    value = str(uuid.UUID(int=_RANDOM.getrandbits(128)))
    image = "https://files.acme.io/v0/b/acme-prod.appspot.com/o/spaces%2Fx1%2Fuploads%2Fchart%20(2).png"
    assert kinds(f'<img src="{image}?alt=media&#x26;token={value}" alt="">') == []
    assert kinds(f"![chart]({image}?alt=media\\&token={value})") == []
    assert kinds(f"[notes](https://acme.io/files/notes.txt?token={value})") == []
    secret = str(uuid.UUID(int=_RANDOM.getrandbits(128)))
    assert kinds(f"curl 'https://api.acme.io/v1/export?token={secret}'") == [("named", 1)]  # an API call
    assert kinds(f"https://acme.io/index.php?token={secret}") == [("named", 1)]  # a program, not a file
    assert kinds(f"https://acme.io/img/logo.png?access_token={secret}") == [("named", 1)]  # an account's token
    assert kinds(f"see chart.png, and token={secret}") == [("named", 1)]  # not in a URL


def test_one_finding_per_value_and_file():
    token = github_token()
    assert kinds(f"{token}\nagain: {token}\n{github_token()}") == [("github", 1), ("github", 3)]


def test_the_message_shows_four_characters_and_the_length():
    token = github_token()
    [secret] = find_secrets(f"x = '{token}'")
    assert secret.masked == f"`ghp_…`, {len(token)} characters"
    [password] = find_secrets("postgres://deploy:Zq8vL2m9Tx@db.internal.acme.io/prod")
    assert password.masked == "10 characters"


def test_a_file_full_of_candidates_costs_a_bounded_time():
    # Each line a candidate that is judged and dropped: the judging stops at MAX_CANDIDATES.
    def text(lines: int) -> str:
        return "".join(f"api_key = '{_chars(_BASE62, 8)}_placeholder_{n:06d}'\n" for n in range(lines))

    assert find_secrets(text(40_000)) == []
    # Counted: four times the candidates, about the same calls (judging stops at MAX_CANDIDATES;
    # judging each, four times as many).
    assert growth(find_secrets, text(10_000), text(40_000), measure="calls") < 2
    clean = lambda lines: "Plain prose about tokens, keys and passwords, with no value anywhere.\n" * lines  # noqa: E731
    assert find_secrets(clean(15_000)) == []  # ~1 MiB
    assert growth(find_secrets, clean(3_750), clean(15_000)) < LINEAR_AT_4X  # CPU time: the scan is in C


_BODY = "ABCDEFGHIJKLMNOP"  # 16 characters every provider pattern accepts


@pytest.mark.parametrize(
    "text",
    [
        f"id = AKIA{_BODY} ", f"ASIA{_BODY}\n", f"ABIA{_BODY}", f"ACCA{_BODY}",
        "key: AIza" + "a" * 35, "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----",
        "see https://hooks.slack.com/services/T0/B0/xyz", "postgres://app:pw@db.internal/x",
        f"token={_BODY}", f"token => '{_BODY}'", f"token: {_BODY}",
        *(f"{prefix}{_BODY}{_BODY}" for prefix in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
                                                     "xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-",
                                                     "sk-", "sk_live_", "rk_live_")),
    ],
)
def test_a_provider_scan_is_skipped_only_on_a_text_it_cannot_match(text):
    """find_secrets runs the provider scans (and the ``=`` scan of assignments) only on texts holding a
    mark each needs: for every alternative of the patterns, a text it matches where a word can start
    (what the judge asks of a candidate) is one the scan runs on."""
    from skilllint.skill.security import secrets
    from skilllint.skill.security.text_marks import Marks

    for before in ("", " ", "\n", "=", '"', "\u00e9"):  # a candidate needs a word to start: é passes the mark, not the judge
        shown = before + text
        matched = [scan for scan in (*secrets.PREFIXED, secrets.PROVIDER_TAILS, *secrets.ASSIGNED) if scan.search(shown)]
        assert matched, "the example must match one of the scans"
        # the marks searched for one by one, and (with hyperscan installed) found in one pass
        for marks in (Marks(shown, min_chars=len(shown) + 1), Marks(shown, min_chars=0)):
            assert all(scan in secrets._scans_for(shown, marks) for scan in matched)


@pytest.mark.parametrize("text", ["the task-list-management-guide-for-teams", "a risk_live_dashboard_of_all_things", "desk-0123456789abcdef0123"])
def test_a_provider_prefix_inside_a_word_does_not_start_the_tail_scan(text):
    from skilllint.skill.security import secrets

    from skilllint.skill.security.text_marks import Marks

    for marks in (Marks(text, min_chars=len(text) + 1), Marks(text, min_chars=0)):
        assert secrets.PROVIDER_TAILS not in secrets._scans_for(text, marks)
        assert secrets.find_secrets(text, marks) == []


@pytest.mark.parametrize(
    "assignment",
    [
        "DEPLOY_TOKEN = {v}", "api_key_ = {v}", "apiKey: {v}", '"client_secret": "{v}"', "PASSWORD := {v}",
        "db.pwd == {v}", "myCredentials => {v}", "secret\t=\t'{v}'", "token-: {v}", "APIKEY={v}",
        "settings = {p}", "value: '{p}'", "x => {p}",
    ],
)
def test_an_assignment_is_dropped_before_judging_only_when_judging_would_drop_it(assignment):
    """find_secrets drops most values assigned in a text before judging them one by one: for each
    way a secret-like name or a provider's token is assigned, the value is still judged, and the
    judgement is the same with the early test switched off."""
    from skilllint.skill.security import secrets

    text = assignment.format(v=_chars(_BASE62, 32), p=github_token()) + "\n"
    candidates = [m for scan in secrets.ASSIGNED for m in scan.finditer(text)]
    assert candidates and all(secrets._may_name_a_secret(text, m) for m in candidates)
    judged = [secrets._judge(text, m, secrets._LineIndex(text)) for m in candidates]
    assert [j[0] for j in judged if j] == [kind for kind, _ in kinds(text)]
