// The cache and the bus on the highly available layout of ops/ha (issue 43): Redis through its
// Sentinels follows a kill -9 of the primary, and the bus on a three-node NATS cluster with the
// stream at three replicas keeps publishing and delivering when a node dies. Runs only when that
// layout is up on this machine: `bash ops/ha/up.sh`, then TEST_HA_DIR=/tmp/eps-ha (its HA_DIR; the
// ports are those of ops/ha/env.sh with HA_PORT_BASE unset). Each killed server is started again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openRedisCache } from '../../src/infra/cache/redis.ts';
import { openNatsBus } from '../../src/infra/bus/nats.ts';

const haDir = process.env.TEST_HA_DIR;
const B = 25400;
const ops = (script: string, ...args: string[]) => {
  const r = spawnSync('bash', [join(import.meta.dirname, '../../ops/ha', script), ...args], { env: { ...process.env, HA_DIR: haDir }, encoding: 'utf8' });
  assert.equal(r.status, 0, `${script} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};
const kill9 = (name: string) => process.kill(Number(readFileSync(join(haDir!, 'run', `${name}.pid`), 'utf8')), 'SIGKILL');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('Redis through Sentinel: the primary killed, the cache writes again on the promoted replica', { skip: !haDir, timeout: 120_000 }, async () => {
  const cache = await openRedisCache({
    sentinels: [81, 82, 83].map((n) => ({ host: '127.0.0.1', port: B + n })),
    sentinelName: 'eps-cache',
    commandTimeoutMs: 1000,
  });
  const key = `ha-${randomBytes(4).toString('hex')}`;
  try {
    assert.equal((await cache.hit(key, 60_000)).count, 1);
    const before = Number(ops('redis.sh', 'primary'));
    const name = before === B + 71 ? 'redis1' : 'redis2';
    kill9(name);
    const t0 = Date.now();
    let back = 0;
    while (Date.now() - t0 < 30_000) {
      const ok = await cache.hit(key, 60_000).then(
        () => true,
        () => false,
      );
      if (ok && Number(ops('redis.sh', 'primary')) !== before) {
        back = Date.now() - t0;
        break;
      }
      await sleep(100);
    }
    assert.ok(back > 0, 'the cache writes again on the new primary within 30 s');
    assert.equal(await cache.ping(1000), true);
    ops('redis.sh', 'start', name);
  } finally {
    await cache.close();
  }
});

test('NATS cluster, stream at three replicas: a node killed, publishing goes on and the subscriber gets every message', {
  skip: !haDir,
  timeout: 120_000,
}, async () => {
  const bus = await openNatsBus({
    url: [41, 42, 43].map((n) => `nats://127.0.0.1:${B + n}`).join(','),
    namespace: `ha${randomBytes(3).toString('hex')}`,
    replicas: 3,
    deleteStreamOnClose: true,
  });
  const got = new Set<number>();
  try {
    await bus.subscribe('ha.>', (m) => {
      got.add((m as { n: number }).n);
    });
    const sent: number[] = [];
    let failed = 0;
    for (let n = 0; n < 40; n++) {
      if (n === 10) kill9('nats1');
      // A publish refused while the client moves to another node is tried again, as a caller would.
      for (let attempt = 0; attempt < 150; attempt++) {
        const ok = await bus.publish('ha.x', { n }).then(
          () => true,
          () => false,
        );
        if (ok) {
          sent.push(n);
          break;
        }
        failed++;
        await sleep(100);
      }
      await sleep(50);
    }
    assert.equal(sent.length, 40, `every message published (${failed} refused attempts on the way)`);
    const t0 = Date.now();
    while (got.size < 40 && Date.now() - t0 < 30_000) await sleep(100);
    const waited = Date.now() - t0;
    assert.equal(
      got.size,
      40,
      `the subscriber received every published message (missing: ${sent.filter((n) => !got.has(n)).join(' ')}; ${failed} refused attempts; waited ${waited} ms)`,
    );
  } finally {
    await bus.close();
    ops('nats.sh', 'start', '1');
  }
});
