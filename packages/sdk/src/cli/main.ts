#!/usr/bin/env node
// energy-platform: the command-line tool for integrators (sign in, ingest files, tail live events,
// asset history, API keys, webhooks, data export). `--json` prints machine-readable output on
// stdout; progress and messages go to stderr. Exit codes: see EXIT below and the README.
import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync, rmSync, statSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { Writable } from 'node:stream';
import { Command, CommanderError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { Platform } from '../client.ts';
import { ApiError, ConnectionError } from '../errors.ts';
import type { Credentials } from '../transport.ts';
import { clearSession, configDir, readSession, saveSession, writePrivate } from './config.ts';
import { formatOf, parseMapping, readRecords } from './records.ts';

export const EXIT = {
  ok: 0,
  failure: 1, // unexpected
  usage: 2, // bad arguments, unreadable or changed input file
  auth: 3, // not signed in, 401, 403
  refused: 4, // the service refused the request (other 4xx)
  unavailable: 5, // the service could not be reached, or answered 5xx
  rejected: 6, // ingest finished, some records were rejected (see the summary)
  interrupted: 130, // stopped by a signal; ingest resumes from its checkpoint
} as const;

class CliError extends Error {
  readonly code: number;
  constructor(message: string, code: number) {
    super(message);
    this.code = code;
  }
}

interface Globals {
  url?: string;
  apiKey?: string;
  json?: boolean;
  progress?: boolean;
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

// A reader that stops early (`energy-platform history ... | head`) closes the pipe: that ends the
// output, it is not an error to report with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? Number(process.exitCode) || 0 : 1));
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

const program = new Command('energy-platform')
  .description('Command-line tool for the energy platform API')
  .version(VERSION)
  .option('--url <url>', 'service address (default: the signed-in one, or ENERGY_PLATFORM_URL)')
  .option('--api-key <key>', 'use an API key (or ENERGY_PLATFORM_API_KEY) instead of the signed-in session')
  .option('--json', 'machine-readable output on stdout')
  .option('--no-progress', 'no progress bar')
  .showHelpAfterError()
  .exitOverride();

const globals = () => program.opts<Globals>();
const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : text + '\n');
const note = (text: string) => process.stderr.write(text.endsWith('\n') ? text : text + '\n');
const emit = (value: unknown, human: () => string) => out(globals().json ? JSON.stringify(value) : human());

/** A client from --api-key, the environment, or the kept session (refresh rotations are saved back). */
function client(): Platform {
  const g = globals();
  const stored = readSession();
  const baseUrl = g.url ?? process.env.ENERGY_PLATFORM_URL ?? stored?.baseUrl;
  if (!baseUrl) throw new CliError('no service address: sign in with `energy-platform login --url <url>` or pass --url', EXIT.auth);
  const apiKey = g.apiKey ?? process.env.ENERGY_PLATFORM_API_KEY;
  let credentials: Credentials;
  if (apiKey) credentials = { apiKey };
  else if (stored && stored.baseUrl === baseUrl) credentials = { session: stored.session };
  else throw new CliError('not signed in: run `energy-platform login` (or pass --api-key)', EXIT.auth);
  return new Platform({
    baseUrl,
    credentials,
    userAgent: 'energy-platform-cli',
    onSession: (s) => {
      if (!apiKey && s) saveSession({ ...stored!, session: s });
    },
  });
}

function exitCodeOf(e: unknown): number {
  if (e instanceof CliError) return e.code;
  if (e instanceof ApiError) return e.status === 401 || e.status === 403 ? EXIT.auth : e.status >= 500 ? EXIT.unavailable : EXIT.refused;
  if (e instanceof ConnectionError) return EXIT.unavailable;
  return EXIT.failure;
}

function describe(e: unknown): Record<string, unknown> {
  if (e instanceof ApiError) return { error: e.message, status: e.status, detail: e.detail, code: e.code, request_id: e.requestId };
  return { error: e instanceof Error ? e.message : String(e) };
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** A progress bar on standard error; `payload` fills the format's own tokens from the first frame on. */
function bar(format: string, total: number, payload: Record<string, string | number>) {
  if (globals().progress === false) return undefined;
  const b = new cliProgress.SingleBar(
    { format, stream: process.stderr, noTTYOutput: true, notTTYSchedule: 1000, hideCursor: false, etaBuffer: 50, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  b.start(total, 0, payload);
  return b;
}

/** Writes a byte stream to a file, or to standard output for "-", minding back-pressure; answers the bytes written. */
async function writeOut(body: ReadableStream<Uint8Array>, output: string): Promise<number> {
  let bytes = 0;
  const target: NodeJS.WritableStream = output === '-' ? process.stdout : createWriteStream(output);
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (!target.write(chunk)) await new Promise<void>((r) => target.once('drain', () => r()));
  }
  if (target !== process.stdout) await new Promise<void>((r) => target.end(() => r()));
  return bytes;
}

async function readPassword(fromStdin: boolean): Promise<string> {
  if (process.env.ENERGY_PLATFORM_PASSWORD) return process.env.ENERGY_PLATFORM_PASSWORD;
  if (fromStdin || !process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    return text.replace(/\r?\n$/, '');
  }
  // Interactive: read a line without echoing it.
  const { createInterface } = await import('node:readline');
  const muted = new Writable({ write: (_c, _e, cb) => cb() });
  process.stderr.write('Password: ');
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  const answer = await new Promise<string>((r) => rl.question('', r));
  rl.close();
  process.stderr.write('\n');
  return answer;
}

// ---------------------------------------------------------------------------------------------
program
  .command('login')
  .description('sign in with email and password; the session is kept in the config directory (mode 0600)')
  .requiredOption('--email <email>', 'your email')
  .option('--organisation <id>', 'organisation, when you belong to several')
  .option('--password-stdin', 'read the password from standard input (or ENERGY_PLATFORM_PASSWORD)')
  .action(async (opts: { email: string; organisation?: string; passwordStdin?: boolean }) => {
    const baseUrl = globals().url ?? process.env.ENERGY_PLATFORM_URL;
    if (!baseUrl) throw new CliError('--url is required to sign in', EXIT.usage);
    const password = await readPassword(!!opts.passwordStdin);
    const platform = new Platform({ baseUrl, credentials: { email: opts.email, password, organisationId: opts.organisation } });
    const session = await platform.signIn();
    saveSession({ baseUrl, email: opts.email, session });
    emit(
      { signed_in: true, organisation_id: session.organisationId, config: join(configDir(), 'session.json') },
      () => `Signed in to ${baseUrl} as ${opts.email} (organisation ${session.organisationId}).`,
    );
  });

program
  .command('logout')
  .description('revoke the session and forget it')
  .action(async () => {
    const stored = readSession();
    if (stored)
      await client()
        .signOut()
        .catch(() => {});
    clearSession();
    emit({ signed_out: true }, () => 'Signed out.');
  });

// ---------------------------------------------------------------------------------------------
interface Checkpoint {
  version: 1;
  file: string;
  size: number;
  mtimeMs: number;
  format: string;
  map: string;
  batchSize: number;
  rowsDone: number;
  stored: number;
  rejected: number;
  duplicates: number;
  rejectionsByReason: Record<string, number>;
  updatedAt: string;
}

program
  .command('ingest')
  .description('send a CSV or JSON Lines file of telemetry records in batches; resumable after an interruption')
  .argument('<file>', 'a .csv (header row) or .jsonl file')
  .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(['csv', 'jsonl']))
  .option('--map <mapping>', 'column mapping, record field = file column: asset_id=device,ts=time')
  .option('--batch-size <n>', 'records per request', (v) => Number(v), 1000)
  .option('--checkpoint <path>', 'checkpoint file (default: one per input file in the config directory)')
  .option('--restart', 'ignore an existing checkpoint and start from the first record')
  .action(async (file: string, opts: { format?: string; map?: string; batchSize: number; checkpoint?: string; restart?: boolean }) => {
    const path = resolve(file);
    let st;
    try {
      st = statSync(path);
    } catch {
      throw new CliError(`cannot read ${file}`, EXIT.usage);
    }
    if (!Number.isInteger(opts.batchSize) || opts.batchSize < 1 || opts.batchSize > 10_000) throw new CliError('--batch-size must be 1 to 10000', EXIT.usage);
    const format = formatOf(path, opts.format);
    const map = parseMapping(opts.map);
    const cpPath = opts.checkpoint ?? join(configDir(), 'checkpoints', `${createHash('sha256').update(path).digest('hex').slice(0, 16)}.json`);
    let cp: Checkpoint | undefined;
    if (!opts.restart) {
      try {
        cp = JSON.parse(readFileSync(cpPath, 'utf8')) as Checkpoint;
      } catch {
        cp = undefined;
      }
      if (cp && (cp.file !== path || cp.size !== st.size || cp.mtimeMs !== st.mtimeMs || cp.format !== format || cp.map !== (opts.map ?? ''))) {
        throw new CliError(`the checkpoint ${cpPath} is for another file, version or mapping: pass --restart to start again`, EXIT.usage);
      }
    }
    const state: Checkpoint = cp ?? {
      version: 1,
      file: path,
      size: st.size,
      mtimeMs: st.mtimeMs,
      format,
      map: opts.map ?? '',
      batchSize: opts.batchSize,
      rowsDone: 0,
      stored: 0,
      rejected: 0,
      duplicates: 0,
      rejectionsByReason: {},
      updatedAt: new Date().toISOString(),
    };
    const resumedAt = state.rowsDone;
    if (resumedAt > 0) note(`Resuming ${file} after record ${resumedAt} (checkpoint ${cpPath}).`);
    const platform = client();

    // Stop between batches on the first signal (the batch in flight is finished and recorded);
    // a second signal stops at once.
    const stop = new AbortController();
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        note(`\n${sig} again: stopping now; the last batch sent may be stored without being recorded in the checkpoint.`);
        process.exit(EXIT.interrupted);
      }
      stop.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    let bytes = 0;
    const progress = bar('ingest [{bar}] {percentage}% | {records} records | {rate} rec/s | {rejected} rejected', st.size, {
      records: state.rowsDone,
      rate: 0,
      rejected: state.rejected,
    });
    const started = Date.now();
    let sent = 0;
    async function* fromCheckpoint() {
      let n = 0;
      for await (const r of readRecords(path, format, map, (b) => {
        bytes = b;
      }))
        if (n++ >= resumedAt) yield r;
    }
    const update = () =>
      progress?.update(Math.min(bytes, st.size), {
        records: state.rowsDone,
        rate: Math.round(sent / Math.max(0.001, (Date.now() - started) / 1000)),
        rejected: state.rejected,
      });
    update();
    try {
      for await (const b of platform.telemetry.ingestBatches(fromCheckpoint(), { batchSize: opts.batchSize, signal: stop.signal })) {
        state.rowsDone += b.size;
        state.stored += b.stored;
        state.rejected += b.rejected;
        state.duplicates += b.duplicates;
        for (const r of b.results) {
          if (r.status !== 'rejected') continue;
          state.rejectionsByReason[r.reason ?? 'unknown'] = (state.rejectionsByReason[r.reason ?? 'unknown'] ?? 0) + 1;
        }
        state.updatedAt = new Date().toISOString();
        writePrivate(cpPath, JSON.stringify(state) + '\n');
        sent += b.size;
        update();
      }
    } finally {
      progress?.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    const seconds = (Date.now() - started) / 1000;
    const summary = {
      file: path,
      complete: !stop.signal.aborted,
      records: state.rowsDone,
      resumed_after: resumedAt,
      sent_now: sent,
      stored: state.stored,
      rejected: state.rejected,
      duplicates: state.duplicates,
      rejections_by_reason: state.rejectionsByReason,
      records_per_second: Math.round(sent / Math.max(0.001, seconds)),
      checkpoint: stop.signal.aborted ? cpPath : null,
    };
    if (!stop.signal.aborted) rmSync(cpPath, { force: true });
    emit(summary, () => {
      const lines = [
        `${summary.complete ? 'Done' : 'Interrupted'}: ${state.rowsDone} records read, ${state.stored} stored, ${state.rejected} rejected, ${state.duplicates} duplicates (${summary.records_per_second} records/s this run).`,
      ];
      const reasons = Object.entries(state.rejectionsByReason).sort((a, b) => b[1] - a[1]);
      if (reasons.length)
        lines.push(
          'Rejections by reason:',
          table(
            reasons.map(([reason, count]) => ({ reason, count })),
            ['reason', 'count'],
          ),
        );
      if (!summary.complete) lines.push(`Run the same command again to resume after record ${state.rowsDone}.`);
      return lines.join('\n');
    });
    if (stop.signal.aborted) process.exitCode = EXIT.interrupted;
    else if (state.rejected > 0) process.exitCode = EXIT.rejected;
  });

// ---------------------------------------------------------------------------------------------
program
  .command('tail')
  .description('follow live telemetry and alerts (GET /api/live/events, server-sent events) until interrupted, after the newest records already stored')
  .option('--asset <id>', 'one asset only (alerts are not shown then)')
  .option('-n, --lines <n>', 'records already stored in the last 24 hours to show first', (v) => Number(v), 10)
  .option('--count <n>', 'stop after this many records and alerts', (v) => Number(v))
  .action(async (opts: { asset?: string; lines: number; count?: number }) => {
    const platform = client();
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let shown = 0;
    const done = () => opts.count !== undefined && shown >= opts.count;
    // Records shown from the stored window are not shown again when the stream repeats them.
    const shownKeys = new Set<string>();
    const record = (r: {
      asset_id: string;
      ts: string;
      received_at?: string;
      power_kw?: number | null;
      soc_pct?: number | null;
      status?: string | null;
      anomalies?: string[];
    }) => {
      const key = `${r.asset_id}|${r.ts}`;
      if ((opts.asset && r.asset_id !== opts.asset) || shownKeys.has(key) || done()) return;
      shownKeys.add(key);
      if (shownKeys.size > 5000) shownKeys.delete(shownKeys.values().next().value!);
      emit(
        r,
        () =>
          `${r.received_at ?? ''}  ${r.asset_id}  ${r.ts}  power_kw=${r.power_kw ?? ''} soc_pct=${r.soc_pct ?? ''} status=${r.status ?? ''}${r.anomalies?.length ? `  anomalies=${r.anomalies.join(',')}` : ''}`,
      );
      shown++;
    };
    const stream = platform.telemetry.stream({ signal: stop.signal })[Symbol.asyncIterator]();
    try {
      // Subscribed first (the `ready` event), then the stored window: nothing falls between the two.
      const first = await stream.next();
      if (first.done || first.value.event !== 'ready') throw new CliError('the live stream closed before it was ready', EXIT.unavailable);
      if (opts.lines > 0) {
        const stored = await platform.telemetry.liveEvents({ limit: 500, ...(opts.asset && { asset_id: opts.asset }) });
        // Newest first from the service: the last n, oldest first.
        for (const e of stored.slice(0, opts.lines).reverse()) record(e);
      }
      while (!done() && !stop.signal.aborted) {
        const next = await stream.next();
        if (next.done) break;
        const e = next.value;
        if (e.event === 'telemetry') for (const r of e.data.records) record({ ...r, received_at: e.data.received_at });
        else if (e.event === 'alert' && !opts.asset) {
          const a = e.data.alert;
          emit(e.data, () => `${a.raised_at}  alert ${e.data.transition}  ${a.severity}  ${a.title}`);
          shown++;
        } else if (e.event === 'dropped') process.stderr.write(`tail: the stream dropped ${e.data.dropped} events this client read too slowly\n`);
      }
    } finally {
      stop.abort();
      await stream.return?.(undefined);
    }
  });

// ---------------------------------------------------------------------------------------------
program
  .command('history')
  .description("an asset's history as a table or CSV")
  .argument('<asset_type>', 'solar, battery, ev, heat-pump, smart-meter, cost-savings')
  .argument('<asset_id>')
  .option('--range <range>', 'live, hourly, daily, weekly, historical', 'hourly')
  .option('--metric <metric>', "metric (default: the asset type's first)")
  .addOption(new Option('--format <format>', 'output format').choices(['table', 'csv']).default('table'))
  .action(async (assetType: string, assetId: string, opts: { range: string; metric?: string; format: string }) => {
    const h = await client().telemetry.history(assetType as never, assetId, {
      range: opts.range as never,
      ...(opts.metric && { metric: opts.metric as never }),
    });
    if (globals().json) {
      out(JSON.stringify(h));
      return;
    }
    if (opts.format === 'csv') {
      out(['t,v', ...h.series.map((p) => `${csvCell(p.t)},${csvCell(p.v)}`)].join('\n'));
      return;
    }
    out(`${h.asset_type} ${h.asset_id} ${h.metric} (${h.unit}), ${h.range}: ${h.from} to ${h.to}, buckets of ${h.bucket}`);
    out(
      table(
        h.series.map((p) => ({ t: p.t, [`v (${h.unit})`]: p.v })),
        ['t', `v (${h.unit})`],
      ),
    );
    out(
      `count ${h.summary.count}  min ${h.summary.min ?? ''}  max ${h.summary.max ?? ''}  avg ${h.summary.avg ?? ''}  latest ${h.summary.latest ?? ''}  source ${h.source}`,
    );
  });

// ---------------------------------------------------------------------------------------------
const keys = program.command('keys').description('API keys (organisation administrators)');
keys
  .command('list')
  .addOption(new Option('--environment <env>').choices(['live', 'sandbox']))
  .action(async (opts: { environment?: 'live' | 'sandbox' }) => {
    const r = await client().keys.list(opts.environment ? { environment: opts.environment } : {});
    emit(r.api_keys, () =>
      table(r.api_keys as unknown as Record<string, unknown>[], ['id', 'name', 'environment', 'scopes', 'prefix', 'expires_at', 'revoked_at']),
    );
  });
keys
  .command('create')
  .requiredOption('--name <name>')
  .requiredOption('--scopes <scopes>', 'comma-separated, e.g. alerts:read,telemetry:read')
  .option('--expires-at <iso>')
  .addOption(new Option('--environment <env>').choices(['live', 'sandbox']))
  .action(async (opts: { name: string; scopes: string; expiresAt?: string; environment?: 'live' | 'sandbox' }) => {
    const k = await client().keys.create(
      { name: opts.name, scopes: opts.scopes.split(',').map((s) => s.trim()) as never, ...(opts.expiresAt && { expires_at: opts.expiresAt }) },
      opts.environment ? { environment: opts.environment } : {},
    );
    emit(k, () => `Created key ${k.id}. Secret (shown once, keep it safe):\n${k.secret}`);
  });
keys
  .command('rotate')
  .argument('<key_id>')
  .action(async (id: string) => {
    const k = await client().keys.rotate(id);
    emit(k, () => `Rotated. New secret (shown once):\n${(k as { secret: string }).secret}`);
  });
keys
  .command('revoke')
  .argument('<key_id>')
  .action(async (id: string) => {
    const k = await client().keys.revoke(id);
    emit(k, () => `Revoked ${id}.`);
  });

const hooks = program.command('webhooks').description('webhook endpoints (organisation administrators)');
hooks.command('list').action(async () => {
  const list = (await client().webhooks.list()).webhooks;
  emit(list, () => table(list as unknown as Record<string, unknown>[], ['id', 'url', 'environment', 'enabled', 'event_types']));
});
hooks
  .command('create')
  .argument('<url>', 'the https address to deliver to')
  .option('--events <types>', 'comma-separated event types (default: every type)')
  .option('--description <text>')
  .addOption(new Option('--environment <env>').choices(['live', 'sandbox']))
  .action(async (url: string, opts: { events?: string; description?: string; environment?: 'live' | 'sandbox' }) => {
    const e = await client().webhooks.create(
      {
        url,
        ...(opts.events && { event_types: opts.events.split(',').map((s) => s.trim()) as never }),
        ...(opts.description && { description: opts.description }),
      },
      opts.environment ? { environment: opts.environment } : {},
    );
    emit(e, () => `Registered ${e.id}. Signing secret (shown once):\n${e.secret}`);
  });
hooks
  .command('update')
  .argument('<endpoint_id>')
  .option('--endpoint-url <url>', 'a new https address')
  .option('--events <types>')
  .option('--enable')
  .option('--disable')
  .action(async (id: string, opts: { endpointUrl?: string; events?: string; enable?: boolean; disable?: boolean }) => {
    if (opts.enable && opts.disable) throw new CliError('--enable and --disable together', EXIT.usage);
    const e = await client().webhooks.update(id, {
      ...(opts.endpointUrl && { url: opts.endpointUrl }),
      ...(opts.events && { event_types: opts.events.split(',').map((s) => s.trim()) as never }),
      ...(opts.enable && { enabled: true }),
      ...(opts.disable && { enabled: false }),
    });
    emit(e, () => `Updated ${id}.`);
  });
hooks
  .command('delete')
  .argument('<endpoint_id>')
  .action(async (id: string) => {
    await client().webhooks.remove(id);
    emit({ deleted: id }, () => `Deleted ${id}.`);
  });
hooks
  .command('rotate-secret')
  .argument('<endpoint_id>')
  .action(async (id: string) => {
    const e = await client().webhooks.rotateSecret(id);
    emit(e, () => `New signing secret (shown once):\n${(e as { secret: string }).secret}`);
  });
hooks
  .command('test')
  .argument('<endpoint_id>')
  .action(async (id: string) => {
    const r = await client().webhooks.test(id);
    emit(r, () => `Test event queued for ${id}.`);
  });

// ---------------------------------------------------------------------------------------------
program
  .command('export')
  .description("export the organisation's data: start a job, follow it with a progress bar, download JSON Lines (one file) or CSV (a file per collection)")
  .option('--collections <names>', 'comma-separated (default: every collection of the manifest)')
  .option('--from <iso>')
  .option('--to <iso>')
  .addOption(new Option('--format <format>', 'jsonl: one JSON Lines file; csv: one CSV file per collection').choices(['jsonl', 'csv']).default('jsonl'))
  .requiredOption('-o, --output <path>', 'where to write: a file ("-" for stdout); for CSV of several collections a directory, written as <collection>.csv')
  .option('--interval <ms>', 'polling interval', (v) => Number(v), 1000)
  .action(async (opts: { collections?: string; from?: string; to?: string; format: 'jsonl' | 'csv'; output: string; interval: number }) => {
    const platform = client();
    const collections = opts.collections?.split(',').map((s) => s.trim());
    // CSV is one file per collection: several collections need a directory to write into.
    const intoDirectory = opts.format === 'csv' && isDirectory(opts.output);
    if (opts.format === 'csv' && !intoDirectory && collections?.length !== 1) {
      throw new CliError('CSV is one file per collection: name one with --collections, or give -o an existing directory', EXIT.usage);
    }
    const job = await platform.exports.start({
      ...(collections && { collections }),
      ...(opts.from && { from: opts.from }),
      ...(opts.to && { to: opts.to }),
      format: opts.format,
    });
    const progress = bar('export [{bar}] {percentage}% | {value}/{total} rows | {status}', Math.max(1, job.progress.total ?? 0), { status: job.status });
    const done = await platform.exports.wait(job.job_id, {
      intervalMs: opts.interval,
      onProgress: (j) => {
        progress?.setTotal(Math.max(1, j.progress.total ?? 0));
        progress?.update(j.progress.done, { status: j.status });
      },
    });
    progress?.stop();
    if (done.status !== 'completed') throw new CliError(`export ${done.job_id} ended ${done.status}`, EXIT.unavailable);
    let bytes = 0;
    const files: string[] = [];
    if (opts.format === 'csv') {
      for (const name of done.collections) {
        const file = intoDirectory ? join(opts.output, `${name}.csv`) : opts.output;
        bytes += await writeOut(await platform.exports.downloadCollection(done.job_id, name, 'csv'), file);
        files.push(file);
      }
    } else {
      bytes = await writeOut(await platform.exports.download(done.job_id), opts.output);
      files.push(opts.output);
    }
    const summary = { job_id: done.job_id, rows: done.progress.done, bytes, format: opts.format, output: opts.output, files };
    if (opts.output === '-') note(`Exported ${summary.rows} rows (${bytes} bytes).`);
    else emit(summary, () => `Exported ${summary.rows} rows (${bytes} bytes) to ${files.join(', ')}.`);
  });

// ---------------------------------------------------------------------------------------------
try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? 0 : EXIT.usage;
  } else {
    if (globals().json) out(JSON.stringify(describe(e)));
    note(
      `energy-platform: ${e instanceof ApiError ? `${e.message}${e.requestId ? ` (request id ${e.requestId})` : ''}` : e instanceof Error ? e.message : String(e)}`,
    );
    process.exitCode = exitCodeOf(e);
  }
}
