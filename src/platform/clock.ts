// The service clock, for modules and the platform. Defined in src/core (below infra and platform,
// so adapters can take it without importing the platform).
export { type Clock, systemClock, ManualClock } from '../core/clock.ts';
