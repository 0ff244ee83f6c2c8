#!/usr/bin/env bash
# The ClickHouse tests start real clickhouse-server processes on 127.0.0.1 (devkit/clickhouse/cluster.ts):
# Debian's clickhouse-server package. Installs it when it is missing and this user can (root, or
# passwordless sudo); otherwise stops with what to run. The tests fail, never skip, without it.
set -euo pipefail
server="${LOOPSCOPE_CLICKHOUSE_SERVER:-/usr/sbin/clickhouse-server}"
if [ -x "$server" ]; then
  exit 0
fi
echo "clickhouse-server is not at $server; the ClickHouse tests need it. Installing Debian's clickhouse-server package…" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clickhouse-server
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null && command -v apt-get >/dev/null; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clickhouse-server
else
  echo "Cannot install it here: run 'sudo apt-get install -y clickhouse-server' (Debian/Ubuntu), or set LOOPSCOPE_CLICKHOUSE_SERVER to a clickhouse-server binary." >&2
  exit 1
fi
[ -x "$server" ] || { echo "clickhouse-server was installed but $server is not there; set LOOPSCOPE_CLICKHOUSE_SERVER" >&2; exit 1; }
