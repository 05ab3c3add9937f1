// The printable statement: one self-contained HTML page a person files (figures, method, baseline,
// signature, verification hash and how to verify). Every value is escaped; no script, no remote asset.
import { escapeHtml as esc } from '../../kit/html.ts';
import type { StatementView } from './service.ts';

export function printStatement(s: StatementView, origin: string): string {
  const row = (k: string, v: unknown) => `<tr><th scope="row">${esc(k)}</th><td>${esc(v)}</td></tr>`;
  const fig = (label: string, unit: string, f: { value: string; data_basis: string; method: string }) =>
    `<tr><th scope="row">${esc(label)}</th><td class="n">${esc(f.value)} ${esc(unit)}</td><td>${esc(f.data_basis)}</td><td>${esc(f.method)}</td></tr>`;
  return `<!doctype html>
<html lang="en-GB"><head><meta charset="utf-8"><title>Fleet savings statement ${esc(s.statement_id)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;max-width:60em;margin:2em auto;color:#111}table{border-collapse:collapse;width:100%;margin:1em 0}
th,td{border:1px solid #999;padding:.3em .5em;text-align:left;vertical-align:top}.n{text-align:right;white-space:nowrap}code{word-break:break-all}</style>
</head><body>
<h1>Fleet savings statement</h1>
<table>
${row('Statement', s.statement_id)}
${row('Organisation', s.organisation_id)}
${row('Site', s.site_id)}
${row('Period (UK days, inclusive)', `${s.period_from} to ${s.period_to} (${s.days} days, ${s.days_with_data} with data)`)}
${row('Issued', s.issued_at)}
</table>
<h2>Savings</h2>
<table><thead><tr><th>Figure</th><th>Value</th><th>Data basis</th><th>Method</th></tr></thead><tbody>
${fig('Energy', 'kWh', s.savings.kwh)}
${fig('Money', 'GBP', s.savings.gbp)}
${fig('Emissions avoided', 'kg CO2e', s.savings.co2e_kg)}
</tbody></table>
<table>
${row('Expected grid import (baseline)', `${s.expected_import_kwh} kWh`)}
${row('Actual grid import', `${s.actual_import_kwh} kWh`)}
${row('Carbon factors', s.savings.co2e_kg.factors.map((f) => `${f.year}: ${f.kg_per_kwh} kg/kWh (${f.source})`).join('; ') || 'none')}
</table>
<h2>Baseline</h2>
<table>
${row('Baseline', s.baseline.baseline_id)}
${row('Method', s.baseline.method)}
${row('Reference period', `${s.baseline.reference_from} to ${s.baseline.reference_to}`)}
${row('Mean daily import', `${s.baseline.mean_daily_import_kwh} kWh`)}
${row('Agreed tariff', `${s.baseline.tariff_pence_per_kwh} p/kWh`)}
${row('Agreed', `${s.baseline.agreed_at}${s.baseline.agreed_by ? ` by ${s.baseline.agreed_by}` : ''}`)}
</table>
<h2>Signature and verification</h2>
<table>
${row('Verification hash (SHA-256 of the signed body)', s.statement_hash)}
${row('Signature (Ed25519, base64url)', s.signature)}
${row('Signing key', s.kid)}
</table>
<p>To verify, open <code>${esc(origin + s.verify_path)}</code> (no account needed), or send the signed body and signature
below to <code>POST ${esc(origin)}/api/vpp/vpp/fleet-statements/public/verify</code>. To check offline: the SHA-256 of the signed
body’s UTF-8 bytes must equal the hash above, and the signature must verify with the Ed25519 public key <code>${esc(s.kid)}</code>
published at <code>${esc(origin)}/api/esg/keys</code>.</p>
<h3>Signed body</h3>
<pre><code>${esc(s.signed_body)}</code></pre>
</body></html>
`;
}
