// GET /api/devtools/status: public.
import { Type } from 'typebox';
import { defineOperation } from '../../../platform/operation.ts';
import { Nullable, Timestamp } from '../common.ts';
import type { StatusService } from '../status/service.ts';

const State = Type.Union([Type.Literal('operational'), Type.Literal('degraded'), Type.Literal('unobserved')], {
  description: '`operational` (newest check passed), `degraded` (newest check failed), `unobserved` (no check in the last 5 minutes)',
});
const Window = Type.Object({
  percent: Nullable(Type.Number({ description: 'Share of recorded checks that passed; null when the window holds no check' })),
  checks: Type.Integer(),
  failed: Type.Integer(),
});

export function statusOperations(status: StatusService) {
  return [
    defineOperation({
      operationId: 'getPublicStatus',
      method: 'GET',
      path: '/api/devtools/status',
      summary: 'Public API status and observed availability',
      description:
        'Per public API component: the state now and the availability observed over 24 hours, 7 days and 30 days, counted ' +
        'only from health checks a scheduled job records every minute. No SLA is implied.',
      tags: ['devtools'],
      status: 'live',
      access: { kind: 'public' },
      dataBasis: { basis: 'measured', method: 'Share of the recorded scheduled health checks (one a minute per component) that passed in each window.' },
      schema: {
        response: {
          200: Type.Object({
            status: State,
            generated_at: Timestamp,
            check_interval_seconds: Type.Integer(),
            components: Type.Array(
              Type.Object({
                name: Type.String(),
                description: Type.String(),
                state: State,
                last_checked_at: Nullable(Timestamp),
                availability: Type.Object({ last_24h: Window, last_7d: Window, last_30d: Window }),
              }),
            ),
          }),
        },
      },
      handler: async () => status.status(),
    }),
  ];
}
