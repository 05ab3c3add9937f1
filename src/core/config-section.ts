// A module's settings: the section its definition declares and the reader it reads them with.
// Below everything (no imports), so modules can use it without importing the config loader
// (src/config.ts imports the module list).

/**
 * A module's settings: a name (unique) and how to read them from the environment. Declared in the
 * module's definition (`config`); read at start with the rest.
 */
export interface ConfigSection<T> {
  name: string;
  read(r: ConfigReader): T;
}

/** A module's section of a loaded configuration. */
export function sectionOf<T>(config: { modules: Readonly<Record<string, unknown>> }, section: ConfigSection<T>): T {
  if (!(section.name in config.modules)) throw new Error(`configuration section ${section.name} was not loaded`);
  return config.modules[section.name] as T;
}

/** Reads and validates one variable each; a bad value throws ConfigError naming the variable. */
export interface ConfigReader {
  readonly nodeEnv: string;
  str(name: string, def: string): string;
  /** Undefined when unset or empty. */
  optional(name: string): string | undefined;
  int(name: string, def: number, min: number, max: number): number;
  bool(name: string, def: boolean): boolean;
  url(name: string, protocols: string[], def?: string): string | undefined;
  pattern(name: string, def: string, re: RegExp, what: string): string;
  /** An Ed25519 private key as PKCS8 PEM, or the base64 of its 32-byte seed; returned as PKCS8 PEM. */
  ed25519Key(name: string): string | undefined;
  /** Refuses the configuration with this message (names the variables). */
  fail(message: string): never;
}

/**
 * A module's settings section, declared once: its type is what `read` returns (each setting's
 * comment stands on its line in `read`), named where a module needs it with `SettingsOf`.
 */
export function configSection<T>(name: string, read: (r: ConfigReader) => T): ConfigSection<T> {
  return { name, read };
}

/** The settings a section reads. */
export type SettingsOf<S> = S extends ConfigSection<infer T> ? T : never;
