// Exports of the organisation's data: choose collections, a format and a period, start a job, follow
// its progress bar, then download each collection as CSV or JSON Lines. The job is in the address
// (`#/exports?job=<id>`), so a reload or a link finds it again; its progress is read every second
// while it runs and never after it ends.
import { useState } from 'preact/hooks';
import { api, data, type Read } from '../api.ts';
import { num, when } from '../format.ts';
import { Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { queryClient, useMutation, useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';
import { msg } from '../messages.ts';

const x = msg.exports;

type Job = Read<'/api/organisations/export/jobs/{job_id}'>;
type Format = Job['format'];
const FORMATS: ReadonlyArray<{ format: Format; label: string }> = [
  { format: 'csv', label: msg.exports.format.csv },
  { format: 'jsonl', label: msg.exports.format.jsonl },
];
/** A running job's progress is read this often. */
const PROGRESS_EVERY_MS = 1_000;
const ENDED = new Set<Job['status']>(['completed', 'failed', 'expired']);

export function Exports() {
  const job = useRoute().params.get('job');
  return (
    <div class="grid">
      <NewExport />
      {job ? <ExportJob key={job} id={job} /> : null}
    </div>
  );
}

function NewExport() {
  const manifest = useRead(['export-manifest'], () => data(api().GET('/api/organisations/export/manifest')));
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [format, setFormat] = useState<Format>('csv');
  const start = useMutation<Job>({
    mutationFn: () => data(api().POST('/api/organisations/export', { body: { format, ...(chosen.size > 0 && { collections: [...chosen] }) } })),
    onSuccess: (j) => {
      queryClient.setQueryData(['export-job', j.job_id], j);
      select({ job: j.job_id });
    },
  });
  const list = manifest.data?.collections ?? [];
  const toggle = (name: string) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  return (
    <Section title={x.title} id="export-title">
      {manifest.loading && <Loading what={x.collectionsLoading} />}
      <ErrorNote error={manifest.error} retry={manifest.reload} />
      {manifest.data && list.length === 0 && <Empty>{x.nothing}</Empty>}
      {list.length > 0 && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            start.mutate(undefined);
          }}
        >
          <fieldset>
            <legend>{x.collections}</legend>
            {list.map((c) => (
              <label key={c.name} class="check">
                <input type="checkbox" checked={chosen.has(c.name)} onChange={() => toggle(c.name)} /> {c.name}{' '}
                <span class="small">
                  {num(c.row_count, x.rows(c.row_count), 0)} · {c.description}
                </span>
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>{x.formatLegend}</legend>
            {FORMATS.map((f) => (
              <label key={f.format} class="check">
                <input type="radio" name="format" checked={format === f.format} onChange={() => setFormat(f.format)} /> {f.label}
              </label>
            ))}
          </fieldset>
          <p class="small">{x.kept(manifest.data?.expires_after_hours)}</p>
          <button type="submit" disabled={start.isPending}>
            {x.start}
          </button>
          <ErrorNote error={start.error} />
        </form>
      )}
    </Section>
  );
}

function ExportJob({ id }: { id: string }) {
  // Once the job has ended its answer no longer changes: stop asking.
  const known = queryClient.getQueryData<Job>(['export-job', id]);
  const job = useRead(['export-job', id], () => data(api().GET('/api/organisations/export/jobs/{job_id}', { params: { path: { job_id: id } } })), {
    staleTime: 0,
    refetchInterval: known && ENDED.has(known.status) ? false : PROGRESS_EVERY_MS,
  });
  const j = job.data;
  return (
    <Section title={x.progressTitle} id="export-job-title">
      {job.loading && <Loading what={x.jobLoading} />}
      <ErrorNote error={job.error} retry={job.reload} />
      {j && (
        <>
          <p>
            <strong>{j.status}</strong> · {x.jobLine(x.format[j.format] ?? j.format, j.collections.length, when(j.started_at ?? j.created_at))}
          </p>
          <label class="progress">
            <span>{x.progress(j.progress.done.toLocaleString('en-GB'), num(j.progress.total ?? 0, 'rows', 0), j.collections_done, j.collections.length)}</span>
            <progress max={100} value={j.progress.percent ?? 0}>
              {j.progress.percent} %
            </progress>
            <span>{j.progress.percent} %</span>
          </label>
          {j.error && <p class="bad">{x.failed(j.error)}</p>}
          {j.status === 'completed' && (
            <>
              <p class="small">{x.ready(when(j.expires_at))}</p>
              <table>
                <caption class="sr-only">{x.downloads}</caption>
                <thead>
                  <tr>
                    <th scope="col">{x.col.collection}</th>
                    <th scope="col">{x.col.download}</th>
                  </tr>
                </thead>
                <tbody>
                  {j.collections.map((c) => (
                    <tr key={c}>
                      <th scope="row">{c}</th>
                      <td>
                        {FORMATS.map((f) => (
                          <DownloadButton key={f.format} job={j.job_id} collection={c} format={f.format} label={f.label} />
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
          {j.status === 'expired' && <Empty>{x.expired}</Empty>}
        </>
      )}
    </Section>
  );
}

/** Fetches one collection (with the session's token, so not a plain link) and saves it as a file. */
function DownloadButton({ job, collection, format, label }: { job: string; collection: string; format: Format; label: string }) {
  const get = useMutation<Blob>({
    mutationFn: async () => {
      const r = await api().GET('/api/organisations/export/jobs/{job_id}/collections/{collection}', {
        params: { path: { job_id: job, collection }, query: { format } },
        parseAs: 'blob',
      });
      return r.data as Blob;
    },
    onSuccess: (blob) => {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${collection}.${format === 'csv' ? 'csv' : 'jsonl'}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    },
  });
  return (
    <>
      <button type="button" disabled={get.isPending} onClick={() => get.mutate(undefined)} aria-label={x.downloadLabel(collection, label)}>
        {label}
      </button>{' '}
      {get.error ? <ErrorNote error={get.error} /> : null}
    </>
  );
}
