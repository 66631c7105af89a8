/**
 * Every callback × a segfault, abort(), exit(), a descriptor left open and
 * a daemon: contained and attributed (test/helpers/fault-matrix.ts). The
 * hangs, which each wait for a time limit, run beside it in
 * fault-matrix-hangs.test.ts.
 */
import { faultMatrix } from './helpers/fault-matrix.js';

faultMatrix(['crash', 'abort', 'exit', 'leakfd', 'daemon']);
