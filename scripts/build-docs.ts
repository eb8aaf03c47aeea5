/**
 * Writes the generated documentation (npm run docs:build): docs/checks.md from the check registry,
 * docs/readings.md from the readings, and the choice and fault tables of docs/reference-server.md (between
 * their markers). A unit test keeps every one of them in step.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { allChecks } from '../lib/checks/registry.ts';
import { renderReadingsDoc } from '../lib/checks/readings.ts';
import { fromRoot } from '../lib/paths.ts';
import { choiceTable } from '../server/choices.ts';
import { faultTable } from '../server/faults.ts';

export function renderChecksDoc(): string {
  const rows = allChecks().map((c) => `| \`${c.id}\` | ${c.level} | ${c.sections.join(', ')} | ${c.scope === 'every-exchange' ? 'every answer' : 'where a case asks'} | ${c.description} |`);
  return [
    '# Checks',
    '',
    'Generated from `lib/checks/registry.ts` by `npm run docs:build`; do not edit by hand.',
    '',
    'Levels: `spec` is stated by the interface document, on what every reasonable reading agrees ([readings.md](readings.md)); `http` is RFC 9110 and safe handling the document does not state (gating only with `ISWC_STRICT=1`); `observed` records what the server does where careful servers may differ, and never fails.',
    '',
    '| check | level | sections | applies to | what it requires |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A file's text with the part between `<!-- name:start -->` and `<!-- name:end -->` replaced. */
export function withGenerated(text: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${start} … ${end} markers`);
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
}

/** docs/reference-server.md with its generated tables up to date. */
export function renderReferenceServerDoc(current: string): string {
  return withGenerated(withGenerated(current, 'choices', choiceTable()), 'faults', faultTable());
}

if (process.argv[1]?.endsWith('build-docs.ts')) {
  writeFileSync(fromRoot('docs', 'checks.md'), renderChecksDoc());
  writeFileSync(fromRoot('docs', 'readings.md'), renderReadingsDoc());
  const server = fromRoot('docs', 'reference-server.md');
  writeFileSync(server, renderReferenceServerDoc(readFileSync(server, 'utf8')));
  console.log('docs/checks.md, docs/readings.md, docs/reference-server.md');
}
