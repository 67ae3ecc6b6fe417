/** Reading secrets and payloads from standard input, never from the command line. */
import { createInterface } from 'node:readline';

/**
 * Everything on stdin, less one trailing newline (what `echo` and a here-doc
 * add). On a terminal, asks with `prompt` on stderr and reads one line.
 */
export async function readStdin(prompt: string): Promise<string> {
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    try {
      return await new Promise<string>((resolve) => rl.question(prompt, resolve));
    } finally {
      rl.close();
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
