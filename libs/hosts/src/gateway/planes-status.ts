import { isExperimentalOp, Ops, type OpName } from '@loom/contracts';
import type { PlanesStatus } from '@loom/api';

/**
 * What /readyz says of the optional planes (SETTINGS-09, PRHIST-05): whether this gateway serves
 * each, how to turn it on, and which of its ops are experimental. The tracker is on for a
 * namespace once a source is registered there too; `tracker.status` says so per namespace.
 */
export function planesStatus(config: { codeIngestEnabled: boolean; trackerOrg: string | undefined }): PlanesStatus {
  const experimental = (prefixes: string[]): string[] => (Object.keys(Ops) as OpName[]).filter((op) => prefixes.some((p) => op.startsWith(p)) && isExperimentalOp(op));
  return {
    code_history: {
      enabled: config.codeIngestEnabled,
      ...(config.codeIngestEnabled ? {} : { how_to_enable: 'set LOOM_CODE_INGEST_ENABLED=true on the gateway, then add a repository with `loom code add <path>`' }),
      experimental_ops: experimental(['code.', 'history.']),
    },
    tracker: {
      enabled: config.trackerOrg !== undefined,
      how_to_enable:
        config.trackerOrg === undefined
          ? 'set LOOM_TRACKER_ORG on the gateway, then register a source with `loom tracker register` (tracker.source_register)'
          : 'register a source in each namespace with `loom tracker register` (tracker.source_register); tracker.status says whether one is',
      experimental_ops: experimental(['tracker.']),
    },
  };
}
