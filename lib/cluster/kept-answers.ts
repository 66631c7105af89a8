/**
 * Answers a host process gave about files that have not changed since:
 * slurmd's scan of a stack (slurmd-scan.ts), slurmd's reading of mpi.conf
 * (mpi/conf.ts). Each answer is kept under a key with the fingerprint of
 * what it read, in memory (the newest few) and in the user's state
 * directory (so that the next `plugstack` command, a new Node process, need
 * not ask again), and is used only while the fingerprint is the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stateDir } from './state-dir.js';

/** A file as a fingerprint sees it: device, inode, size, change times (or why it cannot be read). */
export function fileState(file: string): string {
  try {
    const s = fs.statSync(file, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

/**
 * A file name for a key: two 32-bit FNV-1a hashes (node:crypto costs
 * milliseconds to load, and every plugstack command would pay them). The
 * file holds its key: another key with the same name is told apart.
 */
function nameOf(key: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
  }
  return `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}

export class KeptAnswers<T> {
  private readonly memory = new Map<string, { fingerprint: string; answer: T }>();

  /**
   * @param dir the state directory's subdirectory for these answers
   * @param isAnswer what a saved answer must look like to be used
   */
  constructor(
    private readonly dir: string,
    private readonly isAnswer: (value: unknown) => value is T,
    private readonly maxInMemory = 64,
    private readonly maxSaved = 256,
  ) {}

  /**
   * The answer kept for key, if what it read still has this fingerprint.
   * One found only on disk (saved by an earlier process) is kept in memory
   * from then on: the next command of this process need not read it again.
   */
  get(key: string, fingerprint: string): T | undefined {
    const inMemory = this.memory.get(key);
    if (inMemory && inMemory.fingerprint === fingerprint) return inMemory.answer;
    const saved = this.read(key);
    if (!saved || saved.fingerprint !== fingerprint) return undefined;
    this.remember(key, saved);
    return saved.answer;
  }

  private remember(key: string, kept: { fingerprint: string; answer: T }): void {
    this.memory.delete(key);
    this.memory.set(key, kept);
    if (this.memory.size > this.maxInMemory) this.memory.delete(this.memory.keys().next().value!);
  }

  /** Keeps an answer (one that ran to its end: only those are worth keeping). */
  set(key: string, fingerprint: string, answer: T): void {
    this.remember(key, { fingerprint, answer });
    try {
      const file = this.file(key);
      const tmp = `${file}.${process.pid}`;
      fs.writeFileSync(tmp, JSON.stringify({ key, fingerprint, answer }), { mode: 0o600 });
      fs.renameSync(tmp, file);
      this.trim(path.dirname(file));
    } catch {
      // kept in memory only
    }
  }

  private file(key: string): string {
    return path.join(stateDir(this.dir), `${nameOf(key)}.json`);
  }

  private read(key: string): { fingerprint: string; answer: T } | undefined {
    try {
      const saved = JSON.parse(fs.readFileSync(this.file(key), 'utf8')) as { key?: unknown; fingerprint?: unknown; answer?: unknown };
      if (saved.key === key && typeof saved.fingerprint === 'string' && this.isAnswer(saved.answer)) return { fingerprint: saved.fingerprint, answer: saved.answer };
    } catch {
      // never asked by this user, or being written
    }
    return undefined;
  }

  /** At most maxSaved answers on disk: the oldest go first. */
  private trim(dir: string): void {
    const saved = fs.readdirSync(dir);
    if (saved.length <= this.maxSaved) return;
    const byAge = saved
      .map((name) => ({ name, at: fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => a.at - b.at);
    for (const { name } of byAge.slice(0, saved.length - this.maxSaved)) fs.rmSync(path.join(dir, name), { force: true });
  }
}
