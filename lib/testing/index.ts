/// <reference types="node" preserve="true" />
/**
 * plugstack/testing: what a plugin author needs to test a SPANK plugin:
 * compile it (from a file or a string, for 24.11 or 22.05), put it in a
 * stack with its arguments, run srun/sbatch/salloc/prolog/epilog on that
 * stack, and ask the result questions (the matchers; `plugstack/testing/
 * vitest` installs them into vitest's expect).
 */
export { compilePlugin } from './compile.js';
export type { CompileOptions, PluginSource } from './compile.js';
export { pluginStack, stackConf } from './stack.js';
export type { StackPlugin } from './stack.js';
export { matchers } from './matchers.js';
export type { PlugstackMatchers, ProblemFilter, MatcherContext, MatcherResult } from './matchers.js';
export { runCalls, runProblems, runTasks, taskEnv } from './calls.js';
export type { RunCall, RunProblem, RunResult, CallFilter } from './calls.js';
