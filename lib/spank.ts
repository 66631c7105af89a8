/**
 * The SPANK interface as data, mirroring include/slurm/spank.h (Slurm 24.11).
 * test/headers.test.ts compiles a probe against the header and checks every
 * number here against it.
 */
import { SLURM_RELEASES, type SlurmRelease } from './releases.generated.js';

/** The five contexts a plugin runs in (`spank_context_t`). */
export const SPANK_CONTEXTS = {
  local: 1,
  remote: 2,
  allocator: 3,
  slurmd: 4,
  job_script: 5,
} as const;
export type SpankContext = keyof typeof SPANK_CONTEXTS;
export const ALL_CONTEXTS = Object.keys(SPANK_CONTEXTS) as SpankContext[];

/** The twelve callbacks, in Slurm's lookup order, by the names Slurm's logs use. */
export const SPANK_CALLBACKS = [
  'init',
  'job_prolog',
  'init_post_opt',
  'local_user_init',
  'user_init',
  'task_init_privileged',
  'task_init',
  'task_post_fork',
  'task_exit',
  'job_epilog',
  'slurmd_exit',
  'exit',
] as const;
export type SpankCallback = (typeof SPANK_CALLBACKS)[number];

/** `enum spank_item`. */
export const SPANK_ITEMS = {
  S_JOB_UID: 0,
  S_JOB_GID: 1,
  S_JOB_ID: 2,
  S_JOB_STEPID: 3,
  S_JOB_NNODES: 4,
  S_JOB_NODEID: 5,
  S_JOB_LOCAL_TASK_COUNT: 6,
  S_JOB_TOTAL_TASK_COUNT: 7,
  S_JOB_NCPUS: 8,
  S_JOB_ARGV: 9,
  S_JOB_ENV: 10,
  S_TASK_ID: 11,
  S_TASK_GLOBAL_ID: 12,
  S_TASK_EXIT_STATUS: 13,
  S_TASK_PID: 14,
  S_JOB_PID_TO_GLOBAL_ID: 15,
  S_JOB_PID_TO_LOCAL_ID: 16,
  S_JOB_LOCAL_TO_GLOBAL_ID: 17,
  S_JOB_GLOBAL_TO_LOCAL_ID: 18,
  S_JOB_SUPPLEMENTARY_GIDS: 19,
  S_SLURM_VERSION: 20,
  S_SLURM_VERSION_MAJOR: 21,
  S_SLURM_VERSION_MINOR: 22,
  S_SLURM_VERSION_MICRO: 23,
  S_STEP_CPUS_PER_TASK: 24,
  S_JOB_ALLOC_CORES: 25,
  S_JOB_ALLOC_MEM: 26,
  S_STEP_ALLOC_CORES: 27,
  S_STEP_ALLOC_MEM: 28,
  S_SLURM_RESTART_COUNT: 29,
  S_JOB_ARRAY_ID: 30,
  S_JOB_ARRAY_TASK_ID: 31,
} as const;
export type SpankItem = keyof typeof SPANK_ITEMS;

/** `spank_err_t` values a SPANK call returns. */
export const SPANK_ERRORS = {
  ESPANK_SUCCESS: 0,
  ESPANK_ERROR: 3000,
  ESPANK_BAD_ARG: 3001,
  ESPANK_NOT_TASK: 3002,
  ESPANK_ENV_EXISTS: 3003,
  ESPANK_ENV_NOEXIST: 3004,
  ESPANK_NOSPACE: 3005,
  ESPANK_NOT_REMOTE: 3006,
  ESPANK_NOEXIST: 3007,
  ESPANK_NOT_EXECD: 3008,
  ESPANK_NOT_AVAIL: 3009,
  ESPANK_NOT_LOCAL: 3010,
} as const;
export type SpankErrorName = keyof typeof SPANK_ERRORS;

/** Longest option name Slurm accepts (`SPANK_OPTION_MAXLEN`). */
export const SPANK_OPTION_MAXLEN = 75;

/** The name of a SPANK error number, or undefined for other numbers. */
export function spankErrorName(code: number): SpankErrorName | undefined {
  for (const [name, value] of Object.entries(SPANK_ERRORS)) if (value === code) return name as SpankErrorName;
  return undefined;
}

/** The Slurm releases plugstack emulates (native/core/rules/releases.json). `24.11` is the default. */
export const SLURM_VERSIONS = SLURM_RELEASES;
export type { SlurmRelease };

/** The client commands whose option tables a plugin option can clash with. */
export const CLIENT_COMMANDS = ['srun', 'sbatch', 'salloc'] as const;
export type ClientCommand = (typeof CLIENT_COMMANDS)[number];
