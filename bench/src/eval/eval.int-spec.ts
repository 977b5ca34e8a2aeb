import { claudeCodeDebugSession, claudeCodeOlderSession, describeRealData, sharedDataPath, startOpenAiCompatibleServer, startTestLoom, type OpenAiCompatibleServer } from '@loom/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codingSet, readCodingQuestions, type CodingQuestion } from './coding-set';
import type { EvalSet } from './types';
import { SEARCH_MODES } from './loom-run';
import { providerSpecs } from './providers';
import { renderMarkdown } from './report';
import { runEval } from './run';

/** Questions over the fixture sessions, half paraphrased and half naming an identifier. */
const FIXTURE_QUESTIONS: CodingQuestion[] = [
  { transcript: 'transcripts/fixture-debug.jsonl', question: 'what did the export produce for a ledger with no rows', kind: 'paraphrase', answer_substring: 'header-only CSV' },
  { transcript: 'transcripts/fixture-debug.jsonl', question: 'which commit holds the invoice export fix', kind: 'paraphrase', answer_substring: 'Committed as 3f2a1c9' },
  { transcript: 'transcripts/fixture-debug.jsonl', question: 'empty-ledger guard', kind: 'identifier', answer_substring: 'implement the empty-ledger guard' },
  { transcript: 'transcripts/fixture-older.jsonl', question: 'farewell() greet()', kind: 'identifier', answer_substring: 'Added farewell()' },
  { transcript: 'transcripts/fixture-older.jsonl', question: 'greet.py', kind: 'identifier', answer_substring: 'write it in greet.py' },
  { transcript: 'transcripts/fixture-older.jsonl', question: 'when did we start on the hello function', kind: 'paraphrase', answer_substring: 'Write a greeting helper' },
];

// `npm run eval` measures whatever OpenAI-compatible endpoint LOOM_EVAL_EMBEDDINGS_* names; here
// that endpoint is the loopback server, and the set is the committed coding set cut to two
// real transcripts, ingested and asked through a real embedded Loom.
describe('npm run eval against an OpenAI-compatible endpoint [issue 10: eval]', () => {
  let server: OpenAiCompatibleServer;
  const apiKey = 'sk-eval-secret-0123456789';

  beforeAll(async () => {
    server = await startOpenAiCompatibleServer({ dims: 384 });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Runs the eval of `set` against the loopback endpoint and checks what `npm run eval` must report. */
  async function endpointCase(set: EvalSet): Promise<void> {
    const env = { LOOM_EVAL_EMBEDDINGS_BASE_URL: server.baseUrl, LOOM_EVAL_EMBEDDINGS_MODEL: 'eval-test-embed', LOOM_EVAL_EMBEDDINGS_API_KEY: apiKey, LOOM_EVAL_EMBEDDINGS_DIMS: '384' };
    const specs = providerSpecs(undefined, env);
    expect(specs.map((s) => s.name)).toEqual(['hashed', 'use', 'endpoint']);
    const endpoint = specs.filter((s) => s.name === 'endpoint');

    const lines: string[] = [];
    const figures = await runEval([set], endpoint, async (spec) => {
      const loom = await startTestLoom({ env: spec.env });
      return { url: loom.url, token: loom.admin.token, stop: () => loom.close() };
      // A dozen turns and a top 10 leave at most a few answer turns out of any list, so a low
      // recall here can only mean hits are mapped to the wrong turns.
    }, (line) => lines.push(line), { floor: 0 });

    const run = figures.providers[0]!;
    expect(run.failure).toBeUndefined();
    expect(run.floor).toBe(0);
    expect(run.description).toContain('eval-test-embed');
    const coding = run.sets[0]!;
    expect(coding.ingest).toMatchObject({ turns: set.docs.length, stored: set.docs.length });
    expect(coding.modes.map((m) => m.mode)).toEqual([...SEARCH_MODES]);

    // Without search_mode every build answers; the vectors came from the endpoint, so it never fell back to substring.
    const byDefault = coding.modes.find((m) => m.mode === 'default')!;
    expect(byDefault.status).toBe('ok');
    expect(byDefault.errors).toBe(0);
    expect(Object.keys(byDefault.answeredAs ?? {}).every((ran) => ran === 'vector' || ran === 'hybrid')).toBe(true);
    const overall = byDefault.table!['overall']!;
    expect(overall.n).toBe(set.questions.length);
    expect(overall.recallAt10).toBeGreaterThanOrEqual(0.8);
    expect(overall.mrr).toBeGreaterThan(0);
    expect(overall.recallAt1).toBeLessThanOrEqual(overall.recallAt5);
    expect(overall.recallAt5).toBeLessThanOrEqual(overall.recallAt10);
    expect(Object.keys(byDefault.table!)).toEqual(expect.arrayContaining(['overall', 'paraphrase', 'identifier']));

    // A mode is either measured or, on a build without search modes, recorded as refused for search_mode.
    for (const m of coding.modes.filter((x) => x.mode !== 'default')) {
      if (m.status === 'ok') {
        expect(m.table!['overall']!.n).toBe(set.questions.length);
        expect(m.answeredAs).toEqual({ [m.mode]: set.questions.length });
      } else {
        expect(m.status).toBe('not available on this build');
        expect(m.reason).toContain('search_mode');
      }
    }

    // The endpoint was really used, with the configured model and key...
    const embedCalls = server.requests.filter((r) => r.path === '/v1/embeddings');
    expect(embedCalls.length).toBeGreaterThan(0);
    expect(embedCalls.every((r) => r.body.model === 'eval-test-embed')).toBe(true);
    expect(embedCalls[0]!.headers.authorization).toBe(`Bearer ${apiKey}`);
    // ...and the key is in no figure, report or progress line.
    const markdown = renderMarkdown({
      meta: { stamp: 's', startedAt: 's', quick: true, commit: 'c', node: 'n', cores: 2, cpu: 'cpu', memoryGb: 1, sets: ['coding'], providers: ['endpoint'] },
      figures,
    });
    expect(markdown).toContain('Coding sessions');
    expect(markdown).toContain('endpoint');
    for (const text of [JSON.stringify(figures), markdown, lines.join('\n')]) expect(text).not.toContain(apiKey);
  }

  it('ingests through the API, asks every question in every mode, and reports recall and MRR for the endpoint without leaking its key (sessions the project writes)', async () => {
    // Two Claude Code sessions written by the fixtures, laid out as the shared data is.
    const dir = mkdtempSync(join(tmpdir(), 'loom-eval-'));
    try {
      mkdirSync(join(dir, 'transcripts'));
      writeFileSync(join(dir, 'transcripts', 'fixture-debug.jsonl'), claudeCodeDebugSession().text);
      writeFileSync(join(dir, 'transcripts', 'fixture-older.jsonl'), claudeCodeOlderSession());
      const questions: CodingQuestion[] = FIXTURE_QUESTIONS;
      const set = codingSet({ questions, dataPath: (rel) => join(dir, ...rel.split('/')) });
      expect(set.questions).toHaveLength(questions.length);
      await endpointCase(set);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  describeRealData('the committed coding set on two real transcripts', () => {
    it('ingests through the API, asks every question in every mode, and reports recall and MRR for the endpoint without leaking its key', async () => {
      const transcripts = ['transcripts/claude-code-daaain-representative_messages.jsonl', 'transcripts/claude-code-simonw-sample_session.jsonl'];
      const set = codingSet({
        questions: readCodingQuestions().filter((q) => transcripts.includes(q.transcript)),
        dataPath: (rel) => sharedDataPath(...rel.split('/')),
      });
      expect(set.docs).toHaveLength(11);
      expect(set.questions.length).toBeGreaterThanOrEqual(12);
      await endpointCase(set);
    }, 180_000);
  });
});
