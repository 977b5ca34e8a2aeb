import 'reflect-metadata';
import { loadCompactorConfig, runHost, startCompactorService } from '@loom/hosts';

/** The compactor as its own process: serves loom.compact.run.v1 in queue group `compactor`. */
runHost(loadCompactorConfig, (config) => startCompactorService(config));
