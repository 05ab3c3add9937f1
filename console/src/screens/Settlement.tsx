import { useState } from 'preact/hooks';
import { get } from '../api.ts';
import { num, when } from '../format.ts';
import { Empty, ErrorNote, Loading, Section, useLoad } from '../ui.tsx';

interface Receipt {
  receipt_id: string;
  seq: number;
  site_id: string;
  asset_id: string;
  period_start: string;
  period_end: string;
  direction: string;
  delivered_kwh: string;
  issued_at: string;
  receipt_hash: string;
  shared: boolean;
}
interface Check {
  valid: boolean;
  problems: Array<{ code?: string; message?: string } | string>;
}

export function Settlement() {
  const list = useLoad(() => get<{ receipts: Receipt[]; has_more: boolean }>('/api/vpp/vpp/settle/receipts?limit=50'), []);
  return (
    <Section title="Settlement receipts" id="receipts-title">
      {list.loading && !list.data && <Loading what="receipts" />}
      <ErrorNote error={list.error} retry={list.reload} />
      {list.data && list.data.receipts.length === 0 && <Empty>No receipts issued yet.</Empty>}
      {list.data && list.data.receipts.length > 0 && (
        <table>
          <caption class="sr-only">Settlement receipts</caption>
          <thead>
            <tr>
              <th scope="col">No.</th>
              <th scope="col">Site / asset</th>
              <th scope="col">Period</th>
              <th scope="col">Energy</th>
              <th scope="col">Issued</th>
              <th scope="col">Verification</th>
            </tr>
          </thead>
          <tbody>
            {list.data.receipts.map((r) => (
              <ReceiptRow key={r.receipt_id} r={r} />
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function ReceiptRow({ r }: { r: Receipt }) {
  const [check, setCheck] = useState<Check | null>(null);
  const [error, setError] = useState<unknown>(null);
  async function verify() {
    setError(null);
    try {
      setCheck(await get<Check>(`/api/vpp/vpp/settle/receipts/${encodeURIComponent(r.receipt_id)}/verify`));
    } catch (err) {
      setError(err);
    }
  }
  return (
    <tr>
      <td>{r.seq}</td>
      <td>
        {r.site_id} / {r.asset_id}
      </td>
      <td>
        {when(r.period_start)} to {when(r.period_end)}
      </td>
      <td>
        {r.direction} {num(r.delivered_kwh, 'kWh', 3)}
      </td>
      <td>{when(r.issued_at)}</td>
      <td>
        {check ? (
          <span role="status" class={check.valid ? 'ok' : 'bad'}>
            {check.valid ? '✓ Signature and chain valid' : `✗ ${check.problems.map((p) => (typeof p === 'string' ? p : (p.message ?? p.code))).join('; ')}`}
          </span>
        ) : (
          <button type="button" onClick={verify} aria-label={`Verify receipt ${r.seq}`}>
            Verify
          </button>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}
