import { type RefObject, useEffect, useMemo, useRef } from 'react';
import type { PlayerControls } from './player-keys';
import type { LinkEvent, PlayerLink } from './player-link';

/**
 * The controls the keys, the timeline and the buttons use: each acts on this player's video and,
 * with a `link`, is sent to the players in step with it, whose own events are applied here.
 */
export function usePlayerControls(
  video: RefObject<HTMLVideoElement | null>,
  setTime: (t: number) => void,
  link: PlayerLink | undefined,
): PlayerControls {
  // What this player does to its own video; `controls` also tells the linked players.
  const own = useMemo(() => {
    const el = () => video.current;
    const seek = (t: number) => {
      const v = el();
      if (!v) return;
      v.currentTime = t;
      setTime(t);
    };
    const play = (rate: number) => {
      const v = el();
      if (!v) return;
      v.playbackRate = rate;
      void v.play()?.catch(() => undefined);
    };
    const apply = (e: LinkEvent) => {
      seek(e.time);
      if (e.type === 'play') play(e.rate);
      if (e.type === 'pause') el()?.pause();
    };
    return { seek, play, apply, pause: () => el()?.pause(), time: () => el()?.currentTime ?? 0 };
  }, [video, setTime]);
  const me = useRef({});
  useEffect(() => link?.join(me.current, own.apply), [link, own]);

  return useMemo(
    () => ({
      time: own.time,
      duration: () => video.current?.duration ?? 0,
      seek: (t) => {
        own.seek(t);
        link?.send(me.current, { type: 'seek', time: t });
      },
      play: (rate) => {
        own.play(rate);
        link?.send(me.current, { type: 'play', time: own.time(), rate });
      },
      pause: () => {
        own.pause();
        link?.send(me.current, { type: 'pause', time: own.time() });
      },
      playing: () => !!video.current && !video.current.paused,
      rate: () => video.current?.playbackRate ?? 1,
    }),
    [own, link, video],
  );
}
