// Runs the fault runs one after another, each in its own process (each starts and removes its own
// private servers), and prints which passed their correctness checks. Not part of `npm test`.
//
//   npm run bench:faults                               # all, in the order below
//   npm run bench:faults -- redis-partner nats-faults  # some
// Every run reads its own FAULT_* variables (see the header of each file).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNS = ['ingest-crash', 'postgres-faults', 'redis-partner', 'redis-latency', 'nats-faults', 'webhook-restart', 'slow-clients', 'cluster-loss'];
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = chosen.filter((c) => !RUNS.includes(c));
if (unknown.length) {
  console.error(`unknown run(s): ${unknown.join(', ')}; known: ${RUNS.join(', ')}`);
  process.exit(2);
}
const results: { name: string; code: number | null; seconds: number }[] = [];
for (const name of chosen.length ? chosen : RUNS) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  console.log(`\n========== ${name} ==========`);
  const t0 = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn(process.execPath, [file], { stdio: 'inherit' });
    p.on('exit', (c) => resolve(c));
  });
  results.push({ name, code, seconds: (performance.now() - t0) / 1000 });
}
console.log('\n========== fault runs ==========');
for (const r of results) {
  console.log(`${r.code === 0 ? 'PASS' : 'FAIL'} ${r.name.padEnd(16)} ${r.seconds.toFixed(0).padStart(5)} s${r.code === 0 ? '' : ` (exit ${r.code})`}`);
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
