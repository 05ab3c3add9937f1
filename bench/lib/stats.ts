// Small helpers for benchmark figures.
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summary(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), max: s[s.length - 1] };
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-GB', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024, 0)} MiB`;

/** Pins this process to a CPU core when taskset exists (the reliability plan's ground rule). */
export async function pinSelf(core: number): Promise<boolean> {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('taskset', ['-cp', String(core), String(process.pid)], { stdio: 'ignore' });
  return r.status === 0;
}

/** Load averages and core count, printed with every figure (the box is shared). */
export async function machine(): Promise<string> {
  const os = await import('node:os');
  const [l1, l5, l15] = os.loadavg();
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), load average ${l1.toFixed(2)} / ${l5.toFixed(2)} / ${l15.toFixed(2)}, node ${process.version}`;
}
