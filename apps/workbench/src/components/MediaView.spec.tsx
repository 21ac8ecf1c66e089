import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { detail, queueItem } from '../testing/fake-api';
import { MediaView } from './MediaView';

describe('MediaView', () => {
  afterEach(cleanup);

  it('draws each click zone over the image as a positioned box named by its label and URL', () => {
    render(<MediaView submission={detail(queueItem('sub_a', 'Sunrise'))} />);
    expect(screen.getByRole('img', { name: 'Sunrise' }).getAttribute('src')).toBe('/media/sub_a/preview');
    const zone = screen.getByRole('link', { name: 'Buy: https://example.com/buy' });
    expect(zone.getAttribute('title')).toBe('https://example.com/buy');
    expect(zone.getAttribute('href')).toBe('https://example.com/buy');
    const style = (zone as HTMLElement).style;
    expect([style.left, style.top, style.width, style.height]).toEqual(['10%', '20%', '30%', '40%']);
  });

  it('says the media were purged instead of showing a broken image or player', () => {
    const purged = {
      image_url: null,
      poster_url: null,
      video_url: null,
      variants: {},
      purged_at: '2026-03-04T05:06:07.000Z',
    };
    for (const item of [
      queueItem('sub_p', 'Gone'),
      { ...queueItem('sub_q', 'Gone clip'), media_type: 'video' as const },
    ]) {
      const { container, unmount } = render(<MediaView submission={detail(item, purged)} />);
      expect(screen.getByRole('status').textContent).toBe('Media purged on 2026-03-04');
      expect(container.querySelectorAll('img, video, iframe, a')).toHaveLength(0);
      unmount();
    }
  });

  it('shows a video with its poster and a player', async () => {
    const item = { ...queueItem('sub_v', 'Clip'), media_type: 'video' as const };
    const { container } = render(
      <MediaView
        submission={detail(item, {
          click_zones: [],
          poster_url: '/media/sub_v/poster',
          video_url: '/media/sub_v/original',
          image_url: null,
        })}
      />,
    );
    // Our player loads on demand, with its own timeline instead of the browser's controls.
    await screen.findByRole('slider', { name: /Timeline/ });
    const video = container.querySelector('video')!;
    expect(video.getAttribute('poster')).toBe('/media/sub_v/poster');
    expect(video.getAttribute('src')).toBe('/media/sub_v/original');
  });

  it("shows a Stream video's poster and embeds Stream's player for its HLS address", () => {
    const item = { ...queueItem('sub_s', 'Stream clip'), media_type: 'video' as const };
    const hls = 'https://customer-abc.cloudflarestream.com/0123456789abcdef0123456789abcdef/manifest/video.m3u8';
    render(
      <MediaView
        submission={detail(item, {
          click_zones: [],
          poster_url: '/media/sub_s/poster',
          video_url: hls,
          image_url: null,
        })}
      />,
    );
    expect(screen.getByRole('img', { name: 'Poster of Stream clip' }).getAttribute('src')).toBe('/media/sub_s/poster');
    expect(screen.getByTitle('Player: Stream clip').getAttribute('src')).toBe(
      'https://customer-abc.cloudflarestream.com/0123456789abcdef0123456789abcdef/iframe',
    );
  });
});
