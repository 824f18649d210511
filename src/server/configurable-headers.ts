// Request headers a run's nodes see in `config.configurable`, as LangGraph's server passes them.

/**
 * Which request headers go into a run's `config.configurable` (LangGraph's
 * `http.configurable_headers`): header-name patterns, `*` matching any run of characters.
 * Without `includes`, every `x-…` header and `user-agent` go, as LangGraph's server passes
 * them; `excludes` takes names out. Credentials never go, whatever the patterns say (they
 * would be kept with the run): `authorization`, `cookie`, our CSRF header, and names with
 * `token`, `secret`, `password`, `api-key`, `signature`, `tenant-id` or `service-key` in them.
 *
 * @example
 * const rule: ConfigurableHeaders = { includes: ["x-user-*", "x-request-id"] };
 */
export interface ConfigurableHeaders {
  includes?: string[];
  excludes?: string[];
}

const CREDENTIAL =
  /^(authorization|proxy-authorization|cookie)$|token|secret|password|api-key|signature|tenant-id|service-key/;
const DEFAULT_INCLUDES = ["x-*", "user-agent"];

const matcher = (patterns: readonly string[]) => {
  const expressions = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .toLowerCase()
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replaceAll("*", ".*")}$`,
      ),
  );
  return (name: string) => expressions.some((e) => e.test(name));
};

/**
 * The headers of a run's request that its nodes get in `config.configurable`, by lower-case
 * name; `undefined` when none.
 *
 * @example
 * headersForRun(new Headers({ "x-tenant": "acme", authorization: "Bearer s" })); // { "x-tenant": "acme" }
 */
export function headersForRun(
  headers: Headers | undefined,
  rule: ConfigurableHeaders = {},
): Record<string, string> | undefined {
  if (!headers) return undefined;
  const included = matcher(rule.includes ?? DEFAULT_INCLUDES);
  const excluded = matcher(rule.excludes ?? []);
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    if (included(key) && !excluded(key) && !CREDENTIAL.test(key)) kept[key] = value;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}
