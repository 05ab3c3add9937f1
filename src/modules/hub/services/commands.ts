// Commands to chargers (decision 0411): each an operation of its own, described by one entry of
// COMMANDS (its path segment, body schema, and the OCPP CALL it makes for the charger's version).
// The machinery is one: the command is stored (pending), audited, sent over the live connection
// wherever it is held (the gateway routes it to the instance holding the socket, as load sharing's
// SetChargingProfile), and its outcome and the charger's answer are stored with it. A charger that
// is not connected: the command is stored as `offline` and the request refused 409.
import { randomUUID } from 'node:crypto';
import { type Static, type TSchema, Type } from 'typebox';
import { pageAfter } from '../../../platform/cursor.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../../platform/schema-kit.ts';
import type { Db } from '../../../infra/db/index.ts';
import { hubErrors } from '../errors.ts';
import { Command as CommandSchema } from '../schemas.ts';
import { idTagInfo16, idTokenInfo201, verdictOf } from '../ocpp/authorisation.ts';
import type { IdTokenEnumType } from '../ocpp/generated/v201.ts';
import { type CommandOutcome, hashPassword, type OcppCall, type OcppVersion } from '../ocpp.ts';
import { type ChargePointRow, type CommandRow, type CommandStatus, hubStore as store } from '../store.ts';
import { type HubDeps, newPassword } from './shared.ts';

/** What building a command's CALL may read. */
interface CallEnv {
  db: Db;
  now: Date;
  orgId: string;
  cp: ChargePointRow;
  version: OcppVersion;
  /** The secret the command carries, made for it (entries with `secret`). */
  secret?: string;
}

/** What the stored request shows in place of a secret. */
const REDACTED = '(redacted)';

export interface CommandEntry {
  /** The path segment (`.../commands/<name>`) and the stored `action`. */
  name: string;
  operationId: string;
  summary: string;
  description: string;
  body: TSchema;
  /** The OCPP CALL for the charger's version (422, 404 or 409 when the parameters cannot be sent to it). */
  call(env: CallEnv, body: unknown): Promise<OcppCall> | OcppCall;
  /** Whether the charger's answer accepts the command (default: its status is Accepted, Scheduled, Unlocked or RebootRequired). */
  accepted?: (result: Record<string, unknown>) => boolean;
  /** What the hub records of an accepted answer (a local list's version). */
  onAccepted?: (env: CallEnv, call: OcppCall, result: Record<string, unknown>) => Promise<void>;
  /**
   * A secret the command carries (a new charger password, decision 0432): made for the call, kept
   * out of the stored request and the audit, shown once in the answer (`password`) unless the
   * charger refused it. `sent` runs before the CALL leaves, `settled` with its outcome.
   */
  secret?: {
    sent(env: CallEnv & { secret: string }): Promise<void>;
    settled(env: CallEnv & { secret: string }, status: CommandStatus, result: Record<string, unknown>): Promise<void>;
  };
  /** The 201 answer's schema when it is not the stored command's (a command with a secret adds it). */
  response?: TSchema;
}

/** A JSON value with every occurrence of the secret replaced. */
function redacted(v: unknown, secret: string): unknown {
  if (v === secret) return REDACTED;
  if (Array.isArray(v)) return v.map((x) => redacted(x, secret));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redacted(x, secret)]));
  return v;
}

/** Most id tokens one SendLocalList carries (the rest: by group, or differential updates). */
export const LOCAL_LIST_MAX = 1000;

function entry<B extends TSchema>(
  e: Omit<CommandEntry, 'body' | 'call'> & { body: B; call(env: CallEnv, body: Static<B>): Promise<OcppCall> | OcppCall },
): CommandEntry {
  return { ...e, call: (env, body) => e.call(env, body as Static<B>) };
}

const ConnectorId = (d: string) => Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: d });
const Token = Type.String({ pattern: '^[A-Za-z0-9._:-]{1,36}$', description: 'The id token to start with (1.6 chargers take at most 20 characters)' });
const ConfigKey = Type.String({
  pattern: '^[A-Za-z0-9_.:-]{1,101}$',
  description: '1.6: the configuration key (up to 50 characters); 2.0.1: `Component.Variable` (each up to 50), e.g. `OCPPCommCtrlr.HeartbeatInterval`',
});
const Url = (d: string) => Type.String({ format: 'uri', pattern: '^(https?|ftps?|sftp)://', maxLength: 512, description: d });
const TRIGGERS = ['BootNotification', 'Heartbeat', 'StatusNotification', 'MeterValues', 'FirmwareStatusNotification'] as const;

const accept = new Set(['Accepted', 'Scheduled', 'Unlocked', 'RebootRequired']);
const answeredStatus = (r: Record<string, unknown>) => typeof r.status === 'string' && accept.has(r.status);

function tooLong(loc: string, value: string, max: number, version: OcppVersion) {
  if (value.length > max) throw hubErrors.field([loc], `At most ${max} characters for an ${version === 'ocpp1.6' ? 'OCPP 1.6' : 'OCPP 2.0.1'} charger`, value);
}
/** A 2.0.1 `Component.Variable` key, as GetVariables/SetVariables name it. */
function componentVariable(loc: (string | number)[], key: string) {
  const dot = key.indexOf('.');
  const component = key.slice(0, dot);
  const variable = key.slice(dot + 1);
  if (dot < 1 || !variable || component.length > 50 || variable.length > 50)
    throw hubErrors.field(loc, 'An OCPP 2.0.1 charger is configured by `Component.Variable` (each 1 to 50 characters)', key);
  return { component: { name: component }, variable: { name: variable } };
}

export const COMMANDS: CommandEntry[] = [
  entry({
    name: 'remote-start',
    operationId: 'remoteStartHubTransaction',
    summary: 'Start a charging session from the hub',
    description:
      '1.6 RemoteStartTransaction, 2.0.1 RequestStartTransaction (idToken of type Central, a remoteStartId the hub numbers). The charger then starts the transaction ' +
      'with that token, which is answered from the id tokens like any other (or accepted at a free vend site).',
    body: Type.Object(
      { connector_id: Type.Optional(ConnectorId('Connector (1.6) or EVSE (2.0.1); the charger chooses when absent')), id_token: Token },
      { additionalProperties: false },
    ),
    async call({ db, version }, b) {
      if (version === 'ocpp1.6') {
        tooLong('id_token', b.id_token, 20, version);
        return {
          version,
          action: 'RemoteStartTransaction',
          params: { idTag: b.id_token, ...(b.connector_id !== undefined && { connectorId: b.connector_id }) },
        };
      }
      const remoteStartId = await store.nextOcppTransactionId(db);
      return {
        version,
        action: 'RequestStartTransaction',
        params: { idToken: { idToken: b.id_token, type: 'Central' }, remoteStartId, ...(b.connector_id !== undefined && { evseId: b.connector_id }) },
      };
    },
  }),
  entry({
    name: 'remote-stop',
    operationId: 'remoteStopHubTransaction',
    summary: 'Stop a charging session from the hub',
    description:
      "1.6 RemoteStopTransaction, 2.0.1 RequestStopTransaction, of one of this charger's open transactions (the hub's transaction id). 404 when it is not this charger's; 409 when it has stopped.",
    body: Type.Object(
      { transaction_id: Type.String({ format: 'uuid', description: 'The transaction (as the transactions list gives it)' }) },
      { additionalProperties: false },
    ),
    async call({ db, orgId, cp, version }, b) {
      const tx = await store.transaction(db, orgId, b.transaction_id);
      if (!tx || tx.charge_point_id !== cp.charge_point_id) throw hubErrors.transactionNotFound();
      if (tx.stopped_at) throw hubErrors.transactionStopped();
      return version === 'ocpp1.6'
        ? { version, action: 'RemoteStopTransaction', params: { transactionId: Number(tx.ocpp_transaction_id) } }
        : { version, action: 'RequestStopTransaction', params: { transactionId: tx.ocpp_transaction_id } };
    },
  }),
  entry({
    name: 'reset',
    operationId: 'resetHubChargePoint',
    summary: 'Restart a charger',
    description: 'soft: 1.6 Reset Soft, 2.0.1 Reset OnIdle (after its transactions end); hard: 1.6 Reset Hard, 2.0.1 Reset Immediate.',
    body: Type.Object(
      { type: Type.Union([Type.Literal('soft'), Type.Literal('hard')], { description: 'soft (graceful) or hard (at once)' }) },
      { additionalProperties: false },
    ),
    call: ({ version }, b) =>
      version === 'ocpp1.6'
        ? { version, action: 'Reset', params: { type: b.type === 'soft' ? 'Soft' : 'Hard' } }
        : { version, action: 'Reset', params: { type: b.type === 'soft' ? 'OnIdle' : 'Immediate' } },
  }),
  entry({
    name: 'unlock-connector',
    operationId: 'unlockHubConnector',
    summary: "Release a connector's cable lock",
    description: "1.6 UnlockConnector; 2.0.1 UnlockConnector of the EVSE's connector 1. Accepted when the charger answers Unlocked.",
    body: Type.Object({ connector_id: ConnectorId('Connector (1.6) or EVSE (2.0.1)') }, { additionalProperties: false }),
    call: ({ version }, b) =>
      version === 'ocpp1.6'
        ? { version, action: 'UnlockConnector', params: { connectorId: b.connector_id } }
        : { version, action: 'UnlockConnector', params: { evseId: b.connector_id, connectorId: 1 } },
  }),
  entry({
    name: 'change-availability',
    operationId: 'changeHubAvailability',
    summary: 'Take a connector or the whole charger in or out of service',
    description: '1.6 and 2.0.1 ChangeAvailability. connector_id 0 (or absent) is the whole charger. Accepted also when the charger schedules it (Scheduled).',
    body: Type.Object(
      {
        connector_id: Type.Optional(
          Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Connector (1.6) or EVSE (2.0.1); 0 or absent: the whole charger' }),
        ),
        availability: Type.Union([Type.Literal('operative'), Type.Literal('inoperative')], {
          description: 'operative: in service; inoperative: out of service',
        }),
      },
      { additionalProperties: false },
    ),
    call: ({ version }, b) => {
      const status = b.availability === 'operative' ? 'Operative' : 'Inoperative';
      const c = b.connector_id ?? 0;
      return version === 'ocpp1.6'
        ? { version, action: 'ChangeAvailability', params: { connectorId: c, type: status } }
        : { version, action: 'ChangeAvailability', params: { operationalStatus: status, ...(c > 0 && { evse: { id: c } }) } };
    },
  }),
  entry({
    name: 'trigger-message',
    operationId: 'triggerHubMessage',
    summary: 'Ask a charger to send a message now',
    description: `1.6 and 2.0.1 TriggerMessage, of one of: ${TRIGGERS.join(', ')}; the message itself arrives as the charger sends it and is handled like any other.`,
    body: Type.Object(
      {
        message: Type.Union(
          TRIGGERS.map((t) => Type.Literal(t)),
          { description: 'The message to send' },
        ),
        connector_id: Type.Optional(ConnectorId('Connector (1.6) or EVSE (2.0.1) it concerns, where the message has one')),
      },
      { additionalProperties: false },
    ),
    call: ({ version }, b) =>
      version === 'ocpp1.6'
        ? { version, action: 'TriggerMessage', params: { requestedMessage: b.message, ...(b.connector_id !== undefined && { connectorId: b.connector_id }) } }
        : { version, action: 'TriggerMessage', params: { requestedMessage: b.message, ...(b.connector_id !== undefined && { evse: { id: b.connector_id } }) } },
  }),
  entry({
    name: 'get-configuration',
    operationId: 'getHubChargePointConfiguration',
    summary: "Read a charger's configuration",
    description:
      '1.6 GetConfiguration (every key when `keys` is absent), 2.0.1 GetVariables (`keys` required, each `Component.Variable`). The values are in the stored `response`.',
    body: Type.Object(
      { keys: Type.Optional(Type.Array(ConfigKey, { minItems: 1, maxItems: 50, description: 'The keys to read' })) },
      { additionalProperties: false },
    ),
    call: ({ version }, b) => {
      if (version === 'ocpp1.6') {
        for (const [i, k] of (b.keys ?? []).entries())
          if (k.length > 50) throw hubErrors.field(['keys', i], 'At most 50 characters for an OCPP 1.6 charger', k);
        return { version, action: 'GetConfiguration', params: b.keys ? { key: b.keys } : {} };
      }
      if (!b.keys?.length) throw hubErrors.field(['keys'], 'An OCPP 2.0.1 charger is read by naming its variables (`Component.Variable`)', null);
      const data = b.keys.map((k, i) => componentVariable(['keys', i], k));
      return { version, action: 'GetVariables', params: { getVariableData: [data[0], ...data.slice(1)] } };
    },
    accepted: () => true,
  }),
  entry({
    name: 'change-configuration',
    operationId: 'changeHubChargePointConfiguration',
    summary: "Change one of a charger's settings",
    description:
      '1.6 ChangeConfiguration, 2.0.1 SetVariables (`key` as `Component.Variable`). Accepted when the charger accepts it (also RebootRequired: it applies after a reset).',
    body: Type.Object(
      { key: ConfigKey, value: Type.String({ maxLength: 500, description: 'The new value (1.6 takes at most 500 characters)' }) },
      { additionalProperties: false },
    ),
    call: ({ version }, b) => {
      if (version === 'ocpp1.6') {
        tooLong('key', b.key, 50, version);
        return { version, action: 'ChangeConfiguration', params: { key: b.key, value: b.value } };
      }
      return { version, action: 'SetVariables', params: { setVariableData: [{ ...componentVariable(['key'], b.key), attributeValue: b.value }] } };
    },
    accepted: (r) => {
      if (typeof r.status === 'string') return answeredStatus(r);
      const first = (r.setVariableResult as { attributeStatus?: string }[] | undefined)?.[0];
      return first?.attributeStatus === 'Accepted' || first?.attributeStatus === 'RebootRequired';
    },
  }),
  entry({
    name: 'clear-cache',
    operationId: 'clearHubChargePointCache',
    summary: "Clear a charger's authorisation cache",
    description: '1.6 and 2.0.1 ClearCache: the charger forgets the id tokens it cached, and asks the hub again.',
    body: Type.Object({}, { additionalProperties: false }),
    call: ({ version }) => ({ version, action: 'ClearCache', params: {} }),
  }),
  entry({
    name: 'send-local-list',
    operationId: 'sendHubLocalList',
    summary: 'Send the charger its local authorisation list',
    description:
      `1.6 and 2.0.1 SendLocalList, version the charger's last (local_list_version) + 1, which becomes its local_list_version when the charger accepts. ` +
      `full: the organisation's id tokens (or one group's; at most ${LOCAL_LIST_MAX}) with their status, expiry and group, so the charger can authorise while the hub cannot be reached; ` +
      'differential: the named tokens only, each with its status now, a token not held being removed from the list.',
    body: Type.Object(
      {
        update_type: Type.Union([Type.Literal('full'), Type.Literal('differential')], {
          description: 'full: replace the list; differential: change the named entries',
        }),
        group_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,20}$', description: "full: only this group's tokens" })),
        id_tokens: Type.Optional(
          Type.Array(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,36}$' }), {
            minItems: 1,
            maxItems: 100,
            description: 'differential: the tokens to add, change or remove',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    async call({ db, orgId, cp, version, now }, b) {
      if (b.update_type === 'differential' && !b.id_tokens) throw hubErrors.field(['id_tokens'], 'A differential update names the tokens it changes', null);
      if (b.update_type === 'full' && b.id_tokens) throw hubErrors.field(['id_tokens'], 'A full update sends every token (or a group): name none', b.id_tokens);
      let entries: { idToken: string; type: IdTokenEnumType; row: Awaited<ReturnType<typeof store.idToken>> }[];
      if (b.update_type === 'full') {
        const rows = await store.idTokensForList(db, orgId, b.group_id ?? null, LOCAL_LIST_MAX + 1);
        if (rows.length > LOCAL_LIST_MAX) throw hubErrors.field(['group_id'], `More than ${LOCAL_LIST_MAX} id tokens: send them by group`, b.group_id ?? null);
        entries = rows.map((r) => ({ idToken: r.id_token, type: r.token_type as IdTokenEnumType, row: r }));
      } else {
        entries = [];
        for (const t of b.id_tokens ?? []) {
          const row = await store.idToken(db, orgId, t);
          entries.push({ idToken: row?.id_token ?? t, type: (row?.token_type as IdTokenEnumType | undefined) ?? 'ISO14443', row });
        }
      }
      const listVersion = cp.local_list_version + 1;
      const updateType = b.update_type === 'full' ? ('Full' as const) : ('Differential' as const);
      if (version === 'ocpp1.6') {
        for (const [i, e] of entries.entries())
          if (e.idToken.length > 20) throw hubErrors.field(['id_tokens', i], 'At most 20 characters for an OCPP 1.6 charger', e.idToken);
        const list = entries.map((e) => ({ idTag: e.idToken, ...(e.row && { idTagInfo: idTagInfo16(verdictOf(e.row, now)) }) }));
        return { version, action: 'SendLocalList', params: { listVersion, updateType, ...(list.length && { localAuthorizationList: list }) } };
      }
      const list = entries.map((e) => ({
        idToken: { idToken: e.idToken, type: e.type },
        ...(e.row && { idTokenInfo: idTokenInfo201(verdictOf(e.row, now)) }),
      }));
      return {
        version,
        action: 'SendLocalList',
        params: { versionNumber: listVersion, updateType, ...(list.length && { localAuthorizationList: [list[0], ...list.slice(1)] }) },
      };
    },
    onAccepted: async ({ db, orgId, cp }, call) => {
      const p = call.params as { listVersion?: number; versionNumber?: number };
      await store.setLocalListVersion(db, orgId, cp.charge_point_id, p.listVersion ?? p.versionNumber ?? cp.local_list_version);
    },
  }),
  entry({
    name: 'get-local-list-version',
    operationId: 'getHubLocalListVersion',
    summary: 'Ask the charger which local list version it holds',
    description:
      '1.6 and 2.0.1 GetLocalListVersion. The version the charger reports becomes its local_list_version (0: no list; the next SendLocalList follows on from it).',
    body: Type.Object({}, { additionalProperties: false }),
    call: ({ version }) => ({ version, action: 'GetLocalListVersion', params: {} }),
    accepted: () => true,
    onAccepted: async ({ db, orgId, cp }, _call, r) => {
      const v = typeof r.listVersion === 'number' ? r.listVersion : typeof r.versionNumber === 'number' ? r.versionNumber : null;
      // 1.6 answers -1 for "not supported": nothing to record.
      if (v !== null && v >= 0) await store.setLocalListVersion(db, orgId, cp.charge_point_id, v);
    },
  }),
  entry({
    name: 'reserve-now',
    operationId: 'reserveHubConnector',
    summary: 'Reserve a connector for an id token',
    description:
      '1.6 and 2.0.1 ReserveNow, until `expires_at`, with a reservation id the hub numbers (in the stored `request`: `reservationId` in 1.6, `id` in 2.0.1; ' +
      'cancel-reservation takes it). connector_id 0 or absent: any connector (1.6 connector 0; 2.0.1 no EVSE). The charger answers Accepted, Occupied, Faulted, Unavailable or Rejected.',
    body: Type.Object(
      {
        connector_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Connector (1.6) or EVSE (2.0.1); 0 or absent: any' })),
        id_token: Token,
        expires_at: Type.String({ format: 'date-time', description: 'When the reservation lapses (in the future)' }),
      },
      { additionalProperties: false },
    ),
    async call({ db, version, now }, b) {
      const until = new Date(b.expires_at);
      if (until.getTime() <= now.getTime()) throw hubErrors.field(['expires_at'], 'A reservation ends in the future', b.expires_at);
      const reservationId = await store.nextOcppTransactionId(db);
      const c = b.connector_id ?? 0;
      if (version === 'ocpp1.6') {
        tooLong('id_token', b.id_token, 20, version);
        return { version, action: 'ReserveNow', params: { connectorId: c, expiryDate: until.toISOString(), idTag: b.id_token, reservationId } };
      }
      return {
        version,
        action: 'ReserveNow',
        params: { id: reservationId, expiryDateTime: until.toISOString(), idToken: { idToken: b.id_token, type: 'Central' }, ...(c > 0 && { evseId: c }) },
      };
    },
  }),
  entry({
    name: 'cancel-reservation',
    operationId: 'cancelHubReservation',
    summary: 'Cancel a reservation',
    description: '1.6 and 2.0.1 CancelReservation of a reservation id a reserve-now command sent.',
    body: Type.Object(
      { reservation_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The reservation id (from the reserve-now command)' }) },
      { additionalProperties: false },
    ),
    call: ({ version }, b) => ({ version, action: 'CancelReservation', params: { reservationId: b.reservation_id } }),
  }),
  entry({
    name: 'update-firmware',
    operationId: 'updateHubChargePointFirmware',
    summary: 'Have a charger fetch and install firmware',
    description:
      '1.6 and 2.0.1 UpdateFirmware (2.0.1 with a requestId the hub numbers): the charger fetches the file from `location` at or after `retrieve_at` (default now) and installs it. ' +
      "Its progress arrives as FirmwareStatusNotification and shows as the charge point's firmware_status. 1.6 answers with no status: accepted when answered.",
    body: Type.Object(
      {
        location: Url('Where the charger fetches the firmware (https, http, ftp, ftps or sftp)'),
        retrieve_at: Type.Optional(Type.String({ format: 'date-time', description: 'Not before this instant (default now)' })),
      },
      { additionalProperties: false },
    ),
    async call({ db, version, now }, b) {
      const at = (b.retrieve_at ? new Date(b.retrieve_at) : now).toISOString();
      if (version === 'ocpp1.6') return { version, action: 'UpdateFirmware', params: { location: b.location, retrieveDate: at } };
      const requestId = await store.nextOcppTransactionId(db);
      return { version, action: 'UpdateFirmware', params: { requestId, firmware: { location: b.location, retrieveDateTime: at } } };
    },
    accepted: (r) => (typeof r.status === 'string' ? answeredStatus(r) : true),
  }),
  entry({
    name: 'get-diagnostics',
    operationId: 'getHubChargePointDiagnostics',
    summary: 'Have a charger upload its diagnostics',
    description:
      '1.6 GetDiagnostics, 2.0.1 GetLog (DiagnosticsLog, a requestId the hub numbers): the charger uploads to `location`, optionally only from `since` to `until`. ' +
      "Its progress arrives as DiagnosticsStatusNotification / LogStatusNotification and shows as the charge point's diagnostics_status; the file name (1.6 fileName, 2.0.1 filename) is in the stored `response`.",
    body: Type.Object(
      {
        location: Url('Where the charger uploads (https, http, ftp, ftps or sftp)'),
        since: Type.Optional(Type.String({ format: 'date-time', description: 'Oldest entries to include' })),
        until: Type.Optional(Type.String({ format: 'date-time', description: 'Newest entries to include' })),
      },
      { additionalProperties: false },
    ),
    async call({ db, version }, b) {
      const since = b.since ? new Date(b.since).toISOString() : undefined;
      const until = b.until ? new Date(b.until).toISOString() : undefined;
      if (since && until && since > until) throw hubErrors.field(['until'], 'until is after since', b.until);
      if (version === 'ocpp1.6')
        return { version, action: 'GetDiagnostics', params: { location: b.location, ...(since && { startTime: since }), ...(until && { stopTime: until }) } };
      const requestId = await store.nextOcppTransactionId(db);
      return {
        version,
        action: 'GetLog',
        params: {
          logType: 'DiagnosticsLog',
          requestId,
          log: { remoteLocation: b.location, ...(since && { oldestTimestamp: since }), ...(until && { latestTimestamp: until }) },
        },
      };
    },
    accepted: (r) => (typeof r.status === 'string' ? answeredStatus(r) : true),
  }),
  entry({
    name: 'rotate-password',
    operationId: 'rotateHubChargePointPassword',
    summary: "Change a charger's HTTP Basic password over OCPP",
    description:
      'Makes a new random password and sends it: 1.6 ChangeConfiguration `AuthorizationKey`, 2.0.1 SetVariables `SecurityCtrlr.BasicAuthPassword`. ' +
      'The old password stays valid until the charger confirms (Accepted), then only the new one; until then either is accepted, and a connection with the new one confirms it ' +
      '(so RebootRequired, or an answer lost to a timeout, ends when the charger reconnects with it). Rejected, NotSupported or a CALLERROR: the old one stays, the new one is void. ' +
      'The new password is in the answer (`password`), shown this once (null when refused): only its hash is kept; the stored request shows it as `(redacted)`.',
    body: Type.Object({}, { additionalProperties: false }),
    call: ({ version, secret }) =>
      version === 'ocpp1.6'
        ? { version, action: 'ChangeConfiguration', params: { key: 'AuthorizationKey', value: secret! } }
        : {
            version,
            action: 'SetVariables',
            params: { setVariableData: [{ component: { name: 'SecurityCtrlr' }, variable: { name: 'BasicAuthPassword' }, attributeValue: secret! }] },
          },
    accepted: (r) => {
      if (typeof r.status === 'string') return answeredStatus(r);
      const first = (r.setVariableResult as { attributeStatus?: string }[] | undefined)?.[0];
      return first?.attributeStatus === 'Accepted' || first?.attributeStatus === 'RebootRequired';
    },
    secret: {
      sent: ({ db, orgId, cp, secret }) => store.setPendingPassword(db, orgId, cp.charge_point_id, hashPassword(secret)),
      async settled({ db, orgId, cp, secret }, status, result) {
        const hash = hashPassword(secret);
        const answer =
          typeof result.status === 'string' ? result.status : (result.setVariableResult as { attributeStatus?: string }[] | undefined)?.[0]?.attributeStatus;
        // Accepted: the charger uses it from now on. RebootRequired or no answer (timeout): it may
        // use either until it connects with the new one. Refused, failed or not delivered: void.
        if (status === 'accepted' && answer === 'Accepted') await store.confirmPassword(db, orgId, cp.charge_point_id, hash);
        else if (status !== 'accepted' && status !== 'timeout') await store.dropPendingPassword(db, orgId, cp.charge_point_id, hash);
      },
    },
    response: Type.Object({
      ...CommandSchema.properties,
      password: Type.Union([Type.String(), Type.Null()], {
        description: 'The new HTTP Basic password, shown this once (only its hash is kept); null when the charger refused it or the call failed',
      }),
    }),
  }),
];

const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);

export function commandView(r: CommandRow) {
  return {
    command_id: r.command_id,
    charge_point_id: r.charge_point_id,
    action: r.action,
    parameters: r.parameters,
    status: r.status,
    ocpp_version: r.ocpp_version,
    ocpp_action: r.ocpp_action,
    request: r.request,
    response: r.response,
    error: r.error,
    requested_by: r.created_by,
    created_at: isoTime(r.created_at),
    completed_at: isoTimeOrNull(r.completed_at),
  };
}

/** The stored status of what the gateway reports. */
function statusOf(e: CommandEntry, out: CommandOutcome): CommandStatus {
  if (out.delivery === 'local' || out.delivery === 'routed') return (e.accepted ?? answeredStatus)(out.result ?? {}) ? 'accepted' : 'rejected';
  return out.delivery === 'not_connected' ? 'offline' : out.delivery === 'timeout' ? 'timeout' : 'failed';
}

/** `requested_by` of the commands the hub sends of its own accord (decision 0489). */
export const HUB_REQUESTER = 'hub';
/** A setting the charger accepted at boot is not sent again within a day (decision 0493). */
const ALIGN_ACCEPTED_FOR_MS = 86_400_000;
/** Nor is one sent within the last ten minutes, whatever its answer (a charger booting in a loop). */
const ALIGN_RESEND_AFTER_MS = 600_000;

/** How long after its answer was due a command still `pending` is taken as lost (decision 0437). */
export const STALE_COMMAND_GRACE_MS = 60_000;
export const STALE_COMMAND_ERROR =
  "The hub did not record the charger's answer (the service stopped, or its store was unavailable, before it could): the charger may have carried the command out";

/**
 * Commands whose outcome was never recorded, because the instance that sent one stopped or its
 * store failed after the CALL left: stored as `failed` with STALE_COMMAND_ERROR once the answer is
 * overdue by STALE_COMMAND_GRACE_MS, so no command stays `pending` for ever (decision 0437).
 */
export async function failStaleCommands(db: Db, now: Date, commandTimeoutMs: number): Promise<number> {
  return store.failStalePending(db, new Date(now.getTime() - commandTimeoutMs - STALE_COMMAND_GRACE_MS), STALE_COMMAND_ERROR, now);
}

export function createCommandService(deps: HubDeps) {
  const { db, clock, cursors, gateway } = deps;

  /**
   * A command's row stored (pending, or offline when it cannot be sent) and its sending audited as
   * `who`, in one transaction: the same for a user's request and the hub's own (decision 0489).
   */
  /**
   * Charger by charger, the boot's aligned-metering requests in flight (decision 0493): the last
   * link of its chain, and the link still waiting to start, if any. Boots that come while a link
   * waits share it (its reads happen when it starts, after every earlier link), so a charger that
   * boots faster than the hub can ask it holds at most one running and one waiting link, whatever
   * the number of boots.
   */
  const aligning = new Map<string, { tail: Promise<void>; waiting?: Promise<void>; version: OcppVersion }>();

  async function alignOnce(orgId: string, cpId: string, version: OcppVersion, seconds: number) {
    const cp = await store.chargePoint(db, orgId, cpId);
    if (!cp || seconds <= 0) return;
    const change = COMMANDS.find((c) => c.name === 'change-configuration')!;
    const settings: [string, string][] =
      version === 'ocpp1.6'
        ? [
            ['ClockAlignedDataInterval', String(seconds)],
            ['MeterValuesAlignedData', 'Energy.Active.Import.Register'],
          ]
        : [
            ['AlignedDataCtrlr.Interval', String(seconds)],
            ['AlignedDataCtrlr.Measurands', 'Energy.Active.Import.Register'],
          ];
    // A charger that boots in a loop is not asked again and again (decision 0493): a setting it
    // accepted within the last day, or that was sent to it (whatever the answer) within the last
    // ten minutes, is not sent. So a looping charger costs at most two commands (and two audit
    // entries) each ten minutes, and one that accepted, two a day.
    const now = clock.now().getTime();
    const recent = await store.recentSettings(db, orgId, cp.charge_point_id, HUB_REQUESTER, new Date(now - ALIGN_ACCEPTED_FOR_MS));
    const asked = (key: string, value: string) =>
      recent.some(
        (r) => r.parameters.key === key && r.parameters.value === value && (r.status === 'accepted' || r.created_at.getTime() > now - ALIGN_RESEND_AFTER_MS),
      );
    for (const [key, value] of settings) {
      if (asked(key, value)) continue;
      const body = { key, value };
      const call = await change.call({ db, orgId, cp, version, now: clock.now(), secret: undefined }, body);
      const row = await record(orgId, { orgId, actorType: 'system', actorId: HUB_REQUESTER }, cp, change, body, call, {
        version,
        request: call.params as Record<string, unknown>,
        createdBy: HUB_REQUESTER,
        offline: false,
        reason: 'boot',
      });
      const { out } = await deliver(orgId, cp, change, call, row);
      if (out.delivery === 'not_connected') return;
    }
  }

  async function record(
    orgId: string,
    who: Parameters<HubDeps['audit']['record']>[1],
    cp: ChargePointRow,
    e: CommandEntry,
    body: unknown,
    call: OcppCall | null,
    c: { version: OcppVersion | null; request: Record<string, unknown> | null; createdBy: string | null; offline: boolean; reason?: string },
  ): Promise<CommandRow> {
    const base = {
      command_id: randomUUID(),
      charge_point_id: cp.charge_point_id,
      action: e.name,
      parameters: (body ?? {}) as Record<string, unknown>,
      ocpp_version: c.version,
      ocpp_action: call?.action ?? null,
      request: c.request,
      created_by: c.createdBy,
      status: c.offline ? ('offline' as const) : ('pending' as const),
    };
    return db.tx(async (q) => {
      const r = await store.insertCommand(q, orgId, base, clock.now());
      const details = { command_id: r.command_id, action: e.name, ocpp_action: r.ocpp_action, offline: c.offline };
      await deps.audit.record(q, who, {
        action: 'hub.command.send',
        targetType: 'hub_charge_point',
        targetId: cp.charge_point_id,
        details: c.reason ? { ...details, reason: c.reason } : details,
      });
      return r;
    });
  }

  /** The stored command sent through the gateway and completed with the charger's answer; `answered` runs before the row is completed. */
  async function deliver(
    orgId: string,
    cp: ChargePointRow,
    e: CommandEntry,
    call: OcppCall,
    row: CommandRow,
    answered?: (status: CommandStatus, out: CommandOutcome) => Promise<void>,
  ): Promise<{ out: CommandOutcome; status: CommandStatus; done: CommandRow }> {
    const out = await gateway.command(orgId, cp, call);
    const status = statusOf(e, out);
    if (answered) await answered(status, out);
    const done = await store.completeCommand(db, orgId, row.command_id, { status, response: out.result, error: out.error }, clock.now());
    return { out, status, done };
  }

  return {
    async sendCommand(ctx: RequestContext, cpId: string, e: CommandEntry, body: unknown) {
      const cp = await store.chargePoint(db, ctx.orgId, cpId);
      if (!cp) throw hubErrors.chargePointNotFound();
      const version = (cp.ocpp_version as OcppVersion | null) ?? null;
      const secret = e.secret ? newPassword() : undefined;
      const env = version ? { db, orgId: ctx.orgId, cp, version, now: clock.now(), secret } : null;
      const call = env ? await e.call(env, body) : null;
      const offline = call === null || (cp.connected_instance === null && !gateway.holds(ctx.orgId, cp.charge_point_id));
      const row = await record(ctx.orgId, ctx, cp, e, body, call, {
        version,
        request: (call ? (secret ? redacted(call.params, secret) : call.params) : null) as Record<string, unknown> | null,
        createdBy: actorId(ctx),
        offline,
      });
      if (offline || !call) throw hubErrors.chargePointOffline();
      if (e.secret && env && secret) await e.secret.sent({ ...env, secret });
      const { status, done } = await deliver(ctx.orgId, cp, e, call, row, async (status, out) => {
        if (status === 'accepted' && e.onAccepted && env) await e.onAccepted(env, call, out.result ?? {});
        if (e.secret && env && secret) await e.secret.settled({ ...env, secret }, status, out.result ?? {});
      });
      if (status === 'offline') throw hubErrors.chargePointOffline();
      if (secret) return { ...commandView(done), password: status === 'rejected' || status === 'failed' ? null : secret };
      return commandView(done);
    },

    /**
     * Decision 0489: once a charger's boot is accepted, asks it for its energy register at
     * clock-aligned intervals of `seconds` (idle or not), so the energy ledger has a measured
     * reading of an idle charger; two change-configuration commands, requested by `hub`, audited
     * as the system's. A refusal or a charger without these keys is recorded and left there.
     */
    /**
     * Asks a booted charger for clock-aligned meter values (decision 0489). One charger's boots are
     * handled one after another (its connection is on this instance), so boots in quick succession
     * see what the ones before them sent (decision 0493). `version` is the booted connection's own
     * (a first connection's stored version may not be written yet); a boot folded into a waiting
     * one hands it its connection's version.
     */
    alignMetering(orgId: string, cpId: string, version: OcppVersion, seconds: number): Promise<void> {
      const k = `${orgId}\u0000${cpId}`;
      const chain = aligning.get(k);
      if (chain?.waiting) {
        chain.version = version;
        deps.onAlignmentFolded?.();
        return chain.waiting;
      }
      const entry: { tail: Promise<void>; waiting?: Promise<void>; version: OcppVersion } = { tail: Promise.resolve(), version };
      const run = (chain?.tail ?? Promise.resolve()).then(() => {
        if (entry.waiting === run) entry.waiting = undefined;
        return alignOnce(orgId, cpId, entry.version, seconds);
      });
      entry.waiting = run;
      // Settles either way (the boot hook settles `run` itself); removes the charger's entry when it is the last.
      entry.tail = run
        .then(
          () => undefined,
          () => undefined,
        )
        .then(() => {
          if (aligning.get(k) === entry) aligning.delete(k);
        });
      aligning.set(k, entry);
      return run;
    },

    async listCommands(ctx: RequestContext, cpId: string, query: { limit?: number; cursor?: string }) {
      if (!(await store.chargePoint(db, ctx.orgId, cpId))) throw hubErrors.chargePointNotFound();
      const limit = query.limit ?? 50;
      const binding = { op: 'listHubCommands', orgId: ctx.orgId, filters: { cpId } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await store.commandsPage(db, ctx.orgId, cpId, paged.after, limit), (r) => ({ t: r.pos, id: r.command_id }));
      return { commands: page.items.map(commandView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async getCommand(ctx: RequestContext, commandId: string) {
      const row = await store.command(db, ctx.orgId, commandId);
      if (!row) throw hubErrors.commandNotFound();
      return commandView(row);
    },
  };
}
