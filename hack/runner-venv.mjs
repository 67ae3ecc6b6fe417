#!/usr/bin/env node
// The virtual environment the Python runner runs in (.tools/runner-venv), with
// operator/runners/python/requirements.txt installed; skipped while up to date.
// Usage: node hack/runner-venv.mjs   (the runner is then .tools/runner-venv/bin/python)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVenv } from './lib/venv.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureVenv({
  root,
  venv: join(root, '.tools', 'runner-venv'),
  requirements: join(root, 'operator', 'runners', 'python', 'requirements.txt'),
  label: 'runner-venv',
  purpose: 'the Python runner',
});
