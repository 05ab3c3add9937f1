// Informational members of the readiness answer (GET /api/telemetry/readyz) that modules report
// (decision 0441): the spec allows additional members, and none of them sets `degraded` (only
// the bus and cache checks do). A module adds its member in its factory; the probe reads every
// member on each call.
export interface ReadinessReports {
  /** Adds the member `name` of the readiness answer; `report` is called on each readiness call. */
  add(name: string, report: () => unknown): void;
  /** Every member reported now. */
  collect(): Record<string, unknown>;
}

export function createReadinessReports(): ReadinessReports {
  const reports = new Map<string, () => unknown>();
  return {
    add(name, report) {
      if (reports.has(name)) throw new Error(`readiness member ${name} is reported twice`);
      reports.set(name, report);
    },
    collect: () => Object.fromEntries([...reports].map(([name, report]) => [name, report()])),
  };
}
