import { describe, expect, it } from '@jest/globals';
import { eventObject, fitNote, microTime, REPORTING_CONTROLLER } from './event-recorder.js';

describe('eventObject', () => {
  it('is an events.k8s.io/v1 Event regarding the custom resource, from the operator', () => {
    const at = new Date('2026-03-01T12:00:00.123Z');
    const event = eventObject(
      { kind: 'AgentDeployment', metadata: { namespace: 'ns', name: 'd1', uid: 'u1' } },
      { type: 'Warning', reason: 'BuildFailed', note: 'Build failed: pip' },
      'd1.abc',
      at,
      'operator-0',
    );
    expect(event).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'd1.abc', namespace: 'ns' },
      eventTime: '2026-03-01T12:00:00.123000Z',
      reportingController: 'svc.dev/operator',
      reportingInstance: 'operator-0',
      action: 'Reconcile',
      type: 'Warning',
      reason: 'BuildFailed',
      note: 'Build failed: pip',
      regarding: {
        apiVersion: 'svc.dev/v1alpha1',
        kind: 'AgentDeployment',
        namespace: 'ns',
        name: 'd1',
        uid: 'u1',
      },
    });
    expect(REPORTING_CONTROLLER).toMatch(/^svc\.dev\//);
  });
});

describe('microTime', () => {
  it('writes six fractional digits', () => {
    expect(microTime(new Date('2026-03-01T12:00:00Z'))).toBe('2026-03-01T12:00:00.000000Z');
  });
});

describe('fitNote', () => {
  it('keeps a short note, and cuts a long one to 1024 bytes on a character boundary', () => {
    expect(fitNote('ok')).toBe('ok');
    const cut = fitNote('é'.repeat(1000));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1024);
    expect(cut).toMatch(/^é+\.\.\.$/);
  });
});
