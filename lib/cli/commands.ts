import type { Command } from './command.ts';
import { allureCommand } from './commands/allure.ts';
import { baselineCommand } from './commands/baseline.ts';
import { certifyCommand } from './commands/certify.ts';
import { compatCommand } from './commands/compat.ts';
import { diffCommand } from './commands/diff.ts';
import { ledgerCommand } from './commands/ledger.ts';
import { planCommand } from './commands/plan.ts';
import { profileCommand } from './commands/profile.ts';
import { replayCommand } from './commands/replay.ts';
import { runCommand } from './commands/run.ts';
import { sandboxCommand } from './commands/sandbox.ts';
import { serverCommand } from './commands/server.ts';
import { verifyCommand } from './commands/verify.ts';
import { COMMAND_NAMES } from './command-names.ts';

/**
 * Every command, loaded, in the order `--help` lists them (lib/cli/command-names.ts): for the top help and
 * the docs generated from the commands. A command line loads only the command it runs (lib/cli/main.ts).
 */
export const COMMANDS: readonly Command[] = [runCommand, planCommand, profileCommand, replayCommand, certifyCommand, verifyCommand, diffCommand, baselineCommand, ledgerCommand, compatCommand, serverCommand, sandboxCommand, allureCommand];

if (COMMANDS.map((c) => c.name).join() !== COMMAND_NAMES.join()) throw new Error(`lib/cli/command-names.ts lists ${COMMAND_NAMES.join(', ')}; the commands are ${COMMANDS.map((c) => c.name).join(', ')}`);
