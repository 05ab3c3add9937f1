// Device listings, source priority and data integrity under /api/hardware/.
import { BEARER, withDefaults, type Operation } from '../../platform/operation.ts';
import { queryTo, bodyTo, bodyToCreated } from '../../platform/resource.ts';
import { FRESHNESS_METHOD } from '../registry/index.ts';
import type { DevicesService } from './service.ts';
import type { Listing } from './readings.ts';
import {
  CommissioningBody,
  CommissioningQuery,
  CommissioningRun,
  HealthQuery,
  HealthResponse,
  IntegrityQuery,
  IntegrityResponse,
  PriorityBody,
  PriorityQuery,
  PriorityResponse,
  ResolveQuery,
  ResolveResponse,
  SiteQuery,
  TelematicsResponse,
  VehiclesTelemetryResponse,
  listingResponse,
} from './schemas.ts';

const tags = ['devices'];
const LAST_REPORTED =
  'Every row carries `last_reported_at` (the measurement time of the newest stored record, ISO 8601 UTC with Z) and ' +
  '`last_reported_source` (ocpp_heartbeat, provider_reading, telemetry or provider_api); both are null when nothing is ' +
  'known and neither is ever the request time. `last_seen_at` is the connect time (registration) and telemetry does not move it.';

const LISTINGS: { listing: Listing; path: string; operationId: string; summary: string }[] = [
  { listing: 'chargers', path: '/api/hardware/chargers', operationId: 'listChargers', summary: 'EV chargers with readings' },
  { listing: 'solar', path: '/api/hardware/solar', operationId: 'listSolarInverters', summary: 'Solar inverters with readings' },
  { listing: 'battery', path: '/api/hardware/battery', operationId: 'listBatteries', summary: 'Batteries with readings' },
  { listing: 'heatpump', path: '/api/hardware/heatpump', operationId: 'listHeatPumps', summary: 'Heat pumps with readings' },
  { listing: 'smartmeter', path: '/api/hardware/smartmeter', operationId: 'listSmartMeters', summary: 'Meters (smart, site and sub-meters) with readings' },
  { listing: 'vehicles', path: '/api/hardware/vehicles', operationId: 'listVehicles', summary: 'Vehicles with readings' },
  { listing: 'appliances', path: '/api/hardware/appliances', operationId: 'listAppliances', summary: 'Appliances with readings' },
];

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function deviceOperations(service: DevicesService): Operation[] {
  const listings = LISTINGS.map((l) =>
    op({
      operationId: l.operationId,
      method: 'GET',
      path: l.path,
      summary: l.summary,
      description: `Registered devices of the listing's classes (see docs/registry.md), each with readings from its newest stored record. ${LAST_REPORTED}`,
      dataBasis: { basis: 'measured' },
      schema: { query: SiteQuery, response: { 200: listingResponse(l.listing) } },
      handler: async ({ ctx, query }) => service.listing(ctx, l.listing, query.site_id),
    }),
  );
  return [
    ...listings,
    op({
      operationId: 'listDeviceHealth',
      method: 'GET',
      path: '/api/hardware/devices/health',
      summary: 'Connectivity and freshness of every connected device',
      description: `Every registered asset, optionally one site or one connectivity state. ${LAST_REPORTED}`,
      dataBasis: { basis: 'calculated', method: FRESHNESS_METHOD },
      schema: queryTo(HealthQuery, HealthResponse),
      handler: async ({ ctx, query }) => service.health(ctx, query),
    }),
    op({
      operationId: 'listVehicleTelemetry',
      method: 'GET',
      path: '/api/hardware/vehicles/telemetry/all',
      summary: 'Every vehicle with its newest stored record in full',
      description: `The vehicles listing plus the newest record with its raw object. ${LAST_REPORTED}`,
      dataBasis: { basis: 'measured' },
      schema: queryTo(SiteQuery, VehiclesTelemetryResponse),
      handler: async ({ ctx, query }) => service.vehiclesTelemetry(ctx, query.site_id),
    }),
    op({
      operationId: 'listFleetTelematicsVehicles',
      method: 'GET',
      path: '/api/hardware/fleet/telematics/vehicles',
      summary: 'Latest measured position and ignition per vehicle',
      description:
        'Position from the newest record of the last 30 days carrying raw `lat`/`latitude` and `lon`/`lng`/`longitude` ' +
        'numbers in range; ignition from the newest record of the last 30 days carrying raw `ignition` or `ignition_on` ' +
        `(true/false/on/off). Each with its own measurement time. ${LAST_REPORTED}`,
      dataBasis: { basis: 'measured' },
      schema: queryTo(SiteQuery, TelematicsResponse),
      handler: async ({ ctx, query }) => service.telematics(ctx, query.site_id),
    }),
    op({
      operationId: 'getSourcePriority',
      method: 'GET',
      path: '/api/hardware/source-priority',
      summary: 'Per-asset source priority',
      description: 'Configured source orders per asset and measurement, the four source names and the default order used where nothing is configured.',
      dataBasis: { basis: 'configured' },
      schema: queryTo(PriorityQuery, PriorityResponse),
      handler: async ({ ctx, query }) => service.priorities(ctx, query.asset_id),
    }),
    op({
      operationId: 'setSourcePriority',
      method: 'PUT',
      path: '/api/hardware/source-priority',
      summary: "Replace an asset's source priority",
      description:
        'Body `asset_id` (a registered asset; 422 otherwise) and `priorities`, one entry per measurement with its sources ' +
        'in order. Replaces the whole configuration of the asset; measurements left out use the default order.',
      access: BEARER.configure,
      dataBasis: { basis: 'configured' },
      schema: bodyTo(PriorityBody, PriorityResponse),
      handler: async ({ ctx, body }) => service.setPriorities(ctx, body),
    }),
    op({
      operationId: 'resolveSourcePriority',
      method: 'GET',
      path: '/api/hardware/source-priority/resolve',
      summary: 'Current telemetry, one source per measurement',
      description:
        'For each registered asset (optionally one asset or one site) and measurement: the newest value of each source in ' +
        "the window, and the one chosen by the priority. A record's source is its raw `source` when that names one of " +
        'the four, else telemetry. Where only telemetry exists, `only_telemetry` is true and `note` says so. 404 when ' +
        '`asset_id` names no registered asset.',
      dataBasis: { basis: 'measured' },
      schema: queryTo(ResolveQuery, ResolveResponse),
      handler: async ({ ctx, query }) => service.resolve(ctx, query),
    }),
    op({
      operationId: 'listAssetDataIntegrity',
      method: 'GET',
      path: '/api/hardware/data-integrity/assets',
      summary: 'Per-asset data integrity',
      description:
        'For each registered asset over a window: stored records, gaps, duplicate, future and late timestamps, anomaly ' +
        'counts by reason. Rejected records are not stored and so are not counted here (ingestion reports them per request).',
      dataBasis: {
        basis: 'calculated',
        method:
          'Counts over the stored records whose ts falls in the window: a gap is a step between consecutive records (by ts) longer than gap_minutes; anomalies are the reasons ingestion flagged on each stored record.',
      },
      schema: queryTo(IntegrityQuery, IntegrityResponse),
      handler: async ({ ctx, query }) => service.integrity(ctx, query),
    }),
    op({
      operationId: 'getLatestCommissioningRun',
      method: 'GET',
      path: '/api/hardware/data-integrity/commissioning',
      summary: 'Latest commissioning run of a site',
      description: 'Query `site_id` (required). 404 when the site has no run.',
      dataBasis: { basis: 'stored' },
      schema: queryTo(CommissioningQuery, CommissioningRun),
      handler: async ({ ctx, query }) => service.latestCommissioning(ctx, query.site_id),
    }),
    op({
      operationId: 'runCommissioning',
      method: 'POST',
      path: '/api/hardware/data-integrity/commissioning/run',
      summary: 'Run the commissioning checks of a site and store the run',
      description:
        'Checks: assets registered; each asset reported within `max_silence_minutes`; its newest values plausible ' +
        '(soc 0 to 100, |power| up to 5000 kW, voltage not negative; warnings for temperature, a positive inverter power, ' +
        "a fault status); the topology without error findings; devices reporting with the site's site_ref but unregistered. " +
        'Outcome `fail` when any check fails, `pass_with_warnings` when any warns, else `pass`. 404 for an unknown site.',
      access: BEARER.configure,
      dataBasis: {
        basis: 'calculated',
        method: 'Each check compares the stored registry and the newest stored record of each asset with fixed thresholds at the time of the run.',
      },
      schema: bodyToCreated(CommissioningBody, CommissioningRun),
      handler: async ({ ctx, body }) => service.runCommissioning(ctx, body),
    }),
  ];
}
