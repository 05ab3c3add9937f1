// The address is the console's state: `#/<screen>?<selection>` (for example
// `#/sites?site=S1&asset=bat-1&range=live`, `#/energy?site=home&day=2026-11-23`). Every screen and
// selection can be linked to, and Back undoes a selection: choosing one sets the address (a new
// history entry), and the screens read their selection from it.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  screen: string;
  params: URLSearchParams;
}

function parse(): Route {
  const h = location.hash.replace(/^#\/?/, '');
  const i = h.indexOf('?');
  return { screen: i < 0 ? h : h.slice(0, i), params: new URLSearchParams(i < 0 ? '' : h.slice(i + 1)) };
}

/** The current address, following every change (links, Back and Forward, `select`). */
export function useRoute(): Route {
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const on = () => setRoute(parse());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** Changes the current screen's selection (null removes a key): a new history entry. */
export function select(patch: Record<string, string | null>): void {
  const { screen, params } = parse();
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) params.delete(k);
    else params.set(k, v);
  }
  const q = params.toString();
  location.hash = `#/${screen}${q ? `?${q}` : ''}`;
}
