// What an exportable collection is. Each module that owns data declares its collections in its
// manifest (ModuleDefinition.exportable) with this shape, most built with the platform's
// sqlExportable from a declaration in the owning module's store; the platform gathers them into
// deps.exportables and the export module never names another module or its tables (decisions
// 0203, 0206, 0355).
export type { ExportableCollection, ExportPeriod, ExportLines } from '../../platform/exportable.ts';
