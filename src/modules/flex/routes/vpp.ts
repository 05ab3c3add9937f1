// VPP enrolment and signal (endpoints.md 4.7, VPP enrolment).
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import { paramsTo } from '../../../platform/resource.ts';
import type { VppService } from '../vpp-service.ts';
import { SIGNAL_METHOD } from '../signal.ts';
import { EnrolBody, Enrolment, SignalQuery, SignalResponse, SiteParams } from '../schemas.ts';
import { ErrorResponse } from '../../../platform/schema-kit.ts';

const SEPARATE = 'Enrolment is its own state: it implies no partnership, qualification or dispatch, and sends no device command.';

export function vppOperations(vpp: VppService) {
  const tags = ['vpp'];
  const op = withDefaults({ tags, status: 'live', dataBasis: { basis: 'stored' } });
  return [
    op({
      operationId: 'getVppEnrollment',
      method: 'GET',
      path: '/api/optimiser/vpp-signal/{site_id}/enrollment',
      summary: 'A site’s enrolment in the virtual power plant',
      description: `status is not_enrolled, enrolled or withdrawn. ${SEPARATE}`,
      access: BEARER.read,
      schema: paramsTo(SiteParams, Enrolment),
      handler: async ({ params, ctx }) => vpp.get(ctx, params.site_id),
    }),
    op({
      operationId: 'enrollVppSite',
      method: 'POST',
      path: '/api/optimiser/vpp-signal/{site_id}/enrollment',
      summary: 'Enrol a site in the virtual power plant',
      description: `201 when the site becomes enrolled; 200 when it already was (the region is updated). Audited. ${SEPARATE}`,
      access: BEARER.configure,
      schema: { params: SiteParams, body: EnrolBody, response: { 200: Enrolment, 201: Enrolment } },
      handler: async ({ params, body, ctx, reply }) => {
        const r = await vpp.enrol(ctx, params.site_id, body.region);
        reply.code(r.created ? 201 : 200);
        return r.enrolment;
      },
    }),
    op({
      operationId: 'withdrawVppSite',
      method: 'POST',
      path: '/api/optimiser/vpp-signal/{site_id}/withdraw',
      summary: 'Withdraw a site from the virtual power plant',
      description: '409 `Site is not enrolled in the virtual power plant` when it is not enrolled. Audited.',
      access: BEARER.configure,
      schema: { params: SiteParams, response: { 200: Enrolment, 409: ErrorResponse } },
      handler: async ({ params, ctx }) => vpp.withdraw(ctx, params.site_id),
    }),
    op({
      operationId: 'getVppSignal',
      method: 'GET',
      path: '/api/optimiser/vpp-signal/{site_id}/signal',
      summary: 'The VPP signal for an enrolled site',
      description:
        'Charge, discharge or hold for the current and coming half hours, with the reason, derived from the site ' +
        'region’s published prices and the GB carbon intensity forecast. Calculated advice: no device command is ' +
        'sent. 409 `Site is not enrolled in the virtual power plant` for a site not enrolled; 502 when a provider ' +
        'fails with nothing cached.',
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: SIGNAL_METHOD },
      schema: { params: SiteParams, query: SignalQuery, response: { 200: SignalResponse, 409: ErrorResponse, 502: ErrorResponse } },
      handler: async ({ params, query, ctx }) => vpp.signal(ctx, params.site_id, query.hours ?? 4),
    }),
  ];
}
