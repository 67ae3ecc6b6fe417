import { describe, expect, it } from '@jest/globals';
import type { AgentDeployment } from '../../../crds/src/index.js';
import { SOURCE_ANNOTATION, sourceAnnotations, sourceOf } from './deployment-source.js';

const deployment = (annotations?: Record<string, string>) =>
  ({ metadata: { name: 'd', annotations }, spec: {} }) as unknown as AgentDeployment;

describe('deployment source', () => {
  it('reads back what was recorded, beside other annotations', () => {
    const source = {
      type: 'codehost' as const,
      repository: 'https://git.example/shop.git',
      branch: 'main',
      commit: 'a'.repeat(40),
    };
    const d = deployment({ other: 'x', ...sourceAnnotations(source) });
    expect(sourceOf(d)).toEqual(source);
    expect(Object.keys(sourceAnnotations(source))).toEqual([SOURCE_ANNOTATION]);
  });

  it('is null for an upload and for an annotation that is not a source', () => {
    expect(sourceOf(deployment())).toBeNull();
    for (const raw of ['{', 'null', '{"type":"upload"}', '{"type":"codehost","branch":"main"}']) {
      expect(sourceOf(deployment({ [SOURCE_ANNOTATION]: raw }))).toBeNull();
    }
  });
});
