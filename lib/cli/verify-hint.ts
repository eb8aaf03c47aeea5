import { existsSync } from 'node:fs';
import path from 'node:path';
import { shownPath } from '../foundation/paths.ts';

/** A path as a shell reads it: bare when it holds nothing the shell would take apart, else single-quoted. */
function shellPath(p: string): string {
  return /^[\w./@%+:,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/**
 * The line `certify` ends with: the command that checks the certificate just written, runnable as printed
 * in the directory certify was run in. Signed with `KEY.pem`: the issuer's public key is `KEY.pub.pem`, the
 * name the guides give it; where that file is not there yet, the line makes it first (openssl), as the
 * guides do. Unsigned: `--allow-unsigned`, which says the signature was not checked.
 */
export function verifyHint(certificateFile: string, signKey: string | undefined, cwd: string): string {
  const cert = shellPath(shownPath(certificateFile, cwd));
  if (signKey === undefined) return `  check it: npx iswc-conformance verify ${cert} --allow-unsigned`;
  const key = path.resolve(cwd, signKey);
  const publicKey = key.endsWith('.pem') ? `${key.slice(0, -'.pem'.length)}.pub.pem` : `${key}.pub.pem`;
  const pub = shellPath(shownPath(publicKey, cwd));
  const verify = `npx iswc-conformance verify ${cert} --public-key ${pub}`;
  return existsSync(publicKey) ? `  check it: ${verify}` : `  check it: openssl pkey -in ${shellPath(shownPath(key, cwd))} -pubout -out ${pub} && ${verify}`;
}
