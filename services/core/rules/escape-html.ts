// HTML's five special characters escaped, for every value from a builder or a viewer put into
// HTML the platform writes (the room's pages, alert mails).

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => entities[c]);
