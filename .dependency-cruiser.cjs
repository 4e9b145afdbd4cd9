// The import rules of src/, as drawn in docs/architecture.md. `npm run check:deps` (and so
// `npm test`) fails on any import that breaks one, naming the rule and saying what to do.
//
// Paths are relative to the repository root. `$1` in a `to` pattern is the group the `from`
// pattern captured (the importing file's own module or adapter).

// Leaf modules the adapters may share: no docwright imports of their own.
const ADAPTER_LEAVES = ['^src/contract/', '^src/runtime/retry-policy[.]ts$'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'This import closes a circle of imports in src. Move what both sides need (often a type) into a file of its own that neither imports back.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'sdk-imports-only-contract',
      severity: 'error',
      comment:
        'The client SDK (src/sdk) is published on its own and may import only itself and the wire contract (src/contract). Put what it needs from the server into src/contract.',
      from: { path: '^src/sdk/' },
      to: { path: '^src/', pathNot: ['^src/(sdk|contract)/'] },
    },
    {
      name: 'contract-imports-only-contract',
      severity: 'error',
      comment:
        'The wire contract (src/contract) is what the SDK and the server share, so it imports nothing else of docwright. Move the thing it needs into src/contract.',
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/contract/' },
    },
    {
      name: 'adapters-self-contained',
      severity: 'error',
      comment:
        'Adapters (src/code-hosts, src/models) import only their own files, src/contract and the dependency-free retry policy. Pass what they need in as arguments instead of importing it.',
      from: { path: '^src/(code-hosts|models)/' },
      to: { path: '^src/', pathNot: ['^src/$1/', ...ADAPTER_LEAVES] },
    },
    {
      name: 'util-imports-only-util',
      severity: 'error',
      comment:
        'src/util holds small helpers every part may use, so it imports nothing else of docwright. Take what the helper needs as a parameter, or move the helper next to its one user.',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'errors-import-only-contract',
      severity: 'error',
      comment:
        'src/errors (the error class and the request errors services raise) is imported by services and the HTTP edge alike, so it imports only itself and src/contract (the error-code registry, which the SDK shares and so cannot live here). Move what it needs into src/errors, or take it as a parameter.',
      from: { path: '^src/errors/' },
      to: { path: '^src/', pathNot: ['^src/(errors|contract)/'] },
    },
    {
      name: 'docs-checks-self-contained',
      severity: 'error',
      comment:
        'The docs checks (src/docs-checks) read files they are handed and import nothing else of docwright, so the agent, tests and benchmarks use them alike. Pass what they need in as arguments.',
      from: { path: '^src/docs-checks/' },
      to: { path: '^src/', pathNot: '^src/docs-checks/' },
    },
    {
      name: 'modules-through-index',
      severity: 'error',
      comment:
        "A module reaches another module only through that module's index.ts. Export what you need from src/modules/<other>/index.ts and import it from there.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$'] },
    },
    {
      name: 'outside-through-index',
      severity: 'error',
      comment:
        "Code outside src/modules reaches a module only through its index.ts (src/http/app.ts alone also registers the modules' routes.ts plugins). Export what you need from src/modules/<module>/index.ts.",
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/sdk/'] },
      to: { path: '^src/modules/', pathNot: ['^src/modules/[^/]+/index[.]ts$', '/routes[.]ts$'] },
    },
    {
      name: 'routes-only-from-app',
      severity: 'error',
      comment:
        "A module's routes.ts is an HTTP plugin registered by src/http/app.ts alone; other code uses the module's index.ts.",
      from: { path: '^src/', pathNot: '^src/http/app[.]ts$' },
      to: { path: '^src/modules/.+/routes[.]ts$' },
    },
    {
      name: 'http-only-from-edge',
      severity: 'error',
      comment:
        'Only the HTTP edge imports src/http: src/http itself, src/main, route files (routes.ts, *-routes.ts, routes/), the dashboard and the /metrics installer. Services and queries must not: move what they share with the routes into src/errors or src/util, or pass it in.',
      from: {
        path: '^src/',
        pathNot: [
          '^src/(http|main)/',
          '^src/modules/dashboard/',
          '(^|/|-)routes[.]ts$',
          '/routes/',
          '^src/metrics/http-metrics[.]ts$',
          '^src/sdk/',
        ],
      },
      to: { path: '^src/http/' },
    },
    {
      name: 'mcp-only-from-edge',
      severity: 'error',
      comment:
        'The MCP server (src/mcp) is an edge like the HTTP API: only src/http/app.ts (its /mcp route) and src/main (docwright mcp) import it. Services and modules must not: what the tools share with them belongs in the module, exported from its index.ts.',
      from: { path: '^src/', pathNot: ['^src/mcp/', '^src/main/', '^src/http/app[.]ts$'] },
      to: { path: '^src/mcp/' },
    },
    {
      name: 'queries-private',
      severity: 'error',
      comment:
        "A module's SQL (queries.ts, *-queries.ts) is read only inside that module. Call a function of the module's service through its index.ts instead.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/.*queries[.]ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'queries-private-outside',
      severity: 'error',
      comment:
        "A module's SQL (queries.ts, *-queries.ts) is read only inside that module. Call a function of the module's service through its index.ts instead.",
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/.*queries[.]ts$' },
    },
    {
      name: 'analytics-store-through-index',
      severity: 'error',
      comment:
        'The analytics store (src/modules/analytics/store) is used only through its index.ts; the reports, ingest and import do not reach its files. Export what you need from src/modules/analytics/store/index.ts and import it from there.',
      from: { path: '^src/', pathNot: '^src/modules/analytics/store/' },
      to: {
        path: '^src/modules/analytics/store/',
        pathNot: '^src/modules/analytics/store/index[.]ts$',
      },
    },
    {
      name: 'analytics-store-below-its-users',
      severity: 'error',
      comment:
        'The analytics store (src/modules/analytics/store) is the layer under the reports and the producers (ingest, import, collect): it imports only its own files, the foundations (src/db, src/util, src/runtime) and the bucket grid (analytics/time-buckets.ts) and string table (analytics/classification/string-front-table.ts) it shares. Pass what it needs in through its interface instead.',
      from: { path: '^src/modules/analytics/store/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/modules/analytics/store/',
          '^src/(db|util|runtime)/',
          '^src/modules/analytics/(time-buckets|classification/string-front-table)[.]ts$',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // typescript@7 has no compiler API that dependency-cruiser can load (it supports <7), so
    // @swc/core parses the .ts files. swc sees the source before types are erased, so type-only
    // imports count too: a circle of types is still a circle.
    parser: 'swc',
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
