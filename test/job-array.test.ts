/**
 * sbatch's --array expressions as slurmctld takes them (lib/cluster/job-array.ts).
 * What is valid and what is not was asked of a real 22.05 with
 * `sbatch --test-only --array=...` (MaxArraySize 1001); 24.11 parses the
 * same way (slurm_parse_array_tok is 22.05's _parse_array_tok moved).
 */
import { describe, expect, it } from 'vitest';
import { arrayIdsIn, arrayLimits, arrayTaskEnv, parseJobArray } from '../lib/cluster/job-array.js';
import { envRecord } from '../lib/cluster/job-env.js';
import type { SlurmConf } from '../lib/config/slurm-conf.js';

const DEFAULT = arrayLimits(undefined);

describe('job array expressions', () => {
  it('takes what the real slurmctld took, with the tasks it names', () => {
    const tasks = (spec: string) => parseJobArray(spec, DEFAULT)?.tasks;
    expect(tasks('1-3%1')).toEqual([1, 2, 3]);
    expect(tasks('0-4:2')).toEqual([0, 2, 4]);
    expect(tasks('[1-2]')).toEqual([1, 2]);
    expect(tasks('5')).toEqual([5]);
    expect(tasks('1,3,,5')).toEqual([1, 3, 5]);
    // No digits before the %: strtol's 0.
    expect(tasks('%2')).toEqual([0]);
    expect(tasks('1000')).toEqual([1000]);
    expect(tasks('2-6:2,9')).toEqual([2, 4, 6, 9]);
    expect(tasks('3,1,2,1')).toEqual([1, 2, 3]);
  });

  it('refuses what the real slurmctld refused', () => {
    for (const spec of ['1-', '-1', '3-1', '1-3:0', '1001', '1-2:1001', 'x', '1:2', '1-3x', '2%x,y'])
      expect(parseJobArray(spec, DEFAULT), spec).toBeUndefined();
  });

  it('the step and the throttle as _create_job_array reads them: after the first : and the first %', () => {
    expect(parseJobArray('1-10:3,20', DEFAULT)).toMatchObject({ step: 3, tasks: [1, 4, 7, 10, 20] });
    expect(parseJobArray('1,5-9:2%4', DEFAULT)).toMatchObject({ step: 2, throttle: 4 });
    expect(parseJobArray('1-3%0', DEFAULT)).not.toHaveProperty('throttle');
    const array = parseJobArray('4,6', DEFAULT)!;
    expect(arrayTaskEnv(array, { jobId: 5, taskId: 6 })).toEqual({
      SLURM_ARRAY_TASK_COUNT: '2',
      SLURM_ARRAY_TASK_MIN: '4',
      SLURM_ARRAY_TASK_MAX: '6',
      SLURM_ARRAY_TASK_STEP: '1',
      SLURM_ARRAY_JOB_ID: '5',
      SLURM_ARRAY_TASK_ID: '6',
    });
  });

  it('MaxArraySize and max_array_tasks from slurm.conf', () => {
    const conf = (keys: Record<string, string>) => ({ keys }) as unknown as SlurmConf;
    expect(DEFAULT).toEqual({ maxArraySize: 1001, maxTasks: 1001 });
    const small = arrayLimits(conf({ MaxArraySize: '10', SchedulerParameters: 'bf_continue,MAX_ARRAY_TASKS=3' }));
    expect(small).toEqual({ maxArraySize: 10, maxTasks: 3 });
    expect(parseJobArray('9', small)?.tasks).toEqual([9]);
    expect(parseJobArray('10', small)).toBeUndefined();
    expect(parseJobArray('1-3', small)?.tasks).toEqual([1, 2, 3]);
    expect(parseJobArray('1-4', small)).toBeUndefined();
    expect(parseJobArray('0', arrayLimits(conf({ MaxArraySize: '0' })))).toBeUndefined();
  });

  it('a launched step’s and srun’s array ids come from the environment (atoi, the last of each), absent when not set', () => {
    expect(arrayIdsIn(envRecord(['A=1']))).toEqual({});
    expect(arrayIdsIn(envRecord(['SLURM_ARRAY_JOB_ID=7', 'SLURM_ARRAY_TASK_ID=3x', 'SLURM_ARRAY_JOB_ID=8']))).toEqual({ arrayJobId: 8, arrayTaskId: 3 });
    expect(arrayIdsIn({ SLURM_ARRAY_JOB_ID: '7', SLURM_ARRAY_TASK_ID: 'x' })).toEqual({ arrayJobId: 7, arrayTaskId: 0 });
  });
});
