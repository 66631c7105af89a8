/**
 * What the commands refuse before a job exists, what a job's request gives
 * back in its environments, and time limits past Node's longest timer:
 * found by comparing plugstack's commands with a real 22.05 and 24.11
 * (test/conformance/scenarios.ts and environ.test.ts compare them there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const env = { PATH: '/usr/bin:/bin', FOO: 'foo' };

describe.each(['22.05', '24.11'])('%s', (slurmVersion) => {
  it('refuses a script with DOS line breaks, --wrap with script arguments, -N 0 and zero tasks a node', async () => {
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion });
    writeFile(dir, 'crlf.sh', '#!/bin/sh\r\necho hi\r\n');
    const crlf = await stack.sbatch({ args: ['crlf.sh'], cwd: dir, env });
    expect([crlf.exitCode, crlf.stderr]).toEqual([1, 'sbatch: error: Batch script contains DOS line breaks (\\r\\n)\nsbatch: error: instead of expected UNIX line breaks (\\n).\n']);
    const wrap = await stack.sbatch({ args: ['--wrap', 'true', 'extra'], cwd: dir, env });
    expect([wrap.exitCode, wrap.stderr]).toEqual([1, 'sbatch: error: Script arguments not permitted with --wrap option\n']);
    const zero = await stack.srun({ args: ['-N', '0', 'true'], cwd: dir, env });
    expect([zero.exitCode, zero.stderr]).toEqual([1, 'srun: error: Unable to allocate resources: Node count specification invalid\n']);
    const perNode = await stack.salloc({ args: ['--ntasks-per-node=0', 'true'], cwd: dir, env });
    expect([perNode.exitCode, perNode.stderr]).toEqual([1, 'salloc: error: Invalid numeric value "0" for --ntasks-per-node.\n']);
    // sbatch -o /dev/stdout: the command's own pipe is not read back (it never ends).
    const piped = await stack.sbatch({ args: ['-o', '/dev/stdout', '--wrap', 'true'], cwd: dir, env });
    // (Named with no text where it opens: a pipe, a socket or a terminal, whatever the test runner gives.)
    expect([piped.exitCode, piped.output?.text ?? '']).toEqual([0, '']);
  });

  it('runs a job whose time limit is past 24.8 days, and an empty --export passes Slurm\'s variables alone', async () => {
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion });
    const long = await stack.srun({ args: ['-t', '30-0', 'sh', '-c', 'sleep 0.3; echo done'], cwd: dir, env });
    expect([long.exitCode, long.stdout, long.job?.state]).toEqual([0, 'done\n', 'COMPLETED']);
    const none = await stack.srun({ args: ['--export=', '/bin/sh', '-c', 'echo FOO=${FOO-unset}'], cwd: dir, env });
    expect([none.exitCode, none.stdout]).toEqual([0, 'FOO=unset\n']);
  });

  it('hands the job its memory and account, and keeps the submission directory', async () => {
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion });
    const show = 'echo mem=${SLURM_MEM_PER_NODE-}${SLURM_MEM_PER_CPU-} account=${SLURM_JOB_ACCOUNT-} over=${SLURM_OVERCOMMIT-} submit=$SLURM_SUBMIT_DIR';
    const alloc = await stack.salloc({ args: ['--mem-per-cpu=100', '-A', 'acct', '-O', 'sh', '-c', `${show}; cd /tmp && srun sh -c '${show}'`], cwd: dir, env });
    expect(alloc.stdout.split('\n').filter(Boolean)).toEqual([`mem=100 account=acct over=1 submit=${dir}`, `mem=100 account=acct over=1 submit=${dir}`]);
    const run = await stack.srun({ args: ['--mem=1G', '-A', 'acct', '-D', '/tmp', 'sh', '-c', show], cwd: dir, env });
    // 22.05's srun does not write the job's memory into its own environment.
    expect(run.stdout).toBe(`mem=${slurmVersion === '24.11' ? '1024' : ''} account=acct over= submit=${dir}\n`);
  });

  it("runs slurm.conf's SrunProlog and SrunEpilog around the step, which --prolog=none turns off", async () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'slurm.conf', 'ClusterName=c\nSrunProlog=/bin/echo\nSrunEpilog=/bin/echo\n');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion, slurmConf: conf });
    const both = await stack.srun({ args: ['sh', '-c', 'echo task $SLURM_SCRIPT_CONTEXT'], cwd: dir, env });
    expect(both.stdout).toBe('sh -c echo task $SLURM_SCRIPT_CONTEXT\ntask prolog_srun\nsh -c echo task $SLURM_SCRIPT_CONTEXT\n');
    const off = await stack.srun({ args: ['--prolog=none', 'sh', '-c', 'echo task ${SLURM_SCRIPT_CONTEXT-none}'], cwd: dir, env });
    expect(off.stdout).toBe('task none\nsh -c echo task ${SLURM_SCRIPT_CONTEXT-none}\n');
  });

  it("names slurm.conf's slurmctld and select plugin in 22.05's SLURM_WORKING_CLUSTER", async () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'slurm.conf', 'ClusterName=Site\nSlurmctldHost=head(10.1.2.3)\nSlurmctldHost=backup\nSlurmctldPort=7000-7003\nSelectType=select/cons_tres\n');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion, slurmConf: conf });
    const r = await stack.srun({ args: ['sh', '-c', 'echo ${SLURM_WORKING_CLUSTER-none}'], cwd: dir, env });
    expect(r.stdout).toBe(slurmVersion === '22.05' ? 'site:10.1.2.3:7000:9728:109\n' : 'none\n');
  });

  it("waits for srun's prolog alone, and ends it with the command's time bound", async () => {
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion });
    writeFile(dir, 'bg.sh', '#!/bin/sh\necho prolog\nsleep 30 </dev/null >/dev/null 2>&1 &\necho $! > bg.pid\n');
    writeFile(dir, 'slow.sh', '#!/bin/sh\nexec sleep 30\n');
    fs.chmodSync(path.join(dir, 'bg.sh'), 0o755);
    fs.chmodSync(path.join(dir, 'slow.sh'), 0o755);
    // What the prolog leaves running does not hold srun up (it waits for the script alone).
    const bg = await stack.srun({ args: ['--prolog=bg.sh', 'echo', 'task'], cwd: dir, env, timeoutMs: 20_000 });
    expect([bg.exitCode, bg.stdout]).toEqual([0, 'prolog\ntask\n']);
    process.kill(Number(fs.readFileSync(path.join(dir, 'bg.pid'), 'utf8')), 'SIGKILL');
    // A prolog that does not end is killed with the command at its time bound.
    const slow = await stack.srun({ args: ['--prolog=./slow.sh', 'true'], cwd: dir, env, timeoutMs: 1000 });
    expect(slow.stderr).toContain('srun is still running after 1000 ms');
    expect(slow.stderr).toContain('srun: error: script did not exit normally');
  });

  it('places a job naming a far node of its own cluster, and refuses a step leaving a node without a task', async () => {
    const dir = tempDir();
    const own = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion });
    const far = await own.srun({ args: ['-w', 'node999999', 'sh', '-c', 'echo $SLURM_JOB_NODELIST'], cwd: dir, env });
    expect([far.exitCode, far.stdout]).toEqual([0, 'node999999\n']);
    const conf = writeFile(dir, 'slurm.conf', 'ClusterName=x\nSelectType=select/linear\nNodeName=n1 CPUs=1\nNodeName=n2 CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n');
    const site = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion, slurmConf: conf });
    const r = await site.salloc({ args: ['-N', '2', 'srun', '-N', '2', '-n', '2', '-c', '2', 'true'], cwd: dir, env });
    expect(r.stderr).toMatch(/srun: error: Unable to create step for job \d+: Requested node configuration is not available/);
  });
});
