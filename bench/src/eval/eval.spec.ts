import { describeRealData, sharedDataPath } from '@loom/testing';
import { bm25Baseline } from './bm25-baseline';
import { codingSet, CodingSetError, readCodingQuestions, type CodingQuestion } from './coding-set';
import { refusedMode } from './loom-run';
import { scoreTable, type ScoreRow } from './metrics';
import { renderMarkdown } from './report';
import type { EvalFigures } from './run';
import { providerSpecs } from './providers';
import type { EvalQuestion } from './types';

const dataPath = (rel: string): string => sharedDataPath(...rel.split('/'));

describe('eval metrics [issue 10: eval]', () => {
  it('computes recall@1/5/10 as the share of answer turns found and MRR from the first one, overall and per group', () => {
    const questions: EvalQuestion[] = [
      { id: 'a', query: 'q', relevant: ['x'], groups: ['paraphrase'] },
      { id: 'b', query: 'q', relevant: ['y', 'z'], groups: ['identifier'] },
      { id: 'c', query: 'q', relevant: ['w'], groups: ['identifier'] },
      { id: 'none', query: 'q', relevant: [], groups: ['identifier'] },
    ];
    const table = scoreTable(
      questions,
      new Map([
        ['a', ['x', 'p']],
        ['b', ['p', 'q', 'r', 'y', 's', 't', 'u', 'v', 'z2', 'z']],
        // c is missing: it counts as answered with nothing.
      ]),
    );
    expect(table['paraphrase']).toEqual({ n: 1, recallAt1: 1, recallAt5: 1, recallAt10: 1, mrr: 1 });
    expect(table['identifier']).toEqual({ n: 2, recallAt1: 0, recallAt5: 0.25, recallAt10: 0.5, mrr: 0.125 });
    expect(table['overall']).toEqual({ n: 3, recallAt1: 0.333, recallAt5: 0.5, recallAt10: 0.667, mrr: 0.417 });
  });

  it('ranks nothing past 10: a hit at rank 11 is a miss', () => {
    const ranked = Array.from({ length: 11 }, (_, i) => `d${i}`);
    const table = scoreTable([{ id: 'a', query: 'q', relevant: ['d10'], groups: [] }], new Map([['a', ranked]]));
    expect(table['overall']).toMatchObject({ recallAt10: 0, mrr: 0 });
  });
});

describe('the coding-session question set [issue 10: eval]', () => {
  const questions = readCodingQuestions();

  it('has at least 80 questions over several real sessions, about half paraphrased and half naming an identifier', () => {
    expect(questions.length).toBeGreaterThanOrEqual(80);
    const paraphrased = questions.filter((q) => q.kind === 'paraphrase').length;
    expect(paraphrased / questions.length).toBeGreaterThanOrEqual(0.4);
    expect(paraphrased / questions.length).toBeLessThanOrEqual(0.6);
    expect(new Set(questions.map((q) => q.transcript)).size).toBeGreaterThanOrEqual(8);
  });
});

describeRealData('the coding-session question set over the real transcripts [issue 10: eval]', () => {
  const questions = readCodingQuestions();

  it('names each answer turn by a substring found in exactly one turn that libs/capture parses from the real transcripts', () => {
    const set = codingSet({ questions, dataPath });
    expect(set.questions).toHaveLength(questions.length);
    for (const q of set.questions) {
      expect(q.relevant).toHaveLength(1);
      const answer = set.docs.find((d) => d.key === q.relevant[0]);
      const source = questions[Number(q.id.split('#')[1]) - 1]!;
      expect(answer?.content).toContain(source.answer_substring);
    }
    // The committed file holds questions and short substrings, never transcript text.
    expect(Math.max(...questions.map((q) => q.answer_substring.length))).toBeLessThanOrEqual(120);
  });

  it('refuses a set whose substring matches no turn or several, naming every bad question', () => {
    const transcript = 'transcripts/claude-code-simonw-sample_session.jsonl';
    const bad: CodingQuestion[] = [
      { transcript, question: 'nothing matches', kind: 'paraphrase', answer_substring: 'this text is in no turn' },
      { transcript, question: 'two match', kind: 'identifier', answer_substring: 'function' },
      { transcript, question: 'fine', kind: 'identifier', answer_substring: 'goodbye' },
    ];
    let error: unknown;
    try {
      codingSet({ questions: bad, dataPath });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CodingSetError);
    const problems = (error as CodingSetError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('matches 0 turns');
    expect(problems[1]).toContain('matches 4 turns');
  });

  it('gives the BM25 reference identifier questions it can answer (the lexical leg is sound)', () => {
    const { table } = bm25Baseline(codingSet({ questions, dataPath }));
    expect(table['identifier']!.recallAt10).toBeGreaterThan(0.9);
  });
});

describe('eval providers [issue 10: eval]', () => {
  it('runs hashed and use by default, and adds the endpoint when LOOM_EVAL_EMBEDDINGS_BASE_URL is set', () => {
    expect(providerSpecs(undefined, {}).map((p) => p.name)).toEqual(['hashed', 'use']);
    const specs = providerSpecs(undefined, { LOOM_EVAL_EMBEDDINGS_BASE_URL: 'http://user:pw@127.0.0.1:9/v1?key=abc', LOOM_EVAL_EMBEDDINGS_MODEL: 'm', LOOM_EVAL_EMBEDDINGS_API_KEY: 'k-secret' });
    const endpoint = specs.find((p) => p.name === 'endpoint')!;
    expect(endpoint.env).toMatchObject({ LOOM_EMBEDDINGS_PROVIDER: 'openai', LOOM_EMBEDDINGS_MODEL: 'm', LOOM_EMBEDDINGS_API_KEY: 'k-secret' });
    // The report names the endpoint without its credentials.
    expect(endpoint.description).toBe('OpenAI-compatible endpoint http://127.0.0.1:9/v1, model `m`');
  });

  it('refuses the endpoint without a base URL and model, and hands any other name to Loom as its provider', () => {
    expect(() => providerSpecs(['endpoint'], {})).toThrow(/LOOM_EVAL_EMBEDDINGS_BASE_URL and LOOM_EVAL_EMBEDDINGS_MODEL/);
    expect(providerSpecs(['hashed', 'newmodel'], {}).map((p) => p.env['LOOM_EMBEDDINGS_PROVIDER'])).toEqual(['hashed', 'newmodel']);
  });
});

describe('search modes a build does not know [issue 10: eval]', () => {
  it('reads a 400 that names search_mode as "not available", and nothing else', () => {
    const unknownField = { error: { code: 'invalid_request', message: 'invalid request', fields: [{ field: 'search_mode', message: 'unknown field' }] } };
    expect(refusedMode(400, unknownField)).toContain('search_mode');
    expect(refusedMode(400, { error: { code: 'invalid_request', fields: [{ field: 'query', message: 'query must be shorter' }] } })).toBeUndefined();
    expect(refusedMode(200, { hits: [], mode: 'hybrid' })).toBeUndefined();
    expect(refusedMode(500, unknownField)).toBeUndefined();
  });
});

describe('the eval report [issue 10: eval]', () => {
  const meta = { stamp: 's', startedAt: 's', quick: true, commit: 'c', node: 'n', cores: 2, cpu: 'cpu', memoryGb: 1, sets: ['coding'], providers: ['p'] };
  const row = (v: number): ScoreRow => ({ n: 4, recallAt1: v, recallAt5: v, recallAt10: v, mrr: v });
  const figures = (answeredAs: Record<string, number>, hybrid?: number): EvalFigures => ({
    sets: [{ name: 'coding', namespace: 'eval-coding', turns: 4, questions: 4, notes: [], bm25: { overall: row(0.5), paraphrase: row(0.5), identifier: row(0.9) } }],
    providers: [
      {
        provider: 'hashed',
        description: 'd',
        floor: 0.3,
        seconds: 1,
        sets: [
          {
            set: 'coding',
            ingest: { turns: 4, stored: 4, notStored: {}, seconds: 1, turnsPerSec: 4, appendLatencyMs: { count: 4, p50: 1, p95: 1, p99: 1, mean: 1, max: 1 } },
            modes: [
              { mode: 'default', status: 'ok', answeredAs, table: { overall: row(0.25), paraphrase: row(0.25), identifier: row(0.25) } },
              hybrid === undefined
                ? { mode: 'hybrid', status: 'not available on this build', reason: 'search_mode: unknown field' }
                : { mode: 'hybrid', status: 'ok', answeredAs: { hybrid: 4 }, table: { overall: row(hybrid), paraphrase: row(hybrid), identifier: row(hybrid) } },
            ],
          },
        ],
      },
    ],
  });

  it('warns when answers came from the substring fallback, since they measure no model', () => {
    expect(renderMarkdown({ meta, figures: figures({ substring: 4 }) })).toContain('**Warning:** hashed · default: 4 answers came from the substring fallback');
    expect(renderMarkdown({ meta, figures: figures({ vector: 4 }) })).not.toContain('Warning');
  });

  it('puts the coding-set target beside BM25 on MRR: not measured without hybrid, met or MISSED with it', () => {
    expect(renderMarkdown({ meta, figures: figures({ vector: 4 }) })).toContain('| Coding set, paraphrase: hybrid above BM25 (MRR), `hashed` | > 0.500 | – | not measured (mode not available on this build) |');
    const measured = renderMarkdown({ meta, figures: figures({ hybrid: 4 }, 0.6) });
    expect(measured).toContain('| Coding set, paraphrase: hybrid above BM25 (MRR), `hashed` | > 0.500 | 0.600 | **met** |');
    expect(measured).toContain('| Coding set, identifier: hybrid above BM25 (MRR), `hashed` | > 0.900 | 0.600 | **MISSED** |');
  });
});
