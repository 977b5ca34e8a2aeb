import { InMemoryLeaseManager } from '@loom/leases';
import type { LlmProvider } from '@loom/providers';
import { openTestStorage } from '../../testing/src';
import { BriefsService } from './briefs.service';

describe('brief saves when the model-calls switch cannot be read', () => {
  let storage: Awaited<ReturnType<typeof openTestStorage>>;
  beforeAll(async () => {
    storage = await openTestStorage();
  });
  afterAll(async () => storage.drop());

  it('BRIEF-LLM-08: a window held by an unread switch is not sent; when every window is held, the events-only save is a 503 that writes nothing', async () => {
    let calls = 0;
    const llm: LlmProvider = {
      name: 'openai',
      model: 'm',
      complete: async () => {
        calls += 1;
        return { text: JSON.stringify({ goal: 'g' }) };
      },
    };
    const unreadable = async (): Promise<boolean> => {
      throw new Error('settings storage is unavailable');
    };
    const briefs = new BriefsService(storage, new InMemoryLeaseManager(), llm, { llm: true, windowChars: 600, maxWindows: 3, extractionPolicy: 'builder' }, {}, unreadable);
    const scope = { bounded: false as const };
    const events = [{ kind: 'assistant' as const, text: 'worked on the ledger export' }];
    await expect(briefs.save('ns', 'default', scope, Object.assign({}, { brief_key: 'k', events }))).rejects.toMatchObject({ code: 'unavailable' });
    expect(calls).toBe(0);
    await expect(briefs.get('ns', scope, Object.assign({}, { brief_key: 'k' }))).rejects.toMatchObject({ code: 'not_found' });
  });
});
