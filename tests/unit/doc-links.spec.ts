import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { anchors, linkTargets, slug } from '../support/markdown.ts';

/** The repository's Markdown a reader follows links in: the top-level files and docs/ (the vendored interface document aside). */
function markdownFiles(): string[] {
  const out = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md'].filter((f) => existsSync(fromRoot(f)));
  const walk = (rel: string): void => {
    for (const entry of readdirSync(fromRoot(rel))) {
      const child = path.join(rel, entry);
      if (statSync(fromRoot(child)).isDirectory()) {
        if (child !== path.join('docs', 'spec')) walk(child);
      } else if (entry.endsWith('.md')) {
        out.push(child);
      }
    }
  };
  walk('docs');
  return out;
}

/** What is wrong with one relative link of a file, or undefined when it resolves (file, and heading when it names one). */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [file = '', anchor] = target.split('#', 2);
  const resolved = file === '' ? from : path.normalize(path.join(path.dirname(from), decodeURIComponent(file)));
  if (resolved.startsWith('..')) return `${target}: outside the repository`;
  if (!existsSync(fromRoot(resolved))) return `${target}: no file ${resolved}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!resolved.endsWith('.md')) return undefined;
  return anchors(readFileSync(fromRoot(resolved), 'utf8')).has(anchor) ? undefined : `${target}: ${resolved} has no heading #${anchor}`;
}

test('every relative link of README.md, CHANGELOG.md, CONTRIBUTING.md and docs/**/*.md resolves, to the heading it names', () => {
  const files = markdownFiles();
  expect(files).toEqual(expect.arrayContaining(['README.md', path.join('docs', 'configuration.md')]));
  const broken = files.flatMap((file) =>
    linkTargets(readFileSync(fromRoot(file), 'utf8'))
      .map((target) => brokenLink(file, target))
      .filter((problem): problem is string => problem !== undefined)
      .map((problem) => `${file}: ${problem}`),
  );
  expect(broken).toEqual([]);
});

test('the link reader: anchors as GitHub makes them, links outside code only', () => {
  expect(slug('Against a remote base URL')).toBe('against-a-remote-base-url');
  expect(slug('Legitimate choices and choice sets (`--choices SET`, `--choice ID`)')).toBe('legitimate-choices-and-choice-sets---choices-set---choice-id');
  expect(slug('Faults the ranking never saw (issue 16, section 3)')).toBe('faults-the-ranking-never-saw-issue-16-section-3');
  expect([...anchors('# A\n## B\n## B\n```\n# not a heading\n```\n')]).toEqual(['a', 'b', 'b-1']);
  expect(linkTargets('[a](x.md) `[b](y.md)` ![c](z.png "t")\n```\n[d](w.md)\n```\n')).toEqual(['x.md', 'z.png']);
  expect(brokenLink('README.md', 'docs/no-such-file.md')).toMatch(/no file/);
  expect(brokenLink('README.md', 'docs/cli.md#no-such-heading')).toMatch(/has no heading/);
  expect(brokenLink('docs/reports.md', 'cli.md#run')).toBeUndefined();
});

/**
 * Issue 29: a user's clone holds the repository only. No code, output or doc may send a reader to files
 * beside it (the project's shared folder, its domain notes): what users need of them lives under docs/
 * (docs/spec/iswc-agency-api.md, docs/production.md). The names are built here so that this file does not
 * match itself.
 */
test('no file of the repository names a file a user\'s clone does not have (the shared folder beside it, the domain notes)', () => {
  const outside = [`..${'/'}shared`, `DOMAIN${'.md'}`, `STYLE${'.md'}`];
  const skip = new Set(['node_modules', '.git', 'reports', 'test-results', 'playwright-report', 'allure-results', 'allure-report']);
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(fromRoot(rel))) {
      if (skip.has(entry)) continue;
      const child = rel === '' ? entry : path.join(rel, entry);
      if (statSync(fromRoot(child)).isDirectory()) {
        walk(child);
        continue;
      }
      if (!/\.(ts|js|mjs|json|md|yaml|yml|html|txt)$/.test(entry)) continue;
      const text = readFileSync(fromRoot(child), 'utf8');
      for (const name of outside) if (text.includes(name)) found.push(`${child}: ${name}`);
    }
  };
  walk('');
  expect(found).toEqual([]);
});
