// The live event stream (GET /api/live/events): server-sent events parsed by eventsource-parser,
// each event's data decoded as JSON. Sent through the transport, so the bearer token is refreshed
// once on a 401 and a refusal is an ApiError like any other call's.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { Transport } from './transport.ts';

export interface LiveTelemetryRecord {
  asset_id: string;
  ts: string;
  power_kw?: number | null;
  soc_pct?: number | null;
  voltage?: number | null;
  current?: number | null;
  temp_c?: number | null;
  status?: string | null;
}

export interface LiveAlert {
  id: string;
  type: string;
  source: string;
  severity: string;
  status: string;
  title: string;
  subject: unknown;
  raised_at: string;
  resolved_at: string | null;
  /** On `acknowledged` and `assigned` transitions. */
  acknowledged_at?: string | null;
  /** On `acknowledged` and `assigned` transitions. */
  assigned_to?: string | null;
}

export type LiveStreamEvent =
  | { event: 'ready'; data: { organisation_id: string; buffer: number; data_basis: 'stored' | 'simulated' } }
  | {
      event: 'telemetry';
      data: {
        received_at: string /** false: streamed, but the store write failed (the sender was told to retry) */;
        stored: boolean;
        records: LiveTelemetryRecord[];
      };
    }
  | { event: 'alert'; data: { transition: 'raised' | 'resolved' | 'acknowledged' | 'assigned'; alert: LiveAlert } }
  | { event: 'dropped'; data: { dropped: number } };

export async function* liveStream(transport: Transport, signal?: AbortSignal): AsyncGenerator<LiveStreamEvent> {
  const res = await transport.send(new Request(`${transport.baseUrl}/api/live/events`, { headers: { accept: 'text/event-stream' }, signal }));
  if (!res.body) return;
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const next = await reader.read().catch((e: unknown) => {
        if (signal?.aborted) return { done: true as const, value: undefined };
        throw e;
      });
      if (next.done) return;
      const { event, data } = next.value;
      if (!event) continue;
      yield { event, data: JSON.parse(data) } as LiveStreamEvent;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
