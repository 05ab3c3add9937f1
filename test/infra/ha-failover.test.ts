// The cache and the bus on the highly available layout of ops/ha (issue 43): Redis through its
// Sentinels follows a kill -9 of the primary, and the bus on a three-node NATS cluster with the
// stream at three replicas keeps publishing and delivering when a node dies (the one leading the
// stream: the live publishes refused while a leader is elected are tried again, decision 0488). Runs only when that
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
import { connect } from 'nats';

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

test('NATS cluster, stream at three replicas: the node leading the stream killed, every live publish is accepted (tried again while a leader is elected) and the subscriber gets each message once', {
  skip: !haDir,
  timeout: 120_000,
}, async () => {
  const namespace = `ha${randomBytes(3).toString('hex')}`;
  const servers = [41, 42, 43].map((n) => `127.0.0.1:${B + n}`);
  const bus = await openNatsBus({ url: servers.map((s) => `nats://${s}`).join(','), namespace, replicas: 3, deleteStreamOnClose: true });
  const nc = await connect({ servers });
  const got: number[] = [];
  let killed = 1;
  try {
    const leader = (await (await nc.jetstreamManager()).streams.info(`${namespace}_BUS`)).cluster?.leader ?? '';
    assert.match(leader, /^n[123]$/, 'the stream has a leader (server names of ops/ha/nats.sh)');
    killed = Number(leader.slice(1));
    await bus.subscribe('ha.>', (m) => {
      got.push((m as { n: number }).n);
    });
    const settled: Promise<boolean>[] = [];
    let notAtOnce = 0;
    for (let n = 0; n < 40; n++) {
      if (n === 10) kill9(`nats${killed}`);
      // As the ingestion path publishes a batch to the live stream (LIVE_ANSWER_WAIT_MS, LIVE_RETRY_MS).
      const p = await bus.publishRetrying('ha.x', { n }, { waitMs: 2000, retryForMs: 30_000 });
      if (!p.accepted) notAtOnce++;
      settled.push(p.settled);
      await sleep(100);
    }
    const outcomes = await Promise.all(settled);
    assert.deepEqual(
      outcomes.map((ok, n) => (ok ? -1 : n)).filter((n) => n >= 0),
      [],
      `every message accepted within the bound (${notAtOnce} not within the wait)`,
    );
    const t0 = Date.now();
    while (new Set(got).size < 40 && Date.now() - t0 < 30_000) await sleep(100);
    assert.deepEqual(
      [...new Set(got)].sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, n) => n),
      `the subscriber received every message (${notAtOnce} not accepted within the wait; waited ${Date.now() - t0} ms)`,
    );
    assert.equal(got.length, 40, 'each once');
  } finally {
    await nc.close();
    await bus.close();
    ops('nats.sh', 'start', String(killed));
  }
});
