/**
 * What a command prints: records as a table (or `key: value` lines) for
 * people, or as JSON for scripts with `--json`; notes and progress on stderr,
 * so stdout stays the answer. Colour only when the stream is a terminal and
 * `NO_COLOR` is unset.
 */
import Table from 'cli-table3';
import { createColors } from 'picocolors';

/**
 * Whether to colour what goes to `stream`: only on a terminal, never with
 * `--no-color` (`colour` false) or when `NO_COLOR` is set and not empty
 * (https://no-color.org).
 */
export function colourAllowed(
  stream: { isTTY?: boolean },
  colour: boolean | undefined,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return colour !== false && !env.NO_COLOR && Boolean(stream.isTTY);
}

/** The printer a command writes through. */
export class Output {
  /** Colours for stdout. */
  readonly colors: ReturnType<typeof createColors>;
  /** Colours for stderr. */
  readonly errColors: ReturnType<typeof createColors>;

  constructor(
    readonly json: boolean,
    colour: boolean | undefined,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.colors = createColors(colourAllowed(stdout, colour));
    this.errColors = createColors(colourAllowed(stderr, colour));
  }

  /** Whether stderr is a terminal (progress bars only then). */
  get interactive(): boolean {
    return Boolean(this.stderr.isTTY);
  }

  /** Prints `value` as JSON (with `--json`) or through `human`. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.line(JSON.stringify(value, null, 2));
    else human();
  }

  /** A list of records: a table of `columns`, or the records as JSON. */
  list(items: readonly Record<string, unknown>[], columns: readonly string[], raw?: unknown): void {
    this.result(raw ?? items, () => {
      if (items.length === 0) {
        this.note('(none)');
        return;
      }
      const table = new Table({
        head: columns.map((c) => this.colors.bold(c.toUpperCase())),
        style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
        chars: BORDERLESS,
      });
      for (const item of items) table.push(columns.map((c) => cell(item[c])));
      this.line(table.toString());
    });
  }

  /** One record: `field: value` lines, or the record as JSON. */
  record(item: Record<string, unknown>, fields?: readonly string[]): void {
    this.result(item, () => {
      const keys = fields ?? Object.keys(item);
      const width = Math.max(...keys.map((k) => k.length));
      for (const key of keys)
        this.line(`${this.colors.dim(key.padEnd(width))}  ${cell(item[key])}`);
    });
  }

  /** A line on stdout. */
  line(text: string): void {
    this.stdout.write(text + '\n');
  }

  /** A note for people on stderr (never mixed into an answer). */
  note(text: string): void {
    this.stderr.write(text + '\n');
  }

  /** A success note on stderr. */
  ok(text: string): void {
    this.note(this.errColors.green(text));
  }

  /** A problem on stderr. */
  error(text: string): void {
    this.note(this.errColors.red(text));
  }
}

/** A table without box drawing: columns separated by spaces, like kubectl. */
const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.map((v) => cell(v)).join(',') || '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
