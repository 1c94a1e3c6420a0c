// Import rules checked by `npm run lint` (dependency-cruiser): no cycles anywhere, and the layers
// kept apart. Each rule says why it exists.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes module load order matter and hides which module owns what: move the shared piece into a module of its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-test-or-bench',
      severity: 'error',
      comment: 'The product ships alone (dist/ is built from src/ only): it may not import the tests or the benchmark.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'emulator-stands-alone',
      severity: 'error',
      comment: 'The emulator is the interface as documented, not as edgesync reads it: it may not import the client, the kinds or the config loader.',
      from: { path: '^src/emulator/' },
      to: { path: '^src/(api|kinds|config)/' },
    },
    {
      name: 'ajv-by-require',
      severity: 'error',
      comment: 'ajv and ajv-formats are CommonJS: imported as ES modules, Node 22 and later may run one before the files the other re-exports, and print warnings. Load them with createRequire (src/config/schema.ts); import only their types.',
      from: { path: '^src/' },
      to: { path: '^node_modules/ajv(-formats)?/', dependencyTypesNot: ['type-only', 'require'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing fails at run time.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
