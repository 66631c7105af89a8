/// <reference types="node" preserve="true" />
export { Plugstack, DEFAULT_PLUGIN_DIR } from './plugstack.js';
export type { LoadOptions, CheckOptions, HelpOptions } from './plugstack.js';
export { parseConfig } from './config/plugstack-conf.js';
export type { ParsedConfig, ConfigPluginLine, ConfigDiagnostic } from './config/plugstack-conf.js';
export type { CheckReport, ContextReport, PluginReport, OptionReport, Problem, HookCall, LogLine, Severity } from './check/types.js';
export { PlugstackError } from './errors.js';
export type { PlugstackErrorCode } from './errors.js';
export {
  SPANK_CONTEXTS,
  SPANK_CALLBACKS,
  SPANK_ITEMS,
  SPANK_ERRORS,
  SPANK_OPTION_MAXLEN,
  SLURM_VERSIONS,
  CLIENT_COMMANDS,
  ALL_CONTEXTS,
  spankErrorName,
} from './spank.js';
export type { SpankContext, SpankCallback, SpankItem, SpankErrorName, SlurmRelease, ClientCommand } from './spank.js';
export { includeDir } from './native/paths.js';
export type {
  StepOptions,
  StepResult,
  TaskResult,
  NodeResult,
  StepHookCall,
  StepItemRead,
  StepEnvChange,
  StepLogLine,
  SpankOptionValue,
} from './step/types.js';
export type {
  CommandOptions,
  CommandResult,
  ClientRecord,
  ClientHookCall,
  JobRecord,
  ArrayTaskRecord,
  SeenOption,
  BuiltinOptionSetting,
  CommandName,
} from './commands/types.js';
export type { OptionValue } from './commands/structured-args.js';
export type {
  JobScriptMode,
  JobScriptOptions,
  JobCredential,
  JobScriptResult,
  SlurmdOptions,
  SlurmdDaemon,
  SlurmdStop,
} from './daemon/types.js';
/** slurm_load_job's record of a job, as StepOptions.job and JobScriptOptions.job take it (slurm.h's slurm_job_info_t, the fields plugstack fills). */
export type { JobInfo } from './cluster/job-info.js';
export type { ProcessRecord, ProcessHookCall, ProcessItemRead, ProcessEnvOperation, ProcessLogLine } from './host/process-record.js';
export type { SlurmInstallation } from './backend/slurm.js';
export { renderTimeline, timelineModel } from './timeline/index.js';
export type { TimelineSource, TimelineModel, TimelineLane, TimelineBar, TimelineMark, LaneKind } from './timeline/index.js';
