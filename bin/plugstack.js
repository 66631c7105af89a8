#!/usr/bin/env node
// The command line as an ES module, for those who run this file: it is
// bin/plugstack.cjs, the package's `bin`, which starts faster.
import './plugstack.cjs';
