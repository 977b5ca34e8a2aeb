import { describeApiChecks, startTestLoom, type TestLoom } from '../../testing/src';

describe('embedded topology', () => {
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom();
  });
  afterAll(async () => loom.close());

  describeApiChecks('embedded', () => ({
    admin: loom.admin,
    storage: loom.gateway.runtime.storage,
    as: (ns, role) => loom.as(ns, role),
    stopEmbedder: () => loom.stopEmbedder(),
    startEmbedder: () => loom.startEmbedder(),
  }));
});
