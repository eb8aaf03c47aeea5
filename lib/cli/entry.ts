import { processIo } from './command.ts';
import { main } from './main.ts';
import { exitOnUnhandledStops } from '../foundation/interrupt.ts';

/** The process entry of `npx iswc-conformance` (bin/iswc-conformance.mjs) and of the npm script aliases. */
exitOnUnhandledStops();
process.exitCode = await main(process.argv.slice(2), processIo());
