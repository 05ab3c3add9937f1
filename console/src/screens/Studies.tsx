// Plan studies: the organisation's studies, one created from a type's sample inputs with a button,
// a run started in the background with its progress bar read every second while it is queued or
// running, and a succeeded run's results, report (HTML) and proposal pack (ZIP) downloaded. The
// study is in the address (`#/studies?study=<id>`).
import { api, data, type Read } from '../api.ts';
import { num, pounds, when } from '../format.ts';
import { msg } from '../messages.ts';
import { Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { queryClient, useMutation, useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';

const B = '/api/notifications/studies';
type Study = Read<'/api/notifications/studies/{study_id}'>;
type Runs = Read<'/api/notifications/studies/{study_id}/runs'>;
type Run = Runs['runs'][number];
type StudyType = Study['study_type'];
/** While a run is queued or running, the runs are read this often. */
const PROGRESS_EVERY_MS = 1_000;
const going = (r: Run) => r.status === 'queued' || r.status === 'running';
const m = msg.studies;

export function Studies() {
  const study = useRoute().params.get('study');
  return (
    <div class="grid">
      <StudyList chosen={study} />
      {study ? <StudyRuns key={study} id={study} /> : null}
    </div>
  );
}

function StudyList({ chosen }: { chosen: string | null }) {
  const studies = useRead(['studies'], () => data(api().GET(B, { params: { query: { limit: 50 } } })));
  const types = useRead(['study-types'], () => data(api().GET(`${B}/types`)), { staleTime: Infinity });
  const sample = useMutation<Study, StudyType>({
    mutationFn: (t) => data(api().POST(`${B}/samples/{study_type}`, { params: { path: { study_type: t } } })),
    onSuccess: (s) => {
      void studies.reload();
      select({ study: s.study_id });
    },
  });
  const title = (t: string) => types.data?.study_types.find((x) => x.study_type === t)?.title ?? t.replace(/_/g, ' ');
  return (
    <Section title={m.title} id="studies-title">
      {types.data && (
        <form
          class="inline-form"
          aria-label={m.sampleForm}
          onSubmit={(e) => {
            e.preventDefault();
            const t = new FormData(e.currentTarget).get('study_type');
            if (typeof t === 'string') sample.mutate(t as StudyType);
          }}
        >
          <label for="study-type">{m.type}</label>
          <select id="study-type" name="study_type">
            {types.data.study_types.map((t) => (
              <option key={t.study_type} value={t.study_type}>
                {t.title}
              </option>
            ))}
          </select>
          <button type="submit" disabled={sample.isPending}>
            {m.sampleButton}
          </button>
          <ErrorNote error={sample.error} />
        </form>
      )}
      <ErrorNote error={types.error} retry={types.reload} />
      {studies.loading && !studies.data && <Loading what={m.loading} />}
      <ErrorNote error={studies.error} retry={studies.reload} />
      {studies.data && studies.data.studies.length === 0 && <Empty>{m.empty}</Empty>}
      {studies.data && studies.data.studies.length > 0 && (
        <ul class="list" aria-label={m.listLabel}>
          {studies.data.studies.map((s) => (
            <li key={s.study_id}>
              <button type="button" class="row" aria-pressed={s.study_id === chosen} onClick={() => select({ study: s.study_id })}>
                <strong>{s.name}</strong>
                <span class="small">
                  {title(s.study_type)} · {m.inputs(s.inputs.length, s.required_inputs.length)} · {when(s.created_at)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function StudyRuns({ id }: { id: string }) {
  const study = useRead(['study', id], () => data(api().GET(`${B}/{study_id}`, { params: { path: { study_id: id } } })));
  const known = queryClient.getQueryData<Runs>(['study-runs', id]);
  const runs = useRead(['study-runs', id], () => data(api().GET(`${B}/{study_id}/runs`, { params: { path: { study_id: id }, query: { limit: 20 } } })), {
    staleTime: 0,
    refetchInterval: known?.runs.some(going) ? PROGRESS_EVERY_MS : false,
  });
  const start = useMutation<Run>({
    mutationFn: () => data(api().POST(`${B}/{study_id}/runs`, { params: { path: { study_id: id } } })),
    onSuccess: () => void runs.reload(),
  });
  const s = study.data;
  const missing = s ? s.required_inputs.filter((k) => !s.inputs.some((i) => i.kind === k)) : [];
  return (
    <Section title={s ? m.runsTitle(s.name) : m.runsTitle(id)} id="study-runs-title">
      {study.loading && !s && <Loading what={m.studyLoading} />}
      <ErrorNote error={study.error} retry={study.reload} />
      {s && (
        <>
          {s.description && <p class="small">{s.description}</p>}
          <p class="small">{m.inputList(s.inputs.map((i) => m.input(i.kind.replace(/_/g, ' '), i.version, i.row_count)).join('; ') || m.noInputs)}</p>
          <div class="toolbar">
            <button type="button" disabled={start.isPending || missing.length > 0 || !!runs.data?.runs.some(going)} onClick={() => start.mutate(undefined)}>
              {m.runButton}
            </button>
            {missing.length > 0 && <span class="small">{m.missing(missing.map((k) => k.replace(/_/g, ' ')).join(', '))}</span>}
          </div>
          <ErrorNote error={start.error} />
        </>
      )}
      {runs.loading && !runs.data && <Loading what={m.runsLoading} />}
      <ErrorNote error={runs.error} retry={runs.reload} />
      {runs.data && runs.data.runs.length === 0 && <Empty>{m.noRuns}</Empty>}
      {runs.data?.runs.map((r) => (
        <RunView key={r.run_id} study={id} run={r} />
      ))}
    </Section>
  );
}

function RunView({ study, run: r }: { study: string; run: Run }) {
  const percent = r.progress.percent ?? 0;
  return (
    <div class="run">
      <label class="progress">
        <span>
          {m.runLine(m.status[r.status] ?? r.status, when(r.created_at))}
          {r.finished_at ? m.finished(when(r.finished_at)) : ''}
        </span>
        <progress max={100} value={percent}>
          {percent} %
        </progress>
        <span>{percent} %</span>
      </label>
      {r.error && <p class="bad">{m.failed(r.error)}</p>}
      {r.results && (
        <>
          <table>
            <caption>
              {r.results.display_label} <span class="badge basis-calculated">{m.modelled}</span>
            </caption>
            <thead>
              <tr>
                <th scope="col">{m.col.figure}</th>
                <th scope="col">{m.col.value}</th>
              </tr>
            </thead>
            <tbody>
              {r.results.figures.map((f) => (
                <tr key={f.key}>
                  <th scope="row">{f.label}</th>
                  <td>{figure(f.value, f.unit)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="toolbar">
            <Download study={study} run={r.run_id} what="report" />
            <Download study={study} run={r.run_id} what="proposal-pack" />
          </div>
        </>
      )}
    </div>
  );
}

/** A result figure: money (GBP) in pounds and pence, other numbers with their unit, text as it is. */
function figure(value: string, unit: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(value)) return m.text(value, unit);
  return unit === 'GBP' ? pounds(value) : num(value, unit);
}

/** Fetches the report or the proposal pack with the session's token (so not a plain link) and saves it. */
function Download({ study, run, what }: { study: string; run: string; what: 'report' | 'proposal-pack' }) {
  const get = useMutation<Blob>({
    mutationFn: async () => {
      const path = { study_id: study, run_id: run };
      const r =
        what === 'report'
          ? await api().GET(`${B}/{study_id}/runs/{run_id}/report`, { params: { path }, parseAs: 'blob' })
          : await api().GET(`${B}/{study_id}/runs/{run_id}/proposal-pack`, { params: { path }, parseAs: 'blob' });
      return r.data as Blob;
    },
    onSuccess: (blob) => {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = what === 'report' ? `report-${run}.html` : `proposal-${run}.zip`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    },
  });
  return (
    <>
      <button type="button" disabled={get.isPending} onClick={() => get.mutate(undefined)}>
        {what === 'report' ? m.report : m.pack}
      </button>
      {get.error ? <ErrorNote error={get.error} /> : null}
    </>
  );
}
