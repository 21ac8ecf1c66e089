import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type ProjectConfig, projectConfigSchema } from './project-config.schema';
import { compileValidator, formatViolations, type Validation, type Violation } from './validation';
import { parseVariantName } from './variants';

const validateSchema = compileValidator(projectConfigSchema);

/** Schema violations plus the rules JSON Schema cannot say: variant names. */
export function validateProjectConfig(input: unknown): Validation<ProjectConfig> {
  const result = validateSchema(input);
  const violations: Violation[] = result.ok ? [] : [...result.violations];
  const variants = (input as { delivery?: { vendor_image_variants?: unknown } } | null)?.delivery
    ?.vendor_image_variants;
  if (Array.isArray(variants)) {
    variants.forEach((name, index) => {
      if (typeof name === 'string' && !parseVariantName(name)) {
        violations.push({
          path: `/delivery/vendor_image_variants/${index}`,
          message: `"${name}" is neither a preset (public, thumbnail, preview) nor a size rule (w640, h480, 640x360)`,
        });
      }
    });
    const seen = new Set<unknown>();
    variants.forEach((name, index) => {
      if (seen.has(name))
        violations.push({
          path: `/delivery/vendor_image_variants/${index}`,
          message: `"${String(name)}" is listed twice`,
        });
      seen.add(name);
    });
  }
  return violations.length === 0 ? { ok: true, value: input as ProjectConfig } : { ok: false, violations };
}

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly violations: readonly Violation[],
  ) {
    super(`${file} is not a valid Framedesk configuration:\n${formatViolations(violations)}`);
    this.name = 'ConfigError';
  }
}

export function readProjectConfig(file: string): ProjectConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    throw new ConfigError(file, [{ path: '/', message: reason }]);
  }
  const result = validateProjectConfig(parsed);
  if (!result.ok) throw new ConfigError(file, result.violations);
  return Object.freeze(result.value);
}

export const EXAMPLE_CONFIG_PATH = 'config/project.example.json';
export const DEFAULT_CONFIG_PATH = 'config/project.json';

/** `FRAMEDESK_CONFIG`, else `config/project.json`, else the committed example. */
export function resolveProjectConfigPath(explicit: string | undefined, workspaceRoot: string): string {
  if (explicit) return resolve(workspaceRoot, explicit);
  const local = resolve(workspaceRoot, DEFAULT_CONFIG_PATH);
  return existsSync(local) ? local : resolve(workspaceRoot, EXAMPLE_CONFIG_PATH);
}
