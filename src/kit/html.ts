// HTML escaping for the pages the service writes itself (printable statements, study reports, the
// error reference): the five characters that can end text or an attribute value, as entities.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or a quoted attribute value, escaped; null and undefined are written as nothing. */
export function escapeHtml(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}
