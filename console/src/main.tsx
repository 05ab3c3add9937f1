import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './style.css';
import { currentSession, declaredOperations, onSession, signOut, type Session } from './api.ts';
import { liveState, onLiveState } from './live.ts';
import { SignIn } from './screens/SignIn.tsx';
import { Sites } from './screens/Sites.tsx';
import { Energy } from './screens/Energy.tsx';
import { Alerts } from './screens/Alerts.tsx';
import { Developer } from './screens/Developer.tsx';
import { Settlement } from './screens/Settlement.tsx';
import { zoneName } from './format.ts';

interface Screen {
  path: string;
  title: string;
  /** The operation the screen rests on; without it the screen is not offered. */
  needs: string;
  view: () => preact.JSX.Element;
}

const SCREENS: Screen[] = [
  { path: 'sites', title: 'Sites and assets', needs: 'GET /api/twin/registry/sites', view: () => <Sites /> },
  { path: 'energy', title: 'Energy', needs: 'GET /api/telemetry/sites/{site_id}/ledger', view: () => <Energy /> },
  { path: 'alerts', title: 'Alerts', needs: 'GET /api/hardware/ems/alerts', view: () => <Alerts /> },
  { path: 'developer', title: 'Developer settings', needs: 'GET /api/devtools/apikeys', view: () => <Developer /> },
  { path: 'settlement', title: 'Settlement receipts', needs: 'GET /api/vpp/vpp/settle/receipts', view: () => <Settlement /> },
];

function useHash() {
  const [hash, setHash] = useState(location.hash.replace(/^#\/?/, ''));
  useEffect(() => {
    const on = () => setHash(location.hash.replace(/^#\/?/, ''));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function App() {
  const [session, setSession] = useState<Session | null>(currentSession());
  const [ops, setOps] = useState<Set<string> | null>(null);
  const [live, setLive] = useState(liveState());
  const hash = useHash();
  useEffect(() => onSession(setSession), []);
  useEffect(() => onLiveState(setLive), []);
  useEffect(() => {
    void declaredOperations().then(setOps);
  }, []);
  const screens = SCREENS.filter((s) => !ops || ops.has(s.needs));
  const current = screens.find((s) => s.path === hash) ?? screens[0];
  useEffect(() => {
    document.title = session && current ? `${current.title} · Energy Platform console` : 'Sign in · Energy Platform console';
    document.getElementById('main')?.focus();
  }, [session, current?.path]);

  if (!session) {
    return (
      <>
        <header class="top">
          <span class="brand">Energy Platform</span>
        </header>
        <main id="main" tabIndex={-1}>
          <SignIn />
        </main>
      </>
    );
  }
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Energy Platform</span>
        <nav aria-label="Main">
          <ul>
            {screens.map((s) => (
              <li key={s.path}>
                <a href={`#/${s.path}`} aria-current={current === s ? 'page' : undefined}>
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="small">
            {session.email} · {session.organisationId} · {session.roles.join(', ')}
          </span>
          <span class={`live live-${live}`} role="status" aria-label={`Live updates: ${live}`}>
            {live === 'live' ? '● Live' : live === 'off' ? '○ Offline' : '◌ Connecting'}
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {ops === null ? <p role="status">Loading…</p> : current ? current.view() : <p>No screens are available for this service.</p>}
      </main>
      <footer class="small">Times are shown in your local time ({zoneName()}); UK settlement days follow Europe/London.</footer>
    </>
  );
}

render(<App />, document.getElementById('app')!);
