import mime from 'mime-types';

/** The Content-Type a build file is stored and served with; text gets an explicit charset. */
export function contentTypeOf(path: string): string {
  const type = mime.lookup(path) || 'application/octet-stream';
  return type.startsWith('text/') || type === 'application/javascript' || type === 'application/json' ? `${type}; charset=utf-8` : type;
}
