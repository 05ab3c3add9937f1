// Keeps the broker's clients in step with the device credentials (issue 40, decision 0376): a
// credential issued becomes a Mosquitto dynamic-security client (username its id, password the
// whole credential) with a role that may publish only under its own site's topics and subscribe
// only to its own results topic; a credential stopped (revoked, rotated out) is a deleted client,
// which Mosquitto disconnects at once. Commands go to $CONTROL/dynamic-security/v1 as the
// administrator; each answer is awaited so a refusal is logged, never silent.
import { createHash, createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import type { CredentialChange } from './service.ts';

const CONTROL = '$CONTROL/dynamic-security/v1';
const ANSWER_TIMEOUT_MS = 5_000;
/** Tries at making an issued credential's client (decision 0481). */
const ISSUE_ATTEMPTS = 3;

/** A site's topics: `{root}/{org}/{site}/...`. MQTT wildcards and separators in an id cannot be a topic level. */
export const topicLevelOk = (s: string) => s.length > 0 && !/[+#/\u0000]/.test(s);

/**
 * The topics (decision 0377). A site-wide credential publishes to the site's topics; one with a
 * device list only to each listed device's, so the topic names the device authentically (MQTT does
 * not tell a subscriber who published). Results: the site's own, and one per device.
 */
export const topics = (root: string, orgId: string, siteId: string) => {
  const base = `${root}/${orgId}/${siteId}`;
  return {
    telemetry: `${base}/telemetry`,
    heartbeat: `${base}/heartbeat`,
    replay: `${base}/replay`,
    deviceTelemetry: (device: string) => `${base}/devices/${device}/telemetry`,
    /** Answers to the site's topics. */
    siteResults: `${base}/results`,
    /** Answers to a device's topic. */
    results: (device: string) => `${base}/results/${device}`,
    /** Every answer of the site (`results/#` matches `results` too). */
    allResults: `${base}/results/#`,
  };
};

/**
 * The service's shared subscriptions: every instance of one deployment takes a share of the group
 * named after its topic root (MQTT_TOPIC_ROOT, decision 0442), so two deployments on one broker
 * with different roots neither see nor take each other's messages.
 */
export const consumed = (root: string) => [
  `$share/${root}/${root}/+/+/telemetry`,
  `$share/${root}/${root}/+/+/devices/+/telemetry`,
  `$share/${root}/${root}/+/+/heartbeat`,
  `$share/${root}/${root}/+/+/replay`,
];

/** A credential's access on the broker, from its site, device list and scopes. Devices whose id cannot be a topic level are left out. */
export function aclsFor(root: string, orgId: string, siteId: string, deviceIds: readonly string[] | null, scopes: readonly string[]) {
  const t = topics(root, orgId, siteId);
  const acls: { acltype: string; topic: string; allow: boolean }[] = [];
  const add = (acltype: string, topic: string) => acls.push({ acltype, topic, allow: true });
  if (deviceIds === null) {
    if (scopes.includes('telemetry:write')) add('publishClientSend', t.telemetry);
    if (scopes.includes('gateway:heartbeat')) add('publishClientSend', t.heartbeat);
    if (scopes.includes('buffer:replay')) add('publishClientSend', t.replay);
    add('subscribePattern', t.allResults);
    add('publishClientReceive', t.allResults);
    return acls;
  }
  if (scopes.includes('gateway:heartbeat')) add('publishClientSend', t.heartbeat);
  for (const d of deviceIds.filter(topicLevelOk)) {
    if (scopes.includes('telemetry:write')) add('publishClientSend', t.deviceTelemetry(d));
    add('subscribePattern', t.results(d));
    add('publishClientReceive', t.results(d));
  }
  return acls;
}

/** The service's own role on the broker: read every device topic under its root, answer on every results topic. */
const serviceRole = (root: string) => ({
  name: `${root}-service`,
  acls: [
    { acltype: 'subscribePattern', topic: `${root}/#`, allow: true },
    // Its shared subscriptions: Mosquitto checks the filter with its `$share/{group}/` prefix (the
    // administrator it used to sign in as could subscribe to anything, decision 0497).
    { acltype: 'subscribePattern', topic: `$share/${root}/${root}/#`, allow: true },
    { acltype: 'publishClientReceive', topic: `${root}/#`, allow: true },
    { acltype: 'publishClientSend', topic: `${root}/+/+/results`, allow: true },
    { acltype: 'publishClientSend', topic: `${root}/+/+/results/+`, allow: true },
  ],
});

/**
 * The account the consumer signs in as (decision 0497): one per topic root, holding the service
 * role, never the dynamic security administrator. Mosquitto disconnects every connection of a
 * username whose roles change, and each deployment used to give the administrator its root's role
 * at its first start, dropping the consumers of every other deployment (and test run) on the broker,
 * whose QoS 1 messages in flight were then delivered and answered again. The password is derived
 * from the administrator's, so every instance of a deployment knows it without another setting.
 */
export function consumerAccount(root: string, adminPassword: string) {
  const password = createHmac('sha256', adminPassword).update(`eps device MQTT consumer\u0000${root}`).digest('base64url');
  return {
    username: `${root}-service`,
    password,
    /** Kept as the broker client's textdescription: a changed administrator password is seen, and the account's password set again. */
    fingerprint: `password ${createHash('sha256').update(password).digest('hex').slice(0, 16)}`,
  };
}

/** A credential's broker client name is its id: 16 hex characters. */
const CREDENTIAL_CLIENT = /^[0-9a-f]{16}$/;

/** What the table says should be on the broker. */
export interface ValidCredential {
  id: string;
  org_id: string;
  site_id: string;
  device_ids: string[] | null;
  scopes: string[];
}

export interface ReconcileReport {
  /** Broker clients of credentials no longer valid (revoked, expired, rotated out, overlap over), removed. */
  removed: number;
  /** Valid credentials without a broker client (issued while MQTT was off): the secret is not kept, so only a rotation makes one. */
  missing: string[];
  /** Roles brought to the current topic design. */
  updated: number;
}

interface DynsecCommand {
  command: string;
  [k: string]: unknown;
}

export interface BrokerSync {
  apply(change: CredentialChange): Promise<void>;
  /**
   * Makes the consumer's account (consumerAccount) with the role it consumes and answers with, or
   * brings them to the current design (idempotent; decision 0497). Changes only this root's account.
   */
  ensureServiceAccount(): Promise<void>;
  /** Whether ensureServiceAccount has succeeded since start (the periodic pass tries again until it has). */
  serviceAccountReady(): boolean;
  /**
   * Brings the broker's credential clients in step with the table: removes those not valid; with
   * `roles`, also rewrites the roles of valid ones whose access differs (at start). `valid` reads
   * the table; it is called after the broker's clients are listed (decision 0481): a client made
   * by an issue that committed meanwhile is then in both, never taken for a stale one.
   */
  reconcile(valid: () => Promise<ValidCredential[]>, opts: { roles: boolean }): Promise<ReconcileReport>;
  close(): Promise<void>;
}

/** Commands per control message. */
const BATCH = 100;

/**
 * `namespace` (NAMESPACE) and `root` (MQTT_TOPIC_ROOT) are written as each client's textname:
 * reconciliation touches only this deployment's clients, so deployments (and test runs) sharing
 * one broker leave each other alone.
 */
export function createBrokerSync(opts: {
  url: string;
  username: string;
  password: string;
  namespace: string;
  /** MQTT_TOPIC_ROOT: the first level of every topic this deployment grants. */
  root: string;
  log: FastifyBaseLogger;
}): BrokerSync {
  const SERVICE = serviceRole(opts.root);
  /** Each client's textname: which deployment (NAMESPACE) and topic root made it. */
  const tag = `${opts.namespace}:${opts.root}`;
  let client: MqttClient | undefined;
  // Each exchange's commands carry `correlationData` `<exchange>:<index>`, which the broker echoes in
  // each response: an answer goes to the exchange that asked, and one that comes after its exchange
  // timed out is dropped instead of answering the next exchange (it used to be matched in order).
  const waiting = new Map<string, { resolve: (r: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  let exchanges = 0;
  let accountReady = false;

  async function connect(): Promise<MqttClient> {
    if (client) return client;
    const c = await mqtt.connectAsync(opts.url, { username: opts.username, password: opts.password, clean: true, reconnectPeriod: 1000 });
    c.on('message', (_topic, payload) => {
      let answer: { responses?: { correlationData?: unknown }[] };
      try {
        answer = JSON.parse(payload.toString('utf8'));
      } catch {
        return; // not an answer of the broker's: nothing waits on it
      }
      const cd = answer?.responses?.[0]?.correlationData;
      const id = typeof cd === 'string' ? cd.slice(0, cd.lastIndexOf(':')) : undefined;
      const next = id === undefined ? undefined : waiting.get(id);
      if (!next || id === undefined) return;
      waiting.delete(id);
      clearTimeout(next.timer);
      next.resolve(answer);
    });
    c.on('error', (err) => opts.log.warn({ err }, 'device MQTT: broker administration connection error'));
    await c.subscribeAsync(`${CONTROL}/response`, { qos: 1 });
    client = c;
    return c;
  }

  /** Sends commands in one message and returns each answer (error undefined when it succeeded). */
  async function exchange(commands: DynsecCommand[]): Promise<{ command?: string; error?: string; data?: unknown }[]> {
    const c = await connect();
    const id = `x${++exchanges}`;
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('no answer from the broker'));
      }, ANSWER_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
    });
    // Awaited below only once the commands are sent: a send that fails, or a close that rejects the
    // answers waiting, must not leave this one rejected with nobody listening.
    answer.catch(() => {});
    try {
      await c.publishAsync(CONTROL, JSON.stringify({ commands: commands.map((cmd, i) => ({ ...cmd, correlationData: `${id}:${i}` })) }), { qos: 1 });
    } catch (err) {
      const w = waiting.get(id);
      if (w) clearTimeout(w.timer);
      waiting.delete(id);
      throw err;
    }
    const got = (await answer) as { responses?: { command?: string; error?: string; data?: unknown }[] };
    return got.responses ?? [];
  }
  const send = async (commands: DynsecCommand[]) => (await exchange(commands)).map((r) => r.error);

  /** In batches of BATCH commands. */
  async function sendAll(commands: DynsecCommand[]) {
    const out: { command?: string; error?: string; data?: unknown }[] = [];
    for (let i = 0; i < commands.length; i += BATCH) out.push(...(await exchange(commands.slice(i, i + BATCH))));
    return out;
  }

  const aclKey = (a: { acltype: string; topic: string; allow?: boolean }) => `${a.acltype.toLowerCase()} ${a.topic} ${a.allow !== false}`;

  return {
    async apply(change) {
      if (change.kind === 'issued') {
        if (!topicLevelOk(change.orgId) || !topicLevelOk(change.siteId)) {
          opts.log.warn({ org: change.orgId, site: change.siteId }, 'device MQTT: an id that cannot be a topic level; no broker client made');
          return;
        }
        const role = `cred-${change.id}`;
        const acls = aclsFor(opts.root, change.orgId, change.siteId, change.deviceIds, change.scopes);
        // Only now can the client be made (the secret is not kept): an exchange that failed or got
        // no answer is tried again; what an earlier try made ("already exists") counts as made.
        let failed: unknown[] = [];
        for (let attempt = 1; attempt <= ISSUE_ATTEMPTS; attempt++) {
          try {
            const errs = await send([
              { command: 'createRole', rolename: role, acls },
              { command: 'createClient', username: change.id, password: change.secret, textname: tag, roles: [{ rolename: role }] },
            ]);
            failed = errs.filter((e) => e !== undefined && !/already exists/i.test(e));
          } catch (err) {
            failed = [err instanceof Error ? err.message : String(err)];
          }
          if (!failed.length) return;
          opts.log.warn({ credential: change.id, errors: failed, attempt }, 'device MQTT: broker client not made');
        }
        throw new Error(`broker client ${change.id} not made: ${failed.join('; ')}`);
      }
      const commands = change.ids.flatMap((id) => [
        { command: 'deleteClient', username: id },
        { command: 'deleteRole', rolename: `cred-${id}` },
      ]);
      const errs = await send(commands);
      // Deleting what was never made (an id that could not be a topic) is not a failure.
      const failed = errs.filter((e) => e !== undefined && !/not found/i.test(e));
      if (failed.length) opts.log.warn({ credentials: change.ids, errors: failed }, 'device MQTT: broker client not removed');
    },
    async ensureServiceAccount() {
      const account = consumerAccount(opts.root, opts.password);
      const [role, me] = await exchange([
        { command: 'getRole', rolename: SERVICE.name },
        { command: 'getClient', username: account.username },
      ]);
      const check = (errs: (string | undefined)[], what: string) => {
        const failed = errs.filter((e) => e !== undefined && !/already/i.test(e));
        if (failed.length) throw new Error(`${what}: ${failed.join('; ')}`);
      };
      if (role?.error) check(await send([{ command: 'createRole', rolename: SERVICE.name, acls: SERVICE.acls }]), 'createRole');
      else {
        // Made at an earlier start: its access is set again. (A role changed is a disconnect of its
        // holders, this root's consumers only: done only when the design changed.)
        const have = new Set(((role?.data as { role?: { acls?: { acltype: string; topic: string; allow?: boolean }[] } })?.role?.acls ?? []).map(aclKey));
        const add = SERVICE.acls.filter((a) => !have.has(aclKey(a))).map((a) => ({ command: 'addRoleACL', rolename: SERVICE.name, ...a }));
        if (add.length) check(await send(add), 'addRoleACL');
      }
      if (me?.error) {
        // Instances of one deployment starting together: the second is told it exists, with the same password.
        check(
          await send([
            {
              command: 'createClient',
              username: account.username,
              password: account.password,
              textname: tag,
              textdescription: account.fingerprint,
              roles: [{ rolename: SERVICE.name }],
            },
          ]),
          'createClient',
        );
      } else {
        const got = (me?.data as { client?: { textdescription?: string; roles?: { rolename: string }[] } })?.client;
        const fixes: DynsecCommand[] = [];
        // The administrator's password changed: the derived one follows (its consumers are disconnected once, and sign in with it).
        if (got?.textdescription !== account.fingerprint)
          fixes.push(
            { command: 'setClientPassword', username: account.username, password: account.password },
            { command: 'modifyClient', username: account.username, textdescription: account.fingerprint },
          );
        if (!(got?.roles ?? []).some((r) => r.rolename === SERVICE.name))
          fixes.push({ command: 'addClientRole', username: account.username, rolename: SERVICE.name });
        if (fixes.length) check(await send(fixes), 'the consumer account');
      }
      accountReady = true;
    },
    serviceAccountReady: () => accountReady,
    async reconcile(readValid, { roles }) {
      const listed = await exchange([{ command: 'listClients', verbose: true, count: -1 }]);
      if (listed[0]?.error) throw new Error(`listClients: ${listed[0].error}`);
      const clients = (listed[0]?.data as { clients?: { username: string; textname?: string }[] })?.clients ?? [];
      // The table is read after the list: an issue commits before its client is made, so every
      // client listed is of a credential the read sees (one read first would miss an issue that
      // committed between the read and the list, and its new client would be deleted as stale).
      const valid = await readValid();
      // This deployment's: tagged with its namespace and root; a client tagged with the namespace
      // alone was made before topic roots (when every root was `eps`).
      const ours = (t: string | undefined) => t === tag || (opts.root === 'eps' && t === opts.namespace);
      const onBroker = new Set(clients.filter((c) => ours(c.textname) && CREDENTIAL_CLIENT.test(c.username)).map((c) => c.username));
      const wanted = new Map(valid.map((v) => [v.id, v]));
      // Clients made before they carried this tag: adopted when the table holds them (ids are 64 random bits), else left alone.
      const adopt = clients
        .filter((c) => c.textname !== tag && (!c.textname || c.textname === opts.namespace) && wanted.has(c.username))
        .map((c) => c.username);
      if (adopt.length) await sendAll(adopt.map((id) => ({ command: 'modifyClient', username: id, textname: tag })));
      for (const id of adopt) onBroker.add(id);
      const stale = [...onBroker].filter((n) => !wanted.has(n));
      if (stale.length)
        await sendAll(
          stale.flatMap((id) => [
            { command: 'deleteClient', username: id },
            { command: 'deleteRole', rolename: `cred-${id}` },
          ]),
        );
      const missing = valid.filter((v) => !onBroker.has(v.id) && topicLevelOk(v.org_id) && topicLevelOk(v.site_id)).map((v) => v.id);
      let updated = 0;
      if (roles) {
        const present = valid.filter((v) => onBroker.has(v.id));
        const got = await sendAll(present.map((v) => ({ command: 'getRole', rolename: `cred-${v.id}` })));
        const fixes: DynsecCommand[] = [];
        present.forEach((v, i) => {
          const have = (got[i]?.data as { role?: { acls?: { acltype: string; topic: string; allow?: boolean }[] } })?.role?.acls ?? [];
          const want = aclsFor(opts.root, v.org_id, v.site_id, v.device_ids, v.scopes);
          const wantKeys = new Set(want.map(aclKey));
          const haveKeys = new Set(have.map(aclKey));
          const drop = have.filter((a) => !wantKeys.has(aclKey(a)));
          const add = want.filter((a) => !haveKeys.has(aclKey(a)));
          if (!drop.length && !add.length) return;
          updated++;
          for (const a of drop) fixes.push({ command: 'removeRoleACL', rolename: `cred-${v.id}`, acltype: a.acltype, topic: a.topic });
          for (const a of add) fixes.push({ command: 'addRoleACL', rolename: `cred-${v.id}`, ...a });
        });
        if (fixes.length) await sendAll(fixes);
      }
      return { removed: stale.length, missing, updated };
    },
    async close() {
      for (const w of waiting.values()) {
        clearTimeout(w.timer);
        w.reject(new Error('closed'));
      }
      waiting.clear();
      await client?.endAsync();
      client = undefined;
    },
  };
}
