// The run's report as one printable HTML page (inline CSS, server-side SVG chart, no external
// assets) and the proposal pack: a ZIP of the report, a covering letter and a manifest of SHA-256s.
import { createHash } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';
import { ukClock, ukOffsetFast } from '../../kit/uk-time.ts';
import { escapeHtml as esc } from '../../kit/html.ts';
import type { StudyResults } from './model.ts';

export interface ReportMeta {
  study_id: string;
  name: string;
  run_id: string;
  finished_at: string;
  input_versions: Record<string, number>;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** An instant as a person in the UK reads it: "23 November 2026, 10:00 GMT" (BST in summer). */
export function ukWhen(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const c = ukClock(t);
  const [y, m, d] = c.date.split('-');
  const hh = String(Math.floor(c.minute / 60)).padStart(2, '0'),
    mm = String(c.minute % 60).padStart(2, '0');
  return `${Number(d)} ${MONTHS[Number(m) - 1]} ${y}, ${hh}:${mm} ${ukOffsetFast(t) ? 'BST' : 'GMT'}`;
}

/** A round axis step (1, 2 or 5 × 10^k) giving at most five gridlines up to `max`. */
function niceStep(max: number): number {
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw)!;
}

export function barChart(chart: StudyResults['chart']): string {
  const W = 640,
    H = 240,
    pad = 40;
  const top = Math.max(1e-9, ...chart.bars.map((b) => b.value));
  const step = niceStep(top);
  const max = Math.ceil(top / step - 1e-9) * step;
  const ticks: string[] = [];
  for (let v = 0; v <= max + step / 2; v += step) {
    const y = (H - pad - (v / max) * (H - pad * 2)).toFixed(1);
    const text = String(Math.round(v * 1e6) / 1e6);
    ticks.push(
      `<line x1="${pad}" y1="${y}" x2="${W - pad}" y2="${y}" stroke="#ddd"/><text x="${pad - 4}" y="${y}" font-size="10" text-anchor="end" dominant-baseline="middle">${esc(text)}</text>`,
    );
  }
  const n = Math.max(chart.bars.length, 1);
  const bw = (W - pad * 2) / n;
  const bars = chart.bars
    .map((b, i) => {
      const h = (b.value / max) * (H - pad * 2);
      const x = pad + i * bw,
        y = H - pad - h;
      const label =
        n <= 12 || i % 6 === 0 ? `<text x="${(x + bw / 2).toFixed(1)}" y="${H - pad + 14}" font-size="10" text-anchor="middle">${esc(b.label)}</text>` : '';
      return `<rect x="${(x + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(bw - 2, 1).toFixed(1)}" height="${h.toFixed(1)}" fill="#2b6cb0"><title>${esc(b.label)}: ${b.value}</title></rect>${label}`;
    })
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(chart.title)}">` +
    `${ticks.join('')}<line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#333"/>` +
    `<text x="${pad - 30}" y="${pad - 14}" font-size="11">${esc(chart.unit)}</text>${bars}</svg>`
  );
}

export function reportHtml(meta: ReportMeta, r: StudyResults): string {
  const rows = r.figures
    .map((f) => `<tr data-key="${esc(f.key)}"><th scope="row">${esc(f.label)}</th><td class="value">${esc(f.value)}</td><td>${esc(f.unit)}</td></tr>`)
    .join('\n');
  const inputs = Object.entries(meta.input_versions)
    .map(([k, v]) => `<li>${esc(k)}: version ${v}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en-GB"><head><meta charset="utf-8"><title>${esc(meta.name)}: ${esc(r.display_label)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#111}table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}td.value{text-align:right;font-variant-numeric:tabular-nums}.label{display:inline-block;background:#fde68a;padding:.1rem .5rem;border-radius:.2rem}@media print{body{margin:0}.noprint{display:none}}</style>
</head><body>
<h1>${esc(meta.name)}</h1>
<p><span class="label" data-label="${esc(r.label)}">${esc(r.display_label)}</span> Study ${esc(meta.study_id)}, run ${esc(meta.run_id)}, finished <time datetime="${esc(meta.finished_at)}">${esc(ukWhen(meta.finished_at))}</time>.</p>
<h2>Figures</h2>
<table id="figures"><thead><tr><th>Figure</th><th>Value</th><th>Unit</th></tr></thead><tbody>
${rows}
</tbody></table>
<h2>${esc(r.chart.title)}</h2>
${barChart(r.chart)}
<h2>Assumptions</h2><ul>${r.assumptions.map((a) => `<li>${esc(a)}</li>`).join('')}</ul>
<h2>Inputs</h2><ul>${inputs}</ul>
</body></html>
`;
}

export function coveringLetter(meta: ReportMeta, r: StudyResults): string {
  const lines = r.figures.map((f) => `  ${f.label}: ${f.value} ${f.unit === 'GBP' ? '(GBP)' : f.unit}`);
  return [
    `Proposal: ${meta.name}`,
    '',
    'Dear reader,',
    '',
    `Enclosed is the report of study ${meta.study_id} (run ${meta.run_id}, finished ${ukWhen(meta.finished_at)}).`,
    `Its figures are marked "${r.display_label}" (${r.label}): they come from the model and the inputs stated in the report.`,
    '',
    ...lines,
    '',
    'The manifest lists each file of this pack with its SHA-256.',
    '',
  ].join('\r\n');
}

export function proposalPack(meta: ReportMeta, r: StudyResults): Uint8Array {
  const files: Record<string, Uint8Array> = {
    'report.html': strToU8(reportHtml(meta, r)),
    'covering-letter.txt': strToU8(coveringLetter(meta, r)),
  };
  const manifest = {
    study_id: meta.study_id,
    run_id: meta.run_id,
    label: r.label,
    display_label: r.display_label,
    files: Object.entries(files).map(([name, data]) => ({ name, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') })),
  };
  const mtime = new Date(meta.finished_at);
  return zipSync({ ...files, 'manifest.json': strToU8(JSON.stringify(manifest, null, 2) + '\n') }, { level: 6, mtime });
}
