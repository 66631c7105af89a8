/**
 * A picture of a run: `renderTimeline(result)` returns a standalone SVG
 * with one lane per process and one bar per call into plugin code (see
 * lanes.ts for what is shown, svg.ts for how).
 */
import { invalidArgument } from '../errors.js';
import { timelineModel, type TimelineSource } from './lanes.js';
import { renderSvg } from './svg.js';

export type { TimelineSource, TimelineModel, TimelineLane, TimelineBar, TimelineMark, LaneKind } from './lanes.js';
export { timelineModel } from './lanes.js';

/**
 * The timeline of a result of srun/sbatch/salloc, launchStep, prolog or
 * epilog (or a slurmd's record), as SVG text.
 */
export function renderTimeline(result: TimelineSource | { node: string; record: import('../host/process-record.js').ProcessRecord }): string {
  if (result === null || typeof result !== 'object')
    throw invalidArgument('result', 'the result of srun, sbatch, salloc, launchStep, prolog or epilog', result);
  const source: TimelineSource = 'record' in result && !('calls' in result) ? { ...result.record, node: result.node } : (result as TimelineSource);
  if (!Array.isArray((source as { calls?: unknown }).calls) && !('client' in source))
    throw invalidArgument('result', 'the result of srun, sbatch, salloc, launchStep, prolog or epilog', result);
  return renderSvg(timelineModel(source));
}
