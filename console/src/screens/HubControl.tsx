// The charging hub's controls: commands to a charger (restart, release a connector's cable lock)
// with the list of what was sent and how the charger answered, and the organisation's id tokens
// (the cards and app ids chargers are answered from: list, add, block and allow again). A command
// is answered when the charger answers, so while one is pending the list is read every second.
import { useState } from 'preact/hooks';
import { api, data, type Schemas, type Sent } from '../api.ts';
import { when } from '../format.ts';
import { msg } from '../messages.ts';
import { queryClient, useMutation, useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';
import { Empty, ErrorNote, Loading, Section } from '../ui.tsx';

type ChargePoint = Schemas['HubChargePoint'];
type Command = Schemas['HubCommand'];
type IdToken = Schemas['HubIdToken'];
type TokenStatus = IdToken['status'];
type TokenType = IdToken['type'];
const m = msg.hub;

/** While a command awaits the charger's answer, the list is read this often. */
const PENDING_EVERY_MS = 1_000;

/** A charger's commands: restart and unlock forms, then every command sent with its answer. */
export function Commands({ points }: { points: ChargePoint[] }) {
  const wanted = useRoute().params.get('cp');
  const cp = points.find((p) => p.charge_point_id === wanted) ?? points[0];
  if (!cp) return null;
  return (
    <Section title={m.commands.title(cp.charge_point_id)} id="hub-commands-title">
      {points.length > 1 && (
        <div class="toolbar">
          <label for="hub-cp">{m.commands.charger}</label>
          <select id="hub-cp" value={cp.charge_point_id} onChange={(e) => select({ cp: e.currentTarget.value })}>
            {points.map((p) => (
              <option key={p.charge_point_id} value={p.charge_point_id}>
                {p.charge_point_id}
              </option>
            ))}
          </select>
        </div>
      )}
      <CommandForms key={cp.charge_point_id} cp={cp} />
      <CommandList key={`list-${cp.charge_point_id}`} cpId={cp.charge_point_id} />
    </Section>
  );
}

function CommandForms({ cp }: { cp: ChargePoint }) {
  const id = cp.charge_point_id;
  const [kind, setKind] = useState<'soft' | 'hard'>('soft');
  const connectors = cp.connector_status.map((k) => k.connector_id);
  const [connector, setConnector] = useState<number>(connectors[0] ?? 1);
  const [last, setLast] = useState<Command | null>(null);
  const done = (c: Command) => {
    setLast(c);
    queryClient.setQueryData(['hub-command', c.command_id], c);
    void queryClient.invalidateQueries({ queryKey: ['hub-commands', id] });
  };
  const reset = useMutation<Command>({
    mutationFn: () =>
      data(api().POST('/api/csms/api/hub/charge-points/{charge_point_id}/commands/reset', { params: { path: { charge_point_id: id } }, body: { type: kind } })),
    onSuccess: done,
  });
  const unlock = useMutation<Command>({
    mutationFn: () =>
      data(
        api().POST('/api/csms/api/hub/charge-points/{charge_point_id}/commands/unlock-connector', {
          params: { path: { charge_point_id: id } },
          body: { connector_id: connector },
        }),
      ),
    onSuccess: done,
  });
  const busy = reset.isPending || unlock.isPending;
  return (
    <>
      <form
        class="toolbar"
        aria-label={m.commands.restart}
        onSubmit={(e) => {
          e.preventDefault();
          reset.mutate(undefined);
        }}
      >
        <fieldset>
          <legend>{m.commands.restart}</legend>
          {(['soft', 'hard'] as const).map((k) => (
            <label key={k} class="check">
              <input type="radio" name="reset-kind" checked={kind === k} onChange={() => setKind(k)} /> {m.commands.resetKind[k]}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>
          {m.commands.restartButton}
        </button>
      </form>
      <form
        class="toolbar"
        aria-label={m.commands.unlock}
        onSubmit={(e) => {
          e.preventDefault();
          unlock.mutate(undefined);
        }}
      >
        <label for="hub-unlock-connector">{m.commands.connector}</label>
        <select id="hub-unlock-connector" value={String(connector)} onChange={(e) => setConnector(Number(e.currentTarget.value))}>
          {(connectors.length ? connectors : [1]).map((c) => (
            <option key={c} value={String(c)}>
              {c}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          {m.commands.unlockButton}
        </button>
      </form>
      {last && <p role="status">{m.commands.sent(m.commands.action(last.action), last.status)}</p>}
      <ErrorNote error={reset.error ?? unlock.error} headline={undefined} />
    </>
  );
}

function CommandList({ cpId }: { cpId: string }) {
  const known = queryClient.getQueryData<{ commands: Command[] }>(['hub-commands', cpId]);
  const list = useRead(
    ['hub-commands', cpId],
    () => data(api().GET('/api/csms/api/hub/charge-points/{charge_point_id}/commands', { params: { path: { charge_point_id: cpId }, query: { limit: 20 } } })),
    { refetchInterval: known?.commands.some((c) => c.status === 'pending') ? PENDING_EVERY_MS : false },
  );
  const rows = list.data?.commands ?? [];
  return (
    <>
      <h3>{m.commands.listTitle}</h3>
      {list.loading && <Loading what={m.commands.loading} />}
      <ErrorNote error={list.error} retry={list.reload} />
      {list.data && rows.length === 0 && <Empty>{m.commands.empty}</Empty>}
      {rows.length > 0 && (
        <table>
          <caption class="sr-only">{m.commands.caption(cpId)}</caption>
          <thead>
            <tr>
              <th scope="col">{m.commands.col.sent}</th>
              <th scope="col">{m.commands.col.command}</th>
              <th scope="col">{m.commands.col.status}</th>
              <th scope="col">{m.commands.col.answer}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.command_id}>
                <td>{when(c.created_at)}</td>
                <td>
                  {m.commands.action(c.action)}
                  <span class="small block">{paramsText(c.parameters)}</span>
                </td>
                <td>
                  <span class={`badge cmd-${c.status}`}>{m.commands.status[c.status]}</span>
                </td>
                <td>
                  {c.error ?? answerText(c.response)}
                  {c.completed_at && <span class="small block">{m.commands.answeredAt(when(c.completed_at))}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The charger's answer: its status where it has one (most do), else the answer as sent. */
const answerText = (r: Command['response']) => (r === null ? '—' : typeof r.status === 'string' ? r.status : JSON.stringify(r));

const paramsText = (p: Record<string, unknown>) =>
  Object.entries(p)
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${String(v)}`)
    .join(' · ');

const TYPES: TokenType[] = ['ISO14443', 'ISO15693', 'eMAID', 'Central', 'KeyCode', 'Local', 'MacAddress', 'NoAuthorization'];

/** The organisation's id tokens: list, add one, block or allow one again. */
export function IdTokens() {
  const tokens = useRead(['hub-id-tokens'], () => data(api().GET('/api/csms/api/hub/id-tokens', { params: { query: { limit: 200 } } })));
  const [token, setToken] = useState('');
  const [type, setType] = useState<TokenType>('ISO14443');
  const [note, setNote] = useState('');
  const [said, setSaid] = useState('');
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['hub-id-tokens'] });
  const add = useMutation<IdToken, Sent<'/api/csms/api/hub/id-tokens'>>({
    mutationFn: (body) => data(api().POST('/api/csms/api/hub/id-tokens', { body })),
    onSuccess: (t) => {
      setSaid(m.tokens.added(t.id_token));
      setToken('');
      setNote('');
      refresh();
    },
  });
  const change = useMutation<IdToken, { id: string; status: TokenStatus }>({
    mutationFn: ({ id, status }) => data(api().PATCH('/api/csms/api/hub/id-tokens/{id_token}', { params: { path: { id_token: id } }, body: { status } })),
    onSuccess: (t) => {
      setSaid(t.status === 'blocked' ? m.tokens.blocked(t.id_token) : m.tokens.allowed(t.id_token));
      refresh();
    },
  });
  const list = tokens.data?.id_tokens ?? [];
  return (
    <Section title={m.tokens.title} id="hub-tokens-title">
      <p class="small">{m.tokens.intro}</p>
      <form
        class="inline-form"
        aria-label={m.tokens.addTitle}
        onSubmit={(e) => {
          e.preventDefault();
          setSaid('');
          add.mutate({ id_token: token.trim(), type, ...(note.trim() && { note: note.trim() }) });
        }}
      >
        <label for="token-id">{m.tokens.token}</label>
        <input
          id="token-id"
          required
          maxLength={36}
          pattern="[A-Za-z0-9._:\-]{1,36}"
          aria-describedby="token-id-help"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <span id="token-id-help" class="small">
          {m.tokens.tokenHelp}
        </span>
        <label for="token-type">{m.tokens.type}</label>
        <select id="token-type" value={type} onChange={(e) => setType(e.currentTarget.value as TokenType)}>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <label for="token-note">{m.tokens.note}</label>
        <input id="token-note" maxLength={200} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit" disabled={add.isPending}>
          {m.tokens.addButton}
        </button>
      </form>
      <ErrorNote error={add.error} />
      {said && <p role="status">{said}</p>}
      {tokens.loading && <Loading what={m.tokens.loading} />}
      <ErrorNote error={tokens.error} retry={tokens.reload} />
      {tokens.data && list.length === 0 && <Empty>{m.tokens.empty}</Empty>}
      {list.length > 0 && (
        <table>
          <caption class="sr-only">{m.tokens.caption}</caption>
          <thead>
            <tr>
              <th scope="col">{m.tokens.col.token}</th>
              <th scope="col">{m.tokens.col.status}</th>
              <th scope="col">{m.tokens.col.type}</th>
              <th scope="col">{m.tokens.col.expires}</th>
              <th scope="col">{m.tokens.col.action}</th>
            </tr>
          </thead>
          <tbody>
            {list.map((t) => (
              <tr key={t.id_token}>
                <th scope="row">
                  {t.id_token}
                  {t.note && <span class="small block">{t.note}</span>}
                </th>
                <td>
                  <span class={`badge token-${t.status}`}>{m.tokens.status[t.status]}</span>
                </td>
                <td>{t.type}</td>
                <td>{t.expires_at ? when(t.expires_at) : m.tokens.never}</td>
                <td>
                  {t.status === 'blocked' ? (
                    <button
                      type="button"
                      disabled={change.isPending}
                      onClick={() => change.mutate({ id: t.id_token, status: 'accepted' })}
                      aria-label={m.tokens.allowLabel(t.id_token)}
                    >
                      {m.tokens.allow}
                    </button>
                  ) : (
                    <button
                      type="button"
                      disabled={change.isPending}
                      onClick={() => change.mutate({ id: t.id_token, status: 'blocked' })}
                      aria-label={m.tokens.blockLabel(t.id_token)}
                    >
                      {m.tokens.block}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNote error={change.error} />
    </Section>
  );
}
