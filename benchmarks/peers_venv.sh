#!/usr/bin/env bash
# Creates .venv-peers for peers whose pins conflict with the project's venv (mem0ai needs protobuf<7).
# It layers on .venv: packages installed here (mem0ai and its pins) come first on sys.path, everything
# else (torch, sentence-transformers, the MiniLM files, qdrant-client, hindsight) is read from .venv.
# pip installs only into .venv-peers: it never uninstalls what lives in .venv ("outside environment").
set -euo pipefail
cd "$(dirname "$0")/.."
MAIN=.venv
PEERS=.venv-peers
MEM0=${MEM0:-mem0ai==2.2.1}
[ -x "$MAIN/bin/python" ] || { echo "run 'make test' or 'make bench' first: $MAIN is missing" >&2; exit 1; }
site() { "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
if [ ! -x "$PEERS/bin/python" ]; then
    "$MAIN/bin/python" -m venv --without-pip "$PEERS" 2>/dev/null || "$MAIN/bin/python" -m venv "$PEERS"
    "$PEERS/bin/python" -m ensurepip --upgrade >/dev/null 2>&1 || true
fi
echo '*' > "$PEERS/.gitignore"  # keep it out of git, as Python 3.13's venv does by itself
# addsitedir (not a bare path) so that .venv's own .pth files, e.g. the editable hindsight install, apply
echo "import site; site.addsitedir('$(cd "$(site "$MAIN")" && pwd)')" > "$(site "$PEERS")/_hindsight_main_venv.pth"
"$PEERS/bin/python" -m pip install --quiet "$MEM0"
"$PEERS/bin/python" -c 'import mem0, google.protobuf as p; print("mem0", getattr(mem0, "__version__", "?"), "protobuf", p.__version__)'
