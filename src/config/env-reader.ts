import { VARIABLES, type NameOfKind, type VariableName } from './variables.js';

export type Env = Readonly<Record<string, string | undefined>>;

type Table = typeof VARIABLES;
/** Variables whose table entry has a default, so reading them always yields a value. */
type WithDefault = { [N in VariableName]: Table[N] extends { default: unknown } ? N : never }[VariableName];
type OneOfValue<N extends VariableName> = Table[N] extends { allowed: readonly (infer V)[] } ? V : never;

/**
 * Reads variables by their name in the table (variables.ts), which gives each one's default and
 * bounds, and records a problem per bad one, so that all are reported together.
 */
export class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  /** Unset and empty (after trimming) both mean "not set": `FOO=` in an env file is a common way to unset. */
  optionalString(name: NameOfKind<'string'>): string | undefined {
    return this.text(name);
  }

  string(name: NameOfKind<'string'> & WithDefault): string {
    return this.text(name) ?? VARIABLES[name].default;
  }

  /** For secrets: used byte for byte (whitespace may be part of a secret); empty still means unset. */
  secret(name: NameOfKind<'secret'>): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value;
  }

  list(name: NameOfKind<'list'>): string[] {
    const value = this.text(name);
    return value === undefined
      ? []
      : value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
  }

  integer(name: NameOfKind<'integer'> & WithDefault): number {
    return this.optionalInteger(name) ?? VARIABLES[name].default;
  }

  /** An integer variable without a default: undefined when unset (or bad, which is reported). */
  optionalInteger(name: NameOfKind<'integer'>): number | undefined {
    const { min, max } = VARIABLES[name];
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name}: must be an integer from ${min} to ${max} (got "${value}")`);
      return undefined;
    }
    return Number(value);
  }

  /** A decimal number such as 0.25. */
  decimal(name: NameOfKind<'decimal'>): number {
    const { default: fallback, min, max } = VARIABLES[name];
    const value = this.text(name);
    if (value === undefined) return fallback;
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name}: must be a number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  /** `fallback` replaces the table's default where it depends on other variables (METRICS_ENABLED). */
  boolean(name: NameOfKind<'boolean'>, fallback: boolean = VARIABLES[name].default): boolean {
    const value = this.text(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    this.problems.push(`${name}: must be true or false (got "${value}")`);
    return fallback;
  }

  /**
   * The casts hold: the table's default and allowed values are of the variable's value type.
   * `fallback` replaces the table's default where it depends on other variables (EMBEDDINGS).
   */
  oneOf<N extends NameOfKind<'one-of'>>(name: N, fallback?: OneOfValue<N>): OneOfValue<N> {
    const { default: tableDefault, allowed }: { default: string; allowed: readonly string[] } = VARIABLES[name];
    const value = this.text(name);
    if (value === undefined || !allowed.includes(value)) {
      if (value !== undefined) this.problems.push(`${name}: must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback ?? (tableDefault as OneOfValue<N>);
    }
    return value as OneOfValue<N>;
  }

  private text(name: VariableName): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }
}
