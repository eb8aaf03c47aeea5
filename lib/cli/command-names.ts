import type { Command } from './command.ts';

/**
 * The commands by name, in the order `--help` lists them, each loaded only when it runs: a command line
 * pays for the modules of its own command, not the twelve others (about a second of CPU each time).
 * `run` is the default command.
 */
const LOADERS = {
  run: async () => (await import('./commands/run.ts')).runCommand,
  plan: async () => (await import('./commands/plan.ts')).planCommand,
  profile: async () => (await import('./commands/profile.ts')).profileCommand,
  replay: async () => (await import('./commands/replay.ts')).replayCommand,
  certify: async () => (await import('./commands/certify.ts')).certifyCommand,
  verify: async () => (await import('./commands/verify.ts')).verifyCommand,
  diff: async () => (await import('./commands/diff.ts')).diffCommand,
  baseline: async () => (await import('./commands/baseline.ts')).baselineCommand,
  ledger: async () => (await import('./commands/ledger.ts')).ledgerCommand,
  compat: async () => (await import('./commands/compat.ts')).compatCommand,
  server: async () => (await import('./commands/server.ts')).serverCommand,
  sandbox: async () => (await import('./commands/sandbox.ts')).sandboxCommand,
  allure: async () => (await import('./commands/allure.ts')).allureCommand,
} satisfies Record<string, () => Promise<Command>>;

export type CommandName = keyof typeof LOADERS;

export const COMMAND_NAMES = Object.keys(LOADERS) as CommandName[];

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(LOADERS, name);
}

/** The command of that name, its modules loaded now. */
export function loadCommand(name: CommandName): Promise<Command> {
  return LOADERS[name]();
}
