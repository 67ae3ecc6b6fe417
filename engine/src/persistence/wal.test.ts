import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteAheadLog } from './wal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wal-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const body = (text: string) => Buffer.from(text);

test('records appended before a close come back in order on open', async () => {
  const { wal } = await WriteAheadLog.open(dir, 1);
  await Promise.all([wal.append(body('one')), wal.append(body('two'))]);
  await wal.append(body('three'));
  await wal.close();
  const { wal: reopened, bodies } = await WriteAheadLog.open(dir, 1);
  expect(bodies.map(String)).toEqual(['one', 'two', 'three']);
  await reopened.close();
});

test('a torn record at the end is cut off and the log stays appendable', async () => {
  const { wal } = await WriteAheadLog.open(dir, 1);
  await wal.append(body('whole'));
  await wal.close();
  const segment = join(dir, readdirSync(dir)[0]!);
  // A crash mid-write: a length that promises more bytes than follow.
  appendFileSync(segment, Buffer.from([50, 0, 0, 0, 1, 2, 3, 4, 9]));
  const first = await WriteAheadLog.open(dir, 1);
  expect(first.bodies.map(String)).toEqual(['whole']);
  await first.wal.append(body('after'));
  await first.wal.close();
  const second = await WriteAheadLog.open(dir, 1);
  expect(second.bodies.map(String)).toEqual(['whole', 'after']);
  await second.wal.close();
});

test('rotation starts a new segment and drops the old ones', async () => {
  const { wal } = await WriteAheadLog.open(dir, 1);
  await wal.append(body('old'));
  await wal.rotate(2);
  await wal.append(body('new'));
  await wal.close();
  expect(readdirSync(dir)).toEqual(['00000000000000000002.log']);
  const { wal: reopened, bodies } = await WriteAheadLog.open(dir, 1);
  expect(bodies.map(String)).toEqual(['new']);
  await reopened.close();
});
