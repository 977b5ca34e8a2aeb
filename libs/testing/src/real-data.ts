import { appendFileSync } from 'node:fs';
import { sharedDataCandidates, sharedDataDir } from './shared-data';

/** Set by the jest global setup: where blocks left out for want of the data are listed for the closing notice. */
export const REAL_DATA_LEFT_OUT_ENV = 'LOOM_REAL_DATA_LEFT_OUT_FILE';

/** CI must run the real-data tier: there, missing data is a failure, never a quiet pass. */
export function realDataRequired(): boolean {
  const ci = process.env['CI'];
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

export function realDataMissingMessage(): string {
  return `the real-data tier needs the shared data (real transcripts) at ${sharedDataCandidates().join(' or ')}; set LOOM_SHARED_DATA to its data/ directory`;
}

/**
 * The real-data tier: tests against real transcripts no one here wrote (../shared/data or
 * LOOM_SHARED_DATA). The one sanctioned conditional of the suite: with the data they run; without
 * it under CI they fail; without it elsewhere (a fresh clone) they are not registered, and jest's
 * global teardown prints one line saying the tier was not run and why. A file using it must hold
 * core tests too (jest refuses a file with no test).
 */
export function describeRealData(name: string, body: () => void): void {
  const title = `[real data] ${name}`;
  if (sharedDataDir()) {
    describe(title, body);
    return;
  }
  if (realDataRequired()) {
    describe(title, () => {
      it('has its data (required under CI)', () => {
        throw new Error(realDataMissingMessage());
      });
    });
    return;
  }
  const listing = process.env[REAL_DATA_LEFT_OUT_ENV];
  // Under jest's global setup the notice is one line at the end of the run; a bare run says it here.
  if (listing) appendFileSync(listing, `${expect.getState().testPath ?? '?'}\t${title}\n`);
  else console.warn(`real-data tier not run: "${title}": ${realDataMissingMessage()}`);
}
