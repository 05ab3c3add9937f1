// Time is injected (src/core: what infra and platform both use; nothing here imports either): lockouts, expiries, schedules and windows read a Clock, so tests move time.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | string | number = Date.now()) {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(to: Date | string | number): void {
    this.t = new Date(to).getTime();
  }
}
