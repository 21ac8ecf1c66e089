import { Environment } from '@marcbachmann/cel-js';
import { RE2_MATCHES, re2Matches } from './cel-regex';

/**
 * What a rule's `when` can read: typed CEL variables (docs/policies.md lists them). A field that is
 * absent (a signal with nothing to compare, a score the service did not send) makes a condition
 * that reads it fail, and a failed condition does not match; `has(signals.nearest_rejected)` asks.
 */
export const POLICY_VARIABLES = {
  frame: {
    agent: 'string',
    channel: 'string',
    metadata: { title: 'string', caption: 'string', external_ref: 'string', click_zones: 'int' },
    media: { type: 'string', width: 'int', height: 'int', bytes: 'int', duration: 'double' },
  },
  signals: {
    blank: 'bool',
    luminance: 'double',
    luminance_spread: 'double',
    sharpness: 'double',
    nearest_promoted: 'int',
    nearest_rejected: 'int',
    // A video's measurement (docs/video.md): absent when not measured; silent_share without audio.
    black_seconds: 'double',
    black_share: 'double',
    frozen_seconds: 'double',
    frozen_share: 'double',
    silent_seconds: 'double',
    silent_share: 'double',
    has_audio: 'bool',
    frame_rate: 'double',
  },
  agent: {
    decisions: 'int',
    promoted: 'int',
    rejected: 'int',
    promoted_share: 'double',
    rejected_share: 'double',
  },
} as const;

let shared: Environment | null = null;

/** The one environment (building one is the expensive part); expressions are parsed against it. */
export function policyEnvironment(): Environment {
  if (shared) return shared;
  const env = new Environment({ limits: { maxAstNodes: 500, maxDepth: 40 } });
  for (const [name, schema] of Object.entries(POLICY_VARIABLES)) env.registerVariable({ name, schema });
  env.registerVariable('scores', 'map<string, double>');
  // `matches` on RE2 (cel-regex.ts); compilePolicy points each call at these (cel-analysis `useRe2`).
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, (text: string, pattern: string) =>
    re2Matches(text, pattern),
  );
  env.registerFunction(`${RE2_MATCHES}(string, string): bool`, (text: string, pattern: string) =>
    re2Matches(text, pattern),
  );
  shared = env;
  return env;
}
