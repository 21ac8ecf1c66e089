import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isFrameDate } from '@framedesk/domain';

/**
 * What `demo seed --samples FILE` leaves for `demo samples FILE`: sample frames are still to be
 * added, with the demo agent's key (the only copy besides the terminal: the database keeps a
 * hash) and the day they are dated from. The file is removed once the samples are in, so it is
 * there only between a first run and the end of its samples, or after an interrupted run.
 */
export interface PendingSamples {
  readonly api_key: string;
  /** YYYYMMDD; a resumed run dates the frames as the first one did, so it sends the same requests. */
  readonly today: string;
}

export async function writePendingSamples(file: string, pending: PendingSamples): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  // Readable by this user only: it holds an API key.
  await writeFile(file, `${JSON.stringify(pending)}\n`, { mode: 0o600 });
}

/** The pending samples, or null when there are none (no file). A damaged file is an error. */
export async function readPendingSamples(file: string): Promise<PendingSamples | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const value = JSON.parse(text) as Partial<PendingSamples>;
  if (typeof value.api_key !== 'string' || typeof value.today !== 'string' || !isFrameDate(value.today))
    throw new Error(`${file} is not a pending-samples file; remove it`);
  return { api_key: value.api_key, today: value.today };
}

export const removePendingSamples = (file: string): Promise<void> => rm(file, { force: true });
