import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isTyping } from './player-keys';
import { createPlayerLink } from './player-link';
import { cueAt, parseSpriteVtt } from './sprite-vtt';
import { formatTimecode, frameRateOf, stepFrames } from './timecode';
import VideoPlayer from './VideoPlayer';

const VTT = [
  'WEBVTT',
  '',
  '00:00:00.000 --> 00:00:01.000',
  'sprite.webp#xywh=0,0,160,90',
  '',
  'NOTE not a cue',
  '',
  '00:00:01.000 --> 00:00:02.000',
  'sprite.webp#xywh=160,0,160,90',
  '',
  '00:00:02.000 --> 00:01:02.500',
  'sprite.webp#xywh=0,90,160,90',
  '',
].join('\r\n');

describe('sprite track', () => {
  it('parses each cue of times and #xywh regions, skipping the header and notes', () => {
    expect(parseSpriteVtt(VTT)).toEqual([
      { start: 0, end: 1, x: 0, y: 0, w: 160, h: 90 },
      { start: 1, end: 2, x: 160, y: 0, w: 160, h: 90 },
      { start: 2, end: 62.5, x: 0, y: 90, w: 160, h: 90 },
    ]);
  });

  it('finds the cue for a time, the last one past the end, none without cues', () => {
    const cues = parseSpriteVtt(VTT);
    expect(cueAt(cues, 1.5)?.x).toBe(160);
    expect(cueAt(cues, 1)?.x).toBe(160);
    expect(cueAt(cues, 100)?.y).toBe(90);
    expect(cueAt([], 1)).toBeNull();
  });
});

describe('timecode', () => {
  it('shows the time to the frame at 25 fps, hours only past an hour', () => {
    expect(formatTimecode(3.48)).toBe('00:03.12');
    expect(formatTimecode(0)).toBe('00:00.00');
    expect(formatTimecode(61.96)).toBe('01:01.24');
    expect(formatTimecode(3600 + 0.04)).toBe('01:00:00.01');
  });

  it("numbers a measured rate's frames: 30 fps, and 29.97 by its whole rate (non-drop-frame)", () => {
    expect(formatTimecode(3.5, 30)).toBe('00:03.15');
    expect(formatTimecode(10, 29.97)).toBe('00:10.00');
    expect(stepFrames(1, 1, 10, 30)).toBeCloseTo(1 + 1 / 30, 6);
    expect(frameRateOf({ frame_rate: 29.97 })).toBe(29.97);
    expect(frameRateOf(null)).toBe(25);
  });

  it('steps one frame, snapped, and stays inside the video', () => {
    expect(stepFrames(1, 1, 10)).toBeCloseTo(1.04, 6);
    expect(stepFrames(1.01, -1, 10)).toBeCloseTo(0.96, 6);
    expect(stepFrames(0, -1, 10)).toBe(0);
    expect(stepFrames(10, 1, 10)).toBe(10);
  });
});

describe('VideoPlayer', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const renderPlayer = (extra: Partial<Parameters<typeof VideoPlayer>[0]> = {}) =>
    render(<VideoPlayer src="/media/sub_v/original" name="Clip" durationMs={10_000} {...extra} />);

  it('steps a frame with . and , and keeps the keys from the queue while it has focus', () => {
    const queueKeys = vi.fn();
    window.addEventListener('keydown', queueKeys);
    try {
      renderPlayer();
      const timeline = screen.getByRole('slider', { name: /Timeline/ });
      timeline.focus();
      fireEvent.keyDown(timeline, { key: '.' });
      expect(screen.getByTestId('player-time').textContent).toBe('00:00.01');
      fireEvent.keyDown(timeline, { key: '.' });
      fireEvent.keyDown(timeline, { key: ',' });
      expect(screen.getByTestId('player-time').textContent).toBe('00:00.01');
      fireEvent.keyDown(timeline, { key: 'j' });
      expect(screen.getByTestId('player-time').textContent).toBe('00:00.00');
      expect(queueKeys).not.toHaveBeenCalled();
      // A key the player does not use still reaches the queue.
      fireEvent.keyDown(timeline, { key: 'p' });
      expect(queueKeys).toHaveBeenCalledTimes(1);
    } finally {
      window.removeEventListener('keydown', queueKeys);
    }
  });

  it('steps by the frame rate the worker measured (a 30 fps video), not the 25 fps default', () => {
    const measurement = {
      black_seconds: 0,
      black_share: 0,
      frozen_seconds: 0,
      frozen_share: 0,
      has_audio: false,
      frame_rate: 30,
      stretches: { black: [], frozen: [] },
    };
    renderPlayer({ measurement });
    const [video] = screen.getAllByLabelText(/^Video: /) as HTMLVideoElement[];
    const timeline = screen.getByRole('slider', { name: /Timeline/ });
    timeline.focus();
    for (let i = 0; i < 15; i++) fireEvent.keyDown(timeline, { key: '.' });
    expect(video!.currentTime).toBeCloseTo(0.5, 6);
    expect(screen.getByTestId('player-time').textContent).toBe('00:00.15');
  });

  it('leaves keys typed in a field alone', () => {
    const input = document.createElement('input');
    expect(isTyping(input)).toBe(true);
    const box = document.createElement('input');
    box.type = 'checkbox';
    expect(isTyping(box)).toBe(false);
    expect(isTyping(document.createElement('textarea'))).toBe(true);
    expect(isTyping(document.createElement('div'))).toBe(false);
  });

  it("shows the sprite's frame for the time under the pointer", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(VTT)),
    );
    renderPlayer({ sprite: '/media/sub_v/sprite', spriteVtt: '/media/sub_v/sprite_vtt' });
    const timeline = screen.getByRole('slider', { name: /Timeline/ });
    timeline.getBoundingClientRect = () => ({ left: 0, width: 100, top: 0, height: 10 }) as DOMRect;
    await waitFor(() => expect(fetch).toHaveBeenCalledWith('/media/sub_v/sprite_vtt', expect.anything()));
    fireEvent.pointerMove(timeline, { clientX: 15 });
    const frame = await screen.findByTestId('sprite-preview');
    expect(frame.style.backgroundImage).toContain('/media/sub_v/sprite');
    expect(frame.style.backgroundPosition).toBe('-160px 0px');
    fireEvent.pointerMove(timeline, { clientX: 50 });
    expect(screen.getByTestId('sprite-preview').style.backgroundPosition).toBe('0px -90px');
  });

  it('draws the measured stretches and the moments as buttons that seek to their start', () => {
    renderPlayer({
      measurement: {
        black_seconds: 1,
        black_share: 0.1,
        frozen_seconds: 2,
        frozen_share: 0.2,
        silent_seconds: 1,
        silent_share: 0.1,
        has_audio: true,
        stretches: { black: [{ start: 0, end: 1 }], frozen: [{ start: 4, end: 6 }], silent: [{ start: 8, end: 9 }] },
      },
      lanes: [
        {
          kind: 'decision',
          name: 'Time-coded feedback',
          moments: [
            { at: 2, label: 'Logo cut off' },
            { start: 3, end: 5, label: 'Flicker' },
          ],
        },
        {
          kind: 'note',
          name: "Internal notes' time-coded items",
          prefix: 'Note: ',
          moments: [{ at: 7, label: 'Check' }],
        },
      ],
    });
    const frozen = screen.getByRole('button', { name: 'Frozen 4.00 s to 6.00 s' });
    expect(frozen.style.left).toBe('40%');
    expect(frozen.style.width).toBe('20%');
    expect(screen.getByRole('button', { name: 'Black 0.00 s to 1.00 s' }).textContent).toBe('Black');
    expect(screen.getByRole('button', { name: 'Silent 8.00 s to 9.00 s' }).textContent).toBe('Silent');
    fireEvent.click(frozen);
    expect(screen.getByTestId('player-time').textContent).toBe('00:04.00');
    fireEvent.click(screen.getByRole('button', { name: 'Flicker at 3.00 s to 5.00 s' }));
    expect(screen.getByTestId('player-time').textContent).toBe('00:03.00');
    expect(screen.getByRole('button', { name: 'Logo cut off at 2.00 s' }).style.left).toBe('20%');
    // A note's item carries its label on the timeline and seeks like the decision's.
    const note = screen.getByRole('button', { name: 'Note: Check at 7.00 s' });
    expect(note.textContent).toBe('Check');
    fireEvent.click(note);
    expect(screen.getByTestId('player-time').textContent).toBe('00:07.00');
  });

  it('keeps linked players in step: a seek, a frame step or a pause in one does the same in the other', () => {
    const link = createPlayerLink();
    render(
      <>
        <VideoPlayer src="/a" name="A" durationMs={10_000} link={link} />
        <VideoPlayer src="/b" name="B" durationMs={10_000} link={link} timeline={false} />
      </>,
    );
    const [a, b] = screen.getAllByLabelText(/^Video: /) as HTMLVideoElement[];
    const pause = vi.spyOn(b!, 'pause').mockImplementation(() => undefined);
    const timeline = screen.getByRole('slider', { name: /Timeline/ });
    expect(screen.getAllByRole('slider')).toHaveLength(1);
    timeline.getBoundingClientRect = () => ({ left: 0, width: 100, top: 0, height: 10 }) as DOMRect;
    fireEvent.pointerDown(timeline, { clientX: 30 });
    fireEvent.pointerUp(timeline);
    expect([a!.currentTime, b!.currentTime]).toEqual([3, 3]);
    fireEvent.keyDown(timeline, { key: '.' });
    expect(b!.currentTime).toBeCloseTo(3.04, 6);
    expect(pause).toHaveBeenCalled();
    const times = screen.getAllByTestId('player-time').map((t) => t.textContent);
    expect(times).toEqual(['00:03.01', '00:03.01']);
    // Keys on the other player drive the first as well.
    fireEvent.keyDown(b!, { key: ',' });
    expect([a!.currentTime, b!.currentTime]).toEqual([3, 3]);
  });
});
