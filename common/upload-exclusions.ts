/**
 * The contract's built-in upload exclusions and the ignore file's name, with
 * no Node import: shared by the packers that run in Node (the CLI, the code
 * host's) and the web dashboard's, which runs in the browser.
 */

/** Left out of every deployment whatever `.svcignore` says (the contract's list, gitignore syntax). */
export const BUILT_IN_EXCLUSIONS = [
  '.git',
  '.env',
  '__pycache__',
  'node_modules',
  'venv',
  '.DS_Store',
  '*.log',
] as const;

/** The name of the ignore file read in each directory of a project. */
export const IGNORE_FILE = '.svcignore';
