// What the two tenant-isolation suites share: the operations of /swagger/json and its $ref lookups.
const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

export interface Operation {
  method: string;
  path: string;
  op: any;
}

/** The operations whose security names `scheme` (userBearerAuth, botBearerAuth). */
export const operationsOf = (doc: any, scheme: string): Operation[] => Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
  HTTP_METHODS.filter((m) => item[m]?.security?.some((s: any) => scheme in s)).map((method) => ({ method, path, op: item[method] })));

/** "method path" of every operation anyone may call. */
export const publicOperationsOf = (doc: any): string[] => Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
  HTTP_METHODS.filter((m) => item[m] && !item[m].security?.length).map((method) => `${method} ${path}`));

/** Follows a node's $ref chain through the document. */
export const resolverOf = (doc: any) => (node: any): any => {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 10; hops++) {
    current = current.$ref.slice(2).split("/").reduce((at: any, key: string) => at?.[key], doc);
  }
  return current;
};
