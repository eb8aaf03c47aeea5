/** Writes docs/checks.md from the check registry (npm run docs:build); a unit test keeps it in sync. */
import { writeFileSync } from 'node:fs';
import { allChecks } from '../lib/checks/registry.ts';
import { fromRoot } from '../lib/paths.ts';

export function renderChecksDoc(): string {
  const rows = allChecks().map((c) => `| \`${c.id}\` | ${c.level} | ${c.sections.join(', ')} | ${c.scope === 'every-exchange' ? 'every answer' : 'where a case asks'} | ${c.description} |`);
  return [
    '# Checks',
    '',
    'Generated from `lib/checks/registry.ts` by `npm run docs:build`; do not edit by hand.',
    '',
    'Levels: `spec` is stated by the interface document; `http` is RFC 9110 and safe handling the document does not state (gating only with `ISWC_STRICT=1`); `observed` records what the server does where the document says "not shown" and never fails.',
    '',
    '| check | level | sections | applies to | what it requires |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (process.argv[1]?.endsWith('build-docs.ts')) {
  writeFileSync(fromRoot('docs', 'checks.md'), renderChecksDoc());
  console.log('docs/checks.md');
}
