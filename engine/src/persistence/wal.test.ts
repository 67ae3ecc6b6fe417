import { afterEach, beforeEach, expect, test } from '@jest/globals';
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteAheadLog, frameRecord } from './wal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wal-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const body = (text: string) => Buffer.from(text);
const bodiesOf = (records: { body: Buffer }[]) => records.map((r) => String(r.body));

test('records appended before a close come back in order on open', async () => {
  const { wal } = await WriteAheadLog.open(dir, 1);
  await Promise.all([wal.append(body('one')), wal.append(body('two'))]);
  await wal.append(body('three'));
  await wal.close();
  const { wal: reopened, records } = await WriteAheadLog.open(dir, 1);
  expect(bodiesOf(records)).toEqual(['one', 'two', 'three']);
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
  expect(bodiesOf(first.records)).toEqual(['whole']);
  await first.wal.append(body('after'));
  await first.wal.close();
  const second = await WriteAheadLog.open(dir, 1);
  expect(bodiesOf(second.records)).toEqual(['whole', 'after']);
  await second.wal.close();
});

test('rotation starts a new segment and drops the old ones', async () => {
  const { wal } = await WriteAheadLog.open(dir, 1);
  await wal.append(body('old'));
  await wal.rotate(2);
  await wal.append(body('new'));
  await wal.close();
  expect(readdirSync(dir)).toEqual(['00000000000000000002.log']);
  const { wal: reopened, records } = await WriteAheadLog.open(dir, 1);
  expect(bodiesOf(records)).toEqual(['new']);
  await reopened.close();
});

test('bytes that frame no record before the last segment come back as unreadable, and the segments after are read', async () => {
  const { wal } = await WriteAheadLog.open(dir, 1);
  await wal.append(body('one'));
  await wal.append(body('two'));
  await wal.close();
  const first = join(dir, readdirSync(dir)[0]!);
  // Rot in the middle: the second record's checksum no longer matches.
  const bytes = readFileSync(first);
  const secondAt = 8 + 'one'.length;
  bytes[secondAt + 8] = 'T'.charCodeAt(0);
  writeFileSync(first, bytes);
  writeFileSync(join(dir, '00000000000000000005.log'), Buffer.concat(frameRecord(body('five'))));

  const reopened = await WriteAheadLog.open(dir, 1);
  expect(bodiesOf(reopened.records)).toEqual(['one', 'five']);
  expect(reopened.records.map((r) => [r.segment, r.offset])).toEqual([
    ['00000000000000000001.log', 0],
    ['00000000000000000005.log', 0],
  ]);
  expect(reopened.unreadable).toEqual([
    { segment: '00000000000000000001.log', offset: secondAt, bytes: bytes.subarray(secondAt) },
  ]);
  await reopened.wal.close();
});
