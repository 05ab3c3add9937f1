import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './style.css';
import { currentSession, declaredOperations, onSession, restoreSession, signOut, type Session } from './api.ts';
import { msg } from './messages.ts';
import { liveState, onLiveState } from './live.ts';
import { SignIn } from './screens/SignIn.tsx';
import { Sites } from './screens/Sites.tsx';
import { Energy } from './screens/Energy.tsx';
import { Alerts } from './screens/Alerts.tsx';
import { Developer } from './screens/Developer.tsx';
import { Settlement } from './screens/Settlement.tsx';
import { Hub } from './screens/Hub.tsx';
import { Field } from './screens/Field.tsx';
import { Exports } from './screens/Exports.tsx';
import { Studies } from './screens/Studies.tsx';
import { zoneName } from './format.ts';
import { forgetAll, queryClient } from './query.ts';
import { useRoute } from './route.ts';
import { ThemeSwitch } from './ui.tsx';

// Reads refetch when the tab regains focus or the network returns; signing out forgets every answer.
queryClient.mount();
onSession((s) => s || forgetAll());
// A reload keeps the session: the refresh cookie (decision 0365) is traded once for an access token.
const restoring = restoreSession();

interface Screen {
  path: string;
  title: string;
  /** The operation the screen rests on; without it the screen is not offered. */
  needs: string;
  view: () => preact.JSX.Element;
}

const SCREENS: Screen[] = [
  { path: 'sites', title: msg.app.screens.sites, needs: 'GET /api/twin/registry/sites', view: () => <Sites /> },
  { path: 'energy', title: msg.app.screens.energy, needs: 'GET /api/telemetry/sites/{site_id}/ledger', view: () => <Energy /> },
  { path: 'hub', title: msg.app.screens.hub, needs: 'GET /api/csms/api/hub/sites', view: () => <Hub /> },
  { path: 'alerts', title: msg.app.screens.alerts, needs: 'GET /api/hardware/ems/alerts', view: () => <Alerts /> },
  { path: 'field', title: msg.app.screens.field, needs: 'GET /api/hardware/field/work-orders', view: () => <Field /> },
  { path: 'exports', title: msg.app.screens.exports, needs: 'POST /api/organisations/export', view: () => <Exports /> },
  { path: 'studies', title: msg.app.screens.studies, needs: 'GET /api/notifications/studies', view: () => <Studies /> },
  { path: 'developer', title: msg.app.screens.developer, needs: 'GET /api/devtools/apikeys', view: () => <Developer /> },
  { path: 'settlement', title: msg.app.screens.settlement, needs: 'GET /api/vpp/vpp/settle/receipts', view: () => <Settlement /> },
];

function App() {
  const [session, setSession] = useState<Session | null>(currentSession());
  const [ops, setOps] = useState<Set<string> | null>(null);
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    void restoring.finally(() => {
      setSession(currentSession());
      setRestored(true);
    });
  }, []);
  const [live, setLive] = useState(liveState());
  const { screen: hash } = useRoute();
  useEffect(() => onSession(setSession), []);
  useEffect(() => onLiveState(setLive), []);
  useEffect(() => {
    void declaredOperations().then(setOps);
  }, []);
  const screens = SCREENS.filter((s) => !ops || ops.has(s.needs));
  const current = screens.find((s) => s.path === hash) ?? screens[0];
  useEffect(() => {
    document.title = msg.app.documentTitle(session && current ? current.title : null);
    document.getElementById('main')?.focus();
  }, [session, current?.path]);

  if (!session) {
    return (
      <>
        <header class="top">
          <span class="brand">{msg.app.brand}</span>
          <div class="who">
            <ThemeSwitch />
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          {restored ? (
            <SignIn />
          ) : (
            <p class="loading" role="status" aria-live="polite">
              {msg.session.restoring}
            </p>
          )}
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
        {msg.app.skip}
      </a>
      <header class="top">
        <span class="brand">{msg.app.brand}</span>
        <nav aria-label={msg.app.nav}>
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
          <span class={`live live-${live}`} role="status" aria-label={msg.app.liveLabel(live)}>
            {msg.app.live[live] ?? msg.app.live.connecting}
          </span>
          <ThemeSwitch />
          <button type="button" onClick={() => void signOut()}>
            {msg.app.signOut}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {ops === null ? <p role="status">{msg.app.loading}</p> : current ? current.view() : <p>{msg.app.noScreens}</p>}
      </main>
      <footer class="small">{msg.app.footer(zoneName())}</footer>
    </>
  );
}

render(<App />, document.getElementById('app')!);
