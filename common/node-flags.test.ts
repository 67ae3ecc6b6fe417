import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { API_SERVER_NODE_FLAGS } from './node-flags.js';

describe('API_SERVER_NODE_FLAGS', () => {
  it("are the flags of the API server image's ENTRYPOINT", () => {
    const dockerfile = readFileSync(
      new URL('../images/apiserver/Dockerfile', import.meta.url),
      'utf8',
    );
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(entrypoint).toBeDefined();
    const args = JSON.parse(entrypoint!) as string[];
    expect(args[0]).toBe('node');
    expect(args.slice(1, 1 + API_SERVER_NODE_FLAGS.length)).toEqual(API_SERVER_NODE_FLAGS);
  });
});
