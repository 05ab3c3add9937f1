import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ApiError, type Basis, ConnectionError, detailText } from './api.ts';
import { addDays, axisLabels, axisNumber, dayText, num, parseDay, parseDayTime, when, zoneName } from './format.ts';
import { msg } from './messages.ts';
import { cssColour, setTheme, type ThemeChoice, useTheme } from './theme.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      {msg.common.loading(what)}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A refusal in words with its request id; `headline` says what it means where the screen knows better. */
export function ErrorNote({ error, retry, headline }: { error: unknown; retry?: () => void; headline?: string }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div class="error" role="alert">
      <p>
        <strong>{headline ?? (e ? describe(e) : error instanceof ConnectionError ? msg.common.unreachable : msg.common.wrong)}</strong>
      </p>
      {headline && e && <p class="small">{msg.common.answered(e.status, describe(e))}</p>}
      {e?.requestId && (
        <p class="small">
          {msg.common.requestId} <code>{e.requestId}</code>
        </p>
      )}
      {retry && (
        <button type="button" onClick={retry}>
          {msg.common.retry}
        </button>
      )}
    </div>
  );
}

export function describe(e: ApiError): string {
  const text = detailText(e);
  if (e.status === 429) return msg.common.tooMany(e.retryAfterSeconds);
  if (e.status === 423) return msg.common.locked(text);
  if (e.status === 403 && /Module not enabled/.test(text)) return msg.common.moduleOff(text);
  return text;
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
  /** The second axis (the chart's `unit2`) rather than the first. */
  scale?: string;
  /** The unit of its values in the legend (the axis's otherwise). */
  unit?: string;
}

/**
 * A time-series chart (uPlot) with its accessible description: times on the axis in local time
 * (en-GB, 24-hour), figures in en-GB; a second unit gets an axis on the right (battery power and
 * state of charge on one chart); `basis` says how the figures were come by, under the title.
 */
export function Chart({
  title,
  unit,
  x,
  series,
  description,
  unit2,
  pointSeconds = 1800,
  xRange,
  basis,
  sparse = false,
}: {
  title: string;
  unit: string;
  unit2?: string;
  x: number[];
  series: Series[];
  description: string;
  /** The time one point stands for (its bucket): a lone point is shown with this much either side. */
  pointSeconds?: number;
  /** The time shown (seconds), whatever the points: a custom range. */
  xRange?: [number, number];
  /** The figures' data basis (the service's `x-platform-data-basis` and method). */
  basis?: Basis | null;
  /** Series merged on one time axis (each null where another has a point): lines join their points. */
  sparse?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const { dark } = useTheme();
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const axis = cssColour('--chart-axis', '#333');
    const gridLine = cssColour('--chart-grid', '#e5e5e5');
    const width = Math.max(280, el.clientWidth);
    // uPlot widens a time axis with a single x to "a day" counted in milliseconds (round(86400 / ms)),
    // which for our seconds is 86,400,000 s: a lone sample sat at the left of an axis years wide.
    // A lone time (or a span shorter than one bucket) is shown with one bucket either side of it.
    const first = x[0];
    const last = x[x.length - 1];
    const scales: Record<string, uPlot.Scale> = {
      x: {
        time: true,
        range: (_u, min, max) => xRange ?? (x.length > 0 && last - first < pointSeconds ? [first - pointSeconds, last + pointSeconds] : [min, max]),
      },
    };
    const numbers = (_u: uPlot, splits: number[]) => splits.map(axisNumber);
    const axes: uPlot.Axis[] = [
      { stroke: axis, grid: { stroke: gridLine }, values: (_u, splits, _i, _space, step) => axisLabels(splits, step) },
      { label: unit, stroke: axis, grid: { stroke: gridLine }, size: 60, values: numbers },
    ];
    if (unit2) {
      // A percentage (state of charge) reads against 0 to 100, not an axis stretched to line up with the other.
      scales[unit2] = unit2 === '%' ? { range: [0, 100] } : {};
      axes.push({ scale: unit2, label: unit2, side: 1, stroke: axis, grid: { show: false }, size: 60, values: numbers });
    }
    const plot = new uPlot(
      {
        width,
        height: 260,
        scales,
        axes,
        legend: { show: true },
        // The shown time span, for tests and tools (the axis itself is drawn on a canvas).
        hooks: { setScale: [(u, key) => key === 'x' && el.setAttribute('data-x-span', String(Math.round((u.scales.x.max ?? 0) - (u.scales.x.min ?? 0))))] },
        series: [
          { label: msg.chart.time(zoneName()), value: (_u: uPlot, v: number | null) => (v === null ? '--' : when(new Date(v * 1000).toISOString())) },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            scale: s.scale ?? 'y',
            value: (_u: uPlot, v: number | null) => (v === null ? '--' : num(v, s.unit ?? s.scale ?? unit)),
            fill: s.bars ? s.color + '55' : undefined,
            paths: s.bars ? uPlot.paths.bars!({ size: [0.8, 40] }) : undefined,
            spanGaps: sparse,
            // A lone sample has no line to draw: show it as a dot.
            ...(x.length <= 2 && { points: { show: true, size: 8 } }),
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
  }, [x, series, unit, unit2, pointSeconds, dark, xRange?.[0], xRange?.[1], sparse]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {basis && (
        <p class="small basis">
          {msg.chart.basis} <span class={`badge basis-${basis.basis}`}>{basis.basis}</span>
          {basis.method ? ` ${basis.method}` : ''}
        </p>
      )}
      <div
        ref={host}
        role="img"
        aria-label={`${title}. ${description}${basis ? ` ${msg.chart.basisSaid(basis.basis)}` : ''}`}
        data-points={x.length}
        data-axes={unit2 ? `${unit} | ${unit2}` : unit}
      />
    </figure>
  );
}

/**
 * A day typed as the console writes it (`24/11/2026`, en-GB) or as ISO, with the day before and
 * after a click away; `onChange` gets ISO days only. The browser's date input is not used: it
 * shows `11/24/2026` in Chromium builds whatever the page's language (issue 41, item 3).
 * The caller's `<label for={id}>` names it.
 */
export function DayField({ id, value, onChange }: { id: string; value: string; onChange: (iso: string) => void }) {
  const [text, setText] = useState(dayText(value));
  const [bad, setBad] = useState(false);
  useEffect(() => {
    setText(dayText(value));
    setBad(false);
  }, [value]);
  const commit = (t: string, final: boolean) => {
    const iso = parseDay(t);
    if (iso) {
      setBad(false);
      if (iso !== value) onChange(iso);
    } else if (final) setBad(t.trim() !== '');
  };
  return (
    <span class="dayfield">
      <button type="button" class="step" aria-label={msg.day.before} title={msg.day.before} onClick={() => onChange(addDays(value, -1))}>
        ‹
      </button>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autocomplete="off"
        size={10}
        placeholder={msg.day.placeholder}
        aria-describedby={`${id}-hint`}
        aria-invalid={bad}
        value={text}
        onInput={(e) => {
          const v = e.currentTarget.value;
          setText(v);
          commit(v, false);
        }}
        onBlur={() => commit(text, true)}
        onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value, true)}
      />
      <button type="button" class="step" aria-label={msg.day.after} title={msg.day.after} onClick={() => onChange(addDays(value, 1))}>
        ›
      </button>
      <span id={`${id}-hint`} class={bad ? 'bad small' : 'small'} role={bad ? 'alert' : undefined}>
        {bad ? msg.day.invalid : msg.day.hint}
      </span>
    </span>
  );
}

/**
 * A local day and 24-hour time typed as the console writes them (`24/11/2026` and `14:30`), in the
 * same style as DayField: the browser's datetime-local input is not used, as Debian's Chromium
 * shows it in US order with a 12-hour clock whatever the page's language. `onChange` gets the
 * instant (ISO, UTC) once both parts are real, and '' while they are not. `label` names both parts.
 */
export function DateTimeField({ id, label, onChange }: { id: string; label: string; onChange: (iso: string) => void }) {
  const [day, setDay] = useState('');
  const [time, setTime] = useState('');
  const [bad, setBad] = useState(false);
  const update = (d: string, t: string, final: boolean) => {
    const iso = parseDayTime(d, t);
    onChange(iso ?? '');
    if (iso) setBad(false);
    else if (final) setBad(d.trim() !== '' && t.trim() !== '');
  };
  return (
    <span class="dayfield">
      <input
        id={`${id}-day`}
        type="text"
        inputMode="numeric"
        autocomplete="off"
        size={10}
        placeholder={msg.day.placeholder}
        aria-label={msg.dateTime.day(label)}
        aria-describedby={`${id}-hint`}
        aria-invalid={bad}
        value={day}
        onInput={(e) => {
          setDay(e.currentTarget.value);
          update(e.currentTarget.value, time, false);
        }}
        onBlur={() => update(day, time, true)}
      />
      <input
        id={`${id}-time`}
        class="time"
        type="text"
        inputMode="numeric"
        autocomplete="off"
        size={5}
        placeholder={msg.dateTime.timePlaceholder}
        aria-label={msg.dateTime.time(label)}
        aria-describedby={`${id}-hint`}
        aria-invalid={bad}
        value={time}
        onInput={(e) => {
          setTime(e.currentTarget.value);
          update(day, e.currentTarget.value, false);
        }}
        onBlur={() => update(day, time, true)}
      />
      <span id={`${id}-hint`} class={bad ? 'bad small' : 'small'} role={bad ? 'alert' : undefined}>
        {bad ? msg.dateTime.invalid : msg.dateTime.hint(zoneName())}
      </span>
    </span>
  );
}

/** The light/dark switch: the system's setting, or a choice kept in this browser. */
export function ThemeSwitch() {
  const { choice } = useTheme();
  return (
    <span class="theme">
      <label for="theme-choice">{msg.theme.label}</label>
      <select id="theme-choice" value={choice} onChange={(e) => setTheme(e.currentTarget.value as ThemeChoice)}>
        {(['system', 'light', 'dark'] as const).map((c) => (
          <option key={c} value={c}>
            {msg.theme.choice[c]}
          </option>
        ))}
      </select>
    </span>
  );
}
