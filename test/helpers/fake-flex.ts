// A loopback fake of an operator's flexibility platform, shaped as upstreams.md section 4.2
// describes the marketplace API: machine-user token, bidding opportunities, obligations, ballots of
// bids; trailing slashes; decimals as strings.
import { randomUUID } from 'node:crypto';
import { startFakeServer, sendJson, type FakeHandler, type FakeServer, type RecordedRequest } from './fake-server.ts';

export interface FakeFlex {
  server: FakeServer;
  url: string;
  clientId: string;
  apiKey: string;
  mode: 'ok' | 'down' | 'slow' | 'garbage';
  /** Refuse the next ballots with 400. */
  rejectBallots: boolean;
  /** Answers every request instead of the fake's own logic while set. */
  override: FakeHandler | null;
  opportunities: Record<string, unknown>[];
  obligations: Record<string, unknown>[];
  ballots: { id: string; competition_id: string; body: any; bids: { id: string }[] }[];
  /** Invalidate every token issued so far (the next call answers 401). */
  expireTokens(): void;
  /** Turn a ballot's bids into contractual obligations at a clearing price. */
  award(ballotId: string, clearingPrice: string): void;
  calls(path: RegExp, method?: string): RecordedRequest[];
  close(): Promise<void>;
}

function jwt(exp: number): string {
  const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b({ alg: 'HS256', typ: 'JWT' })}.${b({ sub: 'machine@api.example', exp, jti: randomUUID() })}.c2ln`;
}

export function sampleOpportunities(prefix: string): Record<string, unknown>[] {
  return [
    {
      id: `${prefix}-comp-1`,
      reference: `${prefix.toUpperCase()}-2026-SUMMER-Z12`,
      name: 'Summer 2026 peak reduction, zone 12',
      zone: { name: 'Zone 12' },
      product: 'Scheduled Utilisation',
      status: 'open',
      bidding_closes_at: '2026-06-20T12:00:00Z',
      capacity_required: '2.500',
      service_windows: [{ id: `${prefix}-sw-1`, start: '2026-07-01T16:00:00Z', end: '2026-07-01T19:00:00Z' }],
      qualified_assets: { flex: ['asset-1'], planned: [] },
      unknown_future_field: { nested: true },
    },
    { id: `${prefix}-comp-2`, reference: `${prefix.toUpperCase()}-2026-DA-7`, name: 'Day-ahead 7', status: 'open' },
  ];
}

export async function startFakeFlex(opts: { clientId: string; apiKey: string; prefix: string; now: () => number }): Promise<FakeFlex> {
  const valid = new Set<string>();
  const fake: FakeFlex = {
    server: undefined as unknown as FakeServer,
    url: '',
    clientId: opts.clientId,
    apiKey: opts.apiKey,
    mode: 'ok',
    rejectBallots: false,
    override: null,
    opportunities: sampleOpportunities(opts.prefix),
    obligations: [
      // Someone else's award: never shown to an organisation that did not bid on it.
      {
        id: `${opts.prefix}-obl-other`,
        competition_id: `${opts.prefix}-comp-2`,
        bid_id: 'not-ours',
        capacity: '9.000',
        rates: [{ type: 'utilisation', value: '999.00' }],
        start: '2026-07-02T16:00:00Z',
        end: '2026-07-02T17:00:00Z',
      },
    ],
    ballots: [],
    expireTokens: () => valid.clear(),
    award(ballotId, clearingPrice) {
      const b = fake.ballots.find((x) => x.id === ballotId)!;
      b.bids.forEach((bid, i) =>
        fake.obligations.push({
          id: `obl-${bid.id}`,
          competition_id: b.competition_id,
          competition_reference: b.body.reference,
          bid_id: bid.id,
          capacity: b.body.bids[i].capacity,
          rates: [{ type: 'utilisation', value: clearingPrice }],
          start: b.body.bids[i].start,
          end: new Date(Date.parse(b.body.bids[i].start) + 3600_000).toISOString(),
          status: 'active',
        }),
      );
    },
    calls: (path, method) => fake.server.requests.filter((r) => path.test(r.url) && (!method || r.method === method)),
    close: () => fake.server.close(),
  };
  const route = async (req: RecordedRequest, res: import('node:http').ServerResponse): Promise<unknown> => {
    if (fake.override) return fake.override(req, res);
    if (fake.mode === 'down') return sendJson(res, 500, { detail: 'Internal error at 10.0.0.7, trace id secret-123' });
    if (fake.mode === 'slow') {
      // Never answers: past any deadline the tests configure (the socket goes when the fake closes).
      return new Promise<never>(() => {});
    }
    if (fake.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"results": [{"no_id": true}]');
    }
    const path = new URL(req.url, fake.url).pathname;
    if (!path.endsWith('/')) return sendJson(res, 404, { detail: 'Piclo requests all URLs end with a trailing slash' });
    if (req.method === 'POST' && path === '/authtoken/v1/') {
      const b = JSON.parse(req.body || '{}');
      if (b.client_id !== fake.clientId || b.api_key !== fake.apiKey) return sendJson(res, 401, { detail: 'Invalid credentials' });
      const token = jwt(Math.floor(opts.now() / 1000) + 3600);
      valid.add(token);
      return sendJson(res, 200, { token });
    }
    const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!valid.has(auth)) return sendJson(res, 401, { detail: 'Given token not valid for any token type' });
    if (req.method === 'GET' && path === '/bidding-opportunities/v1/')
      return sendJson(res, 200, { count: fake.opportunities.length, next: null, previous: null, results: fake.opportunities });
    if (req.method === 'GET' && path === '/obligations/v1/')
      return sendJson(res, 200, { count: fake.obligations.length, next: null, previous: null, results: fake.obligations });
    const m = /^\/bids\/v1\/competitions\/([^/]+)\/ballots\/$/.exec(path);
    if (req.method === 'POST' && m) {
      const competition = decodeURIComponent(m[1]);
      if (!fake.opportunities.some((o) => o.id === competition)) return sendJson(res, 404, { detail: 'Not found.' });
      const body = JSON.parse(req.body);
      if (fake.rejectBallots) return sendJson(res, 400, { bids: [{ capacity: ['Capacity exceeds qualified capacity of 0.5 MW'] }] });
      const ballot = { id: randomUUID(), competition_id: competition, body, bids: body.bids.map(() => ({ id: randomUUID() })) };
      fake.ballots.push(ballot);
      return sendJson(res, 201, {
        id: ballot.id,
        competition_id: competition,
        created: new Date(opts.now()).toISOString(),
        bids: body.bids.map((b: object, i: number) => ({ ...b, id: ballot.bids[i].id })),
        assets: { flex: [], planned: [] },
      });
    }
    sendJson(res, 404, { detail: 'Not found.' });
  };
  fake.server = await startFakeServer(async (req, res) => {
    await route(req, res);
  });
  fake.url = fake.server.url;
  return fake;
}
