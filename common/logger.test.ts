import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, redact } from './logger.js';

describe('redact', () => {
  it('masks secret-looking fields at any depth and keeps the rest', () => {
    expect(
      redact({ key: 'K', value: 's3cret', nested: [{ api_key: 'svc_live_x', ok: 1 }] }),
    ).toEqual({
      key: 'K',
      value: '[redacted]',
      nested: [{ api_key: '[redacted]', ok: 1 }],
    });
  });
});

describe('redact of errors', () => {
  it('keeps the name, message, code and stack of an Error', () => {
    const err = Object.assign(new Error('boom'), { code: 'ECONNREFUSED' });
    expect(redact({ err })).toEqual({
      err: {
        name: 'Error',
        message: 'boom',
        code: 'ECONNREFUSED',
        stack: expect.stringContaining('boom'),
      },
    });
  });
});

describe('createLogger', () => {
  it('writes JSON lines with the component and never the secret values', () => {
    const lines: string[] = [];
    const logger = createLogger('apiserver', 'info');
    logger.clear();
    logger.add(
      new winston.transports.Stream({
        stream: new Writable({
          write(chunk: Buffer, _enc, done) {
            lines.push(chunk.toString());
            done();
          },
        }),
      }),
    );
    logger.info('request', { request_id: 'r1', authorization: 'Bearer svc_live_abc' });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 'info',
      message: 'request',
      component: 'apiserver',
      request_id: 'r1',
    });
    expect(entry.authorization).toBe('[redacted]');
    expect(lines[0]).not.toContain('svc_live_abc');
  });
});
