// Settlement receipts (endpoints.md 4.7, Settlement): issue, read, export, share and unshare.
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import { paramsTo, queryTo } from '../../../platform/resource.ts';
import { csvRecord } from '../../../kit/csv.ts';
import type { SettlementService } from '../service.ts';
import { IssueBody, ListFilterProps, ListQuery, Receipt, ReceiptList, ReceiptParams } from '../schemas.ts';
import { ErrorResponse } from '../../../platform/schema-kit.ts';

export const BASE = '/api/vpp/vpp/settle';
const tags = ['settlement'];
export const NO_MONEY = 'A settlement receipt records what was delivered; it moves no money and submits nothing to any market.';

const CSV_COLUMNS = [
  'seq',
  'receipt_id',
  'receipt_hash',
  'prev_hash',
  'issued_at',
  'site_id',
  'asset_id',
  'reference',
  'period_start',
  'period_end',
  'direction',
  'delivered_wh',
  'delivered_kwh',
  'source_basis',
  'kid',
  'signature',
  'shared',
] as const;

/** The settlement operations' shared members (receipts and verification alike). */
export const op = withDefaults({ tags, status: 'live', access: BEARER.read, dataBasis: { basis: 'stored' } });

export function receiptOperations(svc: SettlementService) {
  return [
    op({
      operationId: 'listSettlementReceipts',
      method: 'GET',
      path: `${BASE}/receipts`,
      summary: 'The organisation’s settlement receipts, newest first',
      description:
        'A page of receipts, highest seq first. Filters: `site_id`, `asset_id`, `shared`. Follow `next_cursor` until null; ' +
        'a cursor works only with the filters it was made with (otherwise 400 `invalid_cursor`). To verify the chain, ' +
        `put the pages in seq order. ${NO_MONEY}`,
      schema: queryTo(ListQuery, ReceiptList),
      handler: async ({ query, ctx }) => svc.list(ctx, query),
    }),
    op({
      operationId: 'exportSettlementReceiptsCsv',
      method: 'GET',
      path: `${BASE}/receipts.csv`,
      summary: 'The organisation’s settlement receipts as CSV',
      description:
        'Streamed `text/csv` (RFC 4180, CRLF line ends, header row), newest first, with the list’s filters. Text a ' +
        'spreadsheet would run as a formula is prefixed with an apostrophe. The CSV is for reading; verify from ' +
        '`signed_body` (JSON list), which the CSV does not carry.',
      produces: 'text/csv',
      schema: { query: Type.Object(ListFilterProps), response: { 200: Type.String({ description: 'CSV text with a header row' }) } },
      handler: async ({ query, ctx, reply }) => {
        const filters = { site_id: query.site_id, asset_id: query.asset_id, shared: query.shared };
        async function* rows() {
          yield csvRecord([...CSV_COLUMNS]);
          for await (const r of svc.all(ctx, filters)) yield csvRecord(CSV_COLUMNS.map((c) => r[c]));
        }
        reply.type('text/csv; charset=utf-8');
        reply.header('Content-Disposition', 'attachment; filename="settlement-receipts.csv"');
        return Readable.from(rows());
      },
    }),
    op({
      operationId: 'issueSettlementReceipt',
      method: 'POST',
      path: `${BASE}/receipts/issue`,
      summary: 'Sign a settlement receipt and append it to the organisation’s chain',
      description:
        'Records energy delivered by an asset over a period (whole watt-hours), signs it with the service’s Ed25519 key and ' +
        'appends it to the organisation’s hash chain: seq is the next number, prev_hash the previous receipt’s hash. ' +
        'Concurrent issues are serialised per organisation, so the chain never forks. 201 with the receipt. 422 when ' +
        'period_end is not after period_start, more than 31 days later, or in the future. 503 `Signing key not configured` ' +
        `in production without ESG_SIGNING_KEY. Audited. ${NO_MONEY} Enrolment, dispatch and metering are separate states: ` +
        'issuing checks none of them.',
      access: BEARER.configure,
      schema: { body: IssueBody, response: { 201: Receipt, 503: ErrorResponse } },
      handler: async ({ body, ctx }) => svc.issue(ctx, body),
    }),
    op({
      operationId: 'getSettlementReceipt',
      method: 'GET',
      path: `${BASE}/receipts/{receipt_id}`,
      summary: 'One settlement receipt',
      description: '404 when the organisation has no receipt with this id.',
      schema: paramsTo(ReceiptParams, Receipt),
      handler: async ({ params, ctx }) => svc.get(ctx, params.receipt_id),
    }),
    op({
      operationId: 'shareSettlementReceipt',
      method: 'POST',
      path: `${BASE}/receipts/{receipt_id}/share`,
      summary: 'Publish a receipt by its hash for counterparty verification',
      description:
        'While shared, anyone holding the hash reads the receipt (and the key that signed it) at `public_path` without a ' +
        'credential: its signed body, including the organisation id, site, asset and energy, becomes visible to them. ' +
        'Sharing a shared receipt changes nothing. Audited.',
      access: BEARER.configure,
      schema: paramsTo(ReceiptParams, Receipt),
      handler: async ({ params, ctx }) => svc.share(ctx, params.receipt_id),
    }),
    op({
      operationId: 'unshareSettlementReceipt',
      method: 'DELETE',
      path: `${BASE}/receipts/{receipt_id}/share`,
      summary: 'Withdraw a receipt from counterparty verification',
      description:
        'The public lookup answers 404 again. The receipt itself, its place in the chain and its signature are unchanged. ' +
        'Unsharing an unshared receipt changes nothing. Audited.',
      access: BEARER.configure,
      schema: paramsTo(ReceiptParams, Receipt),
      handler: async ({ params, ctx }) => svc.unshare(ctx, params.receipt_id),
    }),
  ];
}
