// Field's own errors: named once, thrown by the service, rendered by the platform.
import { AppError, errors, fieldError } from '../../platform/errors.ts';
import { isoTime } from '../../platform/schema-kit.ts';

export const fieldErrors = {
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(['body', ...loc], msg, input)]),
  transition: (from: string, to: string, allowed: string[]) =>
    new AppError(
      409,
      `Cannot move a work order from ${from} to ${to}; allowed: ${allowed.length ? allowed.join(', ') : `none (${from} is final)`}` +
        (to === 'assigned' && from === 'new' ? '; assign it with POST /api/hardware/field/work-orders/{work_order_id}/assign' : ''),
      { code: 'transition_not_allowed', members: { from, to, allowed } },
    ),
  closed: (status: string, what: string) => new AppError(409, `Work order is ${status}; only an open work order can be ${what}`, { code: 'work_order_closed' }),
  alertResolved: (id: string) => new AppError(409, `Alert ${id} is resolved; no work order was opened`, { code: 'alert_not_open' }),
  feedFresh: (deviceId: string, lastTs: Date) =>
    new AppError(409, `Feed of device ${deviceId} is fresh: last record at ${isoTime(lastTs)}; a feed is stale after 1 hour without a record`, {
      code: 'feed_fresh',
    }),
  tooMany: (what: string, max: number) => new AppError(409, `A work order holds at most ${max} ${what}`, { code: `too_many_${what}` }),
};

export const FIELD_ERROR_DOCS = [
  { code: 'transition_not_allowed', status: 409, description: 'The move is not in the vocabulary from the current status; `allowed` lists those that are.' },
  { code: 'work_order_closed', status: 409, description: 'Completed, verified or cancelled work orders cannot be assigned or reprioritised.' },
  { code: 'alert_not_open', status: 409, description: 'The alert is resolved and no work order was opened from it.' },
  { code: 'feed_fresh', status: 409, description: "The device's newest record is under an hour old: its feed is not stale." },
  { code: 'too_many_notes', status: 409, description: 'A work order holds at most 1000 notes.' },
  { code: 'too_many_attachments', status: 409, description: 'A work order holds at most 200 attachments.' },
] as const;
