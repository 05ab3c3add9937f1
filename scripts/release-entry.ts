// The release's single entry (scripts/release.ts bundles it into the executable):
//   energy-platform serve [--help]     the service (src/main.ts)
//   energy-platform COMMAND ...        the provisioning CLI (src/cli/index.ts), e.g. org create
//   energy-platform --help | --version
// Both read the same environment variables as `npm start` and `npm run cli`.
declare const EPS_RELEASE_VERSION: string;

// The release's defaults for a small machine (decision 0388); an operator's own value wins.
process.env.PGLITE_SHARED_BUFFERS_MB ??= '16';
// Schemas compiled on each operation's first request, not all at start (decision 0487).
process.env.WARM_SCHEMAS ??= 'false';

function run(): Promise<unknown> {
  const [first, ...rest] = process.argv.slice(2);
  if (first === 'serve') {
    process.argv = [...process.argv.slice(0, 2), ...rest];
    return import('../src/main.ts');
  }
  if (first === undefined || first === '--help' || first === '-h') {
    console.log(
      [
        'Usage: energy-platform serve           runs the service (energy-platform serve --help lists its settings)',
        '       energy-platform COMMAND ...     provisioning: org create, org list, user create, migrate, ...',
        '                                       (energy-platform help lists the commands)',
        '       energy-platform --version',
      ].join('\n'),
    );
    return Promise.resolve();
  }
  if (first === '--version') {
    console.log(EPS_RELEASE_VERSION);
    return Promise.resolve();
  }
  return import('../src/cli/index.ts');
}

run().catch((e: unknown) => {
  console.error('Failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
