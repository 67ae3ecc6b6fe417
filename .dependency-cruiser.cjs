// Import rules of the repository (dependency-cruiser), run by `npm run lint`:
// no import cycles anywhere, and the components import only downwards:
// apiserver, operator and engine each stand alone on common/ and crds/.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other in a loop; cut the loop (move the shared part down).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'apiserver-stands-alone',
      severity: 'error',
      comment: 'The API server talks to the operator and the engine over HTTP and Kubernetes only.',
      from: { path: '^apiserver/' },
      to: { path: '^(operator|engine)/' },
    },
    {
      name: 'operator-stands-alone',
      severity: 'error',
      comment: 'The operator talks to the API server over HTTP only.',
      from: { path: '^operator/' },
      to: { path: '^(apiserver|engine)/' },
    },
    {
      name: 'engine-stands-alone',
      severity: 'error',
      comment: 'The engine is a Qdrant-compatible server of its own.',
      from: { path: '^engine/' },
      to: { path: '^(apiserver|operator)/' },
    },
    {
      name: 'shared-code-stays-below',
      severity: 'error',
      comment: 'common/ and crds/ are what the components share; they import none of them.',
      from: { path: '^(common|crds)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(apiserver|operator|engine|hack|bench|test|cli|dashboard)/' },
    },
    {
      name: 'shared-code-tests-use-the-kit-only',
      severity: 'error',
      comment:
        "Tests beside common/ and crds/ may wait through the test kit's waitFor (test/harness/wait.ts), and import nothing else above them.",
      from: { path: '^(common|crds)/.*\\.test\\.ts$' },
      to: {
        path: '^(apiserver|operator|engine|hack|bench|test|cli|dashboard)/',
        pathNot: '^test/harness/wait\\.ts$',
      },
    },
    {
      name: 'cli-is-a-client',
      severity: 'error',
      comment:
        'The svc CLI talks to the platform over its public REST API only; it shares common/ (archive exclusions, env files) and nothing else.',
      from: { path: '^cli/' },
      to: { path: '^(apiserver|operator|engine|crds|hack|bench|test)/' },
    },
    {
      name: 'vector-engine-client-below-routes',
      severity: 'error',
      comment:
        "The vector plane's engine client and search coalescer sit below its route features; they share JSON helpers from vector/, never import a feature.",
      from: { path: '^apiserver/src/vector/(engine-client|search-coalescer)\\.ts$' },
      to: { path: '^apiserver/src/vector/(points|collections|schema|storage)/' },
    },
    {
      name: 'dashboard-is-a-client',
      comment:
        'The web dashboard runs in the browser and talks to the platform over its public REST APIs only; of common/ it shares the upload exclusions, which import nothing of Node.',
      severity: 'error',
      from: { path: '^dashboard/' },
      to: {
        path: '^(apiserver|operator|engine|crds|hack|bench|test|cli|common)/',
        pathNot: '^common/upload-exclusions\\.ts$',
      },
    },
    {
      name: 'crds-is-the-ground',
      severity: 'error',
      comment: 'crds/ is the contract every component reads; it imports no code of ours.',
      from: { path: '^crds/' },
      to: { path: '^common/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|\\.tools|\\.dev|dist|coverage)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
