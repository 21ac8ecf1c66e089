import type { ClickZone, RejectReason, ReviewMoment, ReviewRegion } from '@framedesk/contracts';
import type { ResendEdit } from '@framedesk/media';
import {
  blankFrame,
  cycleLanesHeadline,
  roofView,
  type SceneRect,
  scoreCard,
  TRAM_CARD_LINKS,
  testCard,
  tramHeadline,
} from './scenes/cards';
import { rainfallChart, stormMap, trafficChart } from './scenes/charts';
import {
  ferryCrossing,
  harbourSunrise,
  mountainPass,
  nightMarket,
  riversidePark,
  skylineAtDusk,
} from './scenes/landscapes';
import type { Rng } from './scenes/svg';

/** Where a sample ends once seeded: waiting in the queue, decided, or failed in processing. */
export type SampleOutcome = 'needs_review' | 'promoted' | 'rejected' | 'failed';

export interface SampleChannel {
  readonly slug: string;
  readonly name: string;
}

/** The channels the samples go to (the demo agent is allowed on each): two, so the switcher has a choice. */
export const SAMPLE_CHANNELS: readonly SampleChannel[] = [
  { slug: 'demo', name: 'Demo channel' },
  { slug: 'city-desk', name: 'City desk' },
];

/** How a sample's media is made. */
export type SamplePicture =
  /** An SVG scene rasterised to PNG. */
  | { readonly kind: 'scene'; readonly draw: (r: Rng) => string }
  /** A re-sent copy of another sample's scene (a near-duplicate of it). */
  | { readonly kind: 'resend'; readonly of: string; readonly edit: ResendEdit }
  /** A PNG cut short: right signature and header, data that does not decode (fails as invalid_image). */
  | { readonly kind: 'truncated'; readonly width: number; readonly height: number }
  /** An MP4 of `seconds` of frames drawn at `progress` 0–1 (needs ffmpeg). */
  | { readonly kind: 'clip'; readonly draw: (r: Rng, progress: number) => string; readonly seconds: number };

export interface SampleSpec {
  /** Stable and unique: the Idempotency-Key and `external_ref` (`sample:<name>`) are made from it. */
  readonly name: string;
  readonly channel: string;
  readonly title: string;
  readonly caption: string;
  /** The frame's date: this many days before the day the set is sent. */
  readonly daysAgo: number;
  readonly outcome: SampleOutcome;
  /** For `rejected`: the reason a reviewer picked, with a note and the regions they marked. */
  readonly rejection?: {
    readonly reason: RejectReason;
    readonly note: string;
    readonly regions?: readonly ReviewRegion[];
    /** A video's time-coded items (docs/video.md, "Feedback pinned to a moment"). */
    readonly moments?: readonly ReviewMoment[];
  };
  /** The channel's review policy decides it (DEMO_POLICY), not the demo reviewer. */
  readonly byPolicy?: true;
  /** A revision (`metadata.revision_of`) of this sample, sent once that one is decided. */
  readonly revisionOf?: string;
  readonly clickZones?: readonly ClickZone[];
  readonly picture: SamplePicture;
}

function zone(rect: SceneRect, url: string, label: string): ClickZone {
  const round = (v: number) => Math.round(v * 10_000) / 10_000;
  return {
    x: round(rect.x / rect.sceneWidth),
    y: round(rect.y / rect.sceneHeight),
    width: round(rect.width / rect.sceneWidth),
    height: round(rect.height / rect.sceneHeight),
    url,
    label,
  };
}

/**
 * The sample set: what an agent of a small newsroom might send in a few days. Three frames are one
 * picture sent again (re-cropped and re-encoded, then resized and brightened), so the queue shows
 * "Looks like N"; one card has click zones; one upload is cut short and fails; one is a video; a
 * blank render is rejected by the demo channel's policy; one rejection marks regions and its
 * revision waits for review; a second video is rejected with time-coded items.
 */
export const SAMPLE_SPECS: readonly SampleSpec[] = [
  {
    name: 'harbour-sunrise',
    channel: 'demo',
    title: 'Sunrise over the east harbour',
    caption: 'First light over the east pier at 06:12; calm water and a light haze over the hills.',
    daysAgo: 3,
    outcome: 'promoted',
    picture: { kind: 'scene', draw: harbourSunrise },
  },
  {
    name: 'mountain-pass',
    channel: 'demo',
    title: 'Fresh snow on the northern pass',
    caption: 'The ridge road above the tree line this morning; chains advised after the second bend.',
    daysAgo: 2,
    outcome: 'needs_review',
    picture: { kind: 'scene', draw: mountainPass },
  },
  {
    name: 'derby-score',
    channel: 'demo',
    title: 'Full time: Harbour City 3–1 Riverside',
    caption: 'Two late goals from Okafor settle the derby in front of 18,402.',
    daysAgo: 1,
    outcome: 'promoted',
    picture: { kind: 'scene', draw: scoreCard },
  },
  {
    name: 'tram-line-4',
    channel: 'demo',
    title: 'Tram line 4 reopens on Monday',
    caption: 'Service resumes after six weeks of track work; the first tram leaves the depot at 05:40.',
    daysAgo: 0,
    outcome: 'needs_review',
    clickZones: [
      zone(TRAM_CARD_LINKS.story, 'https://news.example.org/transport/tram-line-4-reopens', 'Read the story'),
      zone(TRAM_CARD_LINKS.timetable, 'https://transit.example.org/lines/4/timetable', 'Timetable'),
      zone(TRAM_CARD_LINKS.routeMap, 'https://transit.example.org/lines/4/map', 'Route map'),
    ],
    picture: { kind: 'scene', draw: tramHeadline },
  },
  {
    name: 'rainfall-week',
    channel: 'demo',
    title: 'Rainfall this week',
    caption: '42 mm since Monday at the city weather station, most of it in Wednesday’s storm.',
    daysAgo: 0,
    outcome: 'promoted',
    picture: { kind: 'scene', draw: rainfallChart },
  },
  {
    name: 'storm-front',
    channel: 'demo',
    title: 'Storm front moving in from the west',
    caption: 'Gusts up to 70 km/h expected along the coast after 18:00; ferries may be cancelled.',
    daysAgo: 0,
    outcome: 'needs_review',
    picture: { kind: 'scene', draw: stormMap },
  },
  {
    name: 'roof-cam-3',
    channel: 'demo',
    title: 'Roof camera 3, 06:00',
    caption: 'Automatic snapshot from the roof camera.',
    daysAgo: 2,
    outcome: 'rejected',
    rejection: {
      reason: 'Low quality',
      note: 'The camera was offline: test pattern only. Please send a new snapshot once it is back.',
      regions: [
        { x: 0.2656, y: 0.3472, width: 0.4688, height: 0.1944, label: 'No signal' },
        { x: 0, y: 0, width: 1, height: 0.6667, label: 'Colour bars instead of the view' },
      ],
    },
    picture: { kind: 'scene', draw: testCard },
  },
  {
    name: 'roof-cam-1-blank',
    channel: 'demo',
    title: 'Roof camera 1, 06:00',
    caption: 'Automatic snapshot from the roof camera.',
    daysAgo: 0,
    outcome: 'rejected',
    byPolicy: true,
    picture: { kind: 'scene', draw: blankFrame },
  },
  {
    name: 'roof-cam-2',
    channel: 'demo',
    title: 'Roof camera 2, 06:00',
    caption: 'Automatic snapshot; the upload was cut short by the camera’s modem.',
    daysAgo: 0,
    outcome: 'failed',
    picture: { kind: 'truncated', width: 1280, height: 720 },
  },
  {
    name: 'cycle-lanes-vote',
    channel: 'city-desk',
    title: 'Council approves new cycle lanes',
    caption: 'Twelve kilometres of protected lanes by next spring; the vote passed 31 to 14.',
    daysAgo: 1,
    outcome: 'needs_review',
    picture: { kind: 'scene', draw: cycleLanesHeadline },
  },
  {
    name: 'ring-road-traffic',
    channel: 'city-desk',
    title: 'Morning traffic on the ring road',
    caption: 'Travel times peaked after 08:00, twenty minutes later than last Tuesday.',
    daysAgo: 2,
    outcome: 'promoted',
    picture: { kind: 'scene', draw: trafficChart },
  },
  {
    name: 'riverside-park',
    channel: 'city-desk',
    title: 'Evening in Riverside Park',
    caption: 'Long shadows on the lawn as the summer concerts begin.',
    daysAgo: 1,
    outcome: 'needs_review',
    picture: { kind: 'scene', draw: riversidePark },
  },
  {
    name: 'skyline-dusk',
    channel: 'city-desk',
    title: 'The skyline at dusk from the old bridge',
    caption: 'Office towers light up as the evening shift starts.',
    daysAgo: 0,
    outcome: 'promoted',
    picture: { kind: 'scene', draw: skylineAtDusk },
  },
  {
    name: 'night-market',
    channel: 'city-desk',
    title: 'Night market opens on Quay Street',
    caption: 'Forty stalls this year, open until midnight on Fridays and Saturdays.',
    daysAgo: 0,
    outcome: 'needs_review',
    picture: { kind: 'scene', draw: nightMarket },
  },
  {
    name: 'ferry-crossing',
    channel: 'city-desk',
    title: 'The 09:30 ferry leaving the east pier',
    caption: 'Crossings run every half hour again after the winter timetable.',
    daysAgo: 0,
    outcome: 'needs_review',
    picture: { kind: 'clip', draw: ferryCrossing, seconds: 3 },
  },
  {
    name: 'ferry-crossing-rerender',
    channel: 'city-desk',
    title: 'The 10:00 ferry, rendered again',
    caption: 'A second render of the crossing; the encoder dropped frames half-way.',
    daysAgo: 0,
    outcome: 'rejected',
    rejection: {
      reason: 'Low quality',
      note: 'The ferry jumps between 1 s and 2.5 s; render those frames again.',
      moments: [
        { at: 0.5, label: 'Last smooth frame' },
        {
          start: 1,
          end: 2.5,
          label: 'Ferry jumps: frames dropped',
          region: { x: 0.2, y: 0.35, width: 0.5, height: 0.4 },
        },
      ],
    },
    picture: { kind: 'clip', draw: ferryCrossing, seconds: 3 },
  },
  // Re-sends come last: each is sent after the frames it repeats are processed, so their
  // fingerprints are there to be found.
  {
    name: 'harbour-sunrise-resend',
    channel: 'demo',
    title: 'East harbour at dawn',
    caption: 'Same view, sent again by the camera after a network drop.',
    daysAgo: 3,
    outcome: 'needs_review',
    picture: { kind: 'resend', of: 'harbour-sunrise', edit: { crop: 0.02, jpegQuality: 70 } },
  },
  {
    name: 'harbour-sunrise-social',
    channel: 'demo',
    title: 'Harbour sunrise, from our social feed',
    caption: 'A smaller, brightened copy of this morning’s harbour picture.',
    daysAgo: 2,
    outcome: 'needs_review',
    picture: { kind: 'resend', of: 'harbour-sunrise', edit: { scale: 0.75, brightness: 1.06 } },
  },
  // A revision goes once the frame it replaces is decided: the workbench shows the version stack.
  {
    name: 'roof-cam-3-retake',
    channel: 'demo',
    title: 'Roof camera 3, 06:00 (new snapshot)',
    caption: 'The camera is back online: the view over the old town this morning.',
    daysAgo: 2,
    outcome: 'needs_review',
    revisionOf: 'roof-cam-3',
    picture: { kind: 'scene', draw: roofView },
  },
];

/**
 * The demo channel's review policy (docs/policies.md): a blank render is rejected without a
 * person, so a first run shows a decision by a rule (`roof-cam-1-blank`).
 */
export const DEMO_POLICY = {
  rules: [{ name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' }],
} as const;
