import 'reflect-metadata';
import { loadTitlerConfig, runHost, startTitlerService } from '@loom/hosts';

/** The titler as its own process: periodic title passes, one replica at a time (a NATS KV lease). */
runHost(loadTitlerConfig, (config) => startTitlerService(config));
