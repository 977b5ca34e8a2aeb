import 'reflect-metadata';
import { loadErasureConfig, runHost, startErasureService } from '@loom/hosts';

/** The erasure service as its own process: runs the erasure requests the gateways store, delivered durably on JetStream. */
runHost(loadErasureConfig, (config) => startErasureService(config));
