/**
 * The commonest silent MPI failure: ranks that cannot reach a PMI server
 * start as N singletons, each rank 0 of 1, and every exit status is 0. A
 * step is checked after it ran: with plugstack's pmi2, every rank must have
 * spoken to the server and been told its rank and the step's size; without
 * a PMI (none), a program linked with an MPI library started on several
 * tasks is that failure.
 */
import { readDynamicInfo } from '../check/elf.js';
import type { StepResult } from '../step/types.js';

/** MPI libraries by soname, and what they need to find their peers. */
const MPI_LIBRARIES: { soname: RegExp; family: string; speaks: string }[] = [
  { soname: /^libmpi\.so\.40(\.|$)/, family: 'Open MPI', speaks: 'PMIx only (no PMI-1 or PMI-2), so --mpi=pmi2 does not reach it either' },
  { soname: /^libmpich\.so/, family: 'MPICH', speaks: 'PMI-1 or PMI-2: run it with --mpi=pmi2' },
  { soname: /^libmpi\.so\.12(\.|$)/, family: 'MPICH-derived (Intel MPI, MVAPICH)', speaks: 'PMI-1 or PMI-2: run it with --mpi=pmi2' },
  { soname: /^libmpi(_mt)?\.so/, family: 'an MPI', speaks: 'whatever PMI it was built for' },
];

/** The MPI library a program links, if any. */
export function mpiLibraryOf(program: string): { soname: string; family: string; speaks: string } | undefined {
  const info = readDynamicInfo(program);
  if (!info) return undefined;
  for (const lib of MPI_LIBRARIES) {
    const soname = info.needed.find((n) => lib.soname.test(n));
    if (soname) return { soname, family: lib.family, speaks: lib.speaks };
  }
  return undefined;
}

type StepProblem = StepResult['problems'][number];

function idRanges(ids: number[]): string {
  const out: string[] = [];
  const sorted = [...ids].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

/** Problems of a step run with mpi type `type` (null: none). */
export function singletonProblems(step: StepResult, type: string | null): StepProblem[] {
  const ntasks = step.tasks.length;
  if (ntasks < 2) return [];
  const ranks = step.mpi?.ranks;
  const problem = (message: string, task: number): StepProblem => {
    const node = step.tasks.find((t) => t.task === task)?.node ?? 0;
    return { severity: 'error', code: 'MPI_SINGLETONS', message, context: 'remote', node, task };
  };
  if (ranks && ranks.length) {
    const spoke = ranks.filter((r) => r.connected);
    const silent = step.tasks.map((t) => t.task).filter((t) => !spoke.some((r) => r.rank === t));
    const wrongSize = spoke.filter((r) => r.size !== undefined && r.size !== ntasks);
    const seen = new Set<number>();
    const duplicate = spoke.filter((r) => (seen.has(r.rank) ? true : (seen.add(r.rank), false)));
    const out: StepProblem[] = [];
    if (spoke.length && silent.length)
      out.push(
        problem(
          `ranks ${idRanges(silent)} of ${ntasks} never spoke to the PMI server while ranks ${idRanges(spoke.map((r) => r.rank))} did: ` +
            'those started on their own (each rank 0 of 1, or not as MPI at all), and the job is not the one asked for',
          silent[0]!,
        ),
      );
    if (wrongSize.length)
      out.push(problem(`ranks ${idRanges(wrongSize.map((r) => r.rank))} were told a size other than ${ntasks}`, wrongSize[0]!.rank));
    if (duplicate.length) out.push(problem(`rank ${duplicate[0]!.rank} was given to two tasks`, duplicate[0]!.rank));
    if (out.length || spoke.length) return out;
  }
  // No rank spoke to a PMI server: an MPI program started on several tasks
  // is N singletons.
  const program = step.tasks.find((t) => t.exec)?.exec;
  const lib = program ? mpiLibraryOf(program) : undefined;
  if (!lib) return [];
  if (type !== null && type !== 'none' && type !== 'pmi2') return []; // another plugin may serve it
  const how =
    type === 'pmi2'
      ? `under --mpi=pmi2 none of the ${ntasks} ranks spoke to the PMI server`
      : `with no mpi plugin (--mpi=${type ?? 'none'}) there is no PMI server`;
  return [
    problem(
      `${program} links ${lib.soname} (${lib.family}), which speaks ${lib.speaks}; ${how}: each of the ${ntasks} tasks ` +
        'started as a singleton, rank 0 of 1, and their exit statuses say nothing of it',
      step.tasks[0]!.task,
    ),
  ];
}
