// `npm ci` on the Node the README says is enough (20) prints no engine warnings (issue 42, friction;
// decision 0450): npm checks `engines` against the Node running npm itself, though every script runs
// on the pinned Node 24, so the project's .npmrc keeps npm to errors. This runs that npm, on that
// Node, over a copy of the project's manifests, lockfile and .npmrc (a dry run, offline: nothing is
// installed or fetched), and checks the same install with warnings shown does print them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
/** A Node older than the pinned one, with its npm (Debian's, on the machines this runs on). */
const OLD_NODE = '/usr/bin/node';
const NPM_CLI = '/usr/lib/node_modules/npm/bin/npm-cli.js';
const oldMajor = existsSync(OLD_NODE) ? Number(spawnSync(OLD_NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout) : 0;
const skip = oldMajor === 0 || oldMajor >= 24 || !existsSync(NPM_CLI) ? 'needs a Node older than 24 with its npm in /usr' : false;

test('npm ci on Node 20 prints no engine warnings; with warnings shown it would', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'eps-npm-quiet-'));
  try {
    for (const f of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(join(ROOT, f), join(dir, f));
    mkdirSync(join(dir, 'packages/sdk'), { recursive: true });
    copyFileSync(join(ROOT, 'packages/sdk/package.json'), join(dir, 'packages/sdk/package.json'));
    const ci = (...extra: string[]) => {
      const r = spawnSync(OLD_NODE, [NPM_CLI, 'ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', ...extra], {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: '/usr/bin:/bin', HOME: dir, npm_config_cache: join(process.env.HOME ?? dir, '.npm') },
        timeout: 120_000,
      });
      return { status: r.status, out: `${r.stdout}${r.stderr}` };
    };
    const quiet = ci();
    assert.equal(quiet.status, 0, quiet.out);
    assert.doesNotMatch(quiet.out, /EBADENGINE|Unsupported engine/);
    // The same install with npm's warnings: the project's own engines (>=24) alone warn on Node 20.
    const loud = ci('--loglevel=warn');
    assert.match(loud.out, /EBADENGINE/, 'with warnings shown npm does warn on this Node, so the quiet run is the .npmrc');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
