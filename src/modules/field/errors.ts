// Field's own errors, declared once (platform/error-docs.ts declareErrors): thrown by the service,
// rendered by the platform.
import { declareErrors } from '../../platform/error-docs.ts';
import { isoTime } from '../../platform/schema-kit.ts';

export const { errors: fieldErrors, docs: FIELD_ERROR_DOCS } = declareErrors(
  {
    transition: {
      status: 409,
      detail: (from: string, to: string, allowed: string[]) =>
        `Cannot move a work order from ${from} to ${to}; allowed: ${allowed.length ? allowed.join(', ') : `none (${from} is final)`}` +
        (to === 'assigned' && from === 'new' ? '; assign it with POST /api/hardware/field/work-orders/{work_order_id}/assign' : ''),
      members: (from: string, to: string, allowed: string[]) => ({ from, to, allowed }),
      code: 'transition_not_allowed',
      doc: 'The move is not in the vocabulary from the current status; `allowed` lists those that are.',
    },
    closed: {
      status: 409,
      detail: (status: string, what: string) => `Work order is ${status}; only an open work order can be ${what}`,
      code: 'work_order_closed',
      doc: 'Completed, verified or cancelled work orders cannot be assigned or reprioritised.',
    },
    alertResolved: {
      status: 409,
      detail: (id: string) => `Alert ${id} is resolved; no work order was opened`,
      code: 'alert_not_open',
      doc: 'The alert is resolved and no work order was opened from it.',
    },
    feedFresh: {
      status: 409,
      detail: (deviceId: string, lastTs: Date) =>
        `Feed of device ${deviceId} is fresh: last record at ${isoTime(lastTs)}; a feed is stale after 1 hour without a record`,
      code: 'feed_fresh',
      doc: "The device's newest record is under an hour old: its feed is not stale.",
    },
    tooManyNotes: {
      status: 409,
      detail: (max: number) => `A work order holds at most ${max} notes`,
      code: 'too_many_notes',
      doc: 'A work order holds at most 1000 notes.',
    },
    tooManyAttachments: {
      status: 409,
      detail: (max: number) => `A work order holds at most ${max} attachments`,
      code: 'too_many_attachments',
      doc: 'A work order holds at most 200 attachments.',
    },
  },
  { fieldsIn: 'body' },
);
