// Folder layering of src/ (docs/development.md): a lower layer never imports a higher one.
const layers = [
  ['config', 'errors', 'waits', 'memory', 'metrics', 'tracing', 'redis'],
  ['endpoint', 'tool-sets'],
  ['lexical', 'learning', 'fairness', 'semantic', 'rerank'],
  ['search'],
  ['routes', 'plugins'],
];
const folders = (names) => `^src/(${names.join('|')})/`;
const higherThan = (index) => layers.slice(index + 1).flat();

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layers.slice(0, -1).map((names, index) => ({
      name: `layer-${names[0]}`,
      comment: `src/{${names.join(',')}} must not import a higher layer`,
      severity: 'error',
      from: { path: folders(names) },
      to: { path: folders(higherThan(index)) },
    })),
    {
      // The composition root builds every part: parts may name its types, never run its code.
      name: 'layer-root',
      comment: 'src/<folder> must not import services.ts, app.ts or server.ts except for types',
      severity: 'error',
      from: { path: folders(layers.flat()) },
      to: { path: '^src/(services|app|server)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
