// Chargers for the hub tests: ocpp-rpc's own client (strict validation against the official
// schemas), connecting over a real WebSocket to the service's listening HTTP server.
import ocppRpc from 'ocpp-rpc';
import type { TestService } from '../helpers/service.ts';
import { json } from '../helpers/service.ts';

const { RPCClient } = ocppRpc;

/** The parts of ocpp-rpc's client the tests use (its own typings make every option required and every answer unknown). */
export interface Charger {
  readonly protocol: string;
  connect(): Promise<unknown>;
  call(method: string, params?: unknown): Promise<any>;
  close(opts?: { force?: boolean; code?: number }): Promise<unknown>;
  handle(method: string, fn: (c: { params: any }) => unknown): void;
  sendRaw(message: string): void;
  on(event: string, fn: (e: any) => void): void;
}

export async function listen(svc: TestService): Promise<string> {
  const address = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  return address.replace('http://', 'ws://');
}

export function charger(opts: { base: string; orgId: string; id: string; password: string; protocol: 'ocpp1.6' | 'ocpp2.0.1'; strict?: boolean }): Charger {
  const options = {
    endpoint: `${opts.base}/ocpp/${opts.orgId}`,
    identity: opts.id,
    password: opts.password,
    protocols: [opts.protocol],
    strictMode: opts.strict ?? true,
    reconnect: false,
    callTimeoutMs: 5_000,
  };
  return new RPCClient(options as never) as unknown as Charger;
}

export const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/** A site with a published schedule, and a registered charge point; returns its password. */
export async function siteWithCharger(svc: TestService, token: string, site: Record<string, unknown>, cp: Record<string, unknown>) {
  const s = await svc.request({ method: 'POST', url: '/api/csms/api/hub/sites', headers: auth(token), payload: site });
  if (s.statusCode !== 201 && s.statusCode !== 409) throw new Error(`site: ${s.statusCode} ${s.body}`);
  const r = await svc.request({ method: 'POST', url: `/api/csms/api/hub/sites/${site.site_id}/charge-points`, headers: auth(token), payload: cp });
  if (r.statusCode !== 201) throw new Error(`charge point: ${r.statusCode} ${r.body}`);
  return json(r) as { password: string; ocpp_url: string; ocpp_endpoint: string; asset_id: string };
}
