// The layering rule (`npm run lint:layers`, docs/development.md#map): every folder and root file of src/ and
// packages/core/src/ sits on a layer; a module imports its own folder and lower layers, and anything else only
// where `exceptions` names the import. Nothing is left off: an import from or to a module on no layer is an
// error too; `packages-*` say which package may import which. test/lint/layering.test.ts plants each kind of violation and checks it is reported.

// src/, bottom first. A member is a folder (`http` is src/http/) or a root file (`app.ts`).
const serviceLayers = [
  // Import no other folder of src/ (playground/: the page's HTML, CSS and script, as strings).
  ['config', 'http', 'logging', 'memory', 'playground', 'waits'],
  // The outside world: keys, the model endpoint, Prometheus, Redis, traces.
  ['auth', 'endpoint', 'metrics', 'redis', 'tracing'],
  // What stages and routes share: the machine's fair shares, the wire contracts, the tool sets.
  ['fairness', 'schemas', 'tool-sets'],
  // The search's stages, and learning from use.
  ['learning', 'lexical', 'rerank', 'semantic'],
  // Composing: the stages into a pipeline, the schemas into the OpenAPI document.
  ['openapi', 'search'],
  // The HTTP surface.
  ['plugins', 'routes'],
];
// The composition root: builds every part, so it may import anything; parts import its types only.
const serviceRoot = ['app.ts', 'server.ts', 'services.ts'];

// packages/core/src/, bottom first.
const coreLayers = [
  // Helpers that import nothing: bounded waits (service and client), rounding.
  ['numbers', 'waits'],
  ['schemas.ts'],
  // Wire schemas of feedback, tool-set ids, the languages' scripts and registry.
  ['feedback-schemas.ts', 'languages', 'tool-sets'],
  // Words: tokenizing, the vocabulary, code-point limits.
  ['text'],
  // Everyday requests as people write them: the lexicon, readings, typos, intent.
  ['everyday'],
  ['ranking'],
  // Reading a request: tool lists, filters, boosts, relevance adjustments (over ranking's calibration).
  ['request'],
  ['index.ts'],
];

// Imports the layers would forbid, each with its reason: `from` is a member or a file in one, `to` a member.
// src/ needs none: no two folders of one layer import each other.
const exceptions = {
  'packages/core/src/': [
    // Tokenizing reads everyday words (everyday/readings.ts), whose rules are written in the vocabulary's
    // terms (text/vocabulary.ts): one file of text/ above everyday/, no file cycle (madge checks).
    { from: 'text/tokenize.ts', to: 'everyday' },
  ],
};

const escape = (text) => text.replace(/[.]/g, '\\.');
/** A path pattern for members of `base`: a folder (everything under it) or a root file. */
const members = (base, names) =>
  `^${base}(${names.map((name) => (name.endsWith('.ts') ? `${escape(name)}$` : `${name}/`)).join('|')})`;

/**
 * The rules of one layered tree: a member imports no member of a higher layer (`-upward`) nor another of its
 * own layer (`-sideways`) unless `exceptions` names the import, and no module on no layer imports or is
 * imported (`-unplaced`).
 */
function layerRules(label, base, layers, root = []) {
  const named = exceptions[base] ?? [];
  const rules = [];
  const forbid = (kind, name, targets, fromNot) => {
    if (targets.length === 0) return;
    rules.push({
      name: `${label}-${kind}`,
      comment: `${base}${name} must not import ${kind === 'upward' ? 'a higher layer' : 'another member of its layer'}`,
      severity: 'error',
      from: { path: members(base, [name]), ...(fromNot ? { pathNot: fromNot } : {}) },
      to: { path: members(base, targets) },
    });
  };
  layers.forEach((names, index) => {
    for (const name of names) {
      const own = named.filter((pair) => pair.from === name || pair.from.startsWith(`${name}/`));
      const excepted = own.map((pair) => pair.to);
      const higher = layers.slice(index + 1).flat();
      const beside = names.filter((other) => other !== name);
      forbid(
        'upward',
        name,
        higher.filter((to) => !excepted.includes(to)),
      );
      forbid(
        'sideways',
        name,
        beside.filter((to) => !excepted.includes(to)),
      );
      for (const pair of own) {
        if (pair.from === name) continue;
        forbid(higher.includes(pair.to) ? 'upward' : 'sideways', name, [pair.to], `^${base}${escape(pair.from)}$`);
      }
    }
  });
  const placed = members(base, [...layers.flat(), ...root]);
  const unplaced = `every module of ${base} is on a layer: add its folder or file to .dependency-cruiser.cjs`;
  rules.push(
    {
      name: `${label}-unplaced`,
      comment: unplaced,
      severity: 'error',
      from: { path: `^${base}`, pathNot: placed },
      to: {},
    },
    {
      name: `${label}-unplaced`,
      comment: unplaced,
      severity: 'error',
      from: {},
      to: { path: `^${base}`, pathNot: placed },
    },
  );
  return rules;
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules('layer', 'src/', serviceLayers, serviceRoot),
    {
      // The composition root builds every part: parts may name its types, never run its code.
      name: 'layer-root',
      comment: 'a folder of src/ must not import app.ts, server.ts or services.ts except for types',
      severity: 'error',
      from: { path: members('src/', serviceLayers.flat()) },
      to: { path: members('src/', serviceRoot), dependencyTypesNot: ['type-only'] },
    },
    ...layerRules('core', 'packages/core/src/', coreLayers),
    {
      // Core is shared by the service and the client, and knows neither.
      name: 'packages-core',
      comment: 'packages/core never imports the client or the service',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: '^(packages/client|src)/' },
    },
    {
      // The client's build bundles core from its package; the service is a separate program.
      name: 'packages-client',
      comment: 'packages/client imports core by its package name only, and never the service',
      severity: 'error',
      from: { path: '^packages/client/' },
      to: { path: '^(packages/core/src|src)/' },
    },
    {
      // The service uses the packages as their users do: core by its name (its built dist), never the client.
      name: 'packages-service',
      comment: 'src/ imports @catalog-search/core by its package name only, and never the client',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^packages/(core/src|client)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
