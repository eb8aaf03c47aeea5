/**
 * `certify` ends with the command that checks the certificate it wrote, and that command runs as printed,
 * pasted into a shell in the directory certify was run in: signed with issuer.pem and its public key not
 * made yet (the line makes it with openssl first, as the guides do), signed with the public key there,
 * and unsigned (--allow-unsigned). The client certificate here; the server's `certify` prints the same
 * line (lib/cli/verify-hint.ts), and its guide's verify step runs in tests/unit/guides.spec.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import { cliInProcess } from '../support/cli.ts';
import { cloneLikeDir, newcomerEnv } from '../support/doc-commands.ts';

const KEY = 'certify-printed-key-3e7a';

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('close', (code) => resolve({ code, out }));
  });
}

const checkLine = (stdout: string): string | undefined => /^ {2}check it: (.+)$/m.exec(stdout)?.[1];

test('the "check it" line certify prints runs as printed: signed (public key made first, or already there) and unsigned', async () => {
  test.setTimeout(300_000);
  const dir = cloneLikeDir('iswc-certify-printed-');
  const env = newcomerEnv(path.join(dir, '.npm-cache'));
  try {
    // A conformant session of a client that only deletes, and says so.
    mkdirSync(path.join(dir, 'reports', 'client'), { recursive: true });
    const parsed = parseSandboxArgs(['--port', '0', '--report-dir', path.join(dir, 'reports', 'client'), '--operations', 'delete'], { ISWC_SANDBOX_KEY: KEY });
    if (parsed.kind !== 'run') throw new Error('bad arguments');
    const running = await startSandbox(parsed.options);
    const answer = await fetch(`${running.url}/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1`, { method: 'DELETE', headers: { 'Ocp-Apim-Subscription-Key': KEY, 'User-Agent': 'agency-tool/2.3' } });
    expect(answer.status).toBe(204);
    await running.stop();

    // The key as the guides make it; its public half not yet.
    expect((await sh('openssl genpkey -algorithm ed25519 -out issuer.pem', dir, env)).code).toBe(0);
    const certify = (args: string[]) => cliInProcess(['certify', '--client', 'reports/client/client-conformance.json', ...args], { cwd: dir });

    const run = async (stdout: string, expected: string): Promise<string> => {
      const line = checkLine(stdout);
      expect(line).toBe(expected);
      const ran = await sh(line ?? 'false', dir, env);
      expect(ran.code, `${line ?? ''}\n${ran.out}`).toBe(0);
      return ran.out;
    };
    // Signed, the public key not made yet: the line makes it, then verifies.
    const first = await certify(['--sign-key', 'issuer.pem']);
    expect(first.code, first.out).toBe(0);
    expect(await run(first.stdout, 'openssl pkey -in issuer.pem -pubout -out issuer.pub.pem && npx iswc-conformance verify reports/client/client-certificate.json --public-key issuer.pub.pem')).toContain('and unedited since');
    expect(existsSync(path.join(dir, 'issuer.pub.pem'))).toBe(true);
    // Signed, the public key there: the verify alone.
    const again = await certify(['--sign-key', 'issuer.pem']);
    expect(again.code, again.out).toBe(0);
    expect(await run(again.stdout, 'npx iswc-conformance verify reports/client/client-certificate.json --public-key issuer.pub.pem')).toContain('and unedited since');
    // Unsigned: the line accepts it and says the signature was not checked.
    const unsigned = await certify([]);
    expect(unsigned.code, unsigned.out).toBe(0);
    expect(await run(unsigned.stdout, 'npx iswc-conformance verify reports/client/client-certificate.json --allow-unsigned')).toContain('UNSIGNED');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
