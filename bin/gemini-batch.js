#!/usr/bin/env node
import v8 from 'node:v8';

// Let the heap grow by at most 30 % after each full collection. At thousands of rows per second V8 otherwise grows it
// up to 4× the live data, and a million-row job would hold ~500 MB instead of ~250 MB (bench/RESULTS.md, large job).
v8.setFlagsFromString('--heap-growing-percent=30');

const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv);
