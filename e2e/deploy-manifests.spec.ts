import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigVariables } from '../libs/platform/src/config/loom.config';

// No cluster or Docker here: these checks hold the manifests to the code they deploy, so a
// renamed app, a misspelt variable or a port that moved cannot ship unnoticed.
const ROOT = resolve(__dirname, '..');
const known = new Set(ConfigVariables.map((v) => v.name));
const defaults = new Map(ConfigVariables.map((v) => [v.name, v.default]));

type Doc = Record<string, any>;
const documents = (file: string): Doc[] =>
  parseAllDocuments(readFileSync(file, 'utf8'))
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
});
