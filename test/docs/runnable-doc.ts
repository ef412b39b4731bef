import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';

/**
 * Runnable documentation: a page's ```sh blocks are commands, each optionally followed (nothing
 * but blank lines between) by a ```json block with the important part of its answer.
 */
export interface DocStep {
  /** 1-based position among the page's ```sh blocks, for messages. */
  number: number;
  script: string;
  /** The ```json block after the command, parsed; undefined when the command has none. */
  expected?: unknown;
}

interface Fence {
  lang: string;
  body: string;
  start: number;
  end: number;
}

const FENCE = /^```([\w-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

function fencesOf(markdown: string): Fence[] {
  return [...markdown.matchAll(FENCE)].map((m) => ({ lang: m[1]!, body: m[2]!, start: m.index, end: m.index + m[0].length }));
}

/** The ```sh blocks of a page with their expected answers; a ```json block that follows no command is an error. */
export function docSteps(markdown: string): DocStep[] {
  const fences = fencesOf(markdown);
  const steps: DocStep[] = [];
  fences.forEach((fence, i) => {
    const previous = fences[i - 1];
    const followsCommand = previous?.lang === 'sh' && markdown.slice(previous.end, fence.start).trim() === '';
    if (fence.lang === 'sh') steps.push({ number: steps.length + 1, script: fence.body });
    else if (fence.lang === 'json') {
      if (!followsCommand) throw new Error(`a json block follows no sh block: ${fence.body.slice(0, 80)}`);
      try {
        steps[steps.length - 1]!.expected = JSON.parse(fence.body);
      } catch (error) {
        throw new Error(`expected answer after sh block ${steps.length} is not JSON: ${(error as Error).message}`);
      }
    }
  });
  return steps;
}

/** The ```sh blocks of a page that contain every one of `needles`. */
export function shBlocksContaining(markdown: string, ...needles: string[]): string[] {
  return fencesOf(markdown)
    .filter((f) => f.lang === 'sh' && needles.every((n) => f.body.includes(n)))
    .map((f) => f.body);
}

// `<anything>` stands for a value that differs on every run; `$NAME` for a shell variable's value.
const PLACEHOLDER = /(<[^<>]+>|\$[A-Z_][A-Z0-9_]*)/;
const VARIABLE = /\$([A-Z_][A-Z0-9_]*)/g;

/** The shell variables an expected answer refers to. */
export function variablesIn(expected: unknown): string[] {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') for (const m of value.matchAll(VARIABLE)) names.add(m[1]!);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(expected);
  return [...names];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The expected answer as a `toMatchObject` pattern: objects match as subsets, arrays element by
 * element with the same length, and strings with placeholders become anchored regular expressions.
 */
export function answerPattern(expected: unknown, variables: Record<string, string>): unknown {
  if (typeof expected === 'string') {
    const parts = expected.split(PLACEHOLDER);
    if (parts.length === 1) return expected;
    const regex = parts
      .map((part, i) => {
        if (i % 2 === 0) return escapeRegExp(part);
        if (part.startsWith('<')) return '.+';
        const value = variables[part.slice(1)];
        if (!value) throw new Error(`the expected answer names ${part}, which the shell has not set`);
        return escapeRegExp(value);
      })
      .join('');
    return expect.stringMatching(new RegExp(`^${regex}$`, 's'));
  }
  if (Array.isArray(expected)) return expected.map((item) => answerPattern(item, variables));
  if (expected !== null && typeof expected === 'object') {
    return Object.fromEntries(Object.entries(expected).map(([key, value]) => [key, answerPattern(value, variables)]));
  }
  return expected;
}

/**
 * One bash session for a whole page, so variables set by one block are there for the next, as in
 * the reader's terminal. It runs with `set -euo pipefail`: a failing command ends the session,
 * and the block that failed is reported with bash's stderr.
 */
export class ShellSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';
  private exited: string | undefined;
  private onChange: (() => void) | undefined;
  private blocks = 0;

  constructor(
    private readonly cwd: string,
    env: Record<string, string>,
  ) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.onChange?.();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.child.on('exit', (code, signal) => {
      this.exited = `bash exited (${code ?? signal})`;
      this.onChange?.();
    });
    this.child.stdin.write('set -euo pipefail\n');
  }

  /** Runs a block as the reader would paste it (from a file, so a command reading stdin cannot eat the next one); returns its stdout. */
  async run(script: string): Promise<string> {
    this.blocks += 1;
    const file = join(this.cwd, `.block-${this.blocks}.sh`);
    await writeFile(file, script);
    const marker = `__block_${randomUUID()}_done__`;
    this.stdout = '';
    this.stderr = '';
    const done = new Promise<string>((resolve, reject) => {
      this.onChange = () => {
        const at = this.stdout.indexOf(`\n${marker}\n`);
        if (at >= 0) resolve(this.stdout.slice(0, at));
        else if (this.exited) reject(new Error(`${this.exited} while running:\n${script}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`));
      };
    });
    this.child.stdin.write(`. '${file}' </dev/null\nprintf '\\n%s\\n' '${marker}'\n`);
    this.onChange?.();
    return done;
  }

  /** The values of shell variables (set -u makes an unset one end the session). */
  async variables(names: string[]): Promise<Record<string, string>> {
    const values: Record<string, string> = {};
    for (const name of names) values[name] = await this.run(`printf '%s' "$${name}"`);
    return values;
  }

  close(): void {
    this.child.stdin.end();
    if (!this.exited) this.child.kill();
  }
}
