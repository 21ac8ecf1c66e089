import { useEffect, useState } from 'react';
import { api, ApiError } from '../api/client';

const RENEW_MS = 120_000;

export type ClaimState =
  | { readonly state: 'idle' | 'mine' }
  | { readonly state: 'other'; readonly message: string }
  | { readonly state: 'gone'; readonly message: string };

/**
 * Claims the frame on screen so no one else decides it meanwhile, renews the claim while it
 * stays open, and gives it back when the reviewer moves on without deciding.
 */
export function useClaim(id: string | null, keep: (id: string) => boolean): ClaimState {
  const [claim, setClaim] = useState<{ id: string | null; value: ClaimState }>({ id: null, value: { state: 'idle' } });
  useEffect(() => {
    if (!id) return;
    let active = true;
    const take = () =>
      api.claim(id).then(
        () => active && setClaim({ id, value: { state: 'mine' } }),
        (error: unknown) => {
          if (!active) return;
          if (error instanceof ApiError && error.code === 'claimed_by_other')
            setClaim({ id, value: { state: 'other', message: error.detail } });
          else if (error instanceof ApiError && error.status === 409)
            setClaim({ id, value: { state: 'gone', message: error.detail } });
        },
      );
    void take();
    const timer = setInterval(() => void take(), RENEW_MS);
    return () => {
      active = false;
      clearInterval(timer);
      if (!keep(id)) api.release(id).catch(() => undefined);
    };
  }, [id, keep]);
  return claim.id === id ? claim.value : { state: 'idle' };
}
