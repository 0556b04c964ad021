"""The `hindsight` command line. Environment variables are read here, never in the core.

Every setting comes from a flag, else an environment variable, else a default. The commands only parse and print
(the work is `Hindsight`'s and `maintenance`'s), and none loads the embedding model without a text to embed.

    settings   what the flags resolved to; the lazily loaded embedder
    edge       errors as one line; text from standard input
    everyday   remember, recall, memories, forget
    upkeep     stats, export, import, migrate, archive
    serve      serve (one process for many), mcp, demo, ui (the browser inspector)
"""

from __future__ import annotations

from pathlib import Path

import click

from ..config import TEXT_BYTES_CEILING
from ..embed.embedder import DEFAULT_MODEL
from .edge import Group
from .everyday import forget, memories, recall, remember
from .options import env
from .serve import demo, mcp, serve_command, ui
from .settings import FAKE_MODEL, LazyEmbedder, Settings
from .upkeep import archive, export_command, import_command, migrate, stats

__all__ = ["FAKE_MODEL", "LazyEmbedder", "Settings", "main"]

ENVIRONMENT = """\b
Environment variables (a flag wins over its variable):
  HINDSIGHT_HOME             folder for the embedded store (default ~/.hindsight)
  HINDSIGHT_STORE            embedded store folder (default $HINDSIGHT_HOME/store)
  HINDSIGHT_QDRANT_URL       use a Qdrant server instead of the embedded store
  HINDSIGHT_QDRANT_API_KEY   API key for that server
  HINDSIGHT_REDIS_URL        Redis for session working memory (passed on; no command here uses it yet)
  HINDSIGHT_EMBEDDING_MODEL  embedding model (default: the store's own, else multilingual-e5-small)
  HINDSIGHT_MAX_TEXT_BYTES   largest text remember and recall accept (default 32768)
  HINDSIGHT_USER_ID          the user for remember, recall, forget and mcp
  HINDSIGHT_MCP_TOKEN        bearer token the MCP server requires over HTTP (one user)
  HINDSIGHT_MCP_TOKENS_FILE  JSON {"user_id": "token"} for an MCP server with several users
  HINDSIGHT_MCP_HOST / HINDSIGHT_MCP_PORT   where the HTTP MCP server listens (127.0.0.1:8080)
  HINDSIGHT_MCP_WRITE_SOURCE who the MCP server's writes come from: agent (default), user or tool
  HINDSIGHT_UI_TOKEN         token the inspector (`hindsight ui`) requires; needed off loopback
  HINDSIGHT_SERVE_TOKEN      token `hindsight serve` requires (every user; opens its inspector)
  HINDSIGHT_SERVE_TOKENS_FILE  JSON {"user_id": "token"}: per-user tokens for `hindsight serve`
  HINDSIGHT_SERVE_HOST / HINDSIGHT_SERVE_PORT   where `hindsight serve` listens (127.0.0.1:8765)

While `hindsight serve` runs on the store, the other commands go through it
(it records its address in STORE/server.json).
"""


@click.group(cls=Group, help="hindsight: long-term memory for LLM agents.", epilog=ENVIRONMENT)
@click.option("--home", type=click.Path(path_type=Path), **env("HINDSIGHT_HOME"),
              help="Folder for hindsight's data.  [default: ~/.hindsight]")
@click.option("--store", "store_path", type=click.Path(path_type=Path), **env("HINDSIGHT_STORE"),
              help="Embedded store folder.  [default: HOME/store]")
@click.option("--qdrant-url", **env("HINDSIGHT_QDRANT_URL"), help="A Qdrant server to use instead.")
@click.option("--qdrant-api-key", **env("HINDSIGHT_QDRANT_API_KEY"), help="API key for the Qdrant server.")
@click.option("--redis-url", **env("HINDSIGHT_REDIS_URL"), help="Redis for working memory (not used yet).")
@click.option("--embedding-model", **env("HINDSIGHT_EMBEDDING_MODEL"),
              help=f"Embedding model name or path ('{FAKE_MODEL}' for the instant test embedder).  "
                   f"[default: the model the store was built with, else {DEFAULT_MODEL}]")
@click.option("--max-text-bytes", type=click.IntRange(1, TEXT_BYTES_CEILING), **env("HINDSIGHT_MAX_TEXT_BYTES"),
              help="Largest text remember and recall accept.  [default: 32768]")
@click.pass_context
def main(ctx: click.Context, home: Path | None, store_path: Path | None, qdrant_url: str | None,
         qdrant_api_key: str | None, redis_url: str | None, embedding_model: str | None,
         max_text_bytes: int | None) -> None:
    from ..facade.base import default_home

    root = home if home is not None else default_home()
    ctx.obj = Settings(store_path=store_path or root / "store", qdrant_url=qdrant_url or None,
                       qdrant_api_key=qdrant_api_key or None, redis_url=redis_url or None,
                       embedding_model=embedding_model or None, max_text_bytes=max_text_bytes)


for command in (demo, remember, recall, memories, forget, stats, export_command, import_command, migrate, archive,
                mcp, ui, serve_command):
    main.add_command(command)
