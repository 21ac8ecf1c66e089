/**
 * Players kept in step (the compare view, docs/video.md): what a reviewer does to one — seek, play,
 * pause, step a frame — is sent to the others, which apply it without sending it on (no echo).
 * Each carries the time, so a pause or a play also brings the other video to the same frame.
 */
export type LinkEvent =
  | { readonly type: 'seek'; readonly time: number }
  | { readonly type: 'play'; readonly time: number; readonly rate: number }
  | { readonly type: 'pause'; readonly time: number };

export interface PlayerLink {
  /** Joins the link; returns the leave. `apply` hears the other players' events, never its own. */
  join(member: object, apply: (event: LinkEvent) => void): () => void;
  send(from: object, event: LinkEvent): void;
}

export function createPlayerLink(): PlayerLink {
  const members = new Map<object, (event: LinkEvent) => void>();
  return {
    join(member, apply) {
      members.set(member, apply);
      return () => {
        members.delete(member);
      };
    },
    send(from, event) {
      for (const [member, apply] of members) if (member !== from) apply(event);
    },
  };
}
