// HAProxy in front of service instances (Debian's package, installed when missing): round robin,
// health checks on each instance's readiness probe, L7 retries of a request that reached a dead
// instance, and its own 503 with Retry-After when no instance is ready. Used by bench/cluster.ts and
// bench/faults/cluster-loss.ts.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onCleanup, portOpen, sleep } from '../faults/lib/servers.ts';

const log = (s: string) => console.log(s);

function haproxy(): string {
  const have = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' });
  if (have.status === 0) return have.stdout.trim();
  log('HAProxy missing: apt-get install -y haproxy');
  const r = spawnSync('apt-get', ['install', '-y', 'haproxy'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) throw new Error('could not install haproxy');
  return spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
}

export async function startHaproxy(dir: string, port: number, backends: { port: number }[]): Promise<ChildProcess> {
  const bin = haproxy();
  // HAProxy's own 503 (no instance ready) carries Retry-After, as the service's 503s do.
  const errorFile = join(dir, '503.http');
  writeFileSync(
    errorFile,
    'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{"detail":"Service unavailable: no instance ready"}\n',
  );
  const cfg = `global
  maxconn 4096
  tune.bufsize 1048576
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 10s
  option forwardfor
  option http-server-close
  # A request that reached a dead instance (refused, reset, no answer) is sent again to another one:
  # L7 retries (the request is buffered whole: tune.bufsize holds an ingestion batch).
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
  option http-buffer-request
  errorfile 503 ${errorFile}
frontend api
  bind 127.0.0.1:${port}
  default_backend instances
backend instances
  balance roundrobin
  option httpchk GET /api/telemetry/readyz
  http-check expect status 200
  # The probe pings each dependency with a 1 s budget; on a loaded machine it can miss once.
  timeout check 3s
  default-server inter 2s fall 3 rise 2
${backends.map((b, i) => `  server i${i + 1} 127.0.0.1:${b.port} check`).join('\n')}
`;
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, cfg);
  const check = spawnSync(bin, ['-c', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy config: ${check.stdout}${check.stderr}`);
  const p = spawn(bin, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  onCleanup('haproxy', () => {
    p.kill('SIGTERM');
  });
  for (let i = 0; i < 100 && !(await portOpen(port)); i++) await sleep(100);
  return p;
}
