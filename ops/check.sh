#!/bin/sh
# Validates the operations files: Prometheus alert rules (syntax and their unit tests) and the
# Grafana dashboards (shape, and every panel query's PromQL). Needs promtool (Debian:
# apt-get install prometheus) and Node 24. Exit status 0 when everything is valid.
set -eu
cd "$(dirname "$0")"
command -v promtool >/dev/null || { echo "ops/check.sh: promtool not found (apt-get install -y prometheus)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
promtool check rules prometheus/alerts.yml
(cd prometheus && promtool test rules alerts.test.yml)
node check-dashboard.ts "$tmp/dashboard-queries.yml" grafana/*.json
promtool check rules "$tmp/dashboard-queries.yml"
