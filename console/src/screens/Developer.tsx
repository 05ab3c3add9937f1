import { useState } from 'preact/hooks';
import { api, data, openapiDocument, type Read, type Schemas, type Sent } from '../api.ts';
import { msg } from '../messages.ts';
import { when } from '../format.ts';
import { Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { queryClient, useMutation, useRead } from '../query.ts';

const mw = msg.webhooks;
const mk = msg.apiKeys;

type ApiKey = Schemas['ApiKey'];
type Scope = ApiKey['scopes'][number];

/** The scopes a key may carry, as the OpenAPI document lists them (the ApiKey schema's enum). */
async function declaredScopes(): Promise<Scope[]> {
  const doc = await openapiDocument();
  const schema = doc.components?.schemas?.ApiKey as { properties?: { scopes?: { items?: { enum?: Scope[]; anyOf?: Array<{ const: Scope }> } } } } | undefined;
  const items = schema?.properties?.scopes?.items;
  return items?.enum ?? items?.anyOf?.map((x) => x.const) ?? [];
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
  const keys = useRead(['apikeys'], () => data(api().GET('/api/devtools/apikeys')));
  const scopes = useRead(['scopes'], declaredScopes, { staleTime: Infinity });
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Scope[]>([]);
  const [issued, setIssued] = useState<{ name: string; secret: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [note, setNote] = useState('');
  const issue = useMutation({
    mutationFn: (body: Sent<'/api/devtools/apikeys'>) => data(api().POST('/api/devtools/apikeys', { body })),
    onSuccess: (k) => {
      setIssued({ name: k.name, secret: k.secret });
      setName('');
      setChosen([]);
      void queryClient.invalidateQueries({ queryKey: ['apikeys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: async (k: ApiKey) => {
      await api().POST('/api/devtools/apikeys/{key_id}/revoke', { params: { path: { key_id: k.id } } });
      return k;
    },
    onSuccess: (k) => {
      setNote(mk.revoked(k.name));
      void queryClient.invalidateQueries({ queryKey: ['apikeys'] });
    },
  });
  const error = issue.error ?? revoke.error;

  function create(e: Event) {
    e.preventDefault();
    setCopied(false);
    revoke.reset();
    issue.mutate({ name, scopes: chosen });
  }
  async function copy() {
    if (!issued) return;
    try {
      await navigator.clipboard.writeText(issued.secret);
      setCopied(true);
    } catch {
      setNote(mk.noCopy);
    }
  }

  return (
    <Section title={mk.title} id="keys-title">
      <form class="inline-form" onSubmit={create} aria-label={mk.issueForm}>
        <label for="key-name">{mk.name}</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <fieldset>
          <legend>{mk.scopes}</legend>
          {scopes.loading && <Loading what={mk.scopesLoading} />}
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
          {mk.issue}
        </button>
      </form>
      {issued && (
        <div class="secret" role="region" aria-label={mk.newKey}>
          <p>
            <strong>{mk.issued(issued.name)}</strong> {mk.copyNow}
          </p>
          <code data-secret>{issued.secret}</code>
          <div class="actions">
            <button type="button" onClick={copy}>
              {copied ? mk.copied : mk.copy}
            </button>
            <button type="button" onClick={() => setIssued(null)}>
              {mk.done}
            </button>
          </div>
        </div>
      )}
      <p role="status" aria-live="polite" class="small">
        {note}
      </p>
      <ErrorNote error={error} />
      {keys.loading && !keys.data && <Loading what={mk.loading} />}
      <ErrorNote error={keys.error} retry={keys.reload} />
      {keys.data && keys.data.api_keys.length === 0 && <Empty>{mk.empty}</Empty>}
      {keys.data && keys.data.api_keys.length > 0 && (
        <table>
          <caption class="sr-only">{mk.title}</caption>
          <thead>
            <tr>
              <th scope="col">{mk.col.name}</th>
              <th scope="col">{mk.col.key}</th>
              <th scope="col">{mk.col.scopes}</th>
              <th scope="col">{mk.col.status}</th>
              <th scope="col">{mk.col.expires}</th>
              <th scope="col">{mk.col.lastUsed}</th>
              <th scope="col">
                <span class="sr-only">{mk.col.actions}</span>
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
                    <button type="button" onClick={() => (issue.reset(), revoke.mutate(k))} aria-label={mk.revokeLabel(k.name)}>
                      {mk.revoke}
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

function Webhooks() {
  const hooks = useRead(['webhooks'], () => data(api().GET('/api/devtools/webhooks')));
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState<string | null>(null);

  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const w = await data(api().POST('/api/devtools/webhooks', { body: { url } }));
      setSecret(w.secret);
      setUrl('');
      hooks.reload();
    } catch (err) {
      setError(err);
    }
  }
  return (
    <Section title={mw.title} id="hooks-title">
      <form class="inline-form" onSubmit={create} aria-label={mw.registerForm}>
        <label for="hook-url">{mw.url}</label>
        <input id="hook-url" type="url" required placeholder={mw.urlExample} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <button type="submit">{mw.register}</button>
      </form>
      {secret && (
        <div class="secret" role="region" aria-label={mw.secretRegion}>
          <p>{mw.secretOnce}</p>
          <code>{secret}</code>
          <button type="button" onClick={() => void navigator.clipboard.writeText(secret).catch(() => undefined)}>
            {mw.copy}
          </button>
        </div>
      )}
      <ErrorNote error={error} />
      {hooks.loading && !hooks.data && <Loading what={mw.loading} />}
      <ErrorNote error={hooks.error} retry={hooks.reload} />
      {hooks.data && hooks.data.webhooks.length === 0 && <Empty>{mw.empty}</Empty>}
      {hooks.data && hooks.data.webhooks.length > 0 && (
        <ul class="list" aria-label={mw.listLabel}>
          {hooks.data.webhooks.map((w) => (
            <li key={w.id}>
              <div class="alert-head">
                <code>{w.url}</code>
                <span class="badge">{w.enabled ? mw.enabled : mw.disabled(w.disabled_reason)}</span>
                <button
                  type="button"
                  aria-expanded={open === w.id}
                  aria-label={mw.deliveriesLabel(open === w.id ? mw.hideDeliveries : mw.deliveries, w.url)}
                  onClick={() => setOpen(open === w.id ? null : w.id)}
                >
                  {open === w.id ? mw.hideDeliveries : mw.deliveries}
                </button>
              </div>
              {open === w.id && <Deliveries id={w.id} url={w.url} />}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

type DeliveryLog = Read<'/api/devtools/webhooks/{endpoint_id}/deliveries'>;
/** While a delivery waits for its (next) attempt, the log is read this often. */
const DELIVERIES_EVERY_MS = 2_000;

function Deliveries({ id, url }: { id: string; url: string }) {
  const known = queryClient.getQueryData<DeliveryLog>(['deliveries', id]);
  const log = useRead(['deliveries', id], () => data(api().GET('/api/devtools/webhooks/{endpoint_id}/deliveries', { params: { path: { endpoint_id: id } } })), {
    staleTime: 0,
    refetchInterval: known?.deliveries.some((d) => d.status === 'pending') ? DELIVERIES_EVERY_MS : false,
  });
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState('');
  async function test() {
    setError(null);
    setNote('');
    try {
      await data(api().POST('/api/devtools/webhooks/{endpoint_id}/test', { params: { path: { endpoint_id: id } }, body: {} }));
      setNote(mw.testQueued);
      log.reload();
    } catch (err) {
      setError(err);
    }
  }
  return (
    <div class="deliveries">
      <button type="button" onClick={test}>
        {mw.test}
      </button>
      <span role="status" class="small">
        {note}
      </span>
      <ErrorNote error={error} />
      {log.loading && !log.data && <Loading what={mw.logLoading} />}
      <ErrorNote error={log.error} retry={log.reload} />
      {log.data && log.data.deliveries.length === 0 && <Empty>{mw.noDeliveries}</Empty>}
      {log.data && log.data.deliveries.length > 0 && (
        <table>
          <caption class="sr-only">{mw.caption(url)}</caption>
          <thead>
            <tr>
              <th scope="col">{mw.col.event}</th>
              <th scope="col">{mw.col.status}</th>
              <th scope="col">{mw.col.attempts}</th>
              <th scope="col">{mw.col.answer}</th>
              <th scope="col">{mw.col.created}</th>
            </tr>
          </thead>
          <tbody>
            {log.data.deliveries.map((d) => (
              <tr key={d.id}>
                <td>{d.event_type}</td>
                <td>{mw.status[d.status] ?? d.status}</td>
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
