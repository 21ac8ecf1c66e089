import { DEFAULT_REJECT_REASONS, type DecisionInput, type Region, VISIBILITIES, type Visibility } from '../api/types';
import type { ReviewMoment } from '@framedesk/contracts';
import { Button, DialogTrigger, Kbd, PopoverDialog, Select } from '../ui';
import { labelled } from './Regions';
import { RejectReasons } from './RejectReasons';

export interface DecisionBarProps {
  readonly visibility: Visibility;
  readonly reasons?: readonly string[];
  readonly disabled?: boolean;
  readonly rejecting: boolean;
  readonly onRejecting: (open: boolean) => void;
  readonly onDecide: (decision: DecisionInput) => void;
  readonly onVisibility: (visibility: Visibility) => void;
  /** Boxes drawn on the frame: a rejection sends them, labelled. */
  readonly regions?: readonly Region[];
  /** A video's time-coded items: a rejection sends them as `moments`. */
  readonly moments?: readonly ReviewMoment[];
}

/** Promote, Reject (a reason from a numbered list plus free text, in a popover) and the visibility. */
export function DecisionBar({
  visibility,
  reasons = DEFAULT_REJECT_REASONS,
  disabled,
  rejecting,
  onRejecting,
  onDecide,
  onVisibility,
  regions = [],
  moments = [],
}: DecisionBarProps) {
  return (
    <div className="decisions">
      <div className="decision-buttons">
        <Button
          variant="success"
          size="lg"
          isDisabled={disabled ?? false}
          onPress={() => onDecide({ decision: 'promote' })}
        >
          Promote
        </Button>
        <Kbd>p</Kbd>
        <DialogTrigger isOpen={rejecting} onOpenChange={onRejecting}>
          <Button variant="danger" size="lg" isDisabled={disabled ?? false}>
            Reject
          </Button>
          <PopoverDialog label="Reject this frame" placement="top start" className="reject-popover">
            <RejectReasons
              reasons={reasons}
              regions={regions}
              moments={moments.length}
              confirmLabel="Confirm rejection"
              onCancel={() => onRejecting(false)}
              onConfirm={(reason, note) => {
                onDecide({
                  decision: 'reject',
                  reason,
                  ...(note ? { note } : {}),
                  ...(regions.length ? { regions: labelled(regions) } : {}),
                  ...(moments.length ? { moments } : {}),
                });
                onRejecting(false);
              }}
            />
          </PopoverDialog>
        </DialogTrigger>
        <Kbd>r</Kbd>
        <Select
          className="visibility"
          label="Visibility"
          value={visibility}
          isDisabled={disabled ?? false}
          onChange={(v) => onVisibility(v as Visibility)}
          options={VISIBILITIES.map((v) => ({ id: v, label: v.replaceAll('_', ' ') }))}
        />
      </div>
    </div>
  );
}
