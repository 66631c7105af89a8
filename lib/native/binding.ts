/**
 * The raw native addon, typed. This interface is private: the public API
 * (lib/plugstack.ts) validates arguments before calling in here, and turns
 * results into the public types.
 *
 * The addon is found by node-gyp-build: build/Release first, then
 * prebuilds/<platform>-<arch>/ (only the latter with PREBUILDS_ONLY=1).
 */
import gypBuild from 'node-gyp-build';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PlugstackError } from '../errors.js';

export interface NativeDiagnostic {
  kind: 'diagnostic';
  severity: 'error' | 'warning';
  code: string;
  message: string;
  file?: string;
  line?: number;
  slurmLog: { level: string; text: string }[];
}

export interface NativePluginLine {
  kind: 'plugin';
  ref: number;
  file: string;
  line: number;
  required: boolean;
  path: string;
  args: string[];
}

export interface NativeParsedConf {
  ok: boolean;
  missing: boolean;
  items: (NativePluginLine | NativeDiagnostic)[];
}

export interface NativeHelpOption {
  name: string;
  arginfo?: string | null;
  usage?: string | null;
  shown: boolean;
}

export interface NativeSlurmConfValue {
  key: string;
  value: string;
  file: string;
  line: number;
}

export interface NativeParsedSlurmConf {
  ok: boolean;
  missing: boolean;
  keys: NativeSlurmConfValue[];
  records: { kind: string; name: string; file: string; line: number; fields: NativeSlurmConfValue[] }[];
  diagnostics: NativeDiagnostic[];
}

export interface NativeBinding {
  parseSlurmConf(path: string, slurmVersion: string): NativeParsedSlurmConf;
  parseConfig(path: string): NativeParsedConf;
  formatPluginHelp(options: NativeHelpOption[], columns: number): string;
  helpColumns(columnsEnv?: string): number;
  builtinOptions(command: string, slurmVersion: string): { name: string; hasArg: 0 | 1 | 2; short?: string }[];
  slurmStrerror(code: number): string;
  slurmVersion(text: string): { major: number; minor: number; micro: number; number: number; text: string } | null;
  /** The user database's entry for a uid (getpwuid_r), or null. */
  userByUid(uid: number): { name: string; gid: number } | null;
  /** The group database's name for a gid (getgrgid_r), or null. */
  groupByGid(gid: number): string | null;
  /** Slurm's time string in seconds (-1: no limit), null when Slurm refuses it. */
  timeStringSeconds(text: string): number | null;
  /** A node count "N" or "MIN-MAX" (max 0: none given), null when Slurm refuses it. */
  nodeCountRange(text: string): { min: number; max: number } | null;
  /** Megabytes of a --mem or --mem-per-cpu value (str_to_mbytes), null when Slurm refuses it. */
  memoryMegabytes(text: string): number | null;
  /**
   * -m/--distribution as Slurm reads it: set_distribution's text ('' when it
   * writes none), the task_dist_states_t value, the plane's size (0 unless a
   * plane); null when Slurm refuses it. planeSizeEnv: SLURM_DIST_PLANESIZE.
   */
  taskDistribution(text: string, planeSizeEnv?: string): { text: string; value: number; planeSize: number } | null;
  /**
   * The hosts a node list ("node[1-3],login1") stands for, read by the
   * core's hostlist with the release's rules, at most limit of them
   * (overLimit: the list has more; count and hosts are then the first
   * ones); ok false when Slurm refuses the list, log then holding the lines
   * its parser writes.
   */
  expandHostlist(expression: string, slurmVersion: string, limit: number): { ok: boolean; overLimit: boolean; count: number; hosts: string[]; log: string[] };
  /** Slurm's compact form of host names, in their order ("node[1-11]"), as hostlist_ranged_string writes it. */
  rangedHostlist(names: string[]): string;
  /** The names sorted and each once, as hostlist_uniq leaves a list. */
  uniqueHosts(names: string[]): string[];
  /** A connected unix stream socketpair, close-on-exec (for the zygote). */
  socketPair(): [number, number];
  /** The memory a host keeps its unsent events in (native/addon/event_slots.cc), a memfd: Node's descriptor and one to hand the host. */
  eventSlotsCreate(): [number, number];
  /** Calls into plugin code open now in the process of a slot (0: the host's own). */
  eventSlotsOpenCalls(fd: number, slot: number): number;
  /** What the slots' processes never sent, one JSON array per slot that holds any. */
  eventSlotsTake(fd: number): Buffer[];
  /** Writes all of data on fd with the descriptors attached (SCM_RIGHTS); throws an Error with errno. */
  sendWithDescriptors(fd: number, data: Buffer, fds: number[]): void;
  closeDescriptor(fd: number): void;
  /** kill(2) of a process (pid > 0) or a process group (pid < -1): 0, or its errno (ESRCH: gone). */
  signalProcess(pid: number, signal: number): number;
  /**
   * Starts file with argv and env (NAME=value strings) by posix_spawn, not a
   * fork of Node: /dev/null on 0-2, fd as descriptor 3, default signals, a
   * session of its own. The pid; throws an Error with errno when it cannot run.
   */
  spawnDetached(file: string, argv: string[], env: string[], fd: number): number;
  /**
   * An interactive salloc's terminal calls (native/addon/terminal.cc). terminalState: null when fd
   * is no terminal, else its foreground process group (-errno when it has none), this process's
   * group and its parent's.
   */
  terminalState(fd: number): { foreground: number; own: number; parent: number } | null;
  /** The terminal's size (TIOCGWINSZ), or the errno when fd is none. */
  terminalSize(fd: number): { rows: number; cols: number } | number;
  /** The terminal's mode (struct termios), to give back to setTerminalMode; null when fd is no terminal. */
  terminalMode(fd: number): Buffer | null;
  /** tcsetattr(TCSANOW) with SIGTTOU blocked: 0 or errno. */
  setTerminalMode(fd: number, mode: Buffer): number;
  /** tcsetpgrp with SIGTTOU blocked: 0 or errno. */
  setForegroundGroup(fd: number, pgid: number): number;
  /** setpgid(0, 0): 0 or errno. */
  leadProcessGroup(): number;
  /** SIGTSTP, SIGTTIN and SIGTTOU ignored by this process from now on. */
  ignoreJobControlSignals(): void;
  /** waitpid(pid, WNOHANG): the raw wait status, or null while it runs; throws an Error with errno. */
  reapProcess(pid: number): number | null;
  /**
   * A socket descriptor read and written through libuv's poll (lib/host/polled-socket.ts):
   * data events carry a new Buffer, or with `into` the length read into it.
   */
  PolledSocket: new (fd: number, readable: boolean, onEvent: (kind: number, value: Buffer | number | undefined) => void, into?: Buffer) => NativePolledSocket;
}

/** native/addon/polled_socket.cc: the descriptor is the object's (close() closes it). */
export interface NativePolledSocket {
  /** 0 written, 1 queued (a drain event follows), or -errno. */
  write(data: Buffer): number;
  /** No more writes: the peer reads end of stream once the queue is out. */
  end(): void;
  /** Stops polling and closes the descriptor; no event after it. */
  close(): void;
  ref(): void;
  unref(): void;
}

/** The package root: two levels up from lib/native or dist/native. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const require = createRequire(import.meta.url);

let cached: { binding: NativeBinding; dir: string } | undefined;

function load(): { binding: NativeBinding; dir: string } {
  if (cached) return cached;
  let addonPath: string;
  try {
    addonPath = gypBuild.path(packageRoot);
  } catch (cause) {
    throw new PlugstackError(
      'NATIVE_NOT_FOUND',
      `plugstack's native addon is not built for ${process.platform}-${process.arch} ` +
        `(looked in ${path.join(packageRoot, 'build', 'Release')} and ${path.join(packageRoot, 'prebuilds')}); ` +
        'run `npm rebuild plugstack` to build it from source',
      { cause },
    );
  }
  cached = { binding: require(addonPath) as NativeBinding, dir: path.dirname(addonPath) };
  return cached;
}

export function native(): NativeBinding {
  return load().binding;
}

/** The directory the addon was loaded from; libslurmhost.so and plugstack-host sit beside it. */
export function nativeDir(): string {
  return load().dir;
}
