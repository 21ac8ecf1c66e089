import { ERRORS } from '@tus/utils';
import { describe, expect, it } from 'vitest';
import { tusCompletion, type TusCompletionDeps } from './tus-completion';

describe('tusCompletion.finishStored', () => {
  it('says not finished, without throwing, when the store holds nothing for the upload yet', async () => {
    // What @tus/server's stores throw for an upload they do not hold (a creation that did not get
    // through, e.g. while Redis restarted): thrown out of a HEAD, it left the API as a 500.
    const store = { getUpload: () => Promise.reject(ERRORS.FILE_NOT_FOUND) };
    const completion = tusCompletion({ store } as unknown as TusCompletionDeps);
    const session = { id: 'upl_x' } as Parameters<typeof completion.finishStored>[0];
    await expect(completion.finishStored(session, { token: 't', requestId: undefined })).resolves.toBe(false);
  });

  it('still throws what is not a missing upload (storage down: the caller answers 503)', async () => {
    const down = Object.assign(new Error('unavailable'), { name: 'ServiceUnavailable' });
    const completion = tusCompletion({
      store: { getUpload: () => Promise.reject(down) },
    } as unknown as TusCompletionDeps);
    const session = { id: 'upl_x' } as Parameters<typeof completion.finishStored>[0];
    await expect(completion.finishStored(session, { token: 't', requestId: undefined })).rejects.toBe(down);
  });
});
