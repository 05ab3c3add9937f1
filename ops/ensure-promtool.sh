#!/bin/sh
# Installs promtool from Debian's packages when the machine lacks it (CI on a fresh machine). The
# package also brings a Prometheus server; a policy-rc.d stops the package from starting it.
set -eu
command -v promtool >/dev/null && exit 0
if [ "$(id -u)" != 0 ]; then echo "promtool missing: apt-get install -y prometheus (as root)" >&2; exit 2; fi
guard=/usr/sbin/policy-rc.d
had_guard=0; [ -e "$guard" ] && had_guard=1
[ $had_guard = 1 ] || { printf '#!/bin/sh\nexit 101\n' > "$guard"; chmod +x "$guard"; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
[ $had_guard = 1 ] || rm -f "$guard"
promtool --version | head -1
