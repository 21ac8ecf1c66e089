import './similar.css';

/** "Looks like N": this frame resembles N earlier frames of its channel (near-duplicates). */
export function SimilarBadge({ count }: { readonly count: number | undefined }) {
  if (!count) return null;
  const label = `Looks like ${count} earlier frame${count === 1 ? '' : 's'}`;
  return (
    <span className="ui-badge ui-badge--warning similar-badge" title={label} aria-label={label}>
      Looks like {count}
    </span>
  );
}
