/**
 * Every test file's temporary directories (tempDir) go once it has run:
 * a test leaves nothing behind on the machine, where other runs of
 * plugstack may be going on.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './plugins.js';

afterAll(removeTempDirs);
