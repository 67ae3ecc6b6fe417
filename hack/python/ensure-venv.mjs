#!/usr/bin/env node
// The virtual environment the engine's differential tests and benchmark use (.tools/venv),
// with hack/python/requirements.txt (qdrant-edge-py) installed; skipped while up to date.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVenv } from '../lib/venv.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
ensureVenv({
  root,
  venv: join(root, '.tools', 'venv'),
  requirements: join(root, 'hack', 'python', 'requirements.txt'),
  label: 'ensure-venv',
  purpose: "the engine's differential tests",
});
