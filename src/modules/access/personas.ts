// The five site personas (our design) and what each may do at a site. Organisation roles govern
// organisation-wide operations; a persona is a per-site grant on top of membership.
export const PERMISSIONS = {
  'site.view': 'See the site, its assets and their status',
  'telemetry.view': 'Read live and historical telemetry of the site',
  'reports.view': 'Read energy reports, savings and carbon figures of the site',
  'billing.view': 'Read tariffs, bills and cost figures of the site',
  'alerts.acknowledge': 'Acknowledge and comment on alerts of the site',
  'alerts.manage': 'Resolve alerts and change alert routing for the site',
  'assets.configure': 'Register, change and remove assets and their settings',
  'commissioning.perform': 'Onboard devices and confirm data mappings',
  'control.operate': 'Send control commands and schedules to the site',
  'work_orders.update': 'Update and close work orders assigned at the site',
  'work_orders.manage': 'Create, assign and cancel work orders at the site',
  'access.manage': 'Grant and remove other people’s access to the site',
} as const;

export type Permission = keyof typeof PERMISSIONS;

export interface Persona {
  id: string;
  name: string;
  description: string;
  permissions: Permission[];
}

export const PERSONAS: readonly Persona[] = [
  {
    id: 'owner',
    name: 'Owner',
    description: 'Owns the site: every permission, including who else has access.',
    permissions: Object.keys(PERMISSIONS) as Permission[],
  },
  {
    id: 'energy_manager',
    name: 'Energy manager',
    description: 'Runs the site day to day: reports, costs, alerts, assets and control.',
    permissions: [
      'site.view',
      'telemetry.view',
      'reports.view',
      'billing.view',
      'alerts.acknowledge',
      'alerts.manage',
      'assets.configure',
      'control.operate',
      'work_orders.manage',
    ],
  },
  {
    id: 'installer',
    name: 'Installer',
    description: 'Installs and commissions equipment: assets, onboarding and their work orders.',
    permissions: ['site.view', 'telemetry.view', 'assets.configure', 'commissioning.perform', 'work_orders.update'],
  },
  {
    id: 'maintenance_contractor',
    name: 'Maintenance contractor',
    description: 'Keeps equipment working: sees health and alerts, works on assigned work orders.',
    permissions: ['site.view', 'telemetry.view', 'alerts.acknowledge', 'work_orders.update'],
  },
  {
    id: 'viewer',
    name: 'Viewer',
    description: 'Reads the site: status, telemetry and reports; changes nothing.',
    permissions: ['site.view', 'telemetry.view', 'reports.view'],
  },
];

export const PERSONA_IDS = PERSONAS.map((p) => p.id);
export const personaById = (id: string) => PERSONAS.find((p) => p.id === id);
