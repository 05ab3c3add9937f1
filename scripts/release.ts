// `npm run release`: one self-contained release for Linux x64 (issue 42, decision 0387).
//
//   dist/release/energy-platform-VERSION-linux-x64/
//     energy-platform        Node's single executable (the pinned Node 24 with the bundled service
//                            and CLI injected as its SEA blob; no Node or npm needed to run it)
//     lib/                   files read at run time, at the paths they have in the repository:
//                            console/dist, src/**/migrations/*.sql, PGlite's .wasm/.data, HiGHS's
//                            .wasm, Swagger UI's static files, and the embedded store's worker
//   dist/release/energy-platform-VERSION-linux-x64.tar.gz   that folder in one archive
//   dist/release/SHA256SUMS                                 checksums of the archive and the executable
//
// The code is bundled by rolldown (the bundler Vite runs on, already installed). Every module's
// `import.meta.url`, `__dirname` and `__filename` are rewritten to the module's own path under
// lib/ (beside the executable), so code that finds its files relative to itself (migrations, the
// console, WebAssembly) finds them there unchanged. The source tree is not changed by any of this.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'rolldown';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NAME = `energy-platform-${VERSION}-linux-x64`;
const OUT = join(ROOT, 'dist/release');
const STAGE = join(OUT, NAME);
const LIB = join(STAGE, 'lib');
const WORK = join(OUT, '.work');
/** Node's fuse that marks a binary as carrying a SEA blob (the value Node's documentation gives). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const POSTJECT = 'postject@1.0.0-alpha.6';

/**
 * V8 flags the executable always runs with (the SEA config's execArgv): `npm start`'s two
 * (decisions 0256, 0268) and the idle-memory ones measured in docs/running.md (decision 0388).
 */
export const RELEASE_EXEC_ARGV = [
  '--max-semi-space-size=8',
  '--no-allocation-site-pretenuring',
  '--wasm-lazy-compilation',
  '--optimize-for-size',
  '--v8-pool-size=1',
];

/** A module's path as it is laid out under lib/: node_modules/... for packages, else relative to the repository. */
function libPath(id: string): string {
  const i = id.indexOf('/node_modules/');
  return i >= 0 ? id.slice(i + 1) : relative(ROOT, id);
}

/** Runtime helpers: lib/ is beside the executable (process.execPath in every thread). */
const BANNER = `
const __eps_path = process.getBuiltinModule('node:path');
const __eps_lib = __eps_path.join(__eps_path.dirname(process.execPath), 'lib');
const __eps_file = (p) => __eps_path.join(__eps_lib, p);
const __eps_url = (p) => process.getBuiltinModule('node:url').pathToFileURL(__eps_file(p)).href;
`;

function relocate(): Plugin {
  return {
    name: 'eps-relocate',
    resolveId(source) {
      // The release carries the built console; the fallback build at start (Vite) stays out.
      if (source.endsWith('/console/build.ts')) return '\0eps-console-build';
      return null;
    },
    load(id) {
      if (id === '\0eps-console-build')
        return 'export async function buildConsole() { throw new Error("the release carries the built console in lib/console/dist"); }';
      return null;
    },
    async transform(code, id) {
      if (id.startsWith('\0') || !/import\.meta|__dirname|__filename/.test(code)) return null;
      const rel = JSON.stringify(libPath(id));
      let out = code;
      // import.meta.resolve('pkg') is resolved now, to where the package's file lies under lib/.
      for (const m of code.matchAll(/import\.meta\.resolve\(\s*(['"])([^'"]+)\1\s*\)/g)) {
        const r = await this.resolve(m[2], id);
        if (!r) throw new Error(`${id}: cannot resolve ${m[2]}`);
        out = out.replace(m[0], `__eps_url(${JSON.stringify(libPath(r.id))})`);
      }
      out = out
        .replace(/\bimport\.meta\.url\b/g, `__eps_url(${rel})`)
        .replace(/\bimport\.meta\.dirname\b/g, `__eps_path.dirname(__eps_file(${rel}))`)
        .replace(/\bimport\.meta\.filename\b/g, `__eps_file(${rel})`)
        .replace(/(?<![.\w$])__dirname\b/g, `__eps_path.dirname(__eps_file(${rel}))`)
        .replace(/(?<![.\w$])__filename\b/g, `__eps_file(${rel})`);
      // The embedded store's worker is bundled on its own, as an ES module (it awaits at top level).
      if (id.endsWith('/src/infra/db/pglite-client.ts')) out = out.replace("'./pglite-worker.ts'", "'./pglite-worker.mjs'");
      return { code: out };
    },
  };
}

async function bundle(input: string, file: string, format: 'cjs' | 'esm') {
  await build({
    input,
    platform: 'node',
    cwd: ROOT,
    plugins: [relocate()],
    transform: { define: { EPS_RELEASE_VERSION: JSON.stringify(VERSION) } },
    // PGlite's Emscripten glue uses direct eval; nothing to do about it here.
    onLog(level, log, handler) {
      if (log.code !== 'EVAL') handler(level, log);
    },
    output: {
      file,
      format,
      codeSplitting: false,
      banner: BANNER,
      // Whitespace and comments out, names and code unchanged; non-ASCII escaped, so V8 holds the
      // source as one byte a character, not two: 13 MiB less of the service's heap (decision 0487).
      minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
      charset: 'ascii',
      comments: { legal: false },
    },
  });
}

function copy(from: string, to = from) {
  const src = join(ROOT, from);
  if (!existsSync(src)) throw new Error(`release: ${from} is missing`);
  cpSync(src, join(LIB, to), { recursive: true, dereference: true });
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

function sha256(file: string) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

async function main() {
  const t0 = Date.now();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(LIB, { recursive: true });
  mkdirSync(WORK, { recursive: true });

  if (!existsSync(join(ROOT, 'console/dist/index.html'))) {
    const { buildConsole } = await import('../console/build.ts');
    await buildConsole();
  }

  // 1. The code: the entry (service and CLI) and the store's worker.
  await bundle(join(ROOT, 'scripts/release-entry.ts'), join(WORK, 'energy-platform.cjs'), 'cjs');
  await bundle(join(ROOT, 'src/infra/db/pglite-worker.ts'), join(LIB, 'src/infra/db/pglite-worker.mjs'), 'esm');

  // 2. The files the code reads at run time, where it looks for them.
  copy('console/dist');
  for (const f of walk(join(ROOT, 'src'))) if (/\/migrations\/[^/]+\.sql$/.test(f)) copy(relative(ROOT, f));
  for (const f of ['pglite.wasm', 'initdb.wasm', 'pglite.data']) copy(`node_modules/@electric-sql/pglite/dist/${f}`);
  copy('node_modules/highs/build/highs.wasm');
  copy('node_modules/@fastify/swagger-ui/static');
  writeFileSync(join(LIB, 'package.json'), '{"type":"commonjs"}\n');

  // 3. The executable: Node's SEA blob injected into a copy of the pinned Node binary.
  const seaConfig = join(WORK, 'sea-config.json');
  const blob = join(WORK, 'sea-prep.blob');
  writeFileSync(
    seaConfig,
    JSON.stringify({
      main: join(WORK, 'energy-platform.cjs'),
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      execArgv: RELEASE_EXEC_ARGV,
    }),
  );
  // The code cache is only accepted by a Node running with the same V8 flags.
  execFileSync(process.execPath, [...RELEASE_EXEC_ARGV, '--experimental-sea-config', seaConfig], { stdio: 'inherit' });
  const exe = join(STAGE, 'energy-platform');
  cpSync(process.execPath, exe, { dereference: true });
  // The debug symbols are 3/4 of Node's binary; strip them when binutils is there.
  try {
    execFileSync('strip', ['--strip-all', exe]);
  } catch {
    console.warn('release: strip not found, the executable keeps its symbols');
  }
  const local = join(ROOT, 'node_modules/.bin/postject');
  const [cmd, pre] = existsSync(local) ? [local, []] : ['npm', ['exec', '--yes', `--package=${POSTJECT}`, '--', 'postject']];
  execFileSync(cmd, [...pre, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE], { stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(WORK, { recursive: true, force: true });

  // 4. One archive and the checksums beside it.
  const archive = `${NAME}.tar.gz`;
  execFileSync('tar', ['-czf', archive, '--owner=0', '--group=0', NAME], { cwd: OUT });
  const sums = [`${sha256(join(OUT, archive))}  ${archive}`, `${sha256(exe)}  ${NAME}/energy-platform`].join('\n');
  writeFileSync(join(OUT, 'SHA256SUMS'), `${sums}\n`);

  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  console.log(`release ${VERSION} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`  ${relative(ROOT, exe)}  ${mb(statSync(exe).size)}`);
  console.log(`  ${relative(ROOT, join(OUT, archive))}  ${mb(statSync(join(OUT, archive)).size)}`);
  console.log(`  ${relative(ROOT, join(OUT, 'SHA256SUMS'))}`);
}

await main();
