/**
 * salloc on a terminal (lib/commands/salloc-terminal.ts): its command leads
 * the terminal's foreground process group, so Ctrl-C reaches the command
 * alone and Ctrl-Z stops nothing; the terminal goes back to salloc's parent
 * at the end. Run in a real pseudo-terminal that util-linux's `script`
 * opens, as a job of the shell there, keys typed into it through script's
 * input. What a real 22.05 salloc did in the same
 * terminal is quoted at each test.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir, writeFile } from './helpers/plugins.js';
import { inTerminal } from './helpers/terminal.js';

const cli = path.join(repoRoot, 'bin', 'plugstack.cjs');
const TICKS = "for i in 1 2 3; do echo tick $i; sleep 0.5; done; exit 3";

function alloc(conf: string, extra = ''): string {
  return `node ${cli} alloc --conf ${conf} --slurm-version 22.05 ${extra} -n 1 sh -c '${TICKS}'`;
}

describe('salloc on a terminal', () => {
  const conf = writeFile(tempDir(), 'plugstack.conf', '');

  it('Ctrl-C reaches the command alone: it dies, salloc relinquishes the allocation (exit 0), nothing revoked', async () => {
    const { out, code } = await inTerminal(alloc(conf), { waitFor: 'tick 1', key: '\x03' });
    // A real 22.05: 'tick 1', ^C, 'salloc: Relinquishing job allocation N', exit 0.
    expect(out).toMatch(/^salloc: Granted job allocation (\d+)\ntick 1\n\^Csalloc: Relinquishing job allocation \1\n$/);
    expect(code).toBe(0);
  });

  it('Ctrl-Z stops nothing: the command runs to its end, and salloc ends with its status', async () => {
    const { out, code } = await inTerminal(alloc(conf), { waitFor: 'tick 1', key: '\x1a' });
    // A real 22.05: ^Z echoed, the ticks go on, 'Relinquishing', exit 3.
    expect(out).toMatch(/^salloc: Granted job allocation (\d+)\ntick 1\n\^Ztick 2\ntick 3\nsalloc: Relinquishing job allocation \1\n$/);
    expect(code).toBe(3);
  });

  it("gives the terminal back to its parent's process group at the end", async () => {
    // The shell leads the terminal's session and, running no jobs, keeps
    // its foreground group for salloc; salloc took the terminal for a group
    // of its own, then for its command's; the shell's group has it after.
    const { out } = await inTerminal(`${alloc(conf)}; echo status=$?; ps -o pgid=,tpgid= -p $$`, { jobs: false });
    const [pgid, tpgid] = out.trim().split('\n').at(-1)!.trim().split(/\s+/);
    expect(out).toContain('status=3\n');
    expect(tpgid).toBe(pgid);
  });

  it('input not the terminal: not interactive, and its command still opens the terminal (/dev/tty) of its session', async () => {
    // A real 22.05, input from /dev/null in the same terminal: 'tty-ok'.
    // The command leads a group of its own in salloc's session, so the
    // controlling terminal is still its own.
    const { out, code } = await inTerminal(`node ${cli} alloc --conf ${conf} --slurm-version 22.05 -n 1 sh -c 'exec 3</dev/tty && echo tty-ok' </dev/null`);
    expect(out).toMatch(/^salloc: Granted job allocation (\d+)\ntty-ok\nsalloc: Relinquishing job allocation \1\n$/);
    expect(code).toBe(0);
  });

  it('a terminal that is not its controlling one: "no controlling terminal", error_exit, before any allocation', async () => {
    // setsid: a session without a controlling terminal, the pseudo-terminal still its input.
    const { out, code } = await inTerminal(`setsid -w ${alloc(conf)}`);
    // A real 22.05 said so and exited 1; with --no-shell it granted the allocation.
    expect(out).toBe('salloc: error: no controlling terminal: please set --no-shell\n');
    expect(code).toBe(1);
    const noShell = await inTerminal(`setsid -w ${alloc(conf, '--no-shell')}`);
    expect(noShell.out).toMatch(/^salloc: Granted job allocation \d+\n/);
    expect(noShell.code).toBe(0);
  });
});
