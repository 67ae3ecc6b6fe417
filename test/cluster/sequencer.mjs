// The cluster test files build on each other (the install, then the agents, then what happens to
// them): they run in the order of their names (01-install first).
import Sequencer from '@jest/test-sequencer';

export default class ByNameSequencer extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path));
  }
}
