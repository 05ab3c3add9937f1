#!/usr/bin/env bash
# Stops every server of ops/ha/up.sh; with --purge also removes HA_DIR (every member's data).
set -euo pipefail
here=$(dirname "$0")
. "$here/env.sh"
bash "$here/redis.sh" stop
bash "$here/nats.sh" stop
bash "$here/patroni.sh" stop
bash "$here/etcd.sh" stop
if [ "${1:-}" = --purge ]; then rm -rf "$HA_DIR"; fi
