// Fleet savings statements (endpoints.md 4.7, all awaiting-migration): baselines per site,
// statements signed like settlement receipts, a printable page, and public verification.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { paramsTo, queryTo, bodyTo } from '../../platform/resource.ts';
import { printStatement } from './print.ts';
import { BASELINE_METHOD_TEXT, CO2E_METHOD, GBP_METHOD, KWH_METHOD, type StatementService } from './service.ts';
import {
  Baseline,
  BaselineList,
  BaselineParams,
  HashParams,
  IssueBody,
  ListQuery,
  ProposeBody,
  SiteParams,
  Statement,
  StatementPage,
  StatementParams,
  VerifyBody,
  VerifyByHash,
  VerifyResult,
  WithdrawBody,
} from './schemas.ts';

export const BASE = '/api/vpp/vpp/fleet-statements';
const op = withDefaults({ tags: ['fleet-statements'], status: 'awaiting-migration' });
const SAVINGS_METHOD = `${KWH_METHOD} ${GBP_METHOD} ${CO2E_METHOD}`;
const VERIFY_METHOD =
  'The signed body must be its own RFC 8785 canonical form with the statement’s members, its Ed25519 signature (S below the group order) ' +
  'must verify with the published key named by kid, and the service must have issued exactly those bytes.';

export function statementOperations(svc: StatementService) {
  return [
    op({
      operationId: 'listFleetBaselines',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/baselines`,
      summary: 'A site’s savings baselines, newest first',
      description: 'Every baseline proposed for the site, with its state (proposed, agreed, withdrawn), who moved it and when.',
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: BASELINE_METHOD_TEXT },
      schema: paramsTo(SiteParams, BaselineList),
      handler: async ({ params, ctx }) => svc.listBaselines(ctx, params.site_id),
    }),
    op({
      operationId: 'proposeFleetBaseline',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/baselines`,
      summary: 'Propose a savings baseline for a site from a reference period',
      description:
        `${BASELINE_METHOD_TEXT} The figures are computed now from the energy model and kept with the baseline; the tariff prices savings. ` +
        'A proposed baseline is agreed (then frozen) or withdrawn. 409 when the energy model holds no data for the reference period.',
      access: BEARER.configure,
      dataBasis: { basis: 'calculated', method: BASELINE_METHOD_TEXT },
      schema: { params: SiteParams, body: ProposeBody, response: { 201: Baseline } },
      handler: async ({ params, body, ctx }) => svc.propose(ctx, params.site_id, body),
    }),
    op({
      operationId: 'getFleetBaseline',
      method: 'GET',
      path: `${BASE}/baselines/{baseline_id}`,
      summary: 'One baseline',
      description: 'The baseline, its figures and its state.',
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: BASELINE_METHOD_TEXT },
      schema: paramsTo(BaselineParams, Baseline),
      handler: async ({ params, ctx }) => svc.baseline(ctx, params.baseline_id),
    }),
    op({
      operationId: 'agreeFleetBaseline',
      method: 'POST',
      path: `${BASE}/baselines/{baseline_id}/agree`,
      summary: 'Agree a proposed baseline (it is then frozen)',
      description:
        'Records who agreed and when. Only a proposed baseline can be agreed: 409 for an agreed or withdrawn one. The proposer cannot agree it: 403 `A baseline must be agreed by someone other than its proposer`.',
      access: BEARER.configure,
      schema: paramsTo(BaselineParams, Baseline),
      handler: async ({ params, ctx }) => svc.agree(ctx, params.baseline_id),
    }),
    op({
      operationId: 'withdrawFleetBaseline',
      method: 'POST',
      path: `${BASE}/baselines/{baseline_id}/withdraw`,
      summary: 'Withdraw a proposed baseline (it can no longer be agreed)',
      description: 'Records who withdrew it, when and why. Only a proposed baseline can be withdrawn: an agreed one is frozen (409).',
      access: BEARER.configure,
      schema: { params: BaselineParams, body: Type.Optional(WithdrawBody), response: { 200: Baseline } },
      handler: async ({ params, body, ctx }) => svc.withdraw(ctx, params.baseline_id, body?.reason),
    }),
    op({
      operationId: 'issueFleetStatement',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/statements`,
      summary: 'Issue a signed savings statement for a period against an agreed baseline',
      description:
        `${SAVINGS_METHOD} The statement is signed with the service’s Ed25519 receipt key over its canonical JSON, exactly as settlement ` +
        'receipts are, and can be verified by anyone from its hash. 409 when the baseline is not agreed or the period has no energy data.',
      access: BEARER.configure,
      dataBasis: { basis: 'calculated', method: SAVINGS_METHOD },
      schema: { params: SiteParams, body: IssueBody, response: { 201: Statement } },
      handler: async ({ params, body, ctx }) => svc.issue(ctx, params.site_id, body),
    }),
    op({
      operationId: 'listFleetStatements',
      method: 'GET',
      path: `${BASE}/statements`,
      summary: 'The organisation’s savings statements, newest first',
      description: 'A cursor page (next_cursor, has_more); optionally one site’s.',
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: queryTo(ListQuery, StatementPage),
      handler: async ({ query, ctx }) => svc.list(ctx, query),
    }),
    op({
      operationId: 'getFleetStatement',
      method: 'GET',
      path: `${BASE}/statements/{statement_id}`,
      summary: 'One savings statement with its signature',
      description: 'The statement as signed: its figures come from signed_body, the statement of record.',
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: paramsTo(StatementParams, Statement),
      handler: async ({ params, ctx }) => svc.get(ctx, params.statement_id),
    }),
    op({
      operationId: 'printFleetStatement',
      method: 'GET',
      path: `${BASE}/statements/{statement_id}/print`,
      summary: 'The statement as a page to print and file',
      description: 'Self-contained HTML: figures with data basis and method, the baseline, the signature, the verification hash and how to verify.',
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      produces: 'text/html',
      schema: { params: StatementParams, response: { 200: Type.String({ description: 'An HTML page' }) } },
      handler: async ({ params, ctx, reply }) => {
        const s = await svc.get(ctx, params.statement_id);
        reply.type('text/html; charset=utf-8');
        reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
        return printStatement(s, '');
      },
    }),
    op({
      operationId: 'verifyFleetStatementByHash',
      method: 'GET',
      path: `${BASE}/public/verify/{statement_hash}`,
      summary: 'Public: verify a statement by its hash',
      description:
        `No credential. ${VERIFY_METHOD} Returns what the statement itself says and the key that signed it, nothing else; 404 for a hash ` +
        'the service never issued.',
      access: { kind: 'public' },
      dataBasis: { basis: 'calculated', method: VERIFY_METHOD },
      schema: paramsTo(HashParams, VerifyByHash),
      handler: async ({ params }) => svc.verifyByHash(params.statement_hash),
    }),
    op({
      operationId: 'verifyPresentedFleetStatement',
      method: 'POST',
      path: `${BASE}/public/verify`,
      summary: 'Public: verify a presented copy of a statement',
      description:
        `No credential. ${VERIFY_METHOD} A copy that fails is refused with 422 and the problems found (valid false); one that passes ` +
        'answers 200. Nothing is stored and nothing beyond the copy is revealed.',
      access: { kind: 'public' },
      dataBasis: { basis: 'calculated', method: VERIFY_METHOD },
      schema: bodyTo(VerifyBody, VerifyResult),
      handler: async ({ body, reply }) => {
        const r = await svc.verifyPresented(body);
        if (!r.valid) reply.code(422);
        return r;
      },
    }),
  ];
}
