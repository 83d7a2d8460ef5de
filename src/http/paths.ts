// The router answers one route under several spellings of its path (a trailing slash,
// doubled slashes, percent-encoded letters). Everything that decides by path before routing
// (per-client limits, CORS, page headers) compares this canonical form, so no spelling
// reaches a handler without what its route is owed.

const DOUBLED_SLASHES = /\/{2,}/g;
const TRAILING_SLASHES = /\/+$/;

/** The path as the router matches it: decoded, slashes collapsed, no trailing slash (but `/`). */
export function canonicalPath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // A malformed escape is no route of ours; compare it as it came.
  }
  path = path.replace(DOUBLED_SLASHES, "/");
  return path.length > 1 ? path.replace(TRAILING_SLASHES, "") || "/" : path;
}

/**
 * Settled once per request: the guard, CORS, the API document's two hooks and the token check
 * each ask, and each asking parsed the URL, decoded it and ran two replaces (four URL objects
 * and eight regular expressions allocated per accepted message, measured).
 */
const requestPaths = new WeakMap<Request, string>();

export const requestPath = (request: Request): string => {
  let path = requestPaths.get(request);
  if (path === undefined) requestPaths.set(request, (path = canonicalPath(new URL(request.url).pathname)));
  return path;
};
