// The hashed embedder's own thread (ThreadedHashedEmbeddingProvider). Plain JavaScript because a
// worker is a fresh Node instance outside jest's transform: built, the compiled provider sits
// beside this file; in the source tree (tests) the workspace's transpile-on-require hook loads
// the TypeScript. Messages: { id, texts } -> { id, vectors: Float64Array (texts x dims, moved) }.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { parentPort, workerData } = require('node:worker_threads');

if (!existsSync(join(__dirname, 'hashed.provider.js'))) {
  require(join(__dirname, '..', '..', '..', 'clickhouse', 'src', 'dev-server', 'ts-register.js'));
}
const { HashedEmbeddingProvider } = require('./hashed.provider');

const provider = new HashedEmbeddingProvider(workerData.dims);

parentPort.on('message', ({ id, texts }) => {
  try {
    const vectors = new Float64Array(texts.length * provider.dims);
    texts.forEach((text, i) => vectors.set(provider.embedOne(text), i * provider.dims));
    parentPort.postMessage({ id, vectors }, [vectors.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
