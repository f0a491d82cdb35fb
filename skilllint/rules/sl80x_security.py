"""SL80x: security content: what the model reads and the reviewer does not see, and what the package must not ship."""

from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import Finding, Span
from ..rule import Rule, RuleContext, severities
from ..skill.package import SkillPackage
from ..skill.secrets import find_secrets
from ..skill.text_files import package_texts


class SecretInPackage(Rule):
    """The secret is never shown: the message gives its kind, first characters and length, and
    ``secret_span`` tells the human output to blank the flagged text in the source line it shows
    and the baseline to record the line without it."""

    code = "SL803"
    name = "secret-in-package"
    summary = "A credential (API key, token, private key, password) written in a file of the package"
    severity = severities("error: all")
    content_rule = True
    needs_skill_md = False
    security_severity = 8.5
    secret_span = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for rel, text in package_texts(package, ctx).items():
            for secret in find_secrets(text):
                paired = (
                    f", with its secret access key on line {secret.paired_line}" if secret.paired_line is not None else ""
                )
                yield Finding(
                    f"{secret.what} ({secret.masked}){paired} is written in this file: whoever gets the skill "
                    "can use it, and it stays in every copy and in the history; revoke it with its issuer, "
                    "then have the skill read it from an environment variable or a secret store",
                    Span(secret.line, secret.column, secret.line, secret.end_column),
                    path=package.root / rel,
                )


RULES = [SecretInPackage]
