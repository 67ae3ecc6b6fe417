#!/usr/bin/env node
// The virtual environment the engine's differential tests and benchmark and the vector plane's
// official-client test use (.tools/venv), with hack/python/requirements.txt (qdrant-edge-py,
// qdrant-client) installed; skipped while up to date.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVenv } from '../lib/venv.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
ensureVenv({
  root,
  venv: join(root, '.tools', 'venv'),
  requirements: join(root, 'hack', 'python', 'requirements.txt'),
  label: 'ensure-venv',
  purpose: "the engine's differential tests and the official Python client's test",
});
