/**
 * `helm lint --strict` passes over every value set of the matrix, and the
 * strict values schema turns a typo or a wrong type into a failed install
 * instead of a silently ignored value.
 */
import { describe, expect, it } from '@jest/globals';
import { baseValues, lintChart, renderText, valueMatrix } from './helm.js';

describe('helm lint', () => {
  it.each(Object.entries(valueMatrix))('passes with %s', async (_name, values) => {
    const result = await lintChart(values);
    expect(result.stderr + result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.ok).toBe(true);
  });
});

describe('the values schema', () => {
  it('rejects a misspelt key (additionalProperties: false)', async () => {
    const result = await renderText({ ...baseValues, operator: { replicas: 3 } });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain("at '/operator': additional properties 'replicas' not allowed");
  });

  it('rejects a misspelt top-level key', async () => {
    const result = await renderText({ ...baseValues, ingres: { enabled: true } });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain("additional properties 'ingres' not allowed");
  });

  it('rejects a value of the wrong type and one outside its enum', async () => {
    const typed = await renderText({ ...baseValues, apiserver: { replicaCount: 'two' } });
    expect(typed.ok).toBe(false);
    expect(typed.stderr).toContain('/apiserver/replicaCount');
    const scheme = await renderText({ ...baseValues, agents: { scheme: 'ftp' } });
    expect(scheme.ok).toBe(false);
    expect(scheme.stderr).toContain('/agents/scheme');
  });

  it('rejects a secret shorter than 32 characters and a region name that is not a label', async () => {
    const short = await renderText({ ...baseValues, secrets: { internalSecret: 'short' } });
    expect(short.ok).toBe(false);
    expect(short.stderr).toContain('/secrets/internalSecret');
    const region = await renderText({ ...baseValues, regions: [{ name: 'EU_West' }] });
    expect(region.ok).toBe(false);
    expect(region.stderr).toContain('/regions/0/name');
  });

  it('fails without MongoDB, saying the chart does not install one', async () => {
    const result = await renderText({});
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain('mongodb.uri (or mongodb.existingSecret) is required');
  });

  it('fails with an external Qdrant but no key for it', async () => {
    const result = await renderText({
      ...baseValues,
      engine: { enabled: false },
      externalQdrant: { url: 'https://qdrant.example.com' },
    });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain('set secrets.engineApiKey');
  });

  it('fails on a further region without its kubeconfig Secret', async () => {
    const result = await renderText({
      ...baseValues,
      regions: [{ name: 'us' }, { name: 'eu', engineUrl: 'https://engine.eu.example.com' }],
    });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain('regions[1] (eu) needs kubeconfigSecret');
  });
});
