import 'reflect-metadata';
import { loadBriefCondenserConfig, runHost, startBriefCondenserService } from '@loom/hosts';

/** The brief condenser as its own process: serves loom.brief.revise.v1 and runs deferred extractions delivered on JetStream. */
runHost(loadBriefCondenserConfig, (config) => startBriefCondenserService(config));
