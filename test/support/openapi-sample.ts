// Builds a request value that passes validation from an OpenAPI schema: the schema's own
// example when it has one, otherwise the required properties filled from theirs (or from
// their type and format). Tests that walk every operation of /swagger/json use it, so a new
// route is exercised without anyone writing its body by hand.

export type Resolver = (node: any) => any;

export function sampleOf(schema: any, resolve: Resolver): unknown {
  const node = resolve(schema);
  if (!node) return undefined;
  if (Array.isArray(node.examples) && node.examples.length) return node.examples[0];
  if (node.example !== undefined) return node.example;
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  const variants = node.anyOf ?? node.oneOf;
  if (Array.isArray(variants)) {
    const concrete = variants.map(resolve).find((v: any) => v?.type !== "null");
    return concrete ? sampleOf(concrete, resolve) : null;
  }
  if (Array.isArray(node.allOf)) {
    return Object.assign({}, ...node.allOf.map((part: any) => sampleOf(part, resolve)));
  }
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of node.required ?? []) out[key] = sampleOf(node.properties?.[key], resolve);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return node.minimum ?? 1;
    case "boolean":
      return true;
    case "string":
      return sampleString(node);
    default:
      return undefined;
  }
}

function sampleString(node: any): string {
  switch (node.format) {
    case "uuid":
      return crypto.randomUUID();
    case "email":
      return "someone@example.com";
    case "uri":
      return "https://example.com/";
    case "date-time":
      return new Date().toISOString();
  }
  if (node.pattern === "^[A-Za-z0-9_-]+={0,2}$") return "AAAA";
  return "x".repeat(Math.max(1, node.minLength ?? 1));
}
