import type { TracesConfig } from './loom.config';

type Env = Record<string, string | undefined>;

/** The standard OpenTelemetry variables Loom reads (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). */
export const OtelVariables: ReadonlyArray<{ name: string; default: string; meaning: string }> = [
  {
    name: 'OTEL_TRACES_EXPORTER',
    default: 'none (otlp when an OTLP endpoint is set)',
    meaning: 'otlp | console | none; LOOM_TRACES wins when both are set. Unlike the OpenTelemetry default, nothing is sent unless an endpoint or this is set',
  },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', default: '(unset)', meaning: 'OTLP/HTTP base URL, e.g. http://otel-collector:4318; traces go to <it>/v1/traces' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', default: '(unset)', meaning: 'the traces URL itself (used as given; wins over OTEL_EXPORTER_OTLP_ENDPOINT); LOOM_TRACES_OTLP_URL wins over both' },
  { name: 'OTEL_EXPORTER_OTLP_HEADERS', default: '(unset)', meaning: 'headers for the endpoint, name=value pairs separated by commas (values URL-decoded; never logged)' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', default: '(unset)', meaning: 'the same for traces only; both are added to LOOM_TRACES_OTLP_HEADERS, which wins per name' },
  { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', default: 'http/protobuf', meaning: 'http/protobuf or http/json: Loom exports OTLP over HTTP (JSON bodies, which collectors take on the same path); grpc is refused' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', default: '(OTEL_EXPORTER_OTLP_PROTOCOL)', meaning: 'the same for traces only' },
  { name: 'OTEL_SERVICE_NAME', default: '(loom-<service>, or loom embedded)', meaning: 'service.name of every span this process exports' },
  { name: 'OTEL_RESOURCE_ATTRIBUTES', default: '(unset)', meaning: 'more resource attributes, key=value pairs separated by commas, e.g. deployment.environment=prod,k8s.pod.name=$(POD_NAME)' },
  { name: 'OTEL_SDK_DISABLED', default: 'false', meaning: 'true: no span is exported, whatever else is set (spans and trace-context propagation still run)' },
  { name: 'OTEL_BSP_SCHEDULE_DELAY', default: '(LOOM_TRACES_OTLP_FLUSH_MS)', meaning: 'ms finished spans wait to be sent together; LOOM_TRACES_OTLP_FLUSH_MS wins' },
];

/** `k=v,k2=v2` (W3C baggage style, values percent-decoded), as the OTel spec writes headers and resource attributes. */
export function keyValueList(raw: string | undefined, variable: string, problems: string[], options: { secret: boolean; validName?: RegExp }): Record<string, string> {
  if (raw === undefined) return {};
  const out: Record<string, string> = {};
  for (const [i, pair] of raw.split(',').entries()) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const name = at > 0 ? pair.slice(0, at).trim() : '';
    if (name === '' || (options.validName && !options.validName.test(name))) {
      problems.push(`${variable} entry ${i + 1} must be name=value${options.secret ? ' (value not shown)' : ` (got "${pair}")`}`);
      continue;
    }
    const value = pair.slice(at + 1).trim();
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Folds the standard OTEL_* variables into Loom's traces settings. Loom's own LOOM_TRACES_*
 * settings win where both say something; with neither, nothing is exported (TRACE-03: Loom
 * works, and sends nothing, with no sink configured).
 */
export function withOtelVariables(
  loom: { mode: TracesConfig['mode']; modeSet: boolean; url: string | undefined; headers: Record<string, string>; flushMs: number; flushSet: boolean },
  env: Env,
  problems: string[],
): TracesConfig {
  const str = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const resourceAttributes = keyValueList(str('OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES', problems, { secret: false });
  const serviceName = str('OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'];
  const resource = { ...(serviceName ? { serviceName } : {}), ...(Object.keys(resourceAttributes).length > 0 ? { resourceAttributes } : {}) };

  const protocol = str('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? str('OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/protobuf' && protocol !== 'http/json') {
    problems.push(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json: Loom exports OTLP over HTTP (port 4318), not ${protocol}`);
  }
  const exporter = str('OTEL_TRACES_EXPORTER');
  if (exporter !== undefined && !['otlp', 'console', 'none'].includes(exporter)) {
    problems.push(`OTEL_TRACES_EXPORTER must be otlp, console or none (got "${exporter}")`);
  }
  const disabled = ['true', '1'].includes(str('OTEL_SDK_DISABLED')?.toLowerCase() ?? '');
  if (disabled) return { mode: 'none', ...resource };

  let url = loom.url;
  if (url === undefined) {
    const traces = str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    const base = str('OTEL_EXPORTER_OTLP_ENDPOINT');
    const candidate = traces ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
    if (candidate !== undefined) {
      try {
        new URL(candidate);
        url = candidate;
      } catch {
        problems.push(`${traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be a URL (got "${traces ?? base}")`);
      }
    }
  }
  let mode = loom.mode;
  if (!loom.modeSet) {
    if (exporter === 'otlp' || exporter === 'console' || exporter === 'none') mode = exporter;
    else if (url !== undefined) mode = 'otlp';
  }
  if (mode !== 'otlp') return { mode, ...resource };
  // An explicit OTEL_TRACES_EXPORTER=otlp with no endpoint: the spec's default endpoint.
  url ??= 'http://localhost:4318/v1/traces';
  const headers = {
    ...keyValueList(str('OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS', problems, { secret: true, validName: HEADER_NAME }),
    ...keyValueList(str('OTEL_EXPORTER_OTLP_TRACES_HEADERS'), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', problems, { secret: true, validName: HEADER_NAME }),
    ...loom.headers,
  };
  let flushMs = loom.flushMs;
  const delay = str('OTEL_BSP_SCHEDULE_DELAY');
  if (!loom.flushSet && delay !== undefined) {
    const n = Number(delay);
    if (Number.isInteger(n) && n >= 10 && n <= 60_000) flushMs = n;
    else problems.push(`OTEL_BSP_SCHEDULE_DELAY must be a whole number of ms from 10 to 60000 (got "${delay}")`);
  }
  return { mode, otlp: { url, headers, flushMs }, ...resource };
}
