import { runCli } from '../support/cli.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';
import { pageExamples } from '../../lib/report/html.ts';
import { SLOW_TEST_TIMEOUT_MS } from '../support/timeouts.ts';

test.describe.configure({ timeout: SLOW_TEST_TIMEOUT_MS });

/** The forms a key can take in a file: raw, URL-encoded (both cases, + for space), base64 (std, unpadded, url-safe), JSON, HTML. */
function formsOf(key: string): string[] {
  const b64 = Buffer.from(key, 'utf8').toString('base64');
  const uri = encodeURIComponent(key);
  return [...new Set([key, uri, uri.toLowerCase(), encodeURI(key), b64, b64.replace(/=+$/, ''), Buffer.from(key).toString('base64url'), JSON.stringify(key).slice(1, -1), key.replace(/&/g, '&amp;').replace(/\//g, '&#x2F;')])];
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/**
 * Plants a known key and an extra header's value (ISWC_HEADERS, as `--header` sets it), runs the suite
 * against the embedded server holding the key with every reporter on (list, Playwright's junit, the
 * conformance reporter: JSON, JUnit per check, HTML; Allure results), issues the certificate and a diff,
 * then scans every file written and the console output for both.
 */
test('a planted subscription key and header value appear in no file and no console line', { tag: '@e2e' }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-redaction-'));
  // base64 alphabet with + / =, so that the URL-encoded and base64 forms differ from the raw one.
  const key = `pk+${randomBytes(18).toString('base64')}/Zz=`;
  const headerValue = `hv+${randomBytes(15).toString('base64')}/Hh=`;
  try {
    const reports = path.join(dir, 'reports');
    // Every case of the full plan, with ten runs of each generated one: every kind of output, a tenth of the requests.
    const env = childEnv({ ISWC_SUBSCRIPTION_KEY: key, ISWC_REPORT_DIR: reports, ISWC_RUNS: '10', ISWC_HEADERS: JSON.stringify({ 'X-Planted-Token': headerValue }) });
    const run = await runPlaywright(['test', '--project=json', '--project=xml', '--output', path.join(dir, 'test-results')], env);
    expect(run.code, run.stderr).toBe(0);
    const certified = runCli(['certify', '--target', 'fixtures/targets/embedded.json', '--report', path.join(reports, 'conformance.json')], { env });
    expect(certified.code, certified.out).toBe(0);
    const cert = certified.out;
    const diff = runCli(['diff', path.join(reports, 'conformance.json'), path.join(reports, 'conformance.json')], { env }).out;

    const files = filesUnder(dir);
    const names = files.map((f) => path.relative(dir, f));
    for (const expected of ['conformance.json', 'conformance-junit.xml', 'conformance.html', 'junit.xml', 'certificate.json', 'certificate.html', 'diff.md', 'diff.html']) {
      expect(names).toContain(path.join('reports', expected));
    }
    const report = readFileSync(path.join(reports, 'conformance.json'), 'utf8');
    expect(report, 'the run recorded the placeholder where the key went').toContain('$ISWC_SUBSCRIPTION_KEY');
    expect(report, 'and the placeholder where the header value went').toContain('$ISWC_HEADER_X_PLANTED_TOKEN');
    expect(run.stdout).toContain('extra headers X-Planted-Token: $ISWC_HEADER_X_PLANTED_TOKEN');

    const forms = [...formsOf(key), ...formsOf(headerValue)];
    // The scan itself can see a leak: every form of the key is distinct and found in a planted text.
    expect(forms.filter((f) => `x${f}x`.includes(f)).length).toBeGreaterThanOrEqual(10);
    const leaks: string[] = [];
    for (const file of files) {
      const raw = readFileSync(file);
      // A conformance page carries its examples compressed: scan them unpacked as well.
      const unpacked = path.basename(file) === 'conformance.html' ? Buffer.from(JSON.stringify(pageExamples(raw.toString('utf8'))), 'utf8') : Buffer.alloc(0);
      const text = Buffer.concat([raw, unpacked]).toString('latin1');
      for (const form of forms) if (text.includes(Buffer.from(form, 'utf8').toString('latin1'))) leaks.push(`${path.relative(dir, file)}: ${form === key ? 'raw' : form}`);
    }
    for (const [name, out] of [['suite console', run.stdout + run.stderr], ['certify console', cert], ['diff console', diff]] as const) {
      for (const form of forms) if (out.includes(form)) leaks.push(`${name}: ${form}`);
    }
    expect(leaks).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
