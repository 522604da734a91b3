// Offline checks of the Kubernetes manifests in deploy/base: every document parses and validates against the
// Kubernetes OpenAPI schemas (kubernetes-models), the kustomization lists exactly the manifest files, and the
// objects agree with each other, with the Dockerfile and with the service itself (probe paths answer, every
// configured variable is one the service reads, and the configuration as deployed is accepted in production).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildApp } from '../../src/app.js';
import { parseConfig, type Env } from '../../src/config/index.js';

const BASE = new URL('../../deploy/base/', import.meta.url);
const SECRET_TEMPLATE = 'secret.template.yaml';

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

// One schema-validating model per apiVersion/kind the base may contain; anything else fails the test.
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

function validateAgainstSchema(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (Model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new Model(structuredClone(object) as never).validate();
}

function readYamlDocuments(file: string): unknown[] {
  const documents = parseAllDocuments(readFileSync(new URL(file, BASE), 'utf8'));
  if (!Array.isArray(documents)) return [];
  return documents.map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((e) => e.message).join('; ')}`);
    return document.toJS();
  });
}

const yamlFiles = readdirSync(BASE)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();
const kustomization = readYamlDocuments('kustomization.yaml')[0] as {
  resources: string[];
  kind: string;
  images: Array<{ name: string; newName?: string; newTag?: string }>;
};
const manifests = new Map<string, K8sObject>();
for (const file of yamlFiles.filter((name) => name !== 'kustomization.yaml')) {
  for (const document of readYamlDocuments(file)) manifests.set(file, document as K8sObject);
}

function only<T extends K8sObject>(kind: string): T {
  const found = [...manifests.entries()].filter(([file, object]) => object.kind === kind && file !== SECRET_TEMPLATE);
  expect(found, `exactly one ${kind} in the kustomization`).toHaveLength(1);
  return found[0]![1] as T;
}

const deployment = only<K8sObject & { spec: any }>('Deployment');
const podSpec = deployment.spec.template.spec;
const container = podSpec.containers[0];
const service = only<K8sObject & { spec: any }>('Service');
const configMap = only<K8sObject & { data: Record<string, string> }>('ConfigMap');
const secretTemplate = manifests.get(SECRET_TEMPLATE) as K8sObject & { stringData: Record<string, string> };

describe('deploy/base manifests', () => {
  it('are each one YAML document that validates against the Kubernetes schema', () => {
    expect(manifests.size).toBeGreaterThanOrEqual(6);
    for (const [file, object] of manifests) {
      expect(object.apiVersion, file).toBeTypeOf('string');
      expect(() => validateAgainstSchema(object), file).not.toThrow();
    }
  });

  it('the schema check rejects a malformed object (the validator is live)', () => {
    const broken = structuredClone(deployment) as any;
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    expect(() => validateAgainstSchema(broken)).toThrow(/containerPort/);
    expect(() => validateAgainstSchema({ ...service, apiVersion: 'v2' })).toThrow();
  });

  it('kustomization lists every manifest except the Secret template, and nothing else', () => {
    expect(kustomization.kind).toBe('Kustomization');
    const expected = yamlFiles.filter((name) => name !== 'kustomization.yaml' && name !== SECRET_TEMPLATE);
    expect([...kustomization.resources].sort()).toEqual(expected);
    expect(kustomization.resources).not.toContain(SECRET_TEMPLATE);
  });

  it("kustomization's image override applies to the container image", () => {
    expect(kustomization.images.map((image) => image.name)).toEqual([container.image]);
  });

  it('selectors match the pod labels (Deployment, Service, PodDisruptionBudget)', () => {
    const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
    const pdb = only<K8sObject & { spec: any }>('PodDisruptionBudget');
    for (const selector of [
      deployment.spec.selector.matchLabels,
      service.spec.selector,
      pdb.spec.selector.matchLabels,
    ]) {
      expect(Object.keys(selector).length).toBeGreaterThan(0);
      expect(podLabels).toMatchObject(selector);
    }
    for (const constraint of podSpec.topologySpreadConstraints) {
      expect(podLabels).toMatchObject(constraint.labelSelector.matchLabels);
    }
  });

  it('the Service targets the container port and the HPA scales the Deployment', () => {
    const containerPorts = container.ports as Array<{ name: string; containerPort: number }>;
    for (const port of service.spec.ports) {
      const target = containerPorts.find((p) => p.name === port.targetPort || p.containerPort === port.targetPort);
      expect(target, `Service port ${port.name} → ${port.targetPort}`).toBeDefined();
    }
    const hpa = only<K8sObject & { spec: any }>('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.metrics.some((m: any) => m.resource?.name === 'cpu')).toBe(true);
    // Scaling on CPU utilization needs a CPU request to measure against.
    expect(container.resources.requests.cpu).toBeDefined();
  });

  it('the container is locked down: non-root, read-only root, no privilege escalation, no capabilities', () => {
    expect(podSpec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.securityContext.capabilities.add ?? []).toEqual([]);
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits).toMatchObject({ memory: expect.any(String) });
    // The only writable place is an emptyDir on /tmp.
    const tmp = container.volumeMounts.find((mount: any) => mount.mountPath === '/tmp');
    expect(podSpec.volumes.find((volume: any) => volume.name === tmp?.name)?.emptyDir).toBeDefined();
  });

  it('node is not PID 1 (so a heap overflow ends the container), and its heap follows the memory limit', () => {
    expect(podSpec.shareProcessNamespace).toBe(true);
    // Node sizes its heap from the cgroup limit (about half; test/container/fatal-exit.test.ts): no flag overrides it.
    const configMap = [...manifests.values()].find((manifest) => manifest.kind === 'ConfigMap') as
      { data?: Record<string, string> } | undefined;
    expect(Object.keys(configMap?.data ?? {})).not.toContain('NODE_OPTIONS');
    expect((container.env ?? []).map((variable: { name: string }) => variable.name)).not.toContain('NODE_OPTIONS');
  });

  it('agrees with the Dockerfile on the user and the port', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const user = /^USER\s+(\d+):(\d+)\s*$/m.exec(dockerfile);
    expect(user, 'Dockerfile sets a numeric USER uid:gid').not.toBeNull();
    expect(podSpec.securityContext.runAsUser).toBe(Number(user![1]));
    expect(podSpec.securityContext.runAsGroup).toBe(Number(user![2]));
    const exposed = /^EXPOSE\s+(\d+)\s*$/m.exec(dockerfile);
    expect(container.ports.map((p: any) => p.containerPort)).toContain(Number(exposed?.[1]));
    expect(container.env).toContainEqual({ name: 'PORT', value: String(exposed?.[1]) });
  });

  it('references only the ConfigMap and Secret that exist', () => {
    const refs = container.envFrom as Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
    expect(refs.map((ref) => ref.configMapRef?.name).filter(Boolean)).toEqual([configMap.metadata.name]);
    expect(refs.map((ref) => ref.secretRef?.name).filter(Boolean)).toEqual([secretTemplate.metadata.name]);
    expect(secretTemplate.kind).toBe('Secret');
    for (const value of Object.values(secretTemplate.stringData)) expect(value).toMatch(/^REPLACE_ME/);
  });

  it('configures only variables the service reads, and the service accepts them in production', () => {
    const env: Env = {
      NODE_ENV: 'production',
      ...Object.fromEntries(container.env.map((e: { name: string; value: string }) => [e.name, e.value])),
      ...configMap.data,
      // Filled in, as the template asks: its REPLACE_ME values themselves are refused (test/config/placeholder.test.ts).
      ...Object.fromEntries(
        Object.keys(secretTemplate.stringData).map((name) => [name, randomBytes(48).toString('base64')]),
      ),
    };
    const { config, read } = parseConfigRecordingReads(env);
    for (const name of [...Object.keys(configMap.data), ...Object.keys(secretTemplate.stringData)]) {
      expect(read, `${name} is read by src/config/index.ts`).toContain(name);
    }
    expect(config.production).toBe(true);
    expect(config.port).toBe(container.ports[0].containerPort);
    // The drain (readiness off, then close) must end before Kubernetes' SIGKILL.
    expect(config.shutdown.delayMs + config.shutdown.timeoutMs).toBeLessThan(
      podSpec.terminationGracePeriodSeconds * 1000,
    );
  });

  it('probes ask paths the service answers with 200', async () => {
    const { config } = parseConfigRecordingReads({ AUTH_JWT_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' });
    const app = buildApp(config);
    try {
      for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
        expect(probe.httpGet.port).toBe(container.ports[0].name);
        const response = await app.inject({ method: 'GET', url: probe.httpGet.path });
        expect(response.statusCode, probe.httpGet.path).toBe(200);
      }
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    } finally {
      await app.close();
    }
  });
});

describe('deploy/base defaults, deploy/overlays/example and deploy/monitoring', () => {
  const read = (path: string) =>
    parseAllDocuments(readFileSync(new URL(`../../deploy/${path}`, import.meta.url), 'utf8')).map((d) => d.toJS());

  it('the base sends no tool list to a model unless an operator sets one (BM25-only)', () => {
    expect(configMap.data).not.toHaveProperty('LLM_BASE_URL');
    expect(configMap.data).not.toHaveProperty('LLM_MODEL');
    const { config } = parseConfigRecordingReads({ ...configMap.data, AUTH_JWT_SECRET: 'x'.repeat(32) });
    expect(config.llm).toBeUndefined();
  });

  it('metrics: served on the port the pod annotations name, which the public Service does not expose', () => {
    const { config } = parseConfigRecordingReads({ ...configMap.data, AUTH_JWT_SECRET: 'x'.repeat(32) });
    const annotations = deployment.spec.template.metadata.annotations as Record<string, string>;
    const metricsPort = container.ports.find((port: { name: string }) => port.name === 'metrics');
    expect(config.metrics.port).toBe(metricsPort.containerPort);
    expect(annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(metricsPort.containerPort),
      'prometheus.io/path': config.metrics.path,
    });
    expect(service.spec.ports.map((port: { targetPort: unknown }) => port.targetPort)).not.toContain('metrics');
  });

  it('the example overlay builds on the base with its own namespace and image, a Redis and the metrics Service', () => {
    const [overlay] = read('overlays/example/kustomization.yaml') as [
      { resources: string[]; namespace: string; images: Array<{ name: string; newName: string }> },
    ];
    const [namespace] = read('overlays/example/namespace.yaml') as [K8sObject];
    expect(overlay.resources).toEqual(['namespace.yaml', '../../base', '../../metrics', 'redis.yaml']);
    expect(namespace).toMatchObject({ kind: 'Namespace', metadata: { name: overlay.namespace } });
    expect(() => validateAgainstSchema({ ...namespace, kind: 'Namespace' } as K8sObject)).not.toThrow();
    expect(overlay.images.map((image) => image.name)).toEqual([container.image]);
    const redis = read('overlays/example/redis.yaml') as Array<K8sObject & { spec: any }>;
    for (const object of redis) expect(() => validateAgainstSchema(object), object.kind).not.toThrow();
    // The same Redis settings as docker-compose.yml (test/redis/redis-eviction.test.ts runs those):
    // volatile-lru, so what projects taught (keys without a TTL) is never evicted.
    const compose = parseAllDocuments(readFileSync(new URL('../../docker-compose.yml', BASE), 'utf8'))[0]!.toJS() as {
      services: { redis: { command: string[] } };
    };
    const statefulSet = redis.find((object) => object.kind === 'StatefulSet')!;
    expect(statefulSet.spec.template.spec.containers[0].args).toEqual(compose.services.redis.command);
    expect(compose.services.redis.command.join(' ')).toContain('--maxmemory-policy volatile-lru');
  });

  it("the example overlay's Redis keeps what projects taught on a claim: AOF in the claim's mount, kept on delete", () => {
    const redis = read('overlays/example/redis.yaml') as Array<K8sObject & { spec: any }>;
    const statefulSet = redis.find((object) => object.kind === 'StatefulSet')!;
    const pod = statefulSet.spec.template.spec;
    const args: string[] = pod.containers[0].args;
    // Append-only, synced every second, into the directory the claim is mounted on.
    expect(args.join(' ')).toContain('--appendonly yes --appendfsync everysec');
    const dir = args[args.indexOf('--dir') + 1];
    const mount = pod.containers[0].volumeMounts.find((volume: { mountPath: string }) => volume.mountPath === dir);
    expect(mount, `a volume mounted on --dir ${dir}`).toBeDefined();
    // That volume is a claim per pod, not the pod's own (emptyDir) volume that a restart empties.
    expect((pod.volumes ?? []).map((volume: { name: string }) => volume.name)).not.toContain(mount.name);
    const claim = statefulSet.spec.volumeClaimTemplates.find(
      (template: { metadata: { name: string } }) => template.metadata.name === mount.name,
    );
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(claim.spec.resources.requests.storage).toMatch(/^\d+(Gi|Mi)$/);
    expect(statefulSet.spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    // Writable by Redis's user whoever provisioned it.
    expect(pod.securityContext.fsGroup).toBe(pod.securityContext.runAsGroup);
  });

  it("docker-compose.yml's Redis keeps its append-only file in a named volume, on the command's --dir", () => {
    const compose = parseAllDocuments(readFileSync(new URL('../../docker-compose.yml', BASE), 'utf8'))[0]!.toJS() as {
      services: { redis: { command: string[]; volumes: string[]; read_only: boolean } };
      volumes: Record<string, unknown>;
    };
    const { command, volumes } = compose.services.redis;
    expect(command.join(' ')).toContain('--appendonly yes --appendfsync everysec');
    const dir = command[command.indexOf('--dir') + 1];
    const mounted = volumes.map((volume) => volume.split(':')).find(([, path]) => path === dir);
    expect(mounted, `a volume on --dir ${dir}`).toBeDefined();
    // A named volume (declared at the top level), not a path of the host.
    expect(Object.keys(compose.volumes)).toContain(mounted![0]);
  });

  it('the ServiceMonitor scrapes the pods through a metrics Service that selects them', () => {
    const [kustomize] = read('monitoring/kustomization.yaml') as [{ resources: string[] }];
    expect(kustomize.resources.sort()).toEqual(['../metrics', 'servicemonitor.yaml']);
    const [metricsService] = read('metrics/metrics-service.yaml') as [K8sObject & { spec: any }];
    const [monitor] = read('monitoring/servicemonitor.yaml') as [K8sObject & { spec: any }];
    expect(() => validateAgainstSchema(metricsService)).not.toThrow();
    expect(deployment.spec.template.metadata.labels).toMatchObject(metricsService.spec.selector);
    expect(metricsService.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.endpoints[0].port).toBe(metricsService.spec.ports[0].name);
    expect(container.ports.map((port: { name: string }) => port.name)).toContain(
      metricsService.spec.ports[0].targetPort,
    );
    const { config } = parseConfigRecordingReads({ ...configMap.data, AUTH_JWT_SECRET: 'x'.repeat(32) });
    expect(monitor.spec.endpoints[0].path).toBe(config.metrics.path);
  });
});

// kustomize itself, when a kubectl with its built-in kustomize is on PATH (it is not a dependency of the project).
const kubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!kubectl)('kubectl kustomize deploy/overlays/example', () => {
  it("renders a deployment whose REDIS_URL reaches the overlay's Redis, and whose metrics port the metrics Service scrapes", () => {
    const rendered = execFileSync('kubectl', ['kustomize', new URL('../overlays/example', BASE).pathname], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const objects = parseAllDocuments(rendered).map(
      (document) => document.toJS() as K8sObject & { spec: any; data?: Record<string, string> },
    );
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual([
      'ConfigMap/catalog-search-config',
      'Deployment/catalog-search',
      'HorizontalPodAutoscaler/catalog-search',
      'Namespace/catalog-search',
      'PodDisruptionBudget/catalog-search',
      'Service/catalog-search',
      'Service/catalog-search-metrics',
      'Service/catalog-search-redis',
      'StatefulSet/catalog-search-redis',
    ]);
    for (const object of objects) {
      expect(() => validateAgainstSchema(object), object.kind).not.toThrow();
      if (object.kind !== 'Namespace')
        expect((object.metadata as { namespace?: string }).namespace, object.kind).toBe('catalog-search');
    }
    const find = (kind: string, name: string) =>
      objects.find((object) => object.kind === kind && object.metadata.name === name)!;
    // The service reads the rendered ConfigMap (with the Secret's key) as it would in the cluster.
    const configMapData = find('ConfigMap', 'catalog-search-config').data!;
    const { config } = parseConfigRecordingReads({
      ...configMapData,
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'x'.repeat(32),
    });
    const redisUrl = new URL(config.redis!.url);
    const redisService = find('Service', 'catalog-search-redis');
    expect(redisUrl.hostname).toBe(redisService.metadata.name);
    expect(Number(redisUrl.port)).toBe(redisService.spec.ports[0].port);
    const redis = find('StatefulSet', 'catalog-search-redis');
    expect(redis.spec.serviceName).toBe(redisService.metadata.name);
    expect(redis.spec.template.metadata.labels).toMatchObject(redisService.spec.selector);
    expect(redis.spec.template.spec.containers[0].ports.map((port: { name: string }) => port.name)).toContain(
      redisService.spec.ports[0].targetPort,
    );
    // The API's selectors do not take in the Redis pod.
    expect(redis.spec.template.metadata.labels).not.toMatchObject(find('Service', 'catalog-search').spec.selector);
    const metrics = find('Service', 'catalog-search-metrics');
    const api = find('Deployment', 'catalog-search');
    expect(api.spec.template.metadata.labels).toMatchObject(metrics.spec.selector);
    const metricsPort = api.spec.template.spec.containers[0].ports.find(
      (port: { name: string }) => port.name === metrics.spec.ports[0].targetPort,
    );
    expect(metricsPort.containerPort).toBe(config.metrics.port);
  });
});

describe.skipIf(!kubectl)('kubectl kustomize deploy/base', () => {
  it('renders every resource, schema-valid, with the image override and the common labels applied', () => {
    const rendered = execFileSync('kubectl', ['kustomize', new URL('.', BASE).pathname], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const objects = parseAllDocuments(rendered).map((document) => document.toJS() as K8sObject);
    expect(objects.map((object) => object.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Service',
    ]);
    for (const object of objects) {
      expect(() => validateAgainstSchema(object), object.kind).not.toThrow();
      expect(object.metadata.labels).toMatchObject({ 'app.kubernetes.io/part-of': 'catalog-search' });
    }
    const renderedDeployment = objects.find((object) => object.kind === 'Deployment') as K8sObject & { spec: any };
    const override = kustomization.images[0]!;
    expect(renderedDeployment.spec.template.spec.containers[0].image).toBe(
      `${override.newName ?? override.name}:${override.newTag}`,
    );
  });
});

describe('.env.example', () => {
  const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
  // `NAME=value` (set), `# NAME=value` (the default, commented out) and `# e.g. NAME=value` (an example).
  const assignments = [...example.matchAll(/^(#\s*(?:e\.g\.\s+)?)?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({
    name: m[2]!,
    value: m[3]!,
    kind: m[1] === undefined ? 'set' : /e\.g\./.test(m[1]) ? 'example' : 'default',
  }));
  const composeOnly = [
    'CATALOG_SEARCH_BIND',
    'CATALOG_SEARCH_PORT',
    'CATALOG_SEARCH_IMAGE',
    'CATALOG_SEARCH_MEMORY',
    'NODE_IMAGE',
    'REDIS_IMAGE',
  ];
  // Sections whose variables are read only when the section is on (an LLM, Redis, tracing, a metrics port).
  const everythingOn: Env = {
    AUTH_JWT_SECRET: 'x'.repeat(32),
    LLM_BASE_URL: 'http://127.0.0.1:1/v1',
    LLM_MODEL: 'model',
    REDIS_URL: 'redis://127.0.0.1:1',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
    METRICS_PORT: '9464',
  };

  it('documents only variables the service reads, including every variable the ConfigMap sets', () => {
    const { read } = parseConfigRecordingReads(everythingOn);
    for (const { name } of assignments) {
      if (!composeOnly.includes(name)) expect(read, `${name} is read by src/config/index.ts`).toContain(name);
    }
    const documented = assignments.map((a) => a.name);
    for (const name of Object.keys(configMap.data)) expect(documented).toContain(name);
  });

  it('states the real defaults: setting a commented-out default changes nothing in the configuration', () => {
    const defaults = assignments.filter((a) => a.kind === 'default' && !composeOnly.includes(a.name));
    expect(defaults.length).toBeGreaterThan(30);
    const baseline = JSON.stringify(parseConfig(everythingOn));
    const wrong: string[] = [];
    for (const { name, value } of defaults) {
      let same: boolean;
      try {
        same = JSON.stringify(parseConfig({ ...everythingOn, [name]: value })) === baseline;
      } catch {
        same = false;
      }
      if (!same) wrong.push(`${name}=${value}`);
    }
    expect(wrong, 'commented-out lines that are not the default (write examples as `# e.g. NAME=value`)').toEqual([]);
  });

  it('the default check is live: a wrong default is caught', () => {
    const baseline = JSON.stringify(parseConfig(everythingOn));
    expect(JSON.stringify(parseConfig({ ...everythingOn, MAX_QUERY_CHARS: '1000' }))).not.toBe(baseline);
    expect(JSON.stringify(parseConfig({ ...everythingOn, LLM_PROMPT_TOKEN_BUDGET: '6999' }))).not.toBe(baseline);
  });

  it('is accepted by the service in production once the secret is filled in', () => {
    const active = Object.fromEntries(assignments.filter((a) => a.kind === 'set').map((a) => [a.name, a.value]));
    expect(active.AUTH_JWT_SECRET).toBe('');
    const { config } = parseConfigRecordingReads({
      ...active,
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'y'.repeat(32),
    });
    expect(config.auth?.key.kind).toBe('secret');
  });
});

/** parseConfig, plus the names of every variable it looked up (read through a recording proxy). */
function parseConfigRecordingReads(env: Env): { config: ReturnType<typeof parseConfig>; read: Set<string> } {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
  });
  return { config: parseConfig(recording), read };
}

describe('docker-compose.yml and the documented compose commands', () => {
  // A self-hoster who pulled a newer checkout must run that code: compose builds the image from the
  // checkout (never pulls a `catalog-search:latest` of someone else's), and the documented `up` says --build.
  it('builds the checkout: build context ".", and `up -d --build` in the docs', () => {
    const compose = parseAllDocuments(readFileSync(new URL('../../docker-compose.yml', BASE), 'utf8'))[0]!.toJS() as {
      services: Record<string, { build?: { context?: string } }>;
    };
    expect(compose.services['catalog-search']).toMatchObject({ build: { context: '.' } });
    const docs = readFileSync(new URL('../../docs/self-hosting.md', BASE), 'utf8');
    const ups = docs
      .split('\n')
      .filter((line) => /^scripts\/compose\.sh up -d\b/.test(line) && !line.includes('--no-deps'));
    expect(ups.length).toBeGreaterThan(0);
    for (const line of ups) expect(line).toContain('--build');
  });

  it('the documented docker run leaves the development server its port 8080 and removes the container when it stops', () => {
    const docs = readFileSync(new URL('../../docs/self-hosting.md', BASE), 'utf8');
    const runs = docs.split('\n').filter((line) => line.startsWith('docker run'));
    expect(runs.length).toBeGreaterThan(0);
    for (const line of runs) {
      expect(line).toContain('--rm');
      expect(line).not.toMatch(/-p 127\.0\.0\.1:8080:/);
    }
  });
});
