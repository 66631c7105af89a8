/**
 * Every callback × a hang: ended at the command's bound and reported as
 * PLUGIN_TIMEOUT of that hook (test/helpers/fault-matrix.ts).
 */
import { faultMatrix } from './helpers/fault-matrix.js';

faultMatrix(['hang']);
