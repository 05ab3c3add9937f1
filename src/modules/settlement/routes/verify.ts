// Verification of settlement receipts, the published keys and checkpoint, reconciliation, and the
// public lookup of a shared receipt (endpoints.md 4.7, Settlement).
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { BEARER } from '../../../platform/operation.ts';
import { paramsTo, queryTo, bodyTo } from '../../../platform/resource.ts';
import { csvRecord } from '../../../kit/csv.ts';
import { RECONCILIATION_METHOD } from '../reconciliation.ts';
import type { SettlementService } from '../service.ts';
import { BASE, op } from './receipts.ts';
import {
  ChainCheck,
  HashParams,
  KeysResponse,
  PublicReceipt,
  ReceiptCheck,
  ReceiptParams,
  Reconciliation,
  ReconQuery,
  VerifyBody,
  VerifyResult,
} from '../schemas.ts';

const VERIFY_METHOD =
  'Each receipt’s signed_body must be its own RFC 8785 canonical form, its Ed25519 signature (S below the group order) must ' +
  'verify with the published key named by kid, and each must follow the one before it (seq + 1, prev_hash = its SHA-256).';

const RECON_COLUMNS = [
  'site_id',
  'asset_id',
  'direction',
  'receipts',
  'receipted_wh',
  'receipted_kwh',
  'first_period_start',
  'last_period_end',
  'covered_seconds',
  'uncovered_seconds',
  'overlapping_receipts',
  'shared_receipts',
  'findings',
] as const;

export function verifyOperations(svc: SettlementService) {
  return [
    op({
      operationId: 'verifySettlementReceipt',
      method: 'GET',
      path: `${BASE}/receipts/{receipt_id}/verify`,
      summary: 'Verify one stored receipt and its link to the previous one',
      description: `${VERIFY_METHOD} \`valid\` is false with the problems listed otherwise.`,
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: VERIFY_METHOD },
      schema: paramsTo(ReceiptParams, ReceiptCheck),
      handler: async ({ params, ctx }) => svc.verifyStored(ctx, params.receipt_id),
    }),
    op({
      operationId: 'verifySettlementChain',
      method: 'GET',
      path: `${BASE}/chain/verify`,
      summary: 'Verify the organisation’s whole receipt chain against its signed checkpoint',
      description:
        `Walks every stored receipt in seq order. ${VERIFY_METHOD} The last one must be the signed checkpoint’s head ` +
        '(seq and head_hash), which exposes receipts missing at the end. Returns the checkpoint: keep it to check a copy ' +
        'of the chain later (docs/settlement.md).',
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: VERIFY_METHOD },
      schema: { response: { 200: ChainCheck } },
      handler: async ({ ctx }) => svc.verifyChain(ctx),
    }),
    op({
      operationId: 'verifyPresentedSettlementReceipts',
      method: 'POST',
      path: `${BASE}/verify`,
      summary: 'Verify a presented copy of receipts (and optionally a checkpoint)',
      description:
        `Checks what is presented from its published form only: ${VERIFY_METHOD} With a checkpoint, the run must reach its ` +
        'seq with its head_hash. Problems are reported by index in the order given; `recorded` says whether your ' +
        'organisation holds exactly those signed bytes. Nothing is stored.',
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: VERIFY_METHOD },
      bodyLimit: 4 * 1024 * 1024,
      schema: bodyTo(VerifyBody, VerifyResult),
      handler: async ({ body, ctx }) => svc.verifyPresented(ctx, body),
    }),
    op({
      operationId: 'getSettlementReconciliation',
      method: 'GET',
      path: `${BASE}/reconciliation`,
      summary: 'Receipted energy per site, asset and direction, with coverage gaps and overlaps',
      description:
        `${RECONCILIATION_METHOD} An overlap means the same delivery may have been receipted twice; a gap, time between the ` +
        'first and last period no receipt covers. Figures are the receipts’ own, not a measurement.',
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: RECONCILIATION_METHOD },
      schema: queryTo(ReconQuery, Reconciliation),
      handler: async ({ query, ctx }) => svc.reconciliation(ctx, query),
    }),
    op({
      operationId: 'exportSettlementReconciliationCsv',
      method: 'GET',
      path: `${BASE}/reconciliation.csv`,
      summary: 'The reconciliation as CSV',
      description: 'The lines of GET reconciliation as `text/csv` (RFC 4180, CRLF, header row); `findings` is space-separated.',
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: RECONCILIATION_METHOD },
      produces: 'text/csv',
      schema: { query: ReconQuery, response: { 200: Type.String({ description: 'CSV text with a header row' }) } },
      handler: async ({ query, ctx, reply }) => {
        const r = await svc.reconciliation(ctx, query);
        const lines = [
          csvRecord([...RECON_COLUMNS]),
          ...r.lines.map((l) => csvRecord(RECON_COLUMNS.map((c) => (c === 'findings' ? l.findings.join(' ') : l[c])))),
        ];
        reply.type('text/csv; charset=utf-8');
        reply.header('Content-Disposition', 'attachment; filename="settlement-reconciliation.csv"');
        return Readable.from(lines);
      },
    }),
    op({
      operationId: 'listSettlementKeys',
      method: 'GET',
      path: `${BASE}/keys`,
      summary: 'The keys that verify settlement receipts, and the organisation’s signed checkpoint',
      description:
        'Every Ed25519 public key that has signed receipts (the same list as the public GET /api/esg/keys), the signing one ' +
        'marked active; and the signed head of the organisation’s chain (null before the first receipt).',
      access: BEARER.read,
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: KeysResponse } },
      handler: async ({ ctx }) => svc.keys(ctx),
    }),
    op({
      operationId: 'getPublicSettlementReceipt',
      method: 'GET',
      path: `${BASE}/public/receipts/{receipt_hash}`,
      summary: 'A shared settlement receipt, by its hash, for counterparty verification',
      description:
        'Public: no credential. Only a receipt its organisation has shared; 404 for any other hash (unknown, unshared, or ' +
        'shared and then withdrawn). Returns the receipt and the public key of its kid, so it can be verified offline.',
      access: { kind: 'public' },
      dataBasis: { basis: 'stored' },
      schema: paramsTo(HashParams, PublicReceipt),
      handler: async ({ params }) => svc.publicReceipt(params.receipt_hash),
    }),
  ];
}
