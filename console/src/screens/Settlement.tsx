import { useState } from 'preact/hooks';
import { api, data, type Read } from '../api.ts';
import { num, when } from '../format.ts';
import { Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { useRead } from '../query.ts';
import { msg } from '../messages.ts';

const t = msg.receipts;

type Receipt = Read<'/api/vpp/vpp/settle/receipts'>['receipts'][number];
type Check = Read<'/api/vpp/vpp/settle/receipts/{receipt_id}/verify'>;

export function Settlement() {
  const list = useRead(['receipts'], () => data(api().GET('/api/vpp/vpp/settle/receipts', { params: { query: { limit: 50 } } })));
  return (
    <Section title={t.title} id="receipts-title">
      {list.loading && !list.data && <Loading what={t.loading} />}
      <ErrorNote error={list.error} retry={list.reload} />
      {list.data && list.data.receipts.length === 0 && <Empty>{t.empty}</Empty>}
      {list.data && list.data.receipts.length > 0 && (
        <table>
          <caption class="sr-only">{t.title}</caption>
          <thead>
            <tr>
              <th scope="col">{t.col.seq}</th>
              <th scope="col">{t.col.site}</th>
              <th scope="col">{t.col.period}</th>
              <th scope="col">{t.col.energy}</th>
              <th scope="col">{t.col.issued}</th>
              <th scope="col">{t.col.verification}</th>
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
      setCheck(await data(api().GET('/api/vpp/vpp/settle/receipts/{receipt_id}/verify', { params: { path: { receipt_id: r.receipt_id } } })));
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
      <td>{t.period(when(r.period_start), when(r.period_end))}</td>
      <td>
        {r.direction} {num(r.delivered_kwh, 'kWh', 3)}
      </td>
      <td>{when(r.issued_at)}</td>
      <td>
        {check ? (
          <span role="status" class={check.valid ? 'ok' : 'bad'}>
            {check.valid ? t.valid : t.invalid(check.problems.map((p) => (typeof p === 'string' ? p : (p.message ?? p.code))))}
          </span>
        ) : (
          <button type="button" onClick={verify} aria-label={t.verifyLabel(r.seq)}>
            {t.verify}
          </button>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}
