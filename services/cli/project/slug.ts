/**
 * The address a project gets from the manifest's name (spec 2.2 slug rules): lower-case letters,
 * digits and single hyphens, 3 to 40 long, starting and ending with a letter or digit. Accents
 * are dropped (Café → cafe); anything else becomes a hyphen. Too short a name is padded with
 * `-demo` so `X` still gives an address.
 */
export function slugFromName(name: string): string {
  let slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  slug = slug.slice(0, 40).replace(/-+$/, '');
  if (slug.length === 0) return 'demo';
  if (slug.length < 3) slug = `${slug}-demo`;
  return slug;
}
