// The gateway operations for entries other than HTTP (device MQTT, decision 0440): heartbeat and
// buffer replay exactly as POST /api/hardware/ems/comms/{site_id}/heartbeat and
// POST /api/hardware/ems/buffer/{site_id}/replay take them: the same path and body rules (the
// routes' own schemas and the platform's text guard, with the same 422 field errors), the same service, and the answer as the
// routes serialise it (their response schemas). The caller authenticates and scopes the actor and
// runs this in the organisation's scope.
import fastJsonStringify from 'fast-json-stringify';
import type { ValidateFunction } from 'ajv';
import { errors } from '../../platform/errors.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { compileValidator, toFieldErrors } from '../../platform/validation.ts';
import { illFormedTextError } from '../../platform/text-guard.ts';
import { findIllFormedText } from '../../kit/text.ts';
import type { BufferReplay, ReplayBody } from './buffer.ts';
import type { GatewayLink, HeartbeatBody } from './gateway.ts';
import * as S from './schemas.ts';

export interface GatewayEntry {
  /** A heartbeat: the GatewayStatus answer (200). An empty body is `{}`, as over HTTP. */
  heartbeat(ctx: RequestContext, siteId: string, body: unknown): Promise<{ httpStatus: number; body: Record<string, unknown> }>;
  /** A buffer replay: 200 or 207 with the ReplayResult answer. */
  replay(ctx: RequestContext, siteId: string, body: unknown): Promise<{ httpStatus: number; body: Record<string, unknown> }>;
}

/** Compiled on first use, as the routes' validators and serializers are (platform/schema-compilers.ts). */
function lazy<T>(make: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= make());
}

/** The route's rules in the order HTTP applies them: text no store can hold (the platform's guard), then the schema. */
function check(validate: ValidateFunction, part: 'params' | 'body', data: unknown) {
  const text = findIllFormedText(data, [part]);
  if (text) throw illFormedTextError(text);
  if (!validate(data)) throw errors.validation(toFieldErrors(validate.errors ?? [], part, data));
}

export function createGatewayEntry(g: GatewayLink, b: BufferReplay): GatewayEntry {
  const params = lazy(() => compileValidator({ schema: S.SiteParams, httpPart: 'params' }));
  const heartbeatBody = lazy(() => compileValidator({ schema: S.HeartbeatBody, httpPart: 'body' }));
  const replayBody = lazy(() => compileValidator({ schema: S.ReplayBody, httpPart: 'body' }));
  const status = lazy(() => fastJsonStringify(S.GatewayStatus, { schema: {} }) as (d: unknown) => string);
  const replayResult = lazy(() => fastJsonStringify(S.ReplayResponse, { schema: {} }) as (d: unknown) => string);
  const serialised = (s: (d: unknown) => string, d: unknown) => JSON.parse(s(d)) as Record<string, unknown>;

  return {
    async heartbeat(ctx, siteId, body) {
      check(params(), 'params', { site_id: siteId });
      const b0 = body ?? {};
      check(heartbeatBody(), 'body', b0);
      return { httpStatus: 200, body: serialised(status(), await g.heartbeat(ctx, siteId, b0 as HeartbeatBody)) };
    },
    async replay(ctx, siteId, body) {
      check(params(), 'params', { site_id: siteId });
      check(replayBody(), 'body', body);
      const { httpStatus, ...out } = await b.replay(ctx, siteId, body as ReplayBody);
      return { httpStatus, body: serialised(replayResult(), out) };
    },
  };
}
