import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { QueueWorkersView } from './QueueWorkers';

describe('QueueWorkersView', () => {
  afterEach(cleanup);

  it('shows the banner, the workers per queue with why a queue is not consumed, and held jobs with reason and age', () => {
    render(
      <QueueWorkersView
        data={{
          queues: {
            'image-processing': { workers: 2, waiting: 0, unavailable: [] },
            'video-processing': { workers: 0, waiting: 3, unavailable: ['ffprobe not found at /usr/bin/ffprobe'] },
          },
          banners: ['3 videos waiting — no worker can process video: ffprobe not found at /usr/bin/ffprobe'],
          server_faults: [
            {
              queue: 'image-processing',
              job: 'image.process',
              submission_id: 'sub_1',
              reason: 'disk full [ENOSPC]',
              since: '2026-01-01T00:00:00Z',
              age_seconds: 600,
              tries: 4,
            },
          ],
        }}
      />,
    );
    expect(screen.getByRole('alert').textContent).toBe(
      '3 videos waiting — no worker can process video: ffprobe not found at /usr/bin/ffprobe',
    );
    const rows = within(screen.getByRole('table', { name: 'Workers per queue' })).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual([
      'QueueWorkersNot consumed because',
      'image-processing2—',
      'video-processing0ffprobe not found at /usr/bin/ffprobe',
    ]);
    const held = within(screen.getByRole('list', { name: 'Held by a server fault' })).getByRole('listitem');
    expect(held.textContent).toBe('sub_1 · image-processing · disk full [ENOSPC] · for 10 min · 4 tries');
  });
});
