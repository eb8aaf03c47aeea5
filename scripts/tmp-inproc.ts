import { inProcessReport } from '../lib/selfcheck/in-process-report.ts';
for (const s of ['alternative', 'production', 'lenient', 'alternative', 'production', 'lenient']) await inProcessReport({ strict: true, choices: s as never });
