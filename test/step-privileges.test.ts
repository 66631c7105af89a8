/**
 * Identities in a step (spank-facts §3.6): user_init with the user's
 * effective ids, task_init_privileged as root in the child, task_init and
 * the task itself as the user (real, effective and saved), with the user's
 * groups. These need root, as slurmstepd does; CI runs as root.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { recordStep } from './helpers/step.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const isRoot = process.getuid!() === 0;
const NOBODY = 65534;

describe.skipIf(!isRoot)('as root, for another user', () => {
  it('moves between root and the user exactly where slurmstepd does', async () => {
    const { result, lines, dir } = await recordStep([], {
      uid: NOBODY,
      gid: NOBODY,
      gids: [NOBODY, 100],
      user: 'nobody',
      argv: ['sh', '-c', 'echo $(id -u) $(id -g) $(id -G); pwd'],
    });
    const who = (cb: string) => {
      const l = lines.find((x) => x.callback === cb)!.fields;
      return [l.uid, l.euid, l.gid, l.egid].join(' ');
    };
    expect(who('init')).toBe('0 0 0 0');
    expect(who('user_init')).toBe(`0 ${NOBODY} 0 ${NOBODY}`);
    expect(lines.find((x) => x.callback === 'user_init')!.fields.cwd).toBe(dir);
    expect(who('task_init_privileged')).toBe('0 0 0 0');
    expect(who('task_init')).toBe(`${NOBODY} ${NOBODY} ${NOBODY} ${NOBODY}`);
    expect(lines.find((x) => x.callback === 'task_init')!.fields.groups).toBe('2');
    expect(who('task_post_fork')).toBe('0 0 0 0');
    expect(who('task_exit')).toBe('0 0 0 0');
    expect(who('exit')).toBe('0 0 0 0');
    expect(result.tasks[0]!.stdout).toBe(`${NOBODY} ${NOBODY} ${NOBODY} 100\n${dir}\n`);
    const items = await recordStep(['items'], { uid: NOBODY, gid: NOBODY, gids: [NOBODY, 100], user: 'nobody' });
    expect(items.lines.find((l) => l.callback === 'init')!.fields.S_JOB_SUPPLEMENTARY_GIDS).toBe('0:2');
    expect(items.lines.find((l) => l.callback === 'init')!.fields.S_JOB_UID).toBe(`0:${NOBODY}`);
  });

  it('sets SLURM_JOB_USER, SLURM_JOB_UID and SLURM_JOB_GID for the user', async () => {
    const { result } = await recordStep([], { uid: NOBODY, gid: NOBODY, user: 'nobody', argv: ['env'] });
    expect(result.tasks[0]!.stdout).toContain(`SLURM_JOB_UID=${NOBODY}\n`);
    expect(result.tasks[0]!.stdout).toContain(`SLURM_JOB_GID=${NOBODY}\n`);
    expect(result.tasks[0]!.stdout).toContain('SLURM_JOB_USER=nobody\n');
  });
});

describe.skipIf(isRoot)('without root', () => {
  it('refuses another uid with a clear error', async () => {
    const conf = writeFile(tempDir(), 'plugstack.conf', '');
    const stack = await Plugstack.load(conf);
    await expect(stack.launchStep({ argv: ['true'], uid: process.getuid!() + 1 })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });
});

describe.skipIf(!isRoot)('the host’s own check, run as an unprivileged user', () => {
  it('refuses a step for another uid when it is not root', async () => {
    // A copy of the host that the unprivileged user can reach.
    const { execFileSync, spawn } = await import('node:child_process');
    const path = await import('node:path');
    const { nativeDir } = await import('../lib/native/binding.js');
    const { encodeFrame, FrameDecoder } = await import('../lib/host/frames.js');
    const dir = tempDir();
    fs.chmodSync(dir, 0o755);
    for (const f of ['plugstack-host', 'libslurmhost.so']) fs.copyFileSync(path.join(nativeDir(), f), path.join(dir, f));
    execFileSync('chmod', ['755', path.join(dir, 'plugstack-host'), path.join(dir, 'libslurmhost.so')]);
    const conf = writeFile(dir, 'plugstack.conf', '');
    fs.chmodSync(conf, 0o644);
    const child = spawn(path.join(dir, 'plugstack-host'), ['stepd', '--fd', '3'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      uid: NOBODY,
      gid: NOBODY,
    });
    const decoder = new FrameDecoder();
    const events: { t: string; message?: string }[] = [];
    const socket = child.stdio[3] as import('node:net').Socket;
    socket.on('data', (chunk: Buffer) => events.push(...(decoder.push(chunk).flat() as { t: string }[])));
    socket.write(
      encodeFrame({
        conf,
        context: 'remote',
        step: { jobId: 1, stepId: 0, ntasks: 1, uid: 0, gid: 0, argv: ['true'], tasks: [{ gtid: 0 }] },
      }),
    );
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    const fatal = events.find((e) => e.t === 'fatal');
    expect(fatal?.message).toBe(`a step of uid 0 gid 0 needs root: plugstack-host runs as uid ${NOBODY} gid ${NOBODY}`);
  });
});
