// The router answers one route under several spellings of its path (a trailing slash,
// doubled slashes, percent-encoded letters). Everything that decides by path before routing
// (per-client limits, CORS, page headers) compares this canonical form, so no spelling
// reaches a handler without what its route is owed.

/** The path as the router matches it: decoded, slashes collapsed, no trailing slash (but `/`). */
export function canonicalPath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // A malformed escape is no route of ours; compare it as it came.
  }
  path = path.replace(/\/{2,}/g, "/");
  return path.length > 1 ? path.replace(/\/+$/, "") || "/" : path;
}

export const requestPath = (request: Request): string => canonicalPath(new URL(request.url).pathname);
