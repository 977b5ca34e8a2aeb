import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigVariables } from '../libs/platform/src/config/loom.config';
import { configReadsOf } from '../libs/testing/src/config-reads';
import { LoomMetrics } from '../libs/platform/src/metrics/metrics';

// No cluster or Docker here: these checks hold the manifests to the code they deploy, so a
// renamed app, a misspelt variable or a port that moved cannot ship unnoticed.
const ROOT = resolve(__dirname, '..');
const known = new Set(ConfigVariables.map((v) => v.name));
const defaults = new Map(ConfigVariables.map((v) => [v.name, v.default]));

type Doc = Record<string, any>;
const documents = (file: string): Doc[] =>
  parseAllDocuments(readFileSync(file, 'utf8'), { merge: true })
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
      return d.toJS() as Doc | null;
    })
    .filter((d): d is Doc => d !== null);
const manifests = readdirSync(join(ROOT, 'deploy'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => ({ file: f, docs: documents(join(ROOT, 'deploy', f)) }));
const containers = manifests.flatMap(({ file, docs }) =>
  docs.flatMap((d) => (d['spec']?.template?.spec?.containers ?? d['spec']?.jobTemplate?.spec?.template?.spec?.containers ?? []).map((c: Doc) => ({ file, kind: d['kind'] as string, name: d['metadata']?.name as string, container: c }))),
);
const compose = documents(join(ROOT, 'docker-compose.yml'))[0]!;

/** The app a command runs: `node dist/apps/<app>/src/main.js …`. */
const appOf = (command: unknown): string | undefined => (Array.isArray(command) ? command.join(' ') : String(command ?? '')).match(/dist\/apps\/([\w-]+)\/src\/main\.js/)?.[1];

describe('deployment manifests (deploy/, docker-compose.yml)', () => {
  it('parse, and the kustomization lists files that exist', () => {
    expect(containers.length).toBeGreaterThanOrEqual(4);
    const kustomization = manifests.find((m) => m.file === 'kustomization.yaml')!.docs[0]!;
    for (const resource of kustomization['resources'] as string[]) expect(existsSync(join(ROOT, 'deploy', resource))).toBe(true);
  });

  it('every container runs an app this repository builds', () => {
    for (const { name, container } of containers) {
      const app = appOf([...(container['command'] ?? []), ...(container['args'] ?? [])]);
      expect({ name, app, exists: app !== undefined && existsSync(join(ROOT, 'apps', app!, 'src', 'main.ts')) }).toEqual({ name, app: expect.any(String), exists: true });
    }
    for (const [service, def] of Object.entries(compose['services'] as Record<string, Doc>)) {
      const app = appOf(def['command']);
      if (app !== undefined) expect({ service, exists: existsSync(join(ROOT, 'apps', app, 'src', 'main.ts')) }).toEqual({ service, exists: true });
    }
  });

  it('every LOOM_* variable they set is one Loom reads', () => {
    const named: Array<{ where: string; name: string }> = [];
    for (const { file, docs } of manifests) {
      for (const d of docs) for (const key of Object.keys({ ...(d['data'] ?? {}), ...(d['stringData'] ?? {}) })) named.push({ where: file, name: key });
    }
    for (const { file, container } of containers) for (const e of container['env'] ?? []) named.push({ where: file, name: e.name as string });
    // Commented-out settings in the ConfigMap are documentation a user uncomments: they count too.
    for (const m of readFileSync(join(ROOT, 'deploy', 'configmap.yaml'), 'utf8').matchAll(/^\s*#\s*(LOOM_[A-Z0-9_]+):/gm)) named.push({ where: 'configmap.yaml (commented)', name: m[1]! });
    const env = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x).split('=')[0]!) : Object.keys((v as object) ?? {}));
    for (const [service, def] of Object.entries(compose['services'] as Record<string, Doc>)) for (const key of env(def['environment'])) named.push({ where: `docker-compose ${service}`, name: key });
    const loom = named.filter((n) => n.name.startsWith('LOOM_'));
    expect(loom.length).toBeGreaterThan(5);
    expect(loom.filter((n) => !known.has(n.name))).toEqual([]);
  });

  it('ports and probes match the defaults the apps listen on', () => {
    const port = (component: string) => containers.find((c) => c.name === component)!.container['ports']?.[0]?.containerPort as number;
    expect(port('gateway')).toBe(Number(defaults.get('LOOM_PORT')));
    expect(port('embedder')).toBe(Number(defaults.get('LOOM_EMBEDDER_METRICS_PORT')));
    expect(port('titler')).toBe(Number(defaults.get('LOOM_TITLER_METRICS_PORT')));
    expect(port('erasure')).toBe(Number(defaults.get('LOOM_ERASURE_METRICS_PORT')));
    expect(port('compactor')).toBe(Number(defaults.get('LOOM_COMPACTOR_METRICS_PORT')));
    const gateway = containers.find((c) => c.name === 'gateway')!.container;
    expect(gateway['readinessProbe'].httpGet.path).toBe('/readyz');
    expect(gateway['livenessProbe'].httpGet.path).toBe('/healthz');
    const service = manifests.flatMap((m) => m.docs).find((d) => d['kind'] === 'Service' && d['metadata']?.name === 'gateway')!;
    expect(service['spec'].ports[0].port).toBe(Number(defaults.get('LOOM_PORT')));
  });

  describe('[issue 11: deployment that works as written] every process gets each variable its configuration reads that the deployment sets', () => {
    // "Needs" comes from the apps themselves: each built app is started with a recorder of the
    // variables it reads (libs/testing/src/config-reads.ts), so a service whose config module
    // starts reading a variable is held to it here with no list to update.
    const reads = new Map<string, string[]>();
    const readsOf = (app: string, args: string[]): string[] => {
      const key = `${app} ${args.join(' ')}`;
      if (!reads.has(key)) {
        const main = join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
        if (!existsSync(main)) throw new Error(`dist/apps/${app} is missing: run \`npm run build\` first`);
        reads.set(key, configReadsOf(main, args));
      }
      return reads.get(key)!;
    };
    const argsOf = (command: unknown): string[] => {
      const words = Array.isArray(command) ? command.map(String) : String(command ?? '').split(/\s+/);
      const at = words.findIndex((w) => /dist\/apps\/[\w-]+\/src\/main\.js/.test(w));
      return words.slice(at + 1);
    };
    // Secrets go to each process one by one, by design; every other setting may go to all.
    const secrets = new Set(containers.flatMap(({ container }) => (container['env'] ?? []).filter((e: Doc) => e['valueFrom']?.secretKeyRef).map((e: Doc) => e['name'] as string)));
    // A process that parses every declared variable (one configuration for all) tells nothing
    // about which secrets it uses: it is held to the shared settings only.
    const needs = (app: string, args: string[], configured: Set<string>): string[] => {
      const read = readsOf(app, args);
      // (OTEL_* variables are read only when they matter, e.g. headers only with an endpoint.)
      const parsesEverything = [...known].filter((name) => name.startsWith('LOOM_')).every((name) => read.includes(name));
      return read.filter((name) => configured.has(name) && !(parsesEverything && secrets.has(name)));
    };
    const configMap = manifests.flatMap((m) => m.docs).find((d) => d['kind'] === 'ConfigMap')!;

    it('Kubernetes (deploy/): the ConfigMap, and each Secret key to every container whose configuration reads it', () => {
      const given = containers.map(({ name, container }) => ({
        name,
        app: appOf([...(container['command'] ?? []), ...(container['args'] ?? [])])!,
        args: argsOf([...(container['command'] ?? []), ...(container['args'] ?? [])]),
        env: new Set<string>([
          ...((container['envFrom'] ?? []) as Doc[]).some((f) => f['configMapRef']?.name === configMap['metadata'].name) ? Object.keys(configMap['data'] ?? {}) : [],
          ...((container['env'] ?? []) as Doc[]).map((e) => e['name'] as string),
        ]),
      }));
      const configured = new Set(given.flatMap((g) => [...g.env]));
      expect(configured.has('LOOM_LLM_API_KEY')).toBe(true);
      const missing = given.map((g) => ({ container: g.name, missing: needs(g.app, g.args, configured).filter((n) => !g.env.has(n)) }));
      expect(missing).toEqual(given.map((g) => ({ container: g.name, missing: [] })));
    });

    it('docker-compose.yml: each Loom service gets every variable its configuration reads that the file sets for another', () => {
      const env = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x).split('=')[0]!) : Object.keys((v as object) ?? {}));
      const given = Object.entries(compose['services'] as Record<string, Doc>)
        .filter(([, def]) => appOf(def['command']) !== undefined)
        .map(([service, def]) => ({ service, app: appOf(def['command'])!, args: argsOf(def['command']), env: new Set(env(def['environment']).filter((n) => n !== '<<')) }));
      const configured = new Set(given.flatMap((g) => [...g.env]));
      expect(configured.has('LOOM_LLM_BASE_URL')).toBe(true);
      const missing = given.map((g) => ({ service: g.service, missing: needs(g.app, g.args, configured).filter((n) => !g.env.has(n)) }));
      expect(missing).toEqual(given.map((g) => ({ service: g.service, missing: [] })));
    });

    it('the gateway gets the LLM settings in both (it extracts memories and revises briefs with the model)', () => {
      const gateway = containers.find((c) => c.name === 'gateway')!.container;
      expect((gateway['env'] as Doc[]).map((e) => e['name'])).toEqual(expect.arrayContaining(['LOOM_LLM_API_KEY', 'LOOM_SESSION_BRIEF_LLM_API_KEY']));
      expect(readFileSync(join(ROOT, 'deploy', 'configmap.yaml'), 'utf8')).toMatch(/^\s*#?\s*LOOM_LLM_BASE_URL:/m);
      const composeGateway = env((compose['services'] as Record<string, Doc>)['gateway']!['environment']);
      expect(composeGateway).toEqual(expect.arrayContaining(['LOOM_LLM_BASE_URL', 'LOOM_LLM_MODEL', 'LOOM_LLM_API_KEY']));
      function env(v: unknown): string[] {
        return Object.keys((v as object) ?? {});
      }
    });
  });

  it('[issue 11: scale the embedder on its own] deploy/keda/ replaces the CPU HPA by a KEDA ScaledObject on metrics the embedder exports, keeping CPU as a trigger and a fallback replica count', () => {
    const dir = join(ROOT, 'deploy', 'keda');
    const kustomization = documents(join(dir, 'kustomization.yaml'))[0]!;
    for (const resource of kustomization['resources'] as string[]) expect(existsSync(join(dir, resource))).toBe(true);
    expect(kustomization['resources']).toContain('../');
    // The plain HPA it deletes is the one deploy/ ships for the embedder.
    const deleted = (kustomization['patches'] as Doc[]).map((p) => p['target']);
    const hpa = manifests.flatMap((m) => m.docs).find((d) => d['kind'] === 'HorizontalPodAutoscaler')!;
    expect(deleted).toContainEqual(expect.objectContaining({ kind: 'HorizontalPodAutoscaler', name: hpa['metadata'].name }));
    expect(hpa['spec'].scaleTargetRef.name).toBe('embedder');

    const scaled = documents(join(dir, 'embedder-scaledobject.yaml')).find((d) => d['kind'] === 'ScaledObject')!;
    expect(scaled['spec'].scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'embedder' });
    expect(containers.some((c) => c.kind === 'Deployment' && c.name === 'embedder')).toBe(true);
    const triggers = scaled['spec'].triggers as Doc[];
    const prometheus = triggers.find((t) => t['type'] === 'prometheus')!;
    // Every series the query names is one the embedder exports, under its service label.
    const exported = new Set(new LoomMetrics('embedder', { defaultMetrics: false }).registry.getMetricsAsArray().map((m) => m.name));
    const named = [...String(prometheus['metadata'].query).matchAll(/\b(loom_[a-z_]+)\{([^}]*)\}/g)];
    expect(named.length).toBeGreaterThan(0);
    for (const [, metric, labels] of named) {
      expect({ metric, exported: exported.has(metric!) }).toEqual({ metric, exported: true });
      expect(labels).toContain('service="embedder"');
    }
    expect(Number(prometheus['metadata'].threshold)).toBeGreaterThan(0);
    // The fallbacks: CPU as before, and a fixed count while Prometheus cannot be read.
    expect(triggers).toContainEqual(expect.objectContaining({ type: 'cpu', metricType: 'Utilization' }));
    expect(scaled['spec'].fallback.replicas).toBeGreaterThanOrEqual(scaled['spec'].minReplicaCount);
    expect(scaled['spec'].minReplicaCount).toBe(hpa['spec'].minReplicas);
    // Prometheus finds the embedder pods by their annotations, on the metrics port.
    const embedder = manifests.flatMap((m) => m.docs).find((d) => d['kind'] === 'Deployment' && d['metadata'].name === 'embedder')!;
    expect(embedder['spec'].template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(defaults.get('LOOM_EMBEDDER_METRICS_PORT')) });
  });
});
