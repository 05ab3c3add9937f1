#!/usr/bin/env bash
# Installs the engines of the highly available layout from Debian's packages (issue 43): Patroni,
# etcd, Redis Sentinel, HAProxy, NATS and PostgreSQL. Idempotent: installs only what is missing.
# The packages' own services are not started (policy-rc.d answers 101 while apt runs): the cluster
# scripts beside this one start their own servers on private ports, and the machine's servers are
# left as they are.
set -euo pipefail
want=(patroni etcd-server etcd-client redis-server redis-sentinel redis-tools haproxy nats-server postgresql python3-psycopg2)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "ha: every package is installed"
  exit 0
fi
echo "ha: installing ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  made_policy=1
fi
cleanup() { [ -z "$made_policy" ] || "${as_root[@]}" rm -f "$policy"; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
