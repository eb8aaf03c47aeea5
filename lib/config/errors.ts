/** A setting of the environment (or a flag mapped onto it) that cannot be used: exit 2, never a stack trace. */
export class ConfigError extends Error {
  readonly code = 'ISWC_CONFIG';
}
