import { useState } from 'preact/hooks';
import { get, openapiDocument, post } from '../api.ts';
import { when } from '../format.ts';
import { Empty, ErrorNote, Loading, Section, useLoad } from '../ui.tsx';

interface ApiKey {
  id: string;
  name: string;
  environment: string;
  scopes: string[];
  key_hint: string;
  status: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
}

export function Developer() {
  return (
    <>
      <ApiKeys />
      <Webhooks />
    </>
  );
}

function ApiKeys() {
  const keys = useLoad(() => get<{ api_keys: ApiKey[] }>('/api/devtools/apikeys'), []);
  const scopes = useLoad(async () => {
    const doc = await openapiDocument();
    const items = doc?.components?.schemas?.ApiKey?.properties?.scopes?.items;
    return ((items?.enum ?? items?.anyOf?.map((x: any) => x.const)) as string[] | undefined) ?? [];
  }, []);
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [issued, setIssued] = useState<{ name: string; secret: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState('');

  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    setCopied(false);
    try {
      const k = await post<ApiKey & { secret: string }>('/api/devtools/apikeys', { name, scopes: chosen });
      setIssued({ name: k.name, secret: k.secret });
      setName('');
      setChosen([]);
      keys.reload();
    } catch (err) {
      setError(err);
    }
  }
  async function revoke(k: ApiKey) {
    setError(null);
    try {
      await post(`/api/devtools/apikeys/${encodeURIComponent(k.id)}/revoke`);
      setNote(`Revoked “${k.name}”.`);
      keys.reload();
    } catch (err) {
      setError(err);
    }
  }
  async function copy() {
    if (!issued) return;
    try {
      await navigator.clipboard.writeText(issued.secret);
      setCopied(true);
    } catch {
      setNote('Copying is not allowed here: select the key and copy it by hand.');
    }
  }

  return (
    <Section title="API keys" id="keys-title">
      <form class="inline-form" onSubmit={create} aria-label="Issue an API key">
        <label for="key-name">Name</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <fieldset>
          <legend>Scopes</legend>
          {scopes.loading && <Loading what="scopes" />}
          {(scopes.data ?? []).map((s) => (
            <label key={s} class="check">
              <input
                type="checkbox"
                checked={chosen.includes(s)}
                onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, s] : chosen.filter((x) => x !== s))}
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={!name.trim() || chosen.length === 0}>
          Issue key
        </button>
      </form>
      {issued && (
        <div class="secret" role="region" aria-label="New API key">
          <p>
            <strong>Key “{issued.name}” issued.</strong> Copy it now: it is shown once and cannot be shown again.
          </p>
          <code data-secret>{issued.secret}</code>
          <div class="actions">
            <button type="button" onClick={copy}>
              {copied ? 'Copied' : 'Copy key'}
            </button>
            <button type="button" onClick={() => setIssued(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <p role="status" aria-live="polite" class="small">
        {note}
      </p>
      <ErrorNote error={error} />
      {keys.loading && !keys.data && <Loading what="API keys" />}
      <ErrorNote error={keys.error} retry={keys.reload} />
      {keys.data && keys.data.api_keys.length === 0 && <Empty>No API keys yet.</Empty>}
      {keys.data && keys.data.api_keys.length > 0 && (
        <table>
          <caption class="sr-only">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.api_keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.key_hint}</code>
                </td>
                <td>{k.scopes.join(', ')}</td>
                <td>{k.status}</td>
                <td>{when(k.expires_at)}</td>
                <td>{when(k.last_used_at)}</td>
                <td>
                  {(k.status === 'active' || k.status === 'rotating') && (
                    <button type="button" onClick={() => revoke(k)} aria-label={`Revoke ${k.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

interface Endpoint {
  id: string;
  url: string;
  status?: string;
  enabled?: boolean;
  event_types: string[];
  created_at: string;
}
interface Delivery {
  id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
}

function Webhooks() {
  const hooks = useLoad(() => get<{ webhooks: Endpoint[] }>('/api/devtools/webhooks'), []);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState<string | null>(null);

  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const w = await post<Endpoint & { secret: string }>('/api/devtools/webhooks', { url });
      setSecret(w.secret);
      setUrl('');
      hooks.reload();
    } catch (err) {
      setError(err);
    }
  }
  return (
    <Section title="Webhooks" id="hooks-title">
      <form class="inline-form" onSubmit={create} aria-label="Register a webhook endpoint">
        <label for="hook-url">HTTPS address</label>
        <input id="hook-url" type="url" required placeholder="https://example.com/hooks" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <button type="submit">Register</button>
      </form>
      {secret && (
        <div class="secret" role="region" aria-label="New signing secret">
          <p>Signing secret, shown once:</p>
          <code>{secret}</code>
          <button type="button" onClick={() => void navigator.clipboard.writeText(secret).catch(() => undefined)}>
            Copy secret
          </button>
        </div>
      )}
      <ErrorNote error={error} />
      {hooks.loading && !hooks.data && <Loading what="webhooks" />}
      <ErrorNote error={hooks.error} retry={hooks.reload} />
      {hooks.data && hooks.data.webhooks.length === 0 && <Empty>No webhook endpoints.</Empty>}
      {hooks.data && (
        <ul class="list">
          {hooks.data.webhooks.map((w) => (
            <li key={w.id}>
              <div class="alert-head">
                <code>{w.url}</code>
                <span class="badge">{w.status ?? (w.enabled === false ? 'disabled' : 'enabled')}</span>
                <button type="button" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                  {open === w.id ? 'Hide deliveries' : 'Deliveries'}
                </button>
              </div>
              {open === w.id && <Deliveries id={w.id} />}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function Deliveries({ id }: { id: string }) {
  const log = useLoad(() => get<{ deliveries: Delivery[] }>(`/api/devtools/webhooks/${encodeURIComponent(id)}/deliveries`), [id]);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState('');
  async function test() {
    setError(null);
    try {
      await post(`/api/devtools/webhooks/${encodeURIComponent(id)}/test`, {});
      setNote('Test event queued.');
      log.reload();
    } catch (err) {
      setError(err);
    }
  }
  return (
    <div class="deliveries">
      <button type="button" onClick={test}>
        Send a test event
      </button>
      <span role="status" class="small">
        {note}
      </span>
      <ErrorNote error={error} />
      {log.loading && !log.data && <Loading what="deliveries" />}
      <ErrorNote error={log.error} retry={log.reload} />
      {log.data && log.data.deliveries.length === 0 && <Empty>No deliveries yet.</Empty>}
      {log.data && log.data.deliveries.length > 0 && (
        <table>
          <caption class="sr-only">Deliveries</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {log.data.deliveries.map((d) => (
              <tr key={d.id}>
                <td>{d.event_type}</td>
                <td>{d.status}</td>
                <td>{d.attempt_count}</td>
                <td>{d.last_status_code ?? d.last_error ?? '—'}</td>
                <td>{when(d.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
