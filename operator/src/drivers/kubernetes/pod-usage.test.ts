import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { memoryMbOf, podEnd, podSegments } from './pod-usage.js';

const W = 300_000;

describe('podSegments', () => {
  it('reports only complete windows while the pod runs', () => {
    const start = 10 * W + 1000;
    expect(podSegments(start, null, 10 * W + 2000, W)).toEqual([]);
    expect(podSegments(start, null, 12 * W + 5, W)).toEqual([
      { window: 10, from: start, to: 11 * W },
      { window: 11, from: 11 * W, to: 12 * W },
    ]);
  });

  it('reports every window up to the end once the pod ended, the last one partial', () => {
    const start = 10 * W + 1000;
    const end = 11 * W + 2500;
    const segments = podSegments(start, end, 20 * W, W);
    expect(segments).toEqual([
      { window: 10, from: start, to: 11 * W },
      { window: 11, from: 11 * W, to: end },
    ]);
    expect(segments.reduce((sum, s) => sum + s.to - s.from, 0)).toBe(end - start);
  });

  it('reports nothing for a pod that ended as it started', () => {
    expect(podSegments(5 * W, 5 * W, 6 * W, W)).toEqual([]);
  });
});

describe('memoryMbOf', () => {
  it('reads the quantities a memory limit is written in', () => {
    expect(memoryMbOf('256Mi')).toBe(256);
    expect(memoryMbOf('1Gi')).toBe(1024);
    expect(memoryMbOf(String(512 * 2 ** 20))).toBe(512);
    expect(memoryMbOf(undefined)).toBe(0);
    expect(memoryMbOf('lots')).toBe(0);
  });
});

describe('podEnd', () => {
  const pod = (states: Array<{ finishedAt?: string }>): V1Pod => ({
    status: {
      containerStatuses: states.map((s, i) => ({
        name: `c${i}`,
        image: '',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: s.finishedAt
          ? { terminated: { exitCode: 0, finishedAt: new Date(s.finishedAt) } }
          : { running: {} },
      })),
    },
  });

  it('is the last container termination, or null while one still runs', () => {
    expect(
      podEnd(pod([{ finishedAt: '2026-01-01T00:00:05Z' }, { finishedAt: '2026-01-01T00:00:09Z' }])),
    ).toBe(Date.parse('2026-01-01T00:00:09Z'));
    expect(podEnd(pod([{ finishedAt: '2026-01-01T00:00:05Z' }, {}]))).toBeNull();
    expect(podEnd({})).toBeNull();
  });
});
