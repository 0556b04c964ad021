#!/usr/bin/env bash
# What the tests need from outside Python: Redis (working memory) and Chromium (tests/ui).
#
#   bash scripts/services.sh start   install them where this machine can (Debian, as root or with sudo),
#                                     start Redis if nothing answers on its port, and record what was started
#   bash scripts/services.sh stop    stop what `start` recorded, and nothing else
#
# Without them the tests that need them skip with one line each (see tests/services.py); CI sets
# CI=true or HINDSIGHT_TEST_SERVICES=required, where they fail instead. `make test` runs start, the tests, then stop.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${HINDSIGHT_TEST_REDIS_PORT:-6379}"
STATE=".services"            # what `start` started, one pid file per service (gitignored)
PIDFILE="$STATE/redis-$PORT.pid"

can_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  [ "$(id -u)" = "0" ] && return 0
  command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null
}

install() {  # $1: the command to look for, $2: the Debian package
  command -v "$1" >/dev/null 2>&1 && return 0
  if can_install; then
    local sudo=""; [ "$(id -u)" = "0" ] || sudo="sudo -n"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$2" >/dev/null \
      && return 0
  fi
  echo "services: $1 is not installed and cannot be installed here; the tests that need it will skip"
  return 0
}

start() {
  install redis-server redis-server
  install chromium chromium
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then
    echo "services: Redis already answers on port $PORT (not started here, so not stopped here)"
    return 0
  fi
  command -v redis-server >/dev/null 2>&1 || return 0
  mkdir -p "$STATE"
  redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$PWD/$PIDFILE" >/dev/null
  for _ in $(seq 1 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  echo "services: started Redis on port $PORT (pid $(cat "$PIDFILE" 2>/dev/null || echo '?'))"
}

stop() {
  [ -f "$PIDFILE" ] || return 0
  local pid; pid="$(cat "$PIDFILE")"
  # the recorded pid is ours only while it is still a redis-server (a pid can be reused after a reboot)
  if [ -n "$pid" ] && ps -p "$pid" -o comm= 2>/dev/null | grep -q '^redis-server'; then
    kill "$pid"
    for _ in $(seq 1 50); do ps -p "$pid" >/dev/null 2>&1 || break; sleep 0.1; done
    echo "services: stopped Redis (pid $pid)"
  fi
  rm -f "$PIDFILE"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
