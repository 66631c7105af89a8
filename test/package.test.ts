/**
 * The package as npm ships it: what the tarball holds (no build leftovers,
 * source maps that carry their sources, a LICENSE), its metadata, docs that
 * stand on their own, and types that a strict TypeScript project compiles
 * with the package installed from its tarball.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/plugins.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'plugstack-package-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const npm = (args: string[], cwd = repoRoot) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;

describe('the tarball', () => {
  let files: string[] = [];
  beforeAll(() => {
    // A build leftover where `npm run example` leaves one.
    const leftover = path.join(repoRoot, 'examples', 'hello', `leftover-${process.pid}.so`);
    fs.writeFileSync(leftover, 'not shipped');
    try {
      const out = JSON.parse(npm(['pack', '--dry-run', '--ignore-scripts', '--json'])) as { files: { path: string }[] }[];
      files = out[0]!.files.map((f) => f.path);
    } finally {
      fs.rmSync(leftover, { force: true });
    }
  }, 60_000);

  it('holds what the package needs: code, types, headers, sources to build from, the licence', () => {
    for (const f of ['LICENSE', 'README.md', 'package.json', 'binding.gyp', 'bin/plugstack.js', 'bin/plugstack.cjs', 'dist/index.js', 'dist/index.d.ts', 'dist/testing/index.js', 'dist/testing/vitest.d.ts', 'dist/timeline/index.js', 'include/slurm/spank.h', 'native/compat/glibc_floor.cc', 'examples/hello/hello.c'])
      expect(files, f).toContain(f);
  });

  it('holds no build leftovers: shared objects only as prebuilt binaries, no tests, no caches', () => {
    expect(files.filter((f) => /\.(so|o|node|tgz)$/.test(f) && !f.startsWith('prebuilds/'))).toEqual([]);
    expect(files.filter((f) => /^(test|build|build-sanitize|\.cache|node_modules|lib)\//.test(f))).toEqual([]);
  });

  it('ships source maps with their sources, from a dist/ built afresh', () => {
    // npm pack and npm publish build dist/ anew (prepack), so a file whose
    // source is gone is not shipped; the maps of this tree's sources are.
    // ... and the command line's bundle from it (scripts/bundle-cli.mjs).
    expect(pkg.scripts).toMatchObject({ prepack: expect.stringMatching(/rmSync\('dist'.*&& tsc -p tsconfig\.json && node scripts\/bundle-cli\.mjs$/) });
    const maps = files.filter((f) => f.startsWith('dist/') && f.endsWith('.js.map') && fs.existsSync(path.join(repoRoot, f.replace(/^dist\//, 'lib/').replace(/\.js\.map$/, '.ts'))));
    expect(maps.length).toBeGreaterThan(10);
    for (const m of maps) {
      const map = JSON.parse(fs.readFileSync(path.join(repoRoot, m), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect(map.sourcesContent?.length, m).toBe(map.sources.length);
    }
  });
});

describe('the metadata and the docs', () => {
  it('say what the package is, where it lives and under which licence', () => {
    expect(pkg.license).toBe('MIT');
    expect(fs.readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(pkg.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/github\.com\/plugstack\/plugstack/) });
    expect(pkg.bugs).toMatchObject({ url: expect.stringMatching(/\/issues$/) });
    expect(pkg.homepage).toEqual(expect.any(String));
    // The four kinds of plugin it runs, each named.
    for (const kind of ['SPANK', 'cli_filter', 'mpi', 'job_container']) expect(pkg.description).toContain(kind);
  });

  it('link nothing outside the repository, and every link inside it exists', () => {
    const docs = ['README.md', ...fs.readdirSync(path.join(repoRoot, 'docs')).map((f) => path.join('docs', f))];
    for (const doc of docs) {
      const text = fs.readFileSync(path.join(repoRoot, doc), 'utf8');
      expect(text.match(/\]\((?:https?:|\/\/)[^)]*\)|<https?:[^>]*>/g), doc).toBeNull();
      for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) expect(fs.existsSync(path.join(repoRoot, path.dirname(doc), m[1]!)), `${doc}: ${m[1]}`).toBe(true);
    }
  });
});

describe('the types', () => {
  it('compile in a strict project that installs the package from its tarball', () => {
    npm(['pack', '--ignore-scripts', '--pack-destination', scratch]);
    const project = path.join(scratch, 'consumer');
    const installed = path.join(project, 'node_modules', 'plugstack');
    fs.mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(scratch, `plugstack-${pkg.version}.tgz`), '-C', installed, '--strip-components=1']);
    // The package's peer dependencies, as npm installs them next to it.
    fs.mkdirSync(path.join(project, 'node_modules', '@types'));
    fs.symlinkSync(path.join(repoRoot, 'node_modules', '@types', 'node'), path.join(project, 'node_modules', '@types', 'node'));
    fs.symlinkSync(path.join(repoRoot, 'node_modules', 'vitest'), path.join(project, 'node_modules', 'vitest'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // No ambient types of its own: the package must bring what it uses.
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022'], types: [], noEmit: true, skipLibCheck: false }, include: ['*.ts'] }),
    );
    fs.writeFileSync(
      path.join(project, 'use.test.ts'),
      `import { expect, it } from 'vitest';
import { Plugstack, renderTimeline, PlugstackError, type CommandResult, type StepResult } from 'plugstack';
import { compilePlugin, pluginStack } from 'plugstack/testing';
import 'plugstack/testing/vitest';

it('uses the API', async () => {
  const so: string = compilePlugin({ code: 'int x;' }, { slurmVersion: '22.05' });
  const stack: Plugstack = await pluginStack([{ plugin: so, args: ['a=1'] }]);
  const run: CommandResult = await stack.srun(['-n', '2', 'true']);
  const step: StepResult | undefined = run.steps[0];
  const svg: string = renderTimeline(run);
  expect(run).toHaveCalled('plugin', 'init', { task: 1 });
  expect(run).not.toHaveFailedWith('PLUGIN_CRASHED');
  expect(step?.tasks[0]?.stdoutBytes.byteLength).toBe(0);
  expect(svg.length).toBeGreaterThan(0);
  expect(new PlugstackError('INVALID_ARGUMENT', 'x').code).toBe('INVALID_ARGUMENT');
});
`,
    );
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);
});
