// VPP enrolment and signal (endpoints.md 4.7, VPP enrolment).
import { defineOperation } from '../../platform/operation.ts';
import { CAN_CONFIGURE, CAN_READ } from '../../platform/roles.ts';
import type { VppService } from './vpp-service.ts';
import { SIGNAL_METHOD } from './signal.ts';
import { EnrolBody, Enrolment, ErrorDetail, SignalQuery, SignalResponse, SiteParams } from './schemas.ts';

const SEPARATE = 'Enrolment is its own state: it implies no partnership, qualification or dispatch, and sends no device command.';

export function vppOperations(vpp: VppService) {
  const tags = ['vpp'];
  return [
    defineOperation({
      operationId: 'getVppEnrollment',
      method: 'GET',
      path: '/api/optimiser/vpp-signal/{site_id}/enrollment',
      summary: 'A site’s enrolment in the virtual power plant',
      description: `status is not_enrolled, enrolled or withdrawn. ${SEPARATE}`,
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      dataBasis: { basis: 'stored' },
      schema: { params: SiteParams, response: { 200: Enrolment } },
      handler: async ({ params, ctx }) => vpp.get(ctx, params.site_id),
    }),
    defineOperation({
      operationId: 'enrollVppSite',
      method: 'POST',
      path: '/api/optimiser/vpp-signal/{site_id}/enrollment',
      summary: 'Enrol a site in the virtual power plant',
      description: `201 when the site becomes enrolled; 200 when it already was (the region is updated). Audited. ${SEPARATE}`,
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_CONFIGURE },
      dataBasis: { basis: 'stored' },
      schema: { params: SiteParams, body: EnrolBody, response: { 200: Enrolment, 201: Enrolment } },
      handler: async ({ params, body, ctx, reply }) => {
        const r = await vpp.enrol(ctx, params.site_id, body.region);
        reply.code(r.created ? 201 : 200);
        return r.enrolment;
      },
    }),
    defineOperation({
      operationId: 'withdrawVppSite',
      method: 'POST',
      path: '/api/optimiser/vpp-signal/{site_id}/withdraw',
      summary: 'Withdraw a site from the virtual power plant',
      description: '409 `Site is not enrolled in the virtual power plant` when it is not enrolled. Audited.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_CONFIGURE },
      dataBasis: { basis: 'stored' },
      schema: { params: SiteParams, response: { 200: Enrolment, 409: ErrorDetail } },
      handler: async ({ params, ctx }) => vpp.withdraw(ctx, params.site_id),
    }),
    defineOperation({
      operationId: 'getVppSignal',
      method: 'GET',
      path: '/api/optimiser/vpp-signal/{site_id}/signal',
      summary: 'The VPP signal for an enrolled site',
      description:
        'Charge, discharge or hold for the current and coming half hours, with the reason, derived from the site ' +
        'region’s published prices and the GB carbon intensity forecast. Calculated advice: no device command is ' +
        'sent. 409 `Site is not enrolled in the virtual power plant` for a site not enrolled; 502 when a provider ' +
        'fails with nothing cached.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      dataBasis: { basis: 'calculated', method: SIGNAL_METHOD },
      schema: { params: SiteParams, query: SignalQuery, response: { 200: SignalResponse, 409: ErrorDetail, 502: ErrorDetail } },
      handler: async ({ params, query, ctx }) => vpp.signal(ctx, params.site_id, query.hours ?? 4),
    }),
  ];
}
