import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

// ajv-formats ships CommonJS; its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export interface Violation {
  /** JSON Pointer of the offending value, `/` for the root. */
  readonly path: string;
  readonly message: string;
}

export interface ValidatorOptions {
  /** Coerce strings to numbers and booleans (for environment variables). */
  readonly coerceTypes?: boolean;
  /** Fill in `default` values from the schema. */
  readonly useDefaults?: boolean;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; violations: Violation[] };

/** Compiles a JSON Schema into a function that reports every violation, never only the first. */
export function compileValidator<S extends TSchema>(schema: S, options: ValidatorOptions = {}) {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    coerceTypes: options.coerceTypes ?? false,
    useDefaults: options.useDefaults ?? false,
  });
  addFormats(ajv);
  const validate: ValidateFunction = ajv.compile(schema);
  return (input: unknown): Validation<Static<S>> =>
    validate(input)
      ? { ok: true, value: input as Static<S> }
      : { ok: false, violations: toViolations(validate.errors ?? []) };
}

export function toViolations(errors: readonly ErrorObject[]): Violation[] {
  return errors.map((error) => {
    const base = error.instancePath || '';
    switch (error.keyword) {
      case 'additionalProperties': {
        const extra = String((error.params as { additionalProperty: string }).additionalProperty);
        return { path: `${base}/${extra}`, message: 'is not an allowed property' };
      }
      case 'required': {
        const missing = String((error.params as { missingProperty: string }).missingProperty);
        return { path: `${base}/${missing}`, message: 'is required' };
      }
      default:
        return { path: base || '/', message: error.message ?? error.keyword };
    }
  });
}

export function formatViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `  ${v.path}: ${v.message}`).join('\n');
}

/** A string enum as plain JSON Schema `{ type: "string", enum: [...] }`, typed as the union of its values. */
export function stringEnum<const T extends readonly string[]>(
  values: T,
  options: { default?: T[number]; description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
