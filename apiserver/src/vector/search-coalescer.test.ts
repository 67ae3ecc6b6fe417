import { describe, expect, test } from '@jest/globals';
import { ProxyError, ResponseTooLarge } from '../errors/catalogue.js';
import type { EngineResponse } from './engine-client.js';
import type { EngineSend } from './engine-client.js';
import { SearchCoalescer, splitBatchAnswer } from './search-coalescer.js';

/** One request the coalescer made of the engine, and how to answer it. */
interface Sent {
  path: string;
  body: string;
  query: string;
  answer(res: EngineResponse): void;
  fail(err: unknown): void;
}

/**
 * A `send` that records each request and leaves it open until the test
 * answers it: the coalescer's scheduling is pure logic over that function.
 */
function recorder(): { send: EngineSend; sent: Sent[] } {
  const sent: Sent[] = [];
  const send: EngineSend = (_method, path, body, query) =>
    new Promise((answer, fail) => {
      sent.push({ path, body: body.toString(), query, answer, fail });
    });
  return { send, sent };
}

/** Lets the turn end, so requests gathered in it are sent. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

const body = (n: number) => Buffer.from(JSON.stringify({ vector: [n, 0], limit: n }));
const PATH = '/collections/a/points/search';
const BATCH = '/collections/a/points/search/batch';

describe('SearchCoalescer', () => {
  test('sends one request of a turn as itself', async () => {
    const { send, sent } = recorder();
    const answer = new SearchCoalescer({ send }).search(PATH, BATCH, body(1), 'timeout=3');
    await turn();
    expect(sent.map((s) => [s.path, s.body, s.query])).toEqual([
      [PATH, body(1).toString(), 'timeout=3'],
    ]);
    sent[0]!.answer({ status: 200, text: '{"result":[],"status":"ok"}' });
    await expect(answer).resolves.toEqual({ status: 200, text: '{"result":[],"status":"ok"}' });
  });

  test('joins the requests of one turn into a batch and answers each with its result', async () => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send });
    const answers = [1, 2, 3].map((n) => coalescer.search(PATH, BATCH, body(n), ''));
    await turn();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe(BATCH);
    expect(JSON.parse(sent[0]!.body)).toEqual({
      searches: [1, 2, 3].map((n) => ({ vector: [n, 0], limit: n })),
    });
    sent[0]!.answer({
      status: 200,
      text: '{"result":[[{"id":1}],[],[{"id":3,"payload":{"s":"],"}}]],"status":"ok","time":0.5}',
    });
    expect(await Promise.all(answers)).toEqual([
      { status: 200, text: '{"result":[{"id":1}],"status":"ok","time":0.5}' },
      { status: 200, text: '{"result":[],"status":"ok","time":0.5}' },
      { status: 200, text: '{"result":[{"id":3,"payload":{"s":"],"}}],"status":"ok","time":0.5}' },
    ]);
  });

  test('never joins requests of different paths or query strings', async () => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send });
    void coalescer.search(PATH, BATCH, body(1), '');
    void coalescer.search(
      '/collections/b/points/search',
      '/collections/b/points/search/batch',
      body(2),
      '',
    );
    void coalescer.search(PATH, BATCH, body(3), 'consistency=all');
    await turn();
    expect(sent.map((s) => [s.path, s.query])).toEqual([
      [PATH, ''],
      ['/collections/b/points/search', ''],
      [PATH, 'consistency=all'],
    ]);
  });

  test.each([
    ['one that would close the batch early', '{"vector":[1]}],"searches":[{"vector":[2]}'],
    ['data after the object', '{"vector":[1]} {"vector":[2]}'],
    ['an unterminated string', '{"vector":[1],"x":"}'],
    ['not an object', '[1]'],
  ])('sends a body that is not one whole object alone: %s', async (_, text) => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send });
    void coalescer.search(PATH, BATCH, body(1), '');
    void coalescer.search(PATH, BATCH, Buffer.from(text), '');
    void coalescer.search(PATH, BATCH, body(2), '');
    await turn();
    expect(sent.map((s) => [s.path, s.body])).toEqual([
      [PATH, text],
      [BATCH, `{"searches":[${body(1).toString()},${body(2).toString()}]}`],
    ]);
  });

  test('sends each request alone when the engine refuses the batch', async () => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send });
    const answers = [1, 2].map((n) => coalescer.search(PATH, BATCH, body(n), 'q=1'));
    await turn();
    sent[0]!.answer({ status: 400, text: '{"status":{"error":"Wrong input: dim"}}' });
    await turn();
    expect(sent.slice(1).map((s) => [s.path, s.body, s.query])).toEqual([
      [PATH, body(1).toString(), 'q=1'],
      [PATH, body(2).toString(), 'q=1'],
    ]);
    sent[1]!.answer({ status: 400, text: '{"status":{"error":"Wrong input: dim"}}' });
    sent[2]!.answer({ status: 200, text: '{"result":[{"id":2}]}' });
    expect(await Promise.all(answers)).toEqual([
      { status: 400, text: '{"status":{"error":"Wrong input: dim"}}' },
      { status: 200, text: '{"result":[{"id":2}]}' },
    ]);
  });

  test.each([
    ['an answer over the size cap', () => new ResponseTooLarge('too large')],
    ['an answer of another shape', () => ({ status: 200, text: '{"result":[[]]}' })],
  ])('sends each request alone after %s', async (_, outcome) => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send });
    const answers = [1, 2].map((n) => coalescer.search(PATH, BATCH, body(n), ''));
    await turn();
    const result = outcome();
    if (result instanceof Error) sent[0]!.fail(result);
    else sent[0]!.answer(result);
    await turn();
    expect(sent.slice(1).map((s) => s.path)).toEqual([PATH, PATH]);
    sent[1]!.answer({ status: 200, text: '{"result":[1]}' });
    sent[2]!.answer({ status: 200, text: '{"result":[2]}' });
    expect((await Promise.all(answers)).map((a) => a.text)).toEqual([
      '{"result":[1]}',
      '{"result":[2]}',
    ]);
  });

  test('fails every request of a batch whose transport failed, without resending', async () => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send });
    const answers = [1, 2].map((n) => coalescer.search(PATH, BATCH, body(n), ''));
    await turn();
    const failure = new ProxyError('The vector engine could not be reached; retry.');
    sent[0]!.fail(failure);
    for (const answer of answers) await expect(answer).rejects.toBe(failure);
    expect(sent).toHaveLength(1);
  });

  test('sends a full batch at once; later requests of the turn start another', async () => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send }, { maxBatch: 2 });
    for (const n of [1, 2]) void coalescer.search(PATH, BATCH, body(n), '');
    expect(sent).toHaveLength(1);
    for (const n of [3, 4, 5]) void coalescer.search(PATH, BATCH, body(n), '');
    expect(sent).toHaveLength(2);
    await turn();
    expect(
      sent.map((s) => (s.path === BATCH ? JSON.parse(s.body).searches : [s.body]).length),
    ).toEqual([2, 2, 1]);
    expect(sent[2]!.path).toBe(PATH);
  });

  test('starts a new batch in the next turn', async () => {
    const { send, sent } = recorder();
    const coalescer = new SearchCoalescer({ send });
    void coalescer.search(PATH, BATCH, body(1), '');
    void coalescer.search(PATH, BATCH, body(2), '');
    await turn();
    void coalescer.search(PATH, BATCH, body(3), '');
    await turn();
    expect(sent.map((s) => s.path)).toEqual([BATCH, PATH]);
  });
});

describe('splitBatchAnswer', () => {
  test('keeps the members after the results, in order, for every answer', () => {
    expect(
      splitBatchAnswer('{"result":[{"points":[]},{"points":[{"id":1}]}],"usage":null}', 2),
    ).toEqual([
      '{"result":{"points":[]},"usage":null}',
      '{"result":{"points":[{"id":1}]},"usage":null}',
    ]);
  });

  test('reads an answer with the results elsewhere and spaces between members', () => {
    expect(
      splitBatchAnswer(' { "status" : "ok", "result" : [ [1] , [2] ] , "time":0.1 } ', 2),
    ).toEqual([
      '{"result":[1],"status":"ok","time":0.1}',
      '{"result":[2],"status":"ok","time":0.1}',
    ]);
  });

  test.each([
    ['a different number of results', '{"result":[[1]]}', 2],
    ['results that are not an array', '{"result":{"points":[]}}', 1],
    ['no results', '{"status":"ok"}', 1],
    ['results twice', '{"status":"ok","result":[[1]],"result":[[1]]}', 1],
    ['broken JSON', '{"result":[[1],[2}', 2],
    ['a cut-off answer', '{"result":[[1]],"time":', 1],
  ])('declines %s', (_, text, count) => {
    expect(splitBatchAnswer(text, count)).toBeNull();
  });
});
