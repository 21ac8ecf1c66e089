import { Checkbox } from '../ui';

/** Ticks for channels (a reviewer sees only the ones ticked): a fieldset of checkboxes, one per channel. */
export function ChannelPicker({
  legend,
  channels,
  chosen,
  onChange,
}: {
  readonly legend: string;
  readonly channels: readonly { readonly slug: string; readonly name: string }[];
  readonly chosen: ReadonlySet<string>;
  readonly onChange: (next: Set<string>) => void;
}) {
  return (
    <fieldset className="channel-picker">
      <legend>{legend}</legend>
      {channels.length === 0 && <p className="hint">No channels yet.</p>}
      {channels.map((c) => (
        <Checkbox
          key={c.slug}
          isSelected={chosen.has(c.slug)}
          onChange={(on) => {
            const next = new Set(chosen);
            if (on) next.add(c.slug);
            else next.delete(c.slug);
            onChange(next);
          }}
        >
          {c.name === c.slug ? c.slug : `${c.name} (${c.slug})`}
        </Checkbox>
      ))}
    </fieldset>
  );
}
