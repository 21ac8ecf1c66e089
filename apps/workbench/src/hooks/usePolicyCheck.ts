import { useEffect, useState } from 'react';
import { ApiError, type ProblemItem } from '../api/client';
import { policiesApi } from '../api/policies';

export type PolicyCheck =
  | { readonly state: 'checking' }
  | { readonly state: 'ok'; readonly policy: unknown }
  | { readonly state: 'invalid'; readonly problems: readonly ProblemItem[] }
  | { readonly state: 'error'; readonly message: string };

/**
 * The editor's text checked as the admin types: not JSON is said at once; JSON goes to the
 * server's check (the validation `policy set` runs) `delayMs` after the last keystroke, and an
 * answer for older text is dropped.
 */
export function usePolicyCheck(slug: string, text: string, delayMs = 400): PolicyCheck {
  const [check, setCheck] = useState<PolicyCheck>({ state: 'checking' });
  useEffect(() => {
    let policy: unknown;
    try {
      policy = JSON.parse(text);
    } catch (error) {
      setCheck({
        state: 'invalid',
        problems: [{ pointer: '', detail: `Not JSON: ${(error as Error).message}`, rule: null }],
      });
      return;
    }
    setCheck({ state: 'checking' });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      policiesApi.check(slug, policy, controller.signal).then(
        () => !controller.signal.aborted && setCheck({ state: 'ok', policy }),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          if (error instanceof ApiError && error.code === 'policy_invalid')
            setCheck({ state: 'invalid', problems: error.errors });
          else
            setCheck({
              state: 'error',
              message: error instanceof ApiError ? error.detail : 'The check did not answer.',
            });
        },
      );
    }, delayMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [slug, text, delayMs]);
  return check;
}
