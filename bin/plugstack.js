#!/usr/bin/env node
// The plugstack command line; see lib/cli/main.ts.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
