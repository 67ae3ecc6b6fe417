import { describe, expect, it } from '@jest/globals';
import { createLogger } from '../../../common/logger.js';
import type { UsageEventDoc } from './model.js';
import { UsageWriter } from './usage-writer.js';

const log = createLogger('usage', 'silent');
const who = { accountId: 'a', environment: 'live' as const, agentId: 'x' };

describe('UsageWriter', () => {
  it('coalesces requests per kind, agent and minute, and keeps other events apart', async () => {
    const written: UsageEventDoc[] = [];
    const writer = new UsageWriter(async (docs) => void written.push(...docs), log, {
      maxDelayMs: 60_000,
    });
    const minute = Date.parse('2026-01-01T10:00:00Z');
    writer.record({ ...who, kind: 'edge_request', bytes: 5, at: new Date(minute + 1000) });
    writer.record({ ...who, kind: 'edge_request', bytes: 7, at: new Date(minute + 59_000) });
    writer.record({ ...who, kind: 'edge_request', bytes: 1, at: new Date(minute + 60_000) });
    writer.record({ ...who, kind: 'control_request', at: new Date(minute + 2000) });
    writer.record({ ...who, agentId: 'y', kind: 'edge_request', at: new Date(minute + 2000) });
    writer.record({ ...who, kind: 'run', seconds: 3, at: new Date(minute) });
    writer.record({ ...who, kind: 'run', seconds: 4, at: new Date(minute) });
    await writer.close();
    const summary = written.map((d) => `${d.kind}/${d.agentId}/${d.count}/${d.bytes}`).sort();
    expect(summary).toEqual([
      'control_request/x/1/0',
      'edge_request/x/1/1',
      'edge_request/x/2/12',
      'edge_request/y/1/0',
      'run/x/1/0',
      'run/x/1/0',
    ]);
    const coalesced = written.find((d) => d.count === 2)!;
    expect([coalesced.startedAt.getTime(), coalesced.at.getTime()]).toEqual([
      minute + 1000,
      minute + 59_000,
    ]);
  });

  it('keeps a batch the sink refused and writes it with the next flush', async () => {
    const written: UsageEventDoc[] = [];
    let fail = true;
    const writer = new UsageWriter(
      async (docs) => {
        if (fail) throw new Error('database down');
        written.push(...docs);
      },
      log,
      { maxDelayMs: 60_000 },
    );
    writer.record({ ...who, kind: 'build', _id: 'build:1' });
    await writer.flush();
    expect(written).toEqual([]);
    fail = false;
    writer.record({ ...who, kind: 'build', _id: 'build:2' });
    await writer.close();
    expect(written.map((d) => d._id).sort()).toEqual(['build:1', 'build:2']);
  });

  it('drops the oldest events past its bound, and takes none after close', async () => {
    const written: UsageEventDoc[] = [];
    const writer = new UsageWriter(async (docs) => void written.push(...docs), log, {
      maxDelayMs: 60_000,
      maxEvents: 100,
      maxBuffered: 2,
    });
    for (const id of ['b1', 'b2', 'b3']) writer.record({ ...who, kind: 'build', _id: id });
    await writer.close();
    writer.record({ ...who, kind: 'build', _id: 'late' });
    await writer.flush();
    expect(written.map((d) => d._id)).toEqual(['b2', 'b3']);
  });
});
