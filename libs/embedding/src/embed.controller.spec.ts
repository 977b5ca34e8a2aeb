import { EmbedController } from './embed.controller';
import type { EmbedBatcher } from './embed.batcher';
import type { LoomMetrics } from '@loom/platform';

/** A batcher that answers one vector of `dims` numbers per text, each number as long in JSON as a number gets. */
function batcher(dims: number): EmbedBatcher {
  return {
    model: 'test-model',
    dims,
    embed: async (texts: string[]) => texts.map(() => Array.from({ length: dims }, (_, i) => -1.2345678901234567e-300 * (i + 1))),
  } as unknown as EmbedBatcher;
}

const metrics = {
  embedRequestDuration: { startTimer: () => () => undefined },
  embedFailures: { inc: () => undefined },
} as unknown as LoomMetrics;

describe('EmbedController reply size [CONV-EMBED-07]', () => {
  it('CONV-EMBED-07 a reply that fits is answered with its vectors (the size is bounded without writing it out)', async () => {
    const answer = await new EmbedController(batcher(384), metrics).embed({ texts: ['one turn'] }, undefined);
    expect('vectors' in answer && answer.vectors).toHaveLength(1);
  });

  it('CONV-EMBED-07 a reply over the NATS payload limit is an in-band failure naming its size, so the append fails open instead of getting no answer', async () => {
    // 120 vectors of 384 numbers of 24 characters each: about 1.1 MB of JSON.
    const answer = await new EmbedController(batcher(384), metrics).embed({ texts: Array.from({ length: 120 }, (_, i) => `turn ${i}`) }, undefined);
    expect('error' in answer && answer.error).toMatchObject({ code: 'invalid_input', retryable: false });
    expect('error' in answer && answer.error.message).toMatch(/^120 vectors make a \d+-byte reply, over 1032192; send fewer texts per request$/);
  });

  it('CONV-EMBED-07 a reply whose bound is over the limit but whose JSON is not is still answered', async () => {
    // Short numbers: the bound (25 characters a number) says it may be over, the exact count says it fits.
    const short = { model: 'm', dims: 384, embed: async (texts: string[]) => texts.map(() => Array.from({ length: 384 }, () => 0.5)) } as unknown as EmbedBatcher;
    const answer = await new EmbedController(short, metrics).embed({ texts: Array.from({ length: 120 }, (_, i) => `turn ${i}`) }, undefined);
    expect('vectors' in answer && answer.vectors).toHaveLength(120);
  });
});
