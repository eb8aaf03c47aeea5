import { processIo } from './command.ts';
import { main } from './main.ts';

/** The process entry of `npx iswc-conformance` (bin/iswc-conformance.mjs) and of the npm script aliases. */
process.exitCode = await main(process.argv.slice(2), processIo());
