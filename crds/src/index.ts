/** The contract between the API server and the operator: kinds, schemas, CRDs. */
export * from './names.js';
export * from './enums.js';
export * from './schema.js';
export * from './agent.js';
export * from './agent-deployment.js';
export * from './workspace.js';
export * from './definitions.js';
export * from './builders.js';
export * from './owner-reference.js';
export * from './secret-data-keys.js';
export * from './tenant-namespace.js';
