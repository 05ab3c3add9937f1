// The field vocabulary (decision 0160): work-order statuses and the moves between them, priorities,
// kinds of work, and the default SLA policy of each priority. Served as is by GET /vocabulary.
import { wordsOf } from '../../kit/vocabulary.ts';

export const STATUS_DESCRIPTIONS = {
  new: 'Raised, nobody assigned yet.',
  assigned: 'A member of the organisation owns it (the assign operation moves a new work order here).',
  scheduled: 'A visit is booked (`scheduled_for`).',
  in_progress: 'An engineer is attending: the first move here is the SLA response.',
  on_hold: 'Waiting on parts, access or the customer; the SLA clocks pause when the policy says so.',
  completed: 'The work is done: the SLA resolution. May be reopened (back to in_progress) until verified.',
  verified: 'The completed work was checked and accepted. Final.',
  cancelled: 'Withdrawn; the SLA clocks stop. Final.',
};
export type Status = keyof typeof STATUS_DESCRIPTIONS;
export const STATUSES = wordsOf(STATUS_DESCRIPTIONS);

/** Statuses in which the work order is still open (assignable, clocks may run). */
export const OPEN_STATUSES: readonly Status[] = ['new', 'assigned', 'scheduled', 'in_progress', 'on_hold'];
export const isOpen = (s: Status) => OPEN_STATUSES.includes(s);

export interface Transition {
  from: Status;
  to: Status;
  /** Which operation makes the move: `assign` (POST .../assign) or `transition` (POST .../transition). */
  via: 'assign' | 'transition';
  description: string;
}

export const TRANSITIONS: readonly Transition[] = [
  { from: 'new', to: 'assigned', via: 'assign', description: 'Assigning a new work order to a member.' },
  { from: 'new', to: 'cancelled', via: 'transition', description: 'Withdrawn before anyone took it.' },
  { from: 'assigned', to: 'scheduled', via: 'transition', description: 'A visit is booked; needs `scheduled_for`.' },
  { from: 'assigned', to: 'in_progress', via: 'transition', description: 'The engineer attends without a booking.' },
  { from: 'assigned', to: 'on_hold', via: 'transition', description: 'Waiting before anyone attends.' },
  { from: 'assigned', to: 'cancelled', via: 'transition', description: 'Withdrawn.' },
  { from: 'scheduled', to: 'in_progress', via: 'transition', description: 'The engineer attends the booked visit.' },
  { from: 'scheduled', to: 'on_hold', via: 'transition', description: 'The visit is put off.' },
  { from: 'scheduled', to: 'cancelled', via: 'transition', description: 'Withdrawn.' },
  { from: 'in_progress', to: 'on_hold', via: 'transition', description: 'Work stops: parts, access or the customer.' },
  { from: 'in_progress', to: 'completed', via: 'transition', description: 'The work is done.' },
  { from: 'in_progress', to: 'cancelled', via: 'transition', description: 'Withdrawn while in progress.' },
  { from: 'on_hold', to: 'in_progress', via: 'transition', description: 'Work resumes.' },
  { from: 'on_hold', to: 'scheduled', via: 'transition', description: 'A new visit is booked; needs `scheduled_for`.' },
  { from: 'on_hold', to: 'cancelled', via: 'transition', description: 'Withdrawn while on hold.' },
  { from: 'completed', to: 'verified', via: 'transition', description: 'The work is checked and accepted.' },
  { from: 'completed', to: 'in_progress', via: 'transition', description: 'Reopened: the check failed; the resolution clock runs again.' },
];

/** Statuses the transition operation may move to from `from`, in vocabulary order. */
export function allowedMoves(from: Status): Status[] {
  return TRANSITIONS.filter((t) => t.from === from && t.via === 'transition').map((t) => t.to);
}

export const PRIORITY_DESCRIPTIONS = {
  critical: 'Generation or safety lost now: attend within the hour, around the clock.',
  high: 'Significant loss or risk: same day, around the clock.',
  medium: 'Degraded: next business day.',
  low: 'Routine: within two business weeks.',
};
export type Priority = keyof typeof PRIORITY_DESCRIPTIONS;
export const PRIORITIES = wordsOf(PRIORITY_DESCRIPTIONS);

export const KIND_DESCRIPTIONS = {
  corrective: 'Fix a fault (work opened from an alert is corrective).',
  preventive: 'Planned maintenance.',
  inspection: 'Look and report; no repair expected.',
  installation: 'Fit or replace equipment.',
  communications: 'Restore a data feed (work opened from a stale feed).',
};
export type Kind = keyof typeof KIND_DESCRIPTIONS;
export const KINDS = wordsOf(KIND_DESCRIPTIONS);

export const MEASURES = ['calendar_hours', 'business_hours'] as const;
export type Measure = (typeof MEASURES)[number];

export interface SlaPolicy {
  priority: Priority;
  /** Minutes from creation to the first move to in_progress. */
  response_minutes: number;
  /** Minutes from creation to completed. */
  resolution_minutes: number;
  measure: Measure;
  /** Business day in UK local time (Europe/London), HH:MM; used when measure is business_hours. */
  business_day_start: string;
  business_day_end: string;
  /** Both clocks pause while the work order is on_hold. */
  pause_on_hold: boolean;
  /** A running clock is at risk once this share of its target has elapsed. */
  at_risk_percent: number;
}

export const DEFAULT_POLICIES: Record<Priority, SlaPolicy> = {
  critical: {
    priority: 'critical',
    response_minutes: 60,
    resolution_minutes: 480,
    measure: 'calendar_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: false,
    at_risk_percent: 75,
  },
  high: {
    priority: 'high',
    response_minutes: 240,
    resolution_minutes: 1440,
    measure: 'calendar_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: true,
    at_risk_percent: 75,
  },
  medium: {
    priority: 'medium',
    response_minutes: 600,
    resolution_minutes: 1800,
    measure: 'business_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: true,
    at_risk_percent: 75,
  },
  low: {
    priority: 'low',
    response_minutes: 1800,
    resolution_minutes: 6000,
    measure: 'business_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: true,
    at_risk_percent: 75,
  },
};

export const CLOCK_STATES = ['ok', 'at_risk', 'breached', 'met', 'cancelled'] as const;
export type ClockState = (typeof CLOCK_STATES)[number];
export const SLA_RISKS = ['ok', 'at_risk', 'breached'] as const;
export type SlaRisk = (typeof SLA_RISKS)[number];

export const SOURCE_TYPES = ['manual', 'alert', 'stale_feed'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
