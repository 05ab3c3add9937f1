// Light or dark: the system's setting (prefers-color-scheme) unless the operator chose one with the
// switch. The choice is a display preference, not a secret, so it is kept in localStorage; it is
// shown on <html data-theme="light|dark"> (no attribute: follow the system), which the stylesheet's
// colour variables follow.
import { useEffect, useState } from 'preact/hooks';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'console.theme';
const listeners = new Set<() => void>();
const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;

export function themeChoice(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

function apply(choice: ThemeChoice) {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

export function setTheme(choice: ThemeChoice) {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Storage refused (private mode): the choice lasts until the page is left.
  }
  apply(choice);
  for (const f of listeners) f();
}

/** Whether the page is dark now, by the choice or, with none, by the system. */
export function isDark(): boolean {
  const c = themeChoice();
  return c === 'dark' || (c === 'system' && !!media?.matches);
}

apply(themeChoice());
media?.addEventListener('change', () => {
  for (const f of listeners) f();
});

/** The choice and whether the page is dark, re-rendering when either changes. */
export function useTheme(): { choice: ThemeChoice; dark: boolean } {
  const [, bump] = useState(0);
  useEffect(() => {
    const f = () => bump((n) => n + 1);
    listeners.add(f);
    return () => void listeners.delete(f);
  }, []);
  return { choice: themeChoice(), dark: isDark() };
}

/** A colour variable of the stylesheet (charts draw on a canvas and need the value itself). */
export function cssColour(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}
