/**
 * `import 'plugstack/testing/vitest'` (in a test file or a vitest setup
 * file) adds plugstack's matchers to vitest's expect, with their types.
 */
import { expect } from 'vitest';
import { matchers, type PlugstackMatchers } from './matchers.js';

expect.extend(matchers);

declare module 'vitest' {
  interface Matchers<T = any> extends PlugstackMatchers<T> {}
}
