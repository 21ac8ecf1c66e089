import type { SubmissionDetail } from '../api/types';

/** The frame at screen size; click zones drawn over an image as outlined boxes. */
export function MediaView({ submission }: { readonly submission: SubmissionDetail }) {
  if (submission.media_type === 'video') {
    return (
      <div className="media">
        {submission.video_url ? (
          <video
            controls
            preload="metadata"
            poster={submission.poster_url ?? undefined}
            src={submission.video_url}
            aria-label={`Video: ${submission.title ?? submission.id}`}
          />
        ) : submission.poster_url ? (
          <img src={submission.poster_url} alt={`Poster of ${submission.title ?? submission.id}`} />
        ) : (
          <p>The video is not available yet.</p>
        )}
      </div>
    );
  }
  return (
    <div className="media">
      <div className="frame">
        {submission.image_url ? (
          <img src={submission.image_url} alt={submission.title ?? submission.id} />
        ) : (
          <div className="frame-missing">No image variant yet</div>
        )}
        {submission.click_zones.map((zone, index) => (
          <a
            key={index}
            className="click-zone"
            data-testid="click-zone"
            href={zone.url}
            target="_blank"
            rel="noopener noreferrer"
            title={zone.url}
            aria-label={`${zone.label ?? `Zone ${index + 1}`}: ${zone.url}`}
            style={{
              left: `${zone.x * 100}%`,
              top: `${zone.y * 100}%`,
              width: `${zone.width * 100}%`,
              height: `${zone.height * 100}%`,
            }}
          >
            <span className="zone-label">{zone.label ?? `Zone ${index + 1}`}</span>
            <span className="zone-url">{zone.url}</span>
          </a>
        ))}
      </div>
    </div>
  );
}
