# `hindsight serve`: the JSON API, MCP over streamable HTTP (/mcp) and the inspector (/) on one port,
# health at /healthz.
#   docker build -t hindsight .
#   docker compose up          (with Qdrant and Redis; see docker-compose.yml)
# Not built in CI: docker cannot run there. tests/mcp/test_deploy.py runs this image's
# command line directly instead.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false \
    HINDSIGHT_HOME=/data \
    HINDSIGHT_SERVE_HOST=0.0.0.0 \
    HINDSIGHT_SERVE_PORT=8765

WORKDIR /app

# CPU torch first: a plain `torch` requirement would pull a multi-GB CUDA build.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

COPY pyproject.toml README.md ./
COPY hindsight_core ./hindsight_core
RUN pip install ".[mcp,redis]"

RUN useradd --create-home --uid 10001 hindsight && mkdir -p /data && chown hindsight /data
USER hindsight
VOLUME ["/data"]
EXPOSE 8765

HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=5 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('HINDSIGHT_SERVE_PORT', '8765') + '/healthz', timeout=3)"]

ENTRYPOINT ["hindsight"]
CMD ["serve"]
