// Fleet savings statements: baselines per site (proposed → agreed / withdrawn), statements issued
// against an agreed baseline and signed with the service's receipt key exactly as settlement
// receipts are (decisions 0110, 0200), a printable page, and public verification.
import { migrationsDir, type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
import { RECEIPT_KEYRING } from '../esg/index.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { ENERGY_FIGURES } from '../energy/index.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { createStatementService } from './service.ts';
import { statementOperations } from './routes.ts';
import { STATEMENT_ERROR_DOCS } from './errors.ts';
import { serviceKey } from '../../platform/services.ts';
import type { Queryable } from '../../infra/db/index.ts';
import { countFor, exportPage } from './store.ts';

type Period = { from: Date | null; to: Date | null };
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
const asRow = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, iso(v)]));

/** The module's data for the organisation's export (the export module's collection shape). */
export const STATEMENTS_EXPORTABLE = serviceKey<ReturnType<typeof exportables>>('statements.exportable');
function exportables() {
  const of = (table: 'baselines' | 'statements', description: string, columns: string[], periodColumn: string) => ({
    name: `statements.${table}`,
    description,
    columns,
    periodColumn,
    count: (q: Queryable, orgId: string, p: Period) => countFor(q, table, orgId, p),
    page: async (q: Queryable, orgId: string, p: Period, after: string | null, limit: number) => {
      const r = await exportPage(q, table, orgId, p, after, limit);
      return { rows: r.rows.map(asRow), last: r.last };
    },
  });
  return [
    of('baselines', 'Fleet savings baselines: reference period, figures, tariff, who proposed, agreed or withdrawn them and when.', [
      'baseline_id', 'site_id', 'method', 'reference_from', 'reference_to', 'figures', 'tariff_pence_per_kwh', 'note', 'status',
      'proposed_by', 'proposed_at', 'agreed_by', 'agreed_at', 'withdrawn_by', 'withdrawn_at', 'withdrawn_reason',
    ], 'proposed_at'),
    of('statements', 'Signed fleet savings statements: the signed body, signature, hash and key of each.', [
      'statement_id', 'site_id', 'baseline_id', 'statement_hash', 'signed_body', 'signature', 'kid', 'issued_at', 'period_from', 'period_to', 'issued_by',
    ], 'issued_at'),
  ];
}

export const statementsModule: ModuleFactory = (deps) => {
  const service = createStatementService(
    { ...deps, audit: deps.services.get(AUDIT_LOG), energy: deps.services.get(ENERGY_FIGURES), sites: deps.services.get(REGISTRY_SITES) },
    deps.services.get(RECEIPT_KEYRING),
  );
  return {
    name: 'statements',
    tags: { 'fleet-statements': 'Fleet savings statements: baselines, signed statements, a printable page and public verification.' },
    errors: STATEMENT_ERROR_DOCS,
    operations: statementOperations(service),
  };
};

/** This module as the module list names it. */
export const statementsDefinition: ModuleDefinition = {
  name: 'statements',
  dependsOn: ['orgs', 'audit', 'registry', 'esg', 'settlement', 'energy'],
  migrations: migrationsDir(import.meta.url),
  provides: (_deps, registry) => registry.provide(STATEMENTS_EXPORTABLE, exportables()),
  create: statementsModule,
};
