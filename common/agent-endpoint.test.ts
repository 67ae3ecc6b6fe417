import { describe, expect, it } from '@jest/globals';
import { endpointTarget, unixEndpoint } from './agent-endpoint.js';

describe('agent endpoints', () => {
  it('reads a Unix socket endpoint as its path', () => {
    expect(endpointTarget(unixEndpoint('/var/svc/sock/ab12/app.sock'))).toEqual({
      socketPath: '/var/svc/sock/ab12/app.sock',
    });
  });

  it('reads host:port, and a cluster Service name with its port', () => {
    expect(endpointTarget('127.0.0.1:40001')).toEqual({ host: '127.0.0.1', port: 40001 });
    expect(endpointTarget('agent-x.svc-ns.svc:80')).toEqual({
      host: 'agent-x.svc-ns.svc',
      port: 80,
    });
  });

  it('takes port 80 when none (or a bad one) is given', () => {
    expect(endpointTarget('agent-x.svc-ns.svc')).toEqual({ host: 'agent-x.svc-ns.svc', port: 80 });
    expect(endpointTarget('host:abc')).toEqual({ host: 'host', port: 80 });
  });
});
