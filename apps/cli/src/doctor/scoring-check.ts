import type { Settings } from '@framedesk/config';
import { scoringClient } from '@framedesk/policies';
import { type CheckResult, ok, warn } from './check-result';

/** A 1×1 grey PNG: what the doctor asks the scoring service to score. */
const PROBE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The scoring hook (docs/policies.md): whether SCORING_URL answers `{"scores": {…}}` within
 * SCORING_TIMEOUT_MS. When it does not, frames of channels whose policy reads scores go to people.
 */
export async function checkScoring(
  settings: Pick<Settings, 'SCORING_URL' | 'SCORING_TIMEOUT_MS'>,
): Promise<CheckResult> {
  if (!settings.SCORING_URL) return ok('scoring', 'SCORING_URL not set: review policies see no scores');
  const result = await scoringClient({ url: settings.SCORING_URL, timeoutMs: settings.SCORING_TIMEOUT_MS })({
    id: 'doctor',
    agent: 'doctor',
    channel: 'doctor',
    image: PROBE_PNG,
    contentType: 'image/png',
  });
  if (result.ok) return ok('scoring', `${settings.SCORING_URL} answers (${Object.keys(result.scores).length} scores)`);
  const what = {
    timeout: `no answer within SCORING_TIMEOUT_MS (${settings.SCORING_TIMEOUT_MS} ms)`,
    error: 'an error (unreachable, or a status other than 2xx)',
    malformed: 'an answer that is not {"scores": {"name": number, …}}',
  }[result.reason];
  return warn(
    'scoring',
    `${settings.SCORING_URL}: ${what}; frames whose policy reads scores go to people (framedesk_scoring_requests_total)`,
    'check the scoring service and SCORING_URL, or raise SCORING_TIMEOUT_MS',
  );
}
