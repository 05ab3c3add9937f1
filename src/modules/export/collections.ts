// What an exportable collection is. Each module that owns data offers its collections as a service
// (e.g. TELEMETRY_EXPORTABLE, STATEMENTS_EXPORTABLE) with this shape, most built with the platform's
// sqlExportable from a declaration in the owning module's store; the export module lists those
// services and never names another module's tables (decisions 0203, 0206).
export type { ExportableCollection, ExportPeriod, ExportLines } from '../../platform/exportable.ts';
