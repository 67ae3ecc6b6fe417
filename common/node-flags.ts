/**
 * Node flags the API server runs with wherever it starts: the single-machine
 * platform (hack/platform), its image's ENTRYPOINT (images/apiserver/Dockerfile,
 * kept equal by node-flags.test.ts) and the benches.
 *
 * Semi-spaces of 32 MiB instead of V8's 16: most of what a request allocates
 * (its context, parsed headers, the answer) dies young, and a larger young
 * generation scavenges half as often and promotes less of it. In
 * bench/control-plane-api.ts on this 2-core machine the API server's CPU per
 * request went down 4-12% for a cached GET and 6-14% for a create (three pairs
 * each, 2026-11-27, other work running), for up to 48 MiB more heap.
 */
export const API_SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
