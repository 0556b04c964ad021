"""Running `hindsight` commands in process with a private, fully specified environment."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hindsight_core.cli import main

SETTINGS = ("HINDSIGHT_HOME", "HINDSIGHT_STORE", "HINDSIGHT_QDRANT_URL", "HINDSIGHT_QDRANT_API_KEY",
            "HINDSIGHT_REDIS_URL", "HINDSIGHT_EMBEDDING_MODEL", "HINDSIGHT_USER_ID", "HINDSIGHT_MCP_TOKEN",
            "HINDSIGHT_MCP_TOKENS_FILE", "HINDSIGHT_MCP_HOST", "HINDSIGHT_MCP_PORT", "HINDSIGHT_MCP_WRITE_SOURCE",
            "HINDSIGHT_UI_TOKEN", "HINDSIGHT_SERVE_TOKEN", "HINDSIGHT_SERVE_TOKENS_FILE", "HINDSIGHT_SERVE_HOST",
            "HINDSIGHT_SERVE_PORT")
FAKE = "fake-hash-embedder"


class Hs:
    """`hs("recall", "query", model=...)`: run one command against this test's store; fails loudly on errors."""

    def __init__(self, home) -> None:
        self.home = home
        self.store = home / "store"
        self.runner = CliRunner()

    def env(self, model: str | None = FAKE, **extra: str | None) -> dict[str, str | None]:
        env: dict[str, str | None] = {name: None for name in SETTINGS}
        env.update(HINDSIGHT_HOME=str(self.home), HINDSIGHT_EMBEDDING_MODEL=model, **extra)
        return env

    def run(self, *args: str, model: str | None = FAKE, ok: bool = True, input: str | None = None,
            **extra: str | None):
        result = self.runner.invoke(main, list(args), env=self.env(model, **extra), input=input,
                                    catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    __call__ = run


@pytest.fixture
def hs(tmp_path) -> Hs:
    return Hs(tmp_path / "home")
