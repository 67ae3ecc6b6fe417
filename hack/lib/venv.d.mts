/** Types of ./venv.mjs (plain Node, so it runs before node_modules exists). */

/** Ensures `venv` has `requirements` installed and returns its python; exits the process on failure. */
export function ensureVenv(options: {
  root: string;
  venv: string;
  requirements: string;
  label: string;
  purpose: string;
}): string;
