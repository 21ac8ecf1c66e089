import { loadSettings } from '@framedesk/config';
import { createStorage } from '@framedesk/storage';
import { type BackfillOutcome, fingerprintStoredFrame, nearDuplicateSettings } from '@framedesk/submissions';
import { type Command, UsageError } from '../command';

export const mediaCommands: Record<string, Command> = {
  // Fingerprints processed frames that have none yet (frames from before fingerprints existed).
  // Resumable: each batch is committed as it goes, and a new run starts with what is still missing.
  'media fingerprint': {
    usage: 'media fingerprint --all [--batch N]',
    positionals: 0,
    options: { all: { type: 'boolean' }, batch: { type: 'string' } },
    async run({ values, db, io }) {
      if (!values['all']) throw new UsageError('usage: framedesk media fingerprint --all [--batch N]');
      const batch = values['batch'] === undefined ? 200 : Number(values['batch']);
      if (!Number.isInteger(batch) || batch < 1 || batch > 10_000)
        throw new UsageError('--batch must be an integer from 1 to 10000');
      const settings = loadSettings(io.env);
      const storage = createStorage(settings);
      const similarity = nearDuplicateSettings(settings);
      const database = db();
      const counts: Record<BackfillOutcome, number> = { fingerprinted: 0, no_media: 0, undecodable: 0 };
      // The cursor only skips frames this run could not fingerprint; done ones leave the set.
      let after: { createdAt: Date; id: string } | undefined;
      for (;;) {
        const frames = await database.repos.fingerprints.unfingerprinted({ ...(after ? { after } : {}), limit: batch });
        if (frames.length === 0) break;
        for (const frame of frames)
          counts[await fingerprintStoredFrame({ db: database, storage, settings: similarity }, frame)]++;
        const last = frames.at(-1)!;
        after = { createdAt: last.createdAt, id: last.id };
        io.out(`fingerprinted ${counts.fingerprinted} frames so far (last ${last.id})`);
      }
      // Frames fingerprinted before older ones were may now have more near-duplicates: the
      // queue's counts of the frames still waiting are made again.
      let recounted = 0;
      let afterId: string | undefined;
      for (;;) {
        const waiting = await database.repos.fingerprints.waitingForReview({
          ...(afterId ? { afterId } : {}),
          limit: batch,
        });
        if (waiting.length === 0) break;
        for (const row of waiting) await database.repos.fingerprints.recount(row, similarity);
        recounted += waiting.length;
        afterId = waiting.at(-1)!.submissionId;
      }
      io.out(
        `done: ${counts.fingerprinted} fingerprinted, ${counts.no_media} without stored media, ${counts.undecodable} undecodable; ${recounted} waiting frames recounted`,
      );
    },
  },
};
