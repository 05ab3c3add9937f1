// The tariff provider's public REST API (upstreams.md section 1): Agile half-hourly unit rates.
// GET /v1/products/{product}/electricity-tariffs/E-1R-{product}-{region}/standard-unit-rates/
// ?period_from&period_to&page_size, answered newest first, paged with an opaque absolute `next`.
import { BadResponseError, jsonBody, UpstreamError, type UpstreamClient } from '../../infra/upstream/index.ts';
import { withVat } from '../../kit/decimal.ts';
import { isoZ, parseInstant, SLOT_MS } from '../../kit/uk-time.ts';

export const TARIFF_PROVIDER = 'Tariff provider';
export const VAT_PERCENT = 5;
/** The provider's documented maximum; never send more. */
const PAGE_SIZE = 1500;
const MAX_PAGES = 40;

export interface RateRow {
  from: number;
  to: number;
  /** p/kWh as published, both figures. */
  exc: number;
  inc: number;
}

function num(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new BadResponseError(`${what} is not a number`);
  return v;
}

function instant(v: unknown, what: string): number {
  const t = typeof v === 'string' ? parseInstant(v) : null;
  if (t === null) throw new BadResponseError(`${what} is not a zoned date-time`);
  return t;
}

/** One page of the provider's unit rates, as answered (also the demo sample's form, sample.ts). */
export function decodePage(raw: unknown): { rows: RateRow[]; next: string | null } {
  if (!raw || typeof raw !== 'object' || !Array.isArray((raw as { results?: unknown }).results)) {
    throw new BadResponseError('no results list');
  }
  const page = raw as { results: unknown[]; next?: unknown };
  if (page.next !== undefined && page.next !== null && typeof page.next !== 'string') {
    throw new BadResponseError('next is not a link');
  }
  const rows: RateRow[] = [];
  for (const r of page.results) {
    if (!r || typeof r !== 'object') throw new BadResponseError('a result is not an object');
    const row = r as Record<string, unknown>;
    // Agile rows carry no payment method; a tariff that prices by payment method is not Agile.
    if (row.payment_method !== undefined && row.payment_method !== null && row.payment_method !== 'DIRECT_DEBIT') continue;
    const from = instant(row.valid_from, 'valid_from');
    const to = row.valid_to === null || row.valid_to === undefined ? from + SLOT_MS : instant(row.valid_to, 'valid_to');
    if (to <= from) throw new BadResponseError('valid_to is not after valid_from');
    const exc = num(row.value_exc_vat, 'value_exc_vat');
    // The provider's inclusive figure is authoritative; derived only when absent, from the
    // unrounded exclusive one.
    const inc = row.value_inc_vat === undefined || row.value_inc_vat === null ? withVat(exc, VAT_PERCENT) : num(row.value_inc_vat, 'value_inc_vat');
    rows.push({ from, to, exc, inc });
  }
  return { rows, next: (page.next as string | null | undefined) ?? null };
}

export interface TariffProvider {
  productCode: string;
  tariffCode(region: string): string;
  /** Every published half hour overlapping [from, to), ascending, one row per start time. */
  fetchRates(region: string, from: number, to: number): Promise<RateRow[]>;
}

export function createTariffProvider(client: UpstreamClient, productCode: string): TariffProvider {
  const tariffCode = (region: string) => `E-1R-${productCode}-${region}`;
  return {
    productCode,
    tariffCode,
    async fetchRates(region, from, to) {
      const path = `/v1/products/${productCode}/electricity-tariffs/${tariffCode(region)}/standard-unit-rates/`;
      let link: string | null = client.url(path, { period_from: isoZ(from), period_to: isoZ(to), page_size: PAGE_SIZE });
      const byStart = new Map<number, RateRow>();
      for (let pages = 0; link; pages++) {
        if (pages >= MAX_PAGES) throw new UpstreamError(client.provider, 'bad_response', 'too many pages');
        const page: { rows: RateRow[]; next: string | null } = await client.call({ url: link, decode: (res) => decodePage(jsonBody(res)) });
        for (const row of page.rows) if (!byStart.has(row.from)) byStart.set(row.from, row);
        if (!page.next) break;
        // Follow `next` as given, but only on the configured host and the same resource.
        link = client.onBase(page.next);
        if (!link || !new URL(link).pathname.endsWith(path)) {
          throw new UpstreamError(client.provider, 'bad_response', 'next link leaves the resource');
        }
      }
      return [...byStart.values()].filter((r) => r.to > from && r.from < to).sort((a, b) => a.from - b.from);
    },
  };
}
