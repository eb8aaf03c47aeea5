import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The arguments of a developer script (npm run seeds, plan:power, …): `--help` prints its usage and exits
 * 0; an unknown option or a missing value prints what is wrong and the usage, and exits 2, never a stack
 * trace.
 */
export function scriptArgs<const O extends Options>(usage: string, options: O, argv: readonly string[] = process.argv.slice(2)): ReturnType<typeof parseArgs<{ options: O; args: string[]; allowPositionals: false }>>['values'] {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ options, args: [...argv], allowPositionals: false }).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message.replace(/\. To specify a positional argument.*$/s, '')}\n\n${usage.trim()}\n`);
    process.exit(2);
  }
}
