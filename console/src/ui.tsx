import { useEffect, useRef, useState, useCallback } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ApiError } from './api.ts';
import { zoneName } from './format.ts';

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const seq = useRef(0);
  const reload = useCallback(() => {
    const n = ++seq.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => n === seq.current && setState({ data, error: null, loading: false }),
      (error) => n === seq.current && setState({ data: null, error, loading: false }),
    );
  }, deps);
  useEffect(reload, [reload]);
  return { ...state, reload, set: (data: T) => setState({ data, error: null, loading: false }) };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div class="error" role="alert">
      <p>
        <strong>{e ? describe(e) : 'Something went wrong.'}</strong>
      </p>
      {e?.requestId && (
        <p class="small">
          Request id: <code>{e.requestId}</code>
        </p>
      )}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function describe(e: ApiError): string {
  if (e.status === 429) return `Too many attempts. ${e.retryAfter ? `Try again in ${e.retryAfter} seconds.` : 'Try again shortly.'}`;
  if (e.status === 423) return `${e.message} The account is locked after repeated failed sign-ins.`;
  if (e.status === 403 && /Module not enabled/.test(e.message)) return `${e.message}. Ask your administrator to enable it.`;
  return e.message;
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export interface Series {
  label: string;
  values: Array<number | null>;
  color: string;
  /** Bars instead of a line. */
  bars?: boolean;
  scale?: string;
}

/** A time-series chart (uPlot) with its accessible description; times on the axis in local time. */
export function Chart({
  title,
  unit,
  x,
  series,
  description,
  unit2,
}: {
  title: string;
  unit: string;
  unit2?: string;
  x: number[];
  series: Series[];
  description: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const width = Math.max(280, el.clientWidth);
    const scales: Record<string, uPlot.Scale> = { x: { time: true } };
    const axes: uPlot.Axis[] = [
      { stroke: '#333', grid: { stroke: '#e5e5e5' } },
      { label: unit, stroke: '#333', grid: { stroke: '#e5e5e5' }, size: 60 },
    ];
    if (unit2) {
      scales[unit2] = {};
      axes.push({ scale: unit2, label: unit2, side: 1, stroke: '#333', grid: { show: false }, size: 60 });
    }
    const plot = new uPlot(
      {
        width,
        height: 260,
        scales,
        axes,
        legend: { show: true },
        series: [
          { label: `Time (${zoneName()})` },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            scale: s.scale ?? 'y',
            fill: s.bars ? s.color + '55' : undefined,
            paths: s.bars ? uPlot.paths.bars!({ size: [0.8, 40] }) : undefined,
            spanGaps: false,
          })),
        ],
      },
      [x, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 260 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [x, series, unit, unit2]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={`${title}. ${description}`} data-points={x.length} />
    </figure>
  );
}
