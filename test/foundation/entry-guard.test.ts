// No uncaught path from outside (decision 0270), kept by reading the source: a WebSocket upgrade
// listener goes through the entry guard, only src/main.ts installs process handlers, and a promise
// started where nobody awaits it (`void f()`, a timer's `() => void f()`) is either settled through
// `deps.entries` or listed here with why it cannot reject. The behaviour itself is tested by
// "hostile upgrades" in test/hub/ocpp.test.ts and "last resort" in cli-and-lifecycle.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** file -> the exact texts reviewed, each with why it cannot end the process. */
const REVIEWED: Record<string, Record<string, string>> = {
  'src/modules/telemetry/maintenance.ts': { 'setInterval(() => void tick()': 'tick() catches and logs every step itself' },
  'src/modules/telemetry/service.ts': {
    'void p.settled.then((ok) => {': "a bus's settled never rejects (every try's failure is caught); the callback only logs",
  },
  'src/infra/db/pglite-client.ts': {
    'void w.terminate()': 'Worker.terminate() does not reject',
    'void worker.terminate()': 'Worker.terminate() does not reject',
  },
  'src/infra/db/pglite-worker.ts': { 'void onMessage(': 'in the store worker thread; onMessage answers every failure as an error reply' },
  'src/infra/db/read-replica.ts': { 'setInterval(() => void check()': 'check() turns every failure into an unavailable state' },
  'src/modules/fleet/service.ts': { 'void errs.push(': 'an array push, not a promise' },
  'src/modules/pricing/calc.ts': { 'void errs.push(': 'an array push, not a promise' },
  'src/modules/control/index.ts': { 'void decisions.replayers.set(': 'a Map set, not a promise' },
  'src/main.ts': { 'void shutdown(': 'shutdown catches its own failures and ends in process.exit' },
  'src/platform/group-commit.ts': { 'if (!running) void drain()': "drain() catches every write's failure and hands it to that write's callers" },
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('every non-route entry in src goes through the entry guard or is reviewed', () => {
  const problems: string[] = [];
  for (const file of sources('src')) {
    const reviewed = REVIEWED[file] ?? {};
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, '');
        if (/^\s*\*/.test(line)) return; // doc comments
        const at = `${file}:${i + 1}: ${line.trim()}`;
        const ok = (text: string) => Object.keys(reviewed).some((r) => text.includes(r));
        if (/\.on\(\s*'upgrade'/.test(code) && !/entries\.wrap\(/.test(code)) problems.push(`upgrade listener without entries.wrap: ${at}`);
        if (/\bprocess\.on\(/.test(code) && file !== 'src/main.ts') problems.push(`process handler outside src/main.ts: ${at}`);
        for (const m of code.matchAll(/\bvoid\s+(?!\()[A-Za-z_$][\w$.]*\(/g)) {
          if (/\.catch\(/.test(code.slice(m.index!))) continue; // handled on the spot
          if (!ok(code.slice(Math.max(0, m.index! - 40)))) problems.push(`unsettled promise (use deps.entries.settle): ${at}`);
        }
      });
  }
  assert.deepEqual(problems, []);
});
