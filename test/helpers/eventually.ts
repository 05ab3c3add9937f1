// Waits (without asserting on time) until a check holds; fails after a generous bound. A check that
// throws counts as not yet (a server still coming back).
export async function eventually(check: () => boolean | Promise<boolean>, what: string, boundMs = 10_000): Promise<void> {
  const until = Date.now() + boundMs;
  for (;;) {
    if (await Promise.resolve().then(check).catch(() => false)) return;
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
