// Polls a check until it holds; fails after a generous bound. Only for state that real concurrent
// work is still producing with nothing to await (a job running beside a backlog that keeps
// runDue() from returning). Time never passes this way: move the service clock. Something that
// happens at a fake, a subscription or a hook is awaited with test/helpers/signal.ts instead.
// A check that throws counts as not yet.
export async function eventually(check: () => boolean | Promise<boolean>, what: string, boundMs = 10_000): Promise<void> {
  const until = Date.now() + boundMs;
  for (;;) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
