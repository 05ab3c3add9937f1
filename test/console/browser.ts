// The browser harness of the console's journey tests: Debian's Chromium through playwright-core,
// a fresh profile per console (so two consoles are two sessions), axe-core with no serious or
// critical violation, steps that leave a screenshot when they fail and skip the steps after, and
// CONSOLE_SCREENSHOTS=<dir> screenshots at 1400 px and 390 px.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const noBrowser = !existsSync(CHROMIUM) && `needs ${CHROMIUM} (apt-get install chromium chromium-driver; .ci/run installs it)`;
const shots = process.env.CONSOLE_SCREENSHOTS;
const axeSource = () => readFileSync(join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');

export interface Console {
  page: Page;
  context: BrowserContext;
  /** Script errors and console errors seen in the page. */
  failures: string[];
  close(): Promise<void>;
}

/** Chromium's flags for a headless run on a closed network (no background connections, no sandbox as root). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** A console in its own profile (its own session), 1400 px wide. */
export async function openConsole(): Promise<Console> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'console-journey-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  const failures: string[] = [];
  page.on('pageerror', (err) => failures.push(`page error: ${err.message}`));
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && failures.push(`console error: ${m.text()}`));
  return {
    page,
    context,
    failures,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function signIn(page: Page, base: string, email: string, password: string, at = '') {
  await page.goto(`${base}/${at}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

export async function axe(page: Page, screen: string) {
  await page.evaluate(axeSource());
  const result = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(d: unknown, o: unknown): Promise<unknown> } }).axe.run((globalThis as unknown as { document: unknown }).document, {
      resultTypes: ['violations'],
    }),
  )) as {
    violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
  };
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    `axe on ${screen}`,
  );
}

/** With CONSOLE_SCREENSHOTS set: `<name>.png` at the page's width and `<name>-phone.png` at 390 px. */
export async function shot(page: Page, name: string) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  // Charts follow their box through a ResizeObserver, which runs at the next frames: measure after them.
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const wide = await page.evaluate(() => {
    const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
    return g.document.documentElement.scrollWidth - g.innerWidth;
  });
  await page.screenshot({ path: join(shots, `${name}-phone.png`), fullPage: true });
  // The elements reaching past the phone's width, to say which in the failure.
  const culprits = wide > 1 ? await page.evaluate(WIDEST) : '';
  if (size) await page.setViewportSize(size);
  assert.ok(wide <= 1, `${name} is ${wide}px wider than a phone: ${culprits}`);
}

const WIDEST = `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1).slice(-3).map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '') + ' (' + Math.round(e.getBoundingClientRect().right) + 'px)').join(', ')`;

/** Steps of one walk: a failed step leaves a screenshot and skips the steps after it. */
export function stepper(t: TestContext, page: Page) {
  let broken = false;
  return async (name: string, fn: () => Promise<void>, opts: { skip?: string | false } = {}) => {
    await t.test(name, { skip: (broken && 'an earlier step failed') || opts.skip }, async () => {
      try {
        await fn();
      } catch (err) {
        broken = true;
        const dir = join(tmpdir(), 'console-failures');
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
        await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
        console.log(`screenshot of the failure: ${file}`);
        throw err;
      }
    });
  };
}

/**
 * Waits until `fn(arg)` holds in the page, checking every 100 ms. The one way the console tests
 * wait on the page's state: a string predicate is refused by the page's content security policy
 * (no 'unsafe-eval'), and the default requestAnimationFrame polling stalls in a page that does
 * not paint (a background tab, a headless run under load).
 */
export async function until<A = undefined>(page: Page, fn: (arg: A) => unknown, arg?: A, opts: { timeout?: number } = {}): Promise<void> {
  await page.waitForFunction(fn as (arg: unknown) => unknown, arg as unknown, { polling: 100, ...opts });
}

/** The page's globals as the waits read them, `(globalThis as unknown as PageGlobals)` (the tests' tsconfig has no DOM types; a predicate runs in the page, so it closes over nothing). */
export type PageGlobals = {
  location: { hash: string };
  document: {
    getElementById(id: string): { value: string } | null;
    querySelectorAll(selector: string): ArrayLike<{ textContent: string | null; disabled?: boolean }>;
    body: { innerText: string };
    documentElement: { dataset: Record<string, string | undefined> };
  };
};

/** The text an operator sees in the element (whitespace folded). */
export async function seen(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();
}
