import { describe, expect, it } from '@jest/globals';
import { cloneObject } from './clone-object.js';

describe('cloneObject', () => {
  it('copies every level, so changing the copy leaves the original as it was', () => {
    const original = {
      metadata: { name: 'a', labels: { x: '1' }, creationTimestamp: new Date(5) },
      spec: { regions: ['local'], description: null, memoryMb: 256, keepAlive: false },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const copy = cloneObject(original);
    expect(copy).toEqual(original);
    copy.metadata.labels.x = '2';
    copy.spec.regions.push('eu');
    copy.status.conditions[0]!.status = 'False';
    copy.metadata.creationTimestamp.setTime(9);
    expect(original.metadata.labels.x).toBe('1');
    expect(original.spec.regions).toEqual(['local']);
    expect(original.status.conditions[0]!.status).toBe('True');
    expect(original.metadata.creationTimestamp.getTime()).toBe(5);
    expect(copy.metadata.creationTimestamp).toBeInstanceOf(Date);
  });

  it('returns primitives as they are', () => {
    expect(cloneObject(null)).toBeNull();
    expect(cloneObject('s')).toBe('s');
    expect(cloneObject(3)).toBe(3);
  });
});
